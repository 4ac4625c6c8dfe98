// The background writer's thread: jobs in order, one at a time, errors brought back to the caller.
#include "host/util/serial_worker.hpp"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace rbmc {
namespace {

TEST(SerialWorker, RunsJobsInOrderAndRethrowsTheirErrors) {
  std::vector<int> done;
  {
    SerialWorker worker;
    for (int k = 0; k < 100; ++k) worker.submit([&done, k] { done.push_back(k); });
    worker.wait();
    ASSERT_EQ(done.size(), 100u);
    for (int k = 0; k < 100; ++k) EXPECT_EQ(done[std::size_t(k)], k);
    worker.submit([] { throw std::runtime_error("disk full"); });
    EXPECT_THROW(worker.wait(), std::runtime_error);
    worker.wait();  // the error is reported once
    worker.submit([&done] { done.push_back(100); });
  }  // the destructor lets the last job finish
  EXPECT_EQ(done.back(), 100);
}

}  // namespace
}  // namespace rbmc

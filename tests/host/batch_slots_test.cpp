// The orchestration of a batch begun ahead (host/backend/batch_slots.hpp), as the CUDA backend
// uses it: the slot a batch goes into, which one the later primitives read, a stop, a drop.
#include "host/backend/batch_slots.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "host/backend/backend.hpp"

namespace rbmc {
namespace {

struct NumberedSlot {
  int batch = -1;  // the batch it holds
  bool saw_drop = false;
};

// Batches go into alternate slots, integrated in turn or begun ahead; the current slot is the one
// integrated or finished last, whatever the next batch is doing meanwhile.
TEST(BatchSlots, TheCurrentSlotHoldsTheBatchIntegratedOrFinishedLast) {
  BatchSlots<NumberedSlot> slots;
  StageTimings timings;
  slots.next().batch = 0;  // integrated in turn
  slots.integrated();
  EXPECT_EQ(slots.current().batch, 0);
  for (int k = 1; k < 5; ++k) {
    slots.begin([k](NumberedSlot& s, const std::atomic<bool>&) { s.batch = k; });
    EXPECT_THROW(slots.begin([](NumberedSlot&, const std::atomic<bool>&) {}), std::logic_error);  // one at a time
    EXPECT_THROW(slots.integrated(), std::logic_error);
    EXPECT_EQ(slots.current().batch, k - 1);  // the later primitives still read the one before
    EXPECT_EQ(slots.finish(timings).batch, k);
    EXPECT_EQ(slots.current().batch, k);
  }
  EXPECT_THROW(slots.finish(timings), std::logic_error);  // nothing begun
}

// A begun batch abandoned on a stop: finish rethrows BatchAbandoned and the current slot stays the
// batch before it. A drop asks the work to stop and waits for it.
TEST(BatchSlots, AnAbandonedBatchLeavesTheCurrentSlotAndADropStopsTheWork) {
  BatchSlots<NumberedSlot> slots;
  StageTimings timings;
  slots.next().batch = 0;
  slots.integrated();
  slots.begin([](NumberedSlot&, const std::atomic<bool>&) { throw BatchAbandoned(); });
  EXPECT_THROW(slots.finish(timings), BatchAbandoned);
  EXPECT_EQ(slots.current().batch, 0);
  EXPECT_FALSE(slots.begun());
  slots.begin([](NumberedSlot& s, const std::atomic<bool>& dropped) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!dropped.load() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    s.saw_drop = dropped.load();
    throw BatchAbandoned();
  });
  EXPECT_TRUE(slots.drop());  // returns once the work has seen it
  EXPECT_TRUE(slots.next().saw_drop);
  EXPECT_FALSE(slots.drop());  // nothing begun any more
  EXPECT_EQ(slots.current().batch, 0);
  // The next batch begins afresh: no stop left over from the drop.
  slots.begin([](NumberedSlot& s, const std::atomic<bool>& dropped) { s.saw_drop = dropped.load(); });
  EXPECT_FALSE(slots.finish(timings).saw_drop);
}

}  // namespace
}  // namespace rbmc

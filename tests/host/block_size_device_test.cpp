// The thin drivers' block size is each kernel's own (kernels/block_size.cuh): every batch kernel
// of one precision has one signature, and an answer kept per signature would give all of them
// the first one's. Skipped where no device is present, including CPU-only builds.
#include <gtest/gtest.h>

#include "host/backend/backend.hpp"
#if defined(RBMC_HAVE_CUDA)
#include "block_size_device.hpp"
#endif

namespace rbmc {
namespace {

TEST(KernelBlockSize, IsEachKernelsOwnOccupancyAnswer) {
  if (!cuda_device_available()) GTEST_SKIP() << "no CUDA device (or a build without CUDA)";
#if defined(RBMC_HAVE_CUDA)
  const test::TwoKernelsBlockSizes sizes = test::block_sizes_of_two_kernels_of_one_signature();
  EXPECT_EQ(sizes.bounded_64.cached, sizes.bounded_64.asked);
  EXPECT_EQ(sizes.bounded_256.cached, sizes.bounded_256.asked);
  // Launch bounds cap the occupancy API's answer: the two differ, so a shared answer would show.
  EXPECT_LE(sizes.bounded_64.asked, 64u);
  EXPECT_GT(sizes.bounded_256.asked, 64u);
#endif
}

}  // namespace
}  // namespace rbmc

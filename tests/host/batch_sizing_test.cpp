#include <gtest/gtest.h>

#include <cstdint>

#include "host/run/batch_sizing.hpp"

namespace rbmc {
namespace {

// A GPU's bound: what half of an H100's free memory holds of a free body's batch buffers.
constexpr std::size_t kGpuLargest = std::size_t(1) << 22;

BatchSizeNeeds needs_of(std::uint64_t n, std::size_t backend_largest = kGpuLargest) {
  BatchSizeNeeds needs;
  needs.n_samples = n;
  needs.backend_largest = backend_largest;
  return needs;
}

std::uint64_t batches_of(std::uint64_t n, std::size_t batch) { return (n + batch - 1) / batch; }

// Issue 12: memory stays flat in N. A run's buffers are sized by its batch, so the batch must
// stop growing with N: from 8 × kLargestBatch samples (about 10⁶) on it is the same for every N,
// with any backend bound above it. Below that it grows with N so that a run still overlaps.
TEST(BatchSizing, IsTheSameForEveryRunOfAMillionSamplesOrMore) {
  const std::uint64_t plateau = kOverlapBatches * kLargestBatch;
  for (std::size_t largest : {std::size_t(kLargestBatch), kGpuLargest, std::size_t(1) << 30}) {
    const std::size_t at_plateau = default_batch_size(needs_of(plateau, largest));
    EXPECT_EQ(at_plateau, kLargestBatch);
    for (std::uint64_t n : {plateau + 1, std::uint64_t(4'000'000), std::uint64_t(10'000'000),
                            std::uint64_t(1) << 34, std::uint64_t(1) << 50})
      EXPECT_EQ(default_batch_size(needs_of(n, largest)), at_plateau) << "N = " << n << ", backend " << largest;
  }
  // Never more than the plateau, and never fewer samples a batch for a larger run.
  std::size_t previous = 0;
  for (std::uint64_t n = 1; n < 4 * plateau; n = n * 3 / 2 + 1) {
    const std::size_t batch = default_batch_size(needs_of(n));
    EXPECT_LE(batch, kLargestBatch) << "N = " << n;
    EXPECT_GE(batch, previous) << "N = " << n;
    previous = batch;
  }
}

// A run of more than kSmallestOverlapBatch samples goes in several batches, at least
// kOverlapBatches of at least kSmallestOverlapBatch where it is large enough; a smaller one in one
// batch of all its samples.
TEST(BatchSizing, ALargeRunOverlapsInSeveralBatches) {
  EXPECT_EQ(default_batch_size(needs_of(1)), 1u);
  EXPECT_EQ(default_batch_size(needs_of(1000)), 1000u);
  EXPECT_EQ(default_batch_size(needs_of(kSmallestOverlapBatch)), kSmallestOverlapBatch);
  EXPECT_EQ(batches_of(kSmallestOverlapBatch + 1, default_batch_size(needs_of(kSmallestOverlapBatch + 1))), 2u);
  for (std::uint64_t n : {kOverlapBatches * kSmallestOverlapBatch, std::uint64_t(600'000), std::uint64_t(1'000'000),
                          kOverlapBatches * kLargestBatch}) {
    const std::size_t batch = default_batch_size(needs_of(n));
    EXPECT_EQ(batches_of(n, batch), kOverlapBatches) << "N = " << n;
    EXPECT_GE(batch, kSmallestOverlapBatch) << "N = " << n;
  }
  EXPECT_EQ(default_batch_size(needs_of(300'000)), kSmallestOverlapBatch);
  EXPECT_EQ(default_batch_size(needs_of(0)), 0u);
}

// The backend's memory bound, and what crosses to the host, take precedence.
TEST(BatchSizing, KeepsTheBackendsAndTheHostsBounds) {
  EXPECT_EQ(default_batch_size(needs_of(10'000'000, 8192)), 8192u);  // a CPU of 2 threads

  // Exact quantiles: every sample's values come to the host, 151 times × 12 quantities here.
  BatchSizeNeeds exact = needs_of(10'000'000);
  exact.host_bytes_per_sample = 151 * 12 * sizeof(double);
  EXPECT_EQ(default_batch_size(exact), kHostBatchBytes / exact.host_bytes_per_sample);

  // Every trajectory kept, each larger than the host's bound allows a batch of them: counted.
  BatchSizeNeeds every = needs_of(10'000'000);
  every.trajectory_bytes = 10'001 * 13 * sizeof(double);
  every.trajectories_at_most = every.n_samples;
  EXPECT_EQ(default_batch_size(every), kHostBatchBytes / every.trajectory_bytes);
  every.host_bytes_per_sample = exact.host_bytes_per_sample;  // and the quantiles' values beside them
  EXPECT_EQ(default_batch_size(every), kHostBatchBytes / (every.trajectory_bytes + exact.host_bytes_per_sample));

  // A few kept (the main job's 20) never reach the bound, whatever the batch: not counted.
  BatchSizeNeeds few = every;
  few.host_bytes_per_sample = 0;
  few.trajectories_at_most = 20;
  EXPECT_EQ(default_batch_size(few), kLargestBatch);

  // A sample larger than the host's bound still gets a batch of one.
  BatchSizeNeeds huge = needs_of(100);
  huge.host_bytes_per_sample = 2 * kHostBatchBytes;
  EXPECT_EQ(default_batch_size(huge), 1u);
}

}  // namespace
}  // namespace rbmc

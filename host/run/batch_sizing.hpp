// How many samples one batch of a run holds: the one place batches are sized (issue 12).
//
// The backend bounds a batch by its own memory (Backend::max_batch_size: the CPU's host memory,
// the GPU's device memory, from what a sample keeps after integration). default_batch_size adds
// the bounds every backend shares:
// - At most kLargestBatch samples. Beyond that a batch gains no speed and only costs memory: the
//   H100 ran a free body at N = 10⁶ × 10,000 steps in 0.76 s in batches of 2¹⁷, 0.89 s in
//   batches of 2¹⁸ and 1.61 s in one of 2²⁰ (../shared/measurements/2026-11-22-h100.md), and
//   2¹⁷ threads are two to four times what its 132 SMs hold at once at the kernels' occupancy
//   (12.5–25 %), so each launch still fills it. With this bound a run's memory, host and device,
//   stays flat in N from 8 × 2¹⁷ ≈ 10⁶ samples on.
// - What crosses to the host for every sample (the values of exact quantiles) and the kept
//   trajectories within kHostBatchBytes a batch.
// - A run in at least kOverlapBatches batches, none smaller than kSmallestOverlapBatch: a run in
//   one batch overlaps nothing (its write waits for its integration and statistics, the run's end
//   for its write), so each batch's write on the writer's thread overlaps the next one's stages.
// `--batch-size` replaces all of it; a resumed run keeps the batches it started with.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rbmc {

inline constexpr std::uint64_t kLargestBatch = std::uint64_t(1) << 17;
inline constexpr std::size_t kHostBatchBytes = std::size_t(512) << 20;
inline constexpr std::uint64_t kOverlapBatches = 8;
inline constexpr std::uint64_t kSmallestOverlapBatch = std::uint64_t(1) << 16;

// What sizes a run's batches besides the backend.
struct BatchSizeNeeds {
  std::uint64_t n_samples = 0;            // the samples this process integrates
  std::size_t backend_largest = 0;        // Backend::max_batch_size(how)
  std::size_t host_bytes_per_sample = 0;  // what every sample sends to the host besides its row (bytes)
  std::size_t trajectory_bytes = 0;       // one kept trajectory's states (bytes)
  std::uint64_t trajectories_at_most = 0;  // a batch of n keeps at most min(this, n) trajectories
};

// The samples a batch holds when no --batch-size is given: 0 only for a run of none.
std::size_t default_batch_size(const BatchSizeNeeds& needs);

}  // namespace rbmc

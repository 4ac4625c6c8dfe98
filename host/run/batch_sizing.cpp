#include "host/run/batch_sizing.hpp"

#include <algorithm>

namespace rbmc {

std::size_t default_batch_size(const BatchSizeNeeds& needs) {
  if (needs.n_samples == 0) return 0;
  std::uint64_t batch = std::min<std::uint64_t>({needs.backend_largest, kLargestBatch, needs.n_samples});
  // Kept trajectories count only where they could exceed the host's bound on their own: most
  // runs keep a few (the main job 20), which no batch size makes large.
  std::size_t host_row = needs.host_bytes_per_sample;
  if (std::min(needs.trajectories_at_most, batch) * needs.trajectory_bytes > kHostBatchBytes)
    host_row += needs.trajectory_bytes;
  if (host_row > 0) batch = std::min<std::uint64_t>(batch, kHostBatchBytes / host_row);
  batch = std::min(batch, std::max(kSmallestOverlapBatch, (needs.n_samples + kOverlapBatches - 1) / kOverlapBatches));
  return std::size_t(std::max<std::uint64_t>(1, batch));
}

}  // namespace rbmc

// rbmc merge: joins the parts of a run written by `rbmc run --shard i/n` (on machines without MPI,
// or by a scheduler's array jobs) into the file one run would have written: /samples and the kept
// trajectories bit for bit, the statistics merged exactly (moments by the pairwise update, exact
// quantiles from every part's values).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/stats/run_statistics.hpp"  // QuantileAccuracy

namespace rbmc {

struct MergeSummary {
  std::uint64_t n_samples = 0, n_shards = 0;
  std::string output;
  QuantileAccuracy quantiles;  // the merged statistics' (method none without statistics)
};

// Checks that the shards belong together (one scenario, seed, sample count, precision and
// backend; every part 0..n-1 once; each complete) and writes OUT. Throws UsageError naming the
// shard and what is wrong, before writing anything.
MergeSummary merge_shards(const std::vector<std::string>& shards, const std::string& output, bool overwrite,
                          unsigned threads);

}  // namespace rbmc

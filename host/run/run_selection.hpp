// Which samples one process's run integrates: a part of the run (--shard i/n) or samples named by
// global index (--only).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rbmc {

// The rows [first, first + count) of shard i of n of a run of n_samples: contiguous parts whose
// sizes differ by at most one.
struct ShardRange {
  std::uint64_t first = 0, count = 0;
};
ShardRange shard_range(std::uint64_t index, std::uint64_t count, std::uint64_t n_samples);
// "i/n" → (i, n), or UsageError.
std::pair<std::uint64_t, std::uint64_t> parse_shard(const std::string& text);

// "17,42,1000-1010": indices and inclusive ranges, returned ascending without repeats. Throws
// UsageError naming the bad item, or an index not below n_samples.
std::vector<std::uint64_t> parse_sample_selection(const std::string& text, std::uint64_t n_samples);

}  // namespace rbmc

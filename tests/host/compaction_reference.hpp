// The CPU's reference for a backend's compacted columns (rbmc/stats/batch_compaction.hpp): each
// column's finite values sorted with std::sort and gathered by the core's positions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "rbmc/stats/batch_compaction.hpp"

namespace rbmc::test {

// values: (columns, n), column by column. Returns the slot; out: (columns, slot), each column's
// compacted values first.
template <class Allocator>
std::size_t compact_columns_for_reference(const std::vector<double, Allocator>& values, std::size_t n, std::size_t columns,
                                                 const BatchCompactionRequest& request, std::vector<double>& out) {
  const auto slot = std::size_t(compacted_capacity(n, request.keep));
  out.assign(columns * slot, 0.0);
  std::vector<double> finite;
  for (std::size_t c = 0; c < columns; ++c) {
    finite.clear();
    for (std::size_t r = 0; r < n; ++r)
      if (std::isfinite(values[c * n + r])) finite.push_back(values[c * n + r]);
    std::sort(finite.begin(), finite.end());
    const std::uint64_t m0 = finite.size();
    const int levels = batch_compaction_levels(m0, request.keep);
    const std::uint64_t coins = batch_compaction_coins(statistics_column_seed(request.seed, c), request.batch_key, levels);
    for (std::uint64_t j = 0; j < compacted_count(m0, levels); ++j)
      out[c * slot + j] = finite[std::size_t(compacted_position(m0, levels, coins, j))];
  }
  return slot;
}

}  // namespace rbmc::test

// The CPU's reference for a backend's compacted columns (rbmc/stats/batch_compaction.hpp): each
// column's values classified against its brackets one by one, the kept ones sorted with
// std::stable_sort and gathered by the core's positions. Stable, as the device's radix sort is
// (it orders −0 and +0 as equal and keeps their order): the same bits, zeros' signs included.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "rbmc/stats/batch_compaction.hpp"

namespace rbmc::test {

// Brackets that keep every finite value.
inline std::vector<ColumnBrackets> open_brackets(std::size_t columns) {
  ColumnBrackets open;
  std::fill(std::begin(open.lo), std::end(open.lo), -std::numeric_limits<double>::infinity());
  std::fill(std::begin(open.hi), std::end(open.hi), std::numeric_limits<double>::infinity());
  return std::vector<ColumnBrackets>(columns, open);
}

// values: (columns, n), column by column; brackets: (columns). tallies: (columns); offsets:
// (columns + 1); out: column c's compacted values at [offsets[c], offsets[c + 1]).
template <class Allocator>
void compact_columns_for_reference(const std::vector<double, Allocator>& values, std::size_t n, std::size_t columns,
                                   const BatchCompactionRequest& request, const std::vector<ColumnBrackets>& brackets,
                                   std::vector<ColumnTally>& tallies, std::vector<std::uint64_t>& offsets,
                                   std::vector<double>& out) {
  tallies.assign(columns, ColumnTally{});
  offsets.assign(columns + 1, 0);
  out.clear();
  std::vector<double> kept;
  for (std::size_t c = 0; c < columns; ++c) {
    kept.clear();
    for (std::size_t r = 0; r < n; ++r)
      if (tally_value(values[c * n + r], brackets[c], tallies[c])) kept.push_back(values[c * n + r]);
    std::stable_sort(kept.begin(), kept.end());
    const std::uint64_t m0 = kept.size();
    const int levels = batch_compaction_levels(m0, request.keep);
    const std::uint64_t coins = batch_compaction_coins(statistics_column_seed(request.seed, c), request.batch_key, levels);
    for (std::uint64_t j = 0; j < compacted_count(m0, levels); ++j)
      out.push_back(kept[std::size_t(compacted_position(m0, levels, coins, j))]);
    offsets[c + 1] = out.size();
  }
}

}  // namespace rbmc::test

#include "host/analysis/kept_trajectory_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace rbmc {

KeptRowPairs kept_row_pairs(const ResultsReader& a, const ResultsReader& b, const std::vector<std::uint64_t>* only) {
  KeptRowPairs pairs;
  if (!a.has("trajectories/sample_index") || !b.has("trajectories/sample_index")) return pairs;
  const std::vector<std::uint64_t> kept_a = a.uint64s("trajectories/sample_index").data,
                                   kept_b = b.uint64s("trajectories/sample_index").data;
  std::unordered_map<std::uint64_t, std::size_t> row_b;
  for (std::size_t j = 0; j < kept_b.size(); ++j) row_b[kept_b[j]] = j;
  for (std::size_t i = 0; i < kept_a.size(); ++i) {
    if (only != nullptr && !std::binary_search(only->begin(), only->end(), kept_a[i])) continue;
    if (const auto it = row_b.find(kept_a[i]); it != row_b.end()) pairs.push_back({kept_a[i], i, it->second});
  }
  return pairs;
}

std::vector<std::pair<std::size_t, std::size_t>> common_output_times(const std::vector<double>& times_a,
                                                                     const std::vector<double>& times_b) {
  std::vector<std::pair<std::size_t, std::size_t>> times;
  for (std::size_t ka = 0, kb = 0; ka < times_a.size() && kb < times_b.size();) {
    const double ta = times_a[ka], tb = times_b[kb];
    if (std::abs(ta - tb) <= 1e-12 * std::max({std::abs(ta), std::abs(tb), 1.0}))
      times.emplace_back(ka++, kb++);
    else if (ta < tb)
      ++ka;
    else
      ++kb;
  }
  return times;
}

void for_each_kept_row_block(const ResultsReader& a, const ResultsReader& b, const std::string& dataset,
                             const KeptRowPairs& pairs, std::size_t max_rows,
                             const std::function<void(const KeptRowBlock&)>& visit) {
  bool ordered = true;
  for (std::size_t k = 1; k < pairs.size() && ordered; ++k)
    ordered = pairs[k].a_row > pairs[k - 1].a_row && pairs[k].b_row > pairs[k - 1].b_row;
  max_rows = std::max<std::size_t>(1, max_rows);
  for (std::size_t begin = 0; begin < pairs.size();) {
    std::size_t end = begin + 1;
    if (!ordered)
      end = pairs.size();
    else
      while (end < pairs.size() && pairs[end].a_row - pairs[begin].a_row < max_rows &&
             pairs[end].b_row - pairs[begin].b_row < max_rows)
        ++end;
    KeptRowBlock block;
    block.pairs = pairs.data() + begin;
    block.n_pairs = end - begin;
    std::size_t a_last = 0, b_last = 0;
    block.a_first = block.b_first = SIZE_MAX;
    for (std::size_t k = begin; k < end; ++k) {
      block.a_first = std::min(block.a_first, pairs[k].a_row);
      block.b_first = std::min(block.b_first, pairs[k].b_row);
      a_last = std::max(a_last, pairs[k].a_row);
      b_last = std::max(b_last, pairs[k].b_row);
    }
    block.a_rows = a_last - block.a_first + 1;
    block.b_rows = b_last - block.b_first + 1;
    block.a = a.doubles(dataset, block.a_first, block.a_rows).data;
    block.b = b.doubles(dataset, block.b_first, block.b_rows).data;
    visit(block);
    begin = end;
  }
}

}  // namespace rbmc

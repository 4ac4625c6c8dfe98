// The kept trajectories of the samples two results files both keep, read a block of rows at a
// time, so that comparing them needs the memory of a block rather than of both files' datasets
// (tossed_box keeps every sample's: 1.5 GB a dataset a file at 10^6 samples).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "host/io/results_reader.hpp"

namespace rbmc {

// A sample both files keep: its global index and its rows in a's and b's trajectories.
struct KeptRowPair {
  std::uint64_t sample = 0;
  std::size_t a_row = 0, b_row = 0;
};
using KeptRowPairs = std::vector<KeptRowPair>;  // in a's row order

// Every sample both files keep (none where either keeps no trajectory); `only`, sorted, limits
// them to those samples.
KeptRowPairs kept_row_pairs(const ResultsReader& a, const ResultsReader& b,
                            const std::vector<std::uint64_t>* only = nullptr);

// The output times both files' trajectories hold, as (k in a, k in b), matched to a part in 1e12
// of the time: each file's own grid indexes its rows, and another [output] interval or duration
// gives another grid.
std::vector<std::pair<std::size_t, std::size_t>> common_output_times(const std::vector<double>& times_a,
                                                                     const std::vector<double>& times_b);

// A block of pairs and the rows of one trajectory dataset they need: a's rows [a_first, a_first +
// a_rows), (a_rows, n_times_a, dim), and b's likewise.
struct KeptRowBlock {
  const KeptRowPair* pairs = nullptr;
  std::size_t n_pairs = 0;
  std::size_t a_first = 0, a_rows = 0, b_first = 0, b_rows = 0;
  std::vector<double> a, b;
};

// Calls `visit` for consecutive blocks of `pairs` with their rows of `dataset` read from both
// files, each block's rows spanning at most `max_rows` rows of either file. The files keep their
// samples in index order (b's rows grow with a's); were they not, one block holds every pair.
void for_each_kept_row_block(const ResultsReader& a, const ResultsReader& b, const std::string& dataset,
                             const KeptRowPairs& pairs, std::size_t max_rows,
                             const std::function<void(const KeptRowBlock&)>& visit);

}  // namespace rbmc

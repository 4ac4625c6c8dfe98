// The statistics of a run at each output time, merged batch by batch: count, mean, standard
// deviation, min and max from the backends' moments, and quantiles from the values of every
// sample (exact) or, beyond a memory budget, of a deterministic subsample (approximate, with a
// stated rank-error bound). Layout in the file: docs/output-format.md, /statistics.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "host/scenario/scenario.hpp"
#include "rbmc/stats/moments.hpp"

namespace rbmc {

// The quantities, as stored: name, first quantity column, dimension, unit.
struct QuantityInfo {
  const char* name;
  int first, dim;
  const char* units;
  const char* description;
};
const std::vector<QuantityInfo>& statistics_quantities();

inline constexpr std::array<double, 5> kQuantileProbabilities = {0.01, 0.05, 0.5, 0.95, 0.99};

// The p-quantile of sorted finite values by linear interpolation between order statistics
// (Hyndman and Fan's type 7, numpy's default): h = (m − 1) p, x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]).
double quantile_of_sorted(const std::vector<double>& sorted, double p);

inline constexpr std::size_t kSavedPerMoment = 6;

// What an interrupted run saves of its statistics, to continue them exactly.
struct StatisticsState {
  std::vector<double> moments;               // kSavedPerMoment per column: count, mean, m2, min, max, non_finite
  std::vector<double> values;                // every column's quantile values, one after another
  std::vector<std::uint64_t> value_counts;   // per column
  std::uint64_t quantile_samples = 0;
};

class RunStatistics {
 public:
  // n_rows: the samples this run integrates. Quantile values of every sample are kept when they
  // fit in scenario.output.quantile_memory, otherwise those of samples selected by a hash of
  // (seed, k) with the probability that fits.
  // threads: merging batches and selecting quantiles run over the columns on this many threads.
  RunStatistics(const Scenario& scenario, std::uint64_t n_rows, unsigned threads = 1);

  bool enabled() const { return n_times_ > 0; }
  int n_times() const { return n_times_; }
  std::size_t n_columns() const { return moments_.size(); }  // output times × quantity::count
  bool exact() const { return fraction_ >= 1; }
  // The rows of a batch (global indices `index`) whose quantity values the quantiles need.
  std::vector<std::uint32_t> quantile_rows(const std::uint64_t* index, std::size_t n) const;
  // One batch's moments ((times, quantity::count)) and its quantile rows' values, column by
  // column ((times × quantity::count, rows)).
  void add(const std::vector<Moments>& moments, const std::vector<double>& values, std::size_t n_rows);

  const std::vector<Moments>& moments() const { return moments_; }
  std::uint64_t quantile_samples() const { return quantile_samples_; }
  // Quantiles of column c (time k, quantity component q: c = k · count + q), one per probability.
  std::array<double, kQuantileProbabilities.size()> quantiles(std::size_t column) const;
  // Every column's quantiles, columns selected in parallel: (columns, probabilities).
  std::vector<std::array<double, kQuantileProbabilities.size()>> all_quantiles() const;
  // With a subsample of m values, each estimated quantile's rank lies within this of p with 95 %
  // confidence (Dvoretzky–Kiefer–Wolfowitz with Massart's constant: √(ln(2/0.05) / (2m))).
  double rank_error_95(std::size_t column) const;

  StatisticsState save() const;
  void restore(const StatisticsState& state);  // throws std::runtime_error when it does not fit
  // Merges another part's statistics after this one's (rbmc merge): the moments by the pairwise
  // update, the quantile values appended. Throws std::runtime_error when it does not fit.
  void absorb(const StatisticsState& state);

 private:
  int n_times_ = 0;
  std::uint64_t seed_ = 0;
  unsigned threads_ = 1;
  double fraction_ = 1;  // of samples whose values are kept
  std::vector<Moments> moments_;
  std::vector<std::vector<double>> values_;  // per column
  std::uint64_t quantile_samples_ = 0;
};

}  // namespace rbmc

// The statistics of a run at each output time, merged batch by batch: count, mean, standard
// deviation, min and max from the backends' moments, and quantiles from the values of every
// sample (exact) or, beyond a memory budget, from a quantile sketch per column (approximate, with
// a stated rank-error bound: quantile_sketch.hpp). Layout in the file: docs/output-format.md,
// /statistics.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "host/scenario/scenario.hpp"
#include "host/stats/bracketed_sketch.hpp"
#include "host/stats/quantile_sketch.hpp"
#include "rbmc/stats/batch_compaction.hpp"
#include "rbmc/stats/moments.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

inline constexpr std::array<double, 5> kQuantileProbabilities = {0.01, 0.05, 0.5, 0.95, 0.99};

// The p-quantile of sorted finite values by linear interpolation between order statistics
// (Hyndman and Fan's type 7, numpy's default): h = (m − 1) p, x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]).
double quantile_of_sorted(const std::vector<double>& sorted, double p);

inline constexpr std::size_t kSavedPerMoment = 6;

// What an interrupted run saves of its statistics, to continue them exactly.
struct StatisticsState {
  std::vector<double> moments;               // kSavedPerMoment per column: count, mean, m2, min, max, non_finite
  std::vector<double> values;                // every column's quantile values (or sketch values), one after another
  std::vector<std::uint64_t> value_counts;   // per column
  std::uint64_t quantile_samples = 0;
  // With sketches: per column, each level's size and compactions (QuantileSketch::kMaxLevels
  // each); empty for exact quantiles.
  std::vector<std::uint64_t> sketch_level_sizes, sketch_compactions;
  // With sketches, per column, their brackets (bracketed_sketch.hpp): the 5 lower edges, then the
  // 5 upper ones; and the values offered, the count and the 5 counted below. Empty in a state
  // saved before brackets (every value sketched).
  std::vector<double> sketch_brackets;
  std::vector<std::uint64_t> sketch_counts;
};

// How a run's quantiles were found, for its summary (rbmc run prints it): exactly, or by sketches
// of k whose 95 % rank error bounds (the file's quantile_rank_error_95) are at most
// max_rank_error_95, as a fraction of the count. A budget below the default's k can put that
// above 1e-3 (docs/output-format.md, "Quantiles").
struct QuantileAccuracy {
  enum class Method { none, exact, sketched };
  Method method = Method::none;  // none: no statistics
  int sketch_k = 0;
  double max_rank_error_95 = 0;
};

class RunStatistics {
 public:
  // n_rows: the samples this run integrates. Quantile values of every sample are kept when they
  // fit in scenario.output.quantile_memory; otherwise each column feeds a quantile sketch whose k
  // fits the same budget (at most QuantileSketch::kDefaultK), through brackets around the
  // quantiles (bracketed_sketch.hpp) where the design's samples come in no particular order.
  // threads: merging batches and finding quantiles run over the columns on this many threads.
  RunStatistics(const Scenario& scenario, std::uint64_t n_rows, unsigned threads = 1);
  // The sketches' k such a run of n_rows samples will use: 0 where its quantiles are exact (and
  // without statistics). For rbmc check, before a run.
  static int planned_sketch_k(const Scenario& scenario, std::uint64_t n_rows);

  bool enabled() const { return n_times_ > 0; }
  int n_times() const { return n_times_; }
  std::size_t n_columns() const { return moments_.size(); }  // output times × quantity::count
  bool exact() const { return sketch_k_ == 0; }
  int sketch_k() const { return sketch_k_; }
  // Whether the sketches count the values far from the quantiles instead of sketching them.
  bool bracketed() const { return bracketed_; }
  // The rows of a batch whose quantity values the quantiles need: all of them.
  std::vector<std::uint32_t> quantile_rows(std::size_t n) const;
  // One batch's moments ((times, quantity::count)) and its quantile rows' values, column by
  // column ((times × quantity::count, rows)). Empty moments are computed here from the values,
  // which must then hold every row of the batch, and stored into `moments`: the same numbers,
  // bit for bit, as the CPU backend's reduction gives (column_moments.hpp). Only the columns of the
  // quantities the scenario keeps are read.
  // values: n_values of them, n_values = columns × n_rows.
  void add(std::vector<Moments>& moments, const double* values, std::size_t n_values, std::size_t n_rows);
  template <class Allocator>
  void add(std::vector<Moments>& moments, const std::vector<double, Allocator>& values, std::size_t n_rows) {
    add(moments, values.data(), values.size(), n_rows);
  }
  // What a backend may do to a batch's quantity columns instead of sending every value
  // (rbmc/stats/batch_compaction.hpp): compact them for the sketches, keeping at least 2k values
  // a column; nothing (keep 0) for exact quantiles. batch_key: the global index of the batch's
  // first sample.
  BatchCompactionRequest compaction_request(std::uint64_t batch_key) const;
  // The brackets a backend classifies a batch's columns against before compacting them, as the
  // sketches hold them now ((columns)): (−∞, +∞), every finite value, before the first brackets or
  // where the run does not bracket; (+∞, −∞), none, in the columns whose statistics the run does not
  // keep. Not while a batch is being added.
  void compaction_brackets(std::vector<ColumnBrackets>& out) const;
  // One batch of n_rows samples whose columns a backend compacted as compaction_request asked,
  // against brackets compaction_brackets gave after some earlier batch: column c's tally, and its
  // compacted values at values[offsets[c], offsets[c + 1]) (n_values of them in all).
  void add_compacted(const std::vector<Moments>& moments, const std::vector<ColumnTally>& tallies,
                     const std::vector<std::uint64_t>& offsets, const double* values, std::size_t n_values,
                     std::size_t n_rows);
  template <class Allocator>
  void add_compacted(const std::vector<Moments>& moments, const std::vector<ColumnTally>& tallies,
                     const std::vector<std::uint64_t>& offsets, const std::vector<double, Allocator>& values,
                     std::size_t n_rows) {
    add_compacted(moments, tallies, offsets, values.data(), values.size(), n_rows);
  }

  const std::vector<Moments>& moments() const { return moments_; }
  std::uint64_t quantile_samples() const { return quantile_samples_; }
  // Quantiles of column c (time k, quantity component q: c = k · count + q), one per probability.
  std::array<double, kQuantileProbabilities.size()> quantiles(std::size_t column) const;
  // Every column's quantiles, columns in parallel: (columns, probabilities); NaN in the
  // columns of quantities the scenario does not keep.
  std::vector<std::array<double, kQuantileProbabilities.size()>> all_quantiles() const;
  // With a sketch, each estimated quantile's rank lies within this of p with 95 % confidence
  // (BracketedSketch::rank_error_95); 0 when exact.
  double rank_error_95(std::size_t column) const;
  // Every column's rank_error_95, columns in parallel (each scans its sketch ten times): 0 in the
  // columns of quantities the scenario does not keep.
  std::vector<double> all_rank_errors_95() const;
  // Each sketch's lowest level sorted in place, columns in parallel (BracketedSketch::
  // sort_lowest), so that the estimates that follow read it as it is: each of them sorted a copy
  // of it (the writer's quantiles, then their bounds, after the last batch). No estimate moves.
  // Before the estimates, once every batch is in.
  void settle_sketches();

  // The sketches' state, copied (bounded by their k), to be written on another thread. The
  // sketches first take the values they hold back (bracketed_sketch.hpp): the state is the one
  // they would have without. Exact quantiles throw std::logic_error: their values may be most of
  // the machine's memory and are never copied whole (save_without_exact_values, exact_values).
  StatisticsState save();
  // save() but the exact quantiles' values, which stay where exact_values() shows them (value_counts
  // says how many each column holds): a snapshot written from them while no batch is added copies
  // none (they may be most of the machine's memory: quantile_memory_mb).
  StatisticsState save_without_exact_values();
  const std::vector<std::vector<double>>& exact_values() const { return values_; }  // per column; empty when sketched
  // Throws std::runtime_error when the state does not fit. With exact_values (the exact quantiles'
  // values by column, as read_statistics_state reads them; state.values then empty), the columns
  // are moved in: no second copy of what may be most of the machine's memory.
  void restore(const StatisticsState& state, std::vector<std::vector<double>>* exact_values = nullptr);
  // The exact quantiles' columns, emptied, each with the room reserved for the run's values, for
  // a reader to fill where they are (read_statistics_state, RunJournal::read_statistics_snapshot)
  // before restore() takes them back: a restored column is then neither copied nor grown (grown,
  // a column is copied whole, and the memory it leaves is not given back). Until then the
  // statistics hold no columns. Empty when the quantiles are sketched.
  std::vector<std::vector<double>> lend_exact_columns();
  // Merges another part's statistics after this one's (rbmc merge): the moments by the pairwise
  // update, the quantile values appended (exact_values as for restore) or the sketches merged.
  // Throws std::runtime_error when it does not fit.
  void absorb(const StatisticsState& state, std::vector<std::vector<double>>* exact_values = nullptr);

 private:
  // quantiles(column), its exact ones from the column sorted in x (any contents; grown as needed).
  std::array<double, kQuantileProbabilities.size()> quantiles(std::size_t column, std::vector<double>& x) const;

  int n_times_ = 0;
  std::uint64_t seed_ = 0;
  unsigned threads_ = 1;
  int sketch_k_ = 0;  // 0: exact quantiles
  std::vector<Moments> moments_;
  // The columns of the quantities the scenario keeps ([output] statistics), ascending. The others
  // take no moments and no quantiles: their moments stay empty and their sketches unfed.
  std::vector<std::size_t> kept_columns_;
  std::vector<std::vector<double>> values_;  // per column, exact
  bool bracketed_ = false;
  std::vector<BracketedSketch> sketches_;    // per column, beyond the memory budget
  std::uint64_t quantile_samples_ = 0;
};

}  // namespace rbmc

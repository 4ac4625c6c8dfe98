#include "host/stats/run_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "host/stats/column_moments.hpp"
#include "host/stats/sort_finite.hpp"  // append_finite, sort_finite
#include "host/util/parallel_for.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

double quantile_of_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return NAN;
  const double h = double(sorted.size() - 1) * p;
  const std::size_t lo = std::size_t(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - double(lo)) * (sorted[lo + 1] - sorted[lo]);
}

RunStatistics::RunStatistics(const Scenario& scenario, std::uint64_t n_rows, unsigned threads)
    : n_times_(scenario.output.statistics ? scenario.output_times.n : 0), seed_(scenario.run.seed), threads_(threads) {
  if (n_times_ == 0) return;
  const std::size_t columns = std::size_t(n_times_) * quantity::count;
  moments_.assign(columns, Moments{});
  for (std::size_t c = 0; c < columns; ++c)
    if (quantity_column_in(scenario.output.statistics_quantities, int(c % quantity::count))) kept_columns_.push_back(c);
  sketch_k_ = planned_sketch_k(scenario, n_rows);
  if (exact()) {
    values_.resize(columns);
    // Room for the run's values, reserved once (within the budget: planned_sketch_k): grown by
    // exactly a batch at a time, each column was copied whole at every batch. Pages are touched
    // only as values arrive.
    for (std::size_t c : kept_columns_) values_[c].reserve(std::size_t(n_rows));
    return;
  }
  // Brackets only where any sample's values are as likely early as late: a grid or a table may
  // order them, and early values would misplace the brackets (bracketed_sketch.hpp).
  const Design::Kind design = scenario.design.kind;
  bracketed_ = design == Design::Kind::monte_carlo || design == Design::Kind::latin_hypercube ||
               design == Design::Kind::sobol;
  sketches_.reserve(columns);
  // Each column's coins from its own streams.
  for (std::size_t c = 0; c < columns; ++c)
    sketches_.emplace_back(kQuantileProbabilities, bracketed_, sketch_k_, statistics_column_seed(seed_, c));
}

int RunStatistics::planned_sketch_k(const Scenario& scenario, std::uint64_t n_rows) {
  if (!scenario.output.statistics || scenario.output_times.n == 0) return 0;
  // The budget is the kept columns': a scenario that names fewer quantities keeps exact quantiles
  // for more samples.
  std::size_t kept_columns = 0;
  for (int q = 0; q < quantity::count; ++q)
    kept_columns += quantity_column_in(scenario.output.statistics_quantities, q) ? 1 : 0;
  const double budget = double(scenario.output.quantile_memory);
  const double kept = double(kept_columns) * double(scenario.output_times.n);
  if (double(n_rows) * kept * sizeof(double) <= budget) return 0;
  // The largest k whose sketches fit the budget, at most the default (rank error ≤ 1e-3).
  return std::max(64, QuantileSketch::largest_k(budget / kept / sizeof(double), n_rows));
}

std::vector<std::uint32_t> RunStatistics::quantile_rows(std::size_t n) const {
  std::vector<std::uint32_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = std::uint32_t(i);
  return rows;
}

void RunStatistics::add(std::vector<Moments>& moments, const double* values, std::size_t n_values, std::size_t n_rows) {
  if (moments.empty() && n_values != moments_.size() * n_rows)
    throw std::logic_error("RunStatistics::add: the batch's moments can only come from every row's values");
  const std::size_t columns = moments_.size();
  // Without the batch's moments, they come from the values here, a column at a time while it is
  // in cache for its quantiles: one read of the batch's values from memory instead of two.
  const bool compute_moments = moments.empty();
  if (compute_moments) moments.resize(columns);  // the columns not kept stay empty
  // Each thread takes whole columns: the same values in the same order as one thread would, so a
  // sketch is the same whatever the threads and batches. Only the kept quantities' columns.
  parallel_for(kept_columns_.size(), threads_, [&](std::size_t begin, std::size_t end) {
    std::vector<double> kept;  // a column's values inside its brackets, as its first pass filters them
    for (std::size_t j = begin; j < end; ++j) {
      const std::size_t c = kept_columns_[j];
      const double* v = values + c * n_rows;
      if (exact()) {
        if (compute_moments) column_moments(&v, 1, n_rows, &moments[c]);
        moments_[c] = merge(moments_[c], moments[c]);
        append_finite(v, n_rows, values_[c]);  // as the moments: infinities counted apart
        continue;
      }
      // The rows the sketch would filter against its brackets as they are now are filtered in
      // the moments' first read of the column (column_moments_filtering), which waits on memory
      // either way; the rest (none, but where the brackets change inside the batch) as add() takes
      // them, after. The same sketch and moments, bit for bit, as the two apart.
      BracketedSketch& sketch = sketches_[c];
      std::size_t filtered = 0;
      if (compute_moments) {
        const ColumnBrackets brackets = sketch.brackets();
        ColumnPrefixFilter filter;
        filter.lo = brackets.lo;
        filter.hi = brackets.hi;
        filter.rows = sketch.filterable(n_rows);
        if (kept.size() < filter.rows + kBracketFilterSlack) kept.resize(n_rows + kBracketFilterSlack);
        filter.kept = kept.data();
        moments[c] = column_moments_filtering(v, n_rows, filter);
        sketch.take_filtered(filter.kept, filter.n_kept, filter.below, filter.finite, filter.rows);
        filtered = filter.rows;
      }
      moments_[c] = merge(moments_[c], moments[c]);
      sketch.add(v + filtered, n_rows - filtered);  // the finite ones
    }
  });
  quantile_samples_ += n_rows;
}

BatchCompactionRequest RunStatistics::compaction_request(std::uint64_t batch_key) const {
  if (exact()) return {};
  return {2 * std::uint64_t(sketch_k_), seed_, batch_key};
}

void RunStatistics::compaction_brackets(std::vector<ColumnBrackets>& out) const {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  ColumnBrackets none;
  std::fill(std::begin(none.lo), std::end(none.lo), kInfinity);
  std::fill(std::begin(none.hi), std::end(none.hi), -kInfinity);
  out.assign(moments_.size(), none);
  if (exact()) return;
  for (const std::size_t c : kept_columns_) out[c] = sketches_[c].brackets();
}

void RunStatistics::add_compacted(const std::vector<Moments>& moments, const std::vector<ColumnTally>& tallies,
                                  const std::vector<std::uint64_t>& offsets, const double* values, std::size_t n_values,
                                  std::size_t n_rows) {
  if (exact()) throw std::logic_error("RunStatistics::add_compacted: exact quantiles need every value");
  const std::size_t columns = moments_.size();
  const std::uint64_t keep = compaction_request(0).keep;
  if (moments.size() != columns || tallies.size() != columns || offsets.size() != columns + 1 ||
      offsets[columns] > n_values)
    throw std::logic_error("RunStatistics::add_compacted: a batch's moments, tallies or compacted columns are missing");
  for (const std::size_t c : kept_columns_) {
    const std::uint64_t m0 = tallies[c].kept, sent = compacted_count(m0, batch_compaction_levels(m0, keep));
    if (offsets[c] > offsets[c + 1] || offsets[c + 1] - offsets[c] != sent || m0 > std::uint64_t(moments[c].count))
      throw std::logic_error("RunStatistics::add_compacted: column " + std::to_string(c) +
                             "'s compacted values do not match its tally");
  }
  parallel_for(kept_columns_.size(), threads_, [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) {
      const std::size_t c = kept_columns_[j];
      moments_[c] = merge(moments_[c], moments[c]);
      const std::uint64_t m0 = tallies[c].kept;
      sketches_[c].merge_compacted(values + offsets[c], batch_compaction_levels(m0, keep), tallies[c],
                                   std::uint64_t(moments[c].count), n_rows);
    }
  });
  quantile_samples_ += n_rows;
}

std::array<double, kQuantileProbabilities.size()> RunStatistics::quantiles(std::size_t column) const {
  std::vector<double> scratch;
  return quantiles(column, scratch);
}

std::array<double, kQuantileProbabilities.size()> RunStatistics::quantiles(std::size_t column,
                                                                           std::vector<double>& x) const {
  std::array<double, kQuantileProbabilities.size()> q{};
  if (!exact()) return sketches_[column].quantiles();
  // Each quantile interpolates two order statistics (quantile_of_sorted), read from the column
  // sorted: by Highway's vqsort (sort_finite) about twice as fast as selecting them one after
  // another with std::nth_element, which this replaced (the README's tumbling_box with every
  // value kept, 10⁵ samples: the final quantiles 1.25 s → 0.68 s; bench/RESULTS.md, 2026-11-27,
  // twenty-fifth session). The same numbers: the order statistics do not depend on how they are
  // found. The sort reorders a copy, in scratch the caller reuses across columns: a fresh copy of
  // each column faulted its pages in anew (at 10⁶ samples, 14.5 GB over 1,812 columns). The
  // values are finite (append_finite).
  x.assign(values_[column].begin(), values_[column].end());
  sort_finite(x.data(), x.size());
  for (std::size_t j = 0; j < q.size(); ++j) q[j] = quantile_of_sorted(x, kQuantileProbabilities[j]);
  return q;
}

std::vector<std::array<double, kQuantileProbabilities.size()>> RunStatistics::all_quantiles() const {
  std::array<double, kQuantileProbabilities.size()> none;
  none.fill(NAN);
  std::vector<std::array<double, kQuantileProbabilities.size()>> q(moments_.size(), none);
  parallel_for(kept_columns_.size(), threads_, [&](std::size_t begin, std::size_t end) {
    std::vector<double> scratch;
    for (std::size_t j = begin; j < end; ++j) q[kept_columns_[j]] = quantiles(kept_columns_[j], scratch);
  });
  return q;
}

double RunStatistics::rank_error_95(std::size_t column) const {
  // Finite values all one number (their least is their greatest): every retained value is that
  // number, so every estimate is exact, however the sketch took them (held back on the CPU,
  // compacted on a GPU).
  const Moments& m = moments_[column];
  if (exact() || (m.count > 0 && m.min == m.max)) return 0.0;
  return sketches_[column].rank_error_95();
}

void RunStatistics::settle_sketches() {
  if (exact()) return;
  parallel_for(kept_columns_.size(), threads_, [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) sketches_[kept_columns_[j]].sort_lowest();
  });
}

std::vector<double> RunStatistics::all_rank_errors_95() const {
  std::vector<double> e(moments_.size(), 0.0);
  if (exact()) return e;
  parallel_for(kept_columns_.size(), threads_, [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) e[kept_columns_[j]] = rank_error_95(kept_columns_[j]);
  });
  return e;
}

namespace {

// The moments as saved: kSavedPerMoment numbers a column.
void save_moments(const std::vector<Moments>& moments, StatisticsState& s) {
  for (const Moments& m : moments) s.moments.insert(s.moments.end(), {m.count, m.mean, m.m2, m.min, m.max, m.non_finite});
}

Moments saved_moment(const StatisticsState& s, std::size_t column) {
  const double* m = &s.moments[kSavedPerMoment * column];
  return {m[0], m[1], m[2], m[3], m[4], m[5]};
}

// Column c's values in a saved state, from `at` on.
std::vector<double> saved_values(const StatisticsState& s, std::size_t column, std::size_t& at) {
  if (at + s.value_counts[column] > s.values.size()) throw std::runtime_error("the saved quantile values are truncated");
  std::vector<double> v(s.values.begin() + std::ptrdiff_t(at), s.values.begin() + std::ptrdiff_t(at + s.value_counts[column]));
  at += s.value_counts[column];
  return v;
}

// Column c's exact values: moved from exact_values where the state was read by column (its values
// then empty), else copied from the state's.
std::vector<double> take_values(const StatisticsState& s, std::size_t column, std::size_t& at,
                                std::vector<std::vector<double>>* exact_values) {
  if (exact_values == nullptr) return saved_values(s, column, at);
  if (exact_values->size() != s.value_counts.size() || (*exact_values)[column].size() != s.value_counts[column])
    throw std::runtime_error("the saved quantile values are truncated");
  return std::move((*exact_values)[column]);
}

// Column c's sketch in a saved state. A state saved before brackets (none) sketched every value.
BracketedSketch::State saved_sketch(const StatisticsState& s, std::size_t column, std::size_t& at) {
  const std::size_t levels = QuantileSketch::kMaxLevels, from = column * levels;
  BracketedSketch::State state;
  QuantileSketch::State& sketch = state.sketch;
  sketch.values = saved_values(s, column, at);
  sketch.level_sizes.assign(s.sketch_level_sizes.begin() + std::ptrdiff_t(from),
                            s.sketch_level_sizes.begin() + std::ptrdiff_t(from + levels));
  sketch.compactions.assign(s.sketch_compactions.begin() + std::ptrdiff_t(from),
                            s.sketch_compactions.begin() + std::ptrdiff_t(from + levels));
  constexpr std::size_t edges = BracketedSketch::kSavedEdges, counts = BracketedSketch::kSavedCounts;
  if (s.sketch_brackets.empty()) {
    std::uint64_t count = 0;
    for (std::size_t h = 0; h < levels; ++h) count += sketch.level_sizes[h] << h;
    state.brackets.fill(INFINITY);
    std::fill_n(state.brackets.begin(), BracketedSketch::kProbabilities, -INFINITY);
    state.counts.fill(0);
    state.counts[0] = state.counts[1] = count;
  } else {
    std::copy_n(s.sketch_brackets.begin() + std::ptrdiff_t(column * edges), edges, state.brackets.begin());
    std::copy_n(s.sketch_counts.begin() + std::ptrdiff_t(column * counts), counts, state.counts.begin());
  }
  return state;
}

// A saved state fits when it has this run's columns and the same kind of quantiles.
void check_fits(const StatisticsState& s, std::size_t columns, bool exact, const char* what) {
  const std::size_t levels = QuantileSketch::kMaxLevels;
  const bool sketched = !s.sketch_level_sizes.empty();
  if (s.moments.size() != kSavedPerMoment * columns || s.value_counts.size() != columns)
    throw std::runtime_error(std::string(what) + " do not match this scenario's output times");
  if (sketched == exact)
    throw std::runtime_error(std::string(what) + (exact ? " hold quantile sketches, where this run keeps every value"
                                                        : " hold every value, where this run keeps quantile sketches"));
  if (sketched && (s.sketch_level_sizes.size() != columns * levels || s.sketch_compactions.size() != columns * levels))
    throw std::runtime_error(std::string(what) + "' quantile sketches are truncated");
  constexpr std::size_t edges = BracketedSketch::kSavedEdges, counts = BracketedSketch::kSavedCounts;
  if (sketched && !(s.sketch_brackets.empty() && s.sketch_counts.empty()) &&
      (s.sketch_brackets.size() != columns * edges || s.sketch_counts.size() != columns * counts))
    throw std::runtime_error(std::string(what) + "' quantile sketches' brackets are truncated");
}

}  // namespace

StatisticsState RunStatistics::save() {
  if (exact())
    throw std::logic_error("RunStatistics::save copies sketches only: exact values are saved where they lie "
                           "(save_without_exact_values and exact_values)");
  return save_without_exact_values();
}

std::vector<std::vector<double>> RunStatistics::lend_exact_columns() {
  if (!exact()) return {};
  std::vector<std::vector<double>> lent(values_.size());
  for (std::size_t c = 0; c < values_.size(); ++c) {
    values_[c].clear();  // a restore replaces them: the room stays
    lent[c] = std::move(values_[c]);
  }
  return lent;
}

StatisticsState RunStatistics::save_without_exact_values() {
  StatisticsState s;
  save_moments(moments_, s);
  if (exact()) {
    for (const std::vector<double>& v : values_) s.value_counts.push_back(v.size());
  } else {
    for (BracketedSketch& sketch : sketches_) {
      const BracketedSketch::State state = sketch.save();
      s.values.insert(s.values.end(), state.sketch.values.begin(), state.sketch.values.end());
      s.value_counts.push_back(state.sketch.values.size());
      s.sketch_level_sizes.insert(s.sketch_level_sizes.end(), state.sketch.level_sizes.begin(), state.sketch.level_sizes.end());
      s.sketch_compactions.insert(s.sketch_compactions.end(), state.sketch.compactions.begin(), state.sketch.compactions.end());
      s.sketch_brackets.insert(s.sketch_brackets.end(), state.brackets.begin(), state.brackets.end());
      s.sketch_counts.insert(s.sketch_counts.end(), state.counts.begin(), state.counts.end());
    }
  }
  s.quantile_samples = quantile_samples_;
  return s;
}

void RunStatistics::absorb(const StatisticsState& s, std::vector<std::vector<double>>* exact_values) {
  check_fits(s, moments_.size(), exact(), "the part's statistics");
  std::size_t at = 0;
  for (std::size_t c = 0; c < moments_.size(); ++c) {
    moments_[c] = merge(moments_[c], saved_moment(s, c));
    if (exact()) {
      // Into the room reserved for the run's values; a part's column read apart goes once copied.
      const std::vector<double> v = take_values(s, c, at, exact_values);
      values_[c].insert(values_[c].end(), v.begin(), v.end());
    } else {
      BracketedSketch part(kQuantileProbabilities, bracketed_, sketch_k_, 0);
      part.restore(saved_sketch(s, c, at));
      sketches_[c].merge(part);
    }
  }
  quantile_samples_ += s.quantile_samples;
}

void RunStatistics::restore(const StatisticsState& s, std::vector<std::vector<double>>* exact_values) {
  check_fits(s, moments_.size(), exact(), "the saved statistics");
  std::size_t at = 0;
  for (std::size_t c = 0; c < moments_.size(); ++c) {
    moments_[c] = saved_moment(s, c);
    if (exact())
      values_[c] = take_values(s, c, at, exact_values);  // moved, with the room lend_exact_columns gave it
    else
      sketches_[c].restore(saved_sketch(s, c, at));
  }
  quantile_samples_ = s.quantile_samples;
}

}  // namespace rbmc

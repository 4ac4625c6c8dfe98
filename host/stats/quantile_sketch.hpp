// A mergeable quantile sketch with a stated rank-error bound: the statistics' quantiles when every
// sample's values would not fit in [output] quantile_memory_mb.
//
// It is Karnin, Lang and Liberty's KLL sketch ("Optimal quantile approximation in streams", FOCS
// 2016): levels of values, a value at level h standing for 2^h samples. When the values outgrow
// the capacity, the lowest level over its own capacity (k (2/3)^(H − h), H the top level, at least
// 64, which keeps the lowest levels from compacting every few values, and at least min(k, 2048) at
// level 0, where every value arrives) is compacted: sorted, and every other value, the odd or the even ones by a fair coin, moves up
// a level with twice the weight. A compaction at level h moves the estimated rank of any point by
// 0 or ±2^h with equal probability, independently of the others, so by Hoeffding's inequality the
// rank of a fixed point is off by more than t = √(2 ln(2/δ) Σ_compactions 4^h) with probability at
// most δ. The sketch counts its compactions per level and reports that bound for δ = 0.05, as a
// fraction of the count: rank_error_95(). It holds after merges too (their compactions add).
//
// The coins come from a Philox stream keyed by (seed, level, compaction number), so a sketch is
// the same whatever the batches its values came in, as long as they come in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rbmc {

class QuantileSketch {
 public:
  static constexpr int kMaxLevels = 48;  // 2^48 samples per value: beyond any run
  // The k that keeps rank_error_95() at or below 1e-3 for any count (tests/host/quantile_sketch_test).
  static constexpr int kDefaultK = 5120;

  explicit QuantileSketch(int k = kDefaultK, std::uint64_t seed = 0);

  // A finite value (the caller counts non-finite ones apart).
  void add(double value);
  // The finite ones of values[0, n), in order, non-finite ones skipped: the same sketch as adding
  // them one by one, at less cost (a batch's column at a time).
  void add(const double* values, std::size_t n);
  // Another sketch's samples, as if they had come after this one's.
  void merge(const QuantileSketch& other);
  // Sorts the lowest level in place. It is kept unsorted (values arrive there), so each estimate
  // sorts a copy of it, and its compaction sorts it again; sorted here (before a caller's
  // estimates at fixed counts: BracketedSketch's brackets), the estimates read it as it is, and
  // it is sorted again only once values have been added to it. The same sketch, estimates and
  // compactions either way; only the order of the lowest level's values in save() differs.
  void sort_lowest();
  // The lowest level's values, each of weight 1 (in order after sort_lowest()).
  const std::vector<double>& lowest() const { return levels_[0]; }
  // The lowest level narrowed to kept[0, n), a subsequence of lowest() in its order (copied
  // elsewhere, not lowest()'s own storage), the others taken out of the sketch and its count:
  // values its caller counts exactly on its own from now on (BracketedSketch's). Each stood for one sample exactly, so every
  // estimate and the bound in absolute ranks stay what they were for the values left.
  void keep_in_lowest(const double* kept, std::size_t n);
  // A batch's column of m0 finite values that a backend compacted `levels` times
  // (rbmc/stats/batch_compaction.hpp): compacted_count(m0, levels) values in its layout. Its
  // compactions count in rank_error_95 as the sketch's own.
  void merge_compacted(const double* values, std::uint64_t m0, int levels);

  std::uint64_t count() const { return count_; }
  std::size_t retained() const;  // values held, over all levels
  // The value whose estimated rank is the p-quantile's: the smallest retained value x with
  // W(≤ x) > p (count − 1), W the summed weights (rank (count − 1) p, numpy's convention).
  double quantile(double p) const;
  // Several at once (one sort), in the order asked.
  std::vector<double> quantiles(const std::vector<double>& p) const;
  // With 95 % confidence, the rank of each estimate lies within this fraction of the count of the
  // rank asked for.
  double rank_error_95() const;
  // Every retained value with its weight (the samples it stands for), ascending by value: the
  // sketch written out, (value, weight) pairs. The estimates are read from it by running weights,
  // as values_at_ranks reads them without building it.
  std::vector<std::pair<double, double>> weighted_values() const;
  // The value at each of m ranks t[0, m), into out[0, m): the least retained value x whose
  // summed weight W(≤ x) exceeds t[i]; −∞ for t[i] < 0 and +∞ for t[i] at or past the count.
  // The values that weighted_values' running weights give (as numbers: of zeros of both signs,
  // either), found by searching the sorted levels without building anything: what the
  // estimates and the brackets need.
  void values_at_ranks(const double* t, std::size_t m, double* out) const;
  // W(≤ x[j]) for each of x[0, m), into out[0, m): the summed weight of the retained values at
  // or below x[j], the sketch's estimate of how many of its samples lie there. (Below x: at or
  // below the next double down, std::nextafter(x, −∞).)
  void weights_at_or_below(const double* x, std::size_t m, double* out) const;
  // The most values a sketch of this k holds after `count` values, for budgeting memory.
  static std::size_t max_retained(int k, std::uint64_t count);
  // The largest k (at most kDefaultK, at least 8) whose max_retained(k, count) fits in `values`.
  static int largest_k(double values, std::uint64_t count);

  // Its state, to save and restore exactly: each level's values (lowest level first) and, per
  // level, how many values it holds and how many compactions it has had.
  struct State {
    std::vector<double> values;
    std::vector<std::uint64_t> level_sizes, compactions;  // kMaxLevels each
  };
  State save() const;
  void restore(const State& state);  // throws std::runtime_error when it does not fit

 private:
  std::size_t capacity(int level) const;
  void add_level();
  void compress();
  void compact(int level);
  // Adds levels[h] to level h (sorted above level 0), compactions[h] to level h's count of them.
  void merge_levels(const std::vector<std::vector<double>>& levels, const std::vector<std::uint64_t>& compactions,
                    std::uint64_t count);

  int k_;
  std::uint64_t seed_;
  std::uint64_t count_ = 0;
  std::vector<std::vector<double>> levels_;
  bool lowest_in_order_ = true;  // the lowest level ascending (sort_lowest, or a compaction since)
  std::vector<std::uint64_t> compactions_;
  std::vector<std::size_t> capacities_;
};

}  // namespace rbmc

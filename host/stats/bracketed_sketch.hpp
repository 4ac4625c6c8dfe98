// The quantiles of a few fixed probabilities at a fraction of a quantile sketch's cost: a KLL
// sketch (quantile_sketch.hpp) fed only the values near those quantiles; the others are counted.
//
// Why: the sketch sorts every value it is fed once (its lowest level), about 5 ns a value with
// Highway's vqsort, and merges it upwards, about 5 more. The statistics of a run want 5
// probabilities per column, and most values lie far from all of them.
//
// How. Until `kFirstBrackets` values have been offered the sketch takes every value. Then, and
// each time the values offered reach 4 times as many, each probability p_j gets a bracket
// [lo_j, hi_j]: the estimates at p_j ∓ m_j, with m_j = 6 √(p_j (1 − p_j) / n) + 2 ε (n the count,
// ε the sketch's own bound as a fraction of it): six standard deviations of the estimate of a
// p-quantile from n exchangeable samples. A bracket only ever shrinks. From then on a value inside
// some bracket enters the sketch; any other is counted, per bracket, as below it or not, and
// forgotten. At each update the values the sketch holds singly (its lowest level, weight 1 each;
// at the first brackets, every value so far) that lie outside every new bracket are counted the
// same way and leave it (count_out_of_brackets): a value counted then lies outside every later
// bracket as much as one counted on arrival, so the argument below holds for it, and it is never
// compacted. Until its first compaction the sketch then holds exactly the values inside the
// brackets, and the estimates are exact order statistics (rank error 0).
//
// Why the estimates keep a stated bound, whatever the values' order. A value counted at time t
// lay outside every bracket as it was then, so it lies outside every bracket now, on the same
// side. For any x in bracket j now, the number of values below x is exactly below_j plus the
// number of the sketch's values below x, and the sketch estimates the latter within its own
// bound (absolute: ε_sketch × its count). So the p_j-quantile's estimate is the sketch's value at
// rank p_j (n − 1) − below_j. Where that value falls outside bracket j (values whose order is not
// random, so that the early ones misplaced the bracket), it is clamped to the bracket's edge and
// the bound grows by the distance, which the counts give exactly. Exchangeable values (Monte
// Carlo, Latin hypercube and Sobol designs) almost never meet that; ordered ones (a grid) would,
// so RunStatistics brackets only the former (`bracketed`).
//
// Merging (rbmc merge, MPI ranks): the counts add, the sketches merge, and each bracket becomes
// the intersection of the two, outside which every counted value of either lies. An empty
// intersection (parts whose values barely overlap) loses that probability's guarantee: its bound
// becomes 1.
//
// The same values in the same order give the same sketch, whatever the batches they came in: the
// brackets change at fixed counts of values offered.
//
// A column whose every value so far is the same finite number (a quantity that no dispersion
// reaches, or every sample at an output time that coincides with the start: the main job's
// potential energy in free space, its position at t = 0) is held back: its values are counted, not
// sketched, for as long as that lasts. Sketched, each of its values was kept, as a value inside a
// bracket [x, x] is: a third of the main job's sketching went to such columns (bench/RESULTS.md,
// 2026-11-28, twenty-ninth session). The estimates are then that number, exactly (rank error 0). When another value comes, or the state is saved or
// merged, the values held back enter the sketch first, as add() would have taken them: the sketch
// is the one without holding back, except that zeros held back take the first one's sign (−0 ==
// +0: in free space the potential energy is −0 for some samples and +0 for others).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/stats/quantile_sketch.hpp"
#include "rbmc/stats/batch_compaction.hpp"

namespace rbmc {

class BracketedSketch {
 public:
  static constexpr std::size_t kProbabilities = 5;
  static_assert(kProbabilities == std::size_t(kColumnBrackets), "a backend's tallies count below each bracket");
  using Probabilities = std::array<double, kProbabilities>;
  // The values offered before the first brackets (unless merged in).
  static constexpr std::uint64_t kFirstBrackets = 4096;
  // Half-widths of a bracket in standard deviations of the estimate.
  static constexpr double kMarginSigmas = 6.0;

  // Whether runs of one number are held back (see above); `never` sketches every value as it
  // comes, as before holding back (the tests compare the two).
  enum class HoldBack { uniform_runs, never };

  // p: ascending probabilities, the quantiles asked for. bracketed = false: a plain sketch,
  // every value fed to it (the same estimates as QuantileSketch's, bit for bit).
  BracketedSketch(const Probabilities& p, bool bracketed, int k = QuantileSketch::kDefaultK, std::uint64_t seed = 0,
                  HoldBack hold_back = HoldBack::uniform_runs);

  // The finite ones of values[0, n), in order (non-finite ones are counted apart by the caller).
  void add(const double* values, std::size_t n);
  // How many of the next n values add() would pass straight to the brackets' filter as they are
  // now (brackets()): none before the first brackets or while a run of one number is held back,
  // else all of them up to the next update. A caller that reads the column anyway (its moments'
  // first pass: column_moments_filtering) may filter those itself and hand over the result.
  std::size_t filterable(std::size_t n) const;
  // The next `offered` values (at most filterable(offered)) as keep_inside_brackets filtered them
  // against brackets(): their n_kept kept values in order, how many of the others lay below each
  // bracket (kProbabilities of them), how many were finite. The same sketch as add() of those values.
  void take_filtered(const double* kept, std::size_t n_kept, const std::uint64_t* below, std::uint64_t finite,
                     std::size_t offered);
  // A batch's column as a backend classified it against this sketch's brackets as they were at
  // some earlier time (they only narrow) and compacted its kept values
  // (rbmc/stats/batch_compaction.hpp): the compacted values of tally.kept
  // (QuantileSketch::merge_compacted) into the sketch, the others counted below each bracket;
  // finite: the column's finite values, offered: all of its values. The brackets narrow at the
  // end of the batch once the values offered reach the next update.
  void merge_compacted(const double* values, int levels, const ColumnTally& tally, std::uint64_t finite,
                       std::uint64_t offered);
  // The brackets, for a backend to classify a batch against: (−∞, +∞) before any. While a run of
  // one number is held back, those from before it (wider, which a backend's classification allows).
  ColumnBrackets brackets() const;
  // Another part's values, as if they had come after this one's.
  void merge(const BracketedSketch& other);
  // Its sketch's lowest level sorted in place (QuantileSketch::sort_lowest), for the estimates
  // that follow: they read it as it is instead of each sorting a copy. No estimate moves.
  void sort_lowest() { sketch_.sort_lowest(); }

  std::uint64_t count() const { return count_ + held_; }  // finite values, sketched, counted or held back
  // The sketch of the values near the quantiles; those held back (see above) are not in it yet.
  const QuantileSketch& sketch() const { return sketch_; }
  // Whether it holds back runs and every value offered so far is the same finite number (none
  // offered: true).
  bool uniform() const { return uniform_; }
  // Whether some value may be counted instead of sketched: a bracket is finite.
  bool filters() const { return filters_; }
  // Each probability's estimate: the value whose estimated rank is p (count − 1), NaN when empty.
  Probabilities quantiles() const;
  // With 95 % confidence every estimate's rank lies within this fraction of the count of p's.
  double rank_error_95() const;

  // Its state, to save and restore exactly. save() first sketches the values held back.
  static constexpr std::size_t kSavedEdges = 2 * kProbabilities, kSavedCounts = 2 + kProbabilities;
  struct State {
    QuantileSketch::State sketch;
    std::array<double, kSavedEdges> brackets;        // lo_j, then hi_j
    std::array<std::uint64_t, kSavedCounts> counts;  // offered, count, below_j
  };
  State save();
  void restore(const State& state);  // throws std::runtime_error when it does not fit

 private:
  // The sketch's absolute bound: ε × its count.
  double sketch_error() const;
  // add() without holding back.
  void offer(const double* values, std::size_t n);
  // The values held back, into the sketch as offer() takes them.
  void release_held();
  // uniform_ and uniform_value_ from the state (after a restore or a merge).
  void note_uniform();
  void filter(const double* values, std::size_t n);
  void update_brackets();
  // The sketch's single values outside every bracket counted, and out of the sketch.
  void count_out_of_brackets();
  std::uint64_t next_update() const;
  void note_filters();

  Probabilities p_;
  bool bracketed_;
  QuantileSketch sketch_;
  std::uint64_t offered_ = 0;  // values passed to add(), finite or not: when the brackets change
  std::uint64_t count_ = 0;
  bool filters_ = false;
  Probabilities lo_, hi_;
  std::array<std::uint64_t, kProbabilities> below_{};  // counted values below lo_j
  bool holds_back_;
  // Holding back, and every value offered so far, sketched or held back, equals uniform_value_
  // (finite): none offered yet, or a run of one number.
  bool uniform_ = true;
  double uniform_value_ = 0;
  std::uint64_t held_ = 0;  // values of uniform_value_ held back: not yet offered to the sketch
};

}  // namespace rbmc

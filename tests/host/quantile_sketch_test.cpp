// The quantile sketch: each estimate's rank within the bound the sketch states, that bound at or
// below 1e-3 with the default k, merges, and an exact save and restore; its sort.
#include "host/stats/quantile_sketch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "host/stats/sort_finite.hpp"
#include "quantile_rank_error.hpp"
#include "rbmc/random/philox_stream.hpp"
#include "rbmc/stats/batch_compaction.hpp"

namespace rbmc {
namespace {

const std::vector<double> kP = {0.01, 0.05, 0.5, 0.95, 0.99};

using test::rank_error;

std::vector<double> draws(int distribution, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (distribution) {
      case 0: v[i] = normal(rng); break;
      case 1: v[i] = std::exp(3 * normal(rng)); break;      // heavy right tail
      case 2: v[i] = std::floor(10 * uniform(rng)); break;  // ten values, many ties
      default: v[i] = i % 2 == 0 ? double(i) : -double(i);  // arriving in order of magnitude
    }
  }
  return v;
}

void expect_within_bound(const QuantileSketch& sketch, std::vector<double> values, const char* what) {
  std::sort(values.begin(), values.end());
  const double bound = sketch.rank_error_95();
  const std::vector<double> q = sketch.quantiles(kP);
  for (std::size_t j = 0; j < kP.size(); ++j)
    EXPECT_LE(rank_error(values, q[j], kP[j]), bound) << what << ", p = " << kP[j];
}

// Small k: many compactions at many levels, and a bound of about 1e-2 that each estimate keeps.
TEST(QuantileSketch, EachEstimateIsWithinTheStatedRankError) {
  for (int distribution = 0; distribution < 4; ++distribution)
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const std::vector<double> v = draws(distribution, 200000, seed);
      QuantileSketch sketch(256, seed);
      for (double x : v) sketch.add(x);
      EXPECT_EQ(sketch.count(), v.size());
      EXPECT_LE(sketch.retained(), QuantileSketch::max_retained(256, v.size()));
      EXPECT_GT(sketch.rank_error_95(), 1e-3);
      EXPECT_LT(sketch.rank_error_95(), 0.05);
      expect_within_bound(sketch, v, "k = 256");
    }
}

// The default k states at most 1e-3 (the bound) at 10^7 samples, holds it, and keeps
// fewer than 3k + a few hundred values. The bound grows no further with the count: each level's
// Σ 4^h compactions grows as the count squared, the rank as the count.
TEST(QuantileSketch, DefaultSketchStatesAndKeepsARankErrorOfAtMostOneInAThousand) {
  const std::vector<double> v = draws(1, 10000000, 7);
  QuantileSketch sketch;
  for (double x : v) sketch.add(x);
  EXPECT_LE(sketch.rank_error_95(), 1e-3);
  EXPECT_LE(sketch.retained(), QuantileSketch::max_retained(QuantileSketch::kDefaultK, v.size()));
  expect_within_bound(sketch, v, "default k");
}

// Merging parts gives a sketch of the whole, within its (summed) bound; an empty part changes nothing.
TEST(QuantileSketch, MergedPartsSketchTheWhole) {
  const std::vector<double> v = draws(0, 300000, 11);
  QuantileSketch whole(512, 3), parts[3] = {QuantileSketch(512, 3), QuantileSketch(512, 3), QuantileSketch(512, 3)};
  for (std::size_t i = 0; i < v.size(); ++i) parts[i * 3 / v.size()].add(v[i]);
  whole.merge(parts[0]);
  whole.merge(QuantileSketch(512, 3));
  whole.merge(parts[1]);
  whole.merge(parts[2]);
  EXPECT_EQ(whole.count(), v.size());
  EXPECT_LE(whole.retained(), QuantileSketch::max_retained(512, v.size()));
  expect_within_bound(whole, v, "merged");
}

// Save and restore give the same sketch: the same quantiles, and the same after more values.
TEST(QuantileSketch, SaveAndRestoreAreExact) {
  const std::vector<double> v = draws(0, 100000, 5);
  QuantileSketch a(300, 9), b(300, 9);
  for (std::size_t i = 0; i < v.size() / 2; ++i) a.add(v[i]);
  b.restore(a.save());
  EXPECT_EQ(b.count(), a.count());
  EXPECT_EQ(b.quantiles(kP), a.quantiles(kP));
  EXPECT_EQ(b.rank_error_95(), a.rank_error_95());
  for (std::size_t i = v.size() / 2; i < v.size(); ++i) {
    a.add(v[i]);
    b.add(v[i]);
  }
  EXPECT_EQ(b.quantiles(kP), a.quantiles(kP));
  QuantileSketch::State s = a.save();
  s.values.pop_back();
  EXPECT_THROW(b.restore(s), std::runtime_error);
}

// Values a batch at a time (RunStatistics's way) make the same sketch as one by one, non-finite
// ones skipped. The values span both signs, zeros of both signs, subnormals and 1e300, so that the
// lowest level's radix sort meets every kind of key; the levels above stay sorted.
TEST(QuantileSketch, ABatchIsTheSameSketchAsItsValuesOneByOne) {
  std::vector<double> v = draws(0, 60000, 11);
  for (std::size_t i = 0; i < v.size(); i += 7) v[i] *= 1e300;
  for (std::size_t i = 3; i < v.size(); i += 11) v[i] *= 1e-310;  // subnormal
  for (std::size_t i = 5; i < v.size(); i += 13) v[i] = i % 2 == 0 ? 0.0 : -0.0;
  for (std::size_t i = 9; i < v.size(); i += 97) v[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
  QuantileSketch each(200, 3), batches(200, 3);
  for (double x : v)
    if (std::isfinite(x)) each.add(x);
  std::mt19937_64 rng(1);
  for (std::size_t at = 0; at < v.size();) {
    const std::size_t n = std::min<std::size_t>(v.size() - at, rng() % 3000);
    batches.add(v.data() + at, n);
    at += n;
  }
  const QuantileSketch::State a = each.save(), b = batches.save();
  EXPECT_EQ(a.level_sizes, b.level_sizes);
  EXPECT_EQ(a.compactions, b.compactions);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < a.values.size(); ++i) ASSERT_EQ(a.values[i], b.values[i]) << i;
  EXPECT_EQ(each.count(), batches.count());
  std::size_t at = a.level_sizes[0];
  for (std::size_t h = 1; h < a.level_sizes.size(); ++h) {
    const auto begin = a.values.begin() + std::ptrdiff_t(at);
    EXPECT_TRUE(std::is_sorted(begin, begin + std::ptrdiff_t(a.level_sizes[h]))) << "level " << h;
    at += a.level_sizes[h];
  }
  std::vector<double> sorted;
  for (double x : v)
    if (std::isfinite(x)) sorted.push_back(x);
  std::sort(sorted.begin(), sorted.end());
  const std::vector<double> q = batches.quantiles(kP);
  for (std::size_t j = 0; j < kP.size(); ++j) EXPECT_LE(rank_error(sorted, q[j], kP[j]), batches.rank_error_95());
}

// The lowest level sorted in place between additions (as a bracketed sketch does before its
// estimates) changes nothing but that level's order: at every step the same estimates, weights and
// bound bit for bit as a sketch never sorted, and the same levels and compactions; the estimates
// of a sorted level read it as it is, so a value added after a sort and read as if still in order
// would show here. Values in random chunks, ties and zeros of both signs among them, at a k that
// compacts often.
TEST(QuantileSketch, SortingTheLowestLevelChangesNoEstimate) {
  std::vector<double> v = draws(0, 40000, 21);
  for (std::size_t i = 5; i < v.size(); i += 13) v[i] = i % 2 == 0 ? 0.0 : -0.0;
  for (std::size_t i = 7; i < v.size(); i += 17) v[i] = 1.5;
  QuantileSketch sorted(300, 4), plain(300, 4);
  std::mt19937_64 rng(8);
  const std::vector<double> x = {-1.0, -0.0, 0.0, 0.3, 1.5, 2.0};
  for (std::size_t at = 0; at < v.size();) {
    const std::size_t n = std::min<std::size_t>(v.size() - at, rng() % 700);
    sorted.add(v.data() + at, n);
    plain.add(v.data() + at, n);
    at += n;
    if (rng() % 2 == 0) sorted.sort_lowest();
    if (rng() % 3 == 0) {  // one value alone, the other way in
      const double one = v[rng() % at];
      sorted.add(one);
      plain.add(one);
    }
    EXPECT_EQ(sorted.quantiles(kP), plain.quantiles(kP)) << at;
    std::vector<double> ws(x.size()), wp(x.size());
    sorted.weights_at_or_below(x.data(), x.size(), ws.data());
    plain.weights_at_or_below(x.data(), x.size(), wp.data());
    EXPECT_EQ(ws, wp) << at;
    EXPECT_EQ(sorted.rank_error_95(), plain.rank_error_95()) << at;
  }
  QuantileSketch::State a = sorted.save(), b = plain.save();
  EXPECT_EQ(a.level_sizes, b.level_sizes);
  EXPECT_EQ(a.compactions, b.compactions);
  ASSERT_EQ(a.values.size(), b.values.size());
  sort_finite(a.values.data(), a.level_sizes[0]);  // the lowest level's order alone may differ
  sort_finite(b.values.data(), b.level_sizes[0]);
  EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)), 0);
}

// Values taken out of the lowest level (each of weight 1) leave the sketch as if never added:
// before any compaction, the sketch of the values kept, bit for bit; more than it holds, an error.
TEST(QuantileSketch, ValuesTakenOutOfTheLowestLevelLeaveNoTrace) {
  const std::vector<double> v = draws(1, 3000, 6);
  QuantileSketch taken(5120, 2), kept_only(5120, 2);
  taken.add(v.data(), v.size());
  taken.sort_lowest();
  std::vector<double> kept;
  for (double value : taken.lowest())
    if (value > 0.5 && value < 20) kept.push_back(value);
  ASSERT_GT(kept.size(), 100u);
  ASSERT_LT(kept.size(), v.size() - 100);
  taken.keep_in_lowest(kept.data(), kept.size());
  kept_only.add(kept.data(), kept.size());
  EXPECT_EQ(taken.count(), kept.size());
  EXPECT_EQ(taken.quantiles(kP), kept_only.quantiles(kP));
  EXPECT_EQ(taken.rank_error_95(), 0.0);
  // Values added after it, past the first compaction: still the kept values' sketch.
  const std::vector<double> more = draws(1, 9000, 7);
  taken.add(more.data(), more.size());
  kept_only.add(more.data(), more.size());
  EXPECT_EQ(taken.quantiles(kP), kept_only.quantiles(kP));
  EXPECT_EQ(taken.rank_error_95(), kept_only.rank_error_95());
  EXPECT_GT(taken.rank_error_95(), 0.0);
  EXPECT_THROW(taken.keep_in_lowest(kept.data(), taken.lowest().size() + 1), std::logic_error);
}

// A second formulation of the same sketch, written for clarity: the lowest level sorted by
// std::sort in the sort's order (−0 before +0), the kept half merged into the level above by
// std::inplace_merge (stable: the level's own values first among equal ones), capacities and
// coins as quantile_sketch.hpp states them. The sketch's merge (branch-free, in place from the
// back) must leave the same values in the same order, bit for bit.
class ReferenceSketch {
 public:
  ReferenceSketch(int k, std::uint64_t seed) : k_(k), seed_(seed) { add_level(); }
  void add(double x) {
    levels_[0].push_back(x);
    if (levels_[0].size() >= capacities_[0]) compress();
  }
  QuantileSketch::State save() const {
    QuantileSketch::State s;
    s.level_sizes.assign(QuantileSketch::kMaxLevels, 0);
    s.compactions.assign(QuantileSketch::kMaxLevels, 0);
    for (std::size_t h = 0; h < levels_.size(); ++h) {
      s.values.insert(s.values.end(), levels_[h].begin(), levels_[h].end());
      s.level_sizes[h] = levels_[h].size();
      s.compactions[h] = compactions_[h];
    }
    return s;
  }

 private:
  void add_level() {
    levels_.emplace_back();
    compactions_.push_back(0);
    capacities_.resize(levels_.size());
    for (std::size_t h = 0; h < levels_.size(); ++h)
      capacities_[h] = std::max<std::size_t>(
          64, std::size_t(std::ceil(k_ * std::pow(2.0 / 3.0, double(levels_.size() - 1 - h)))));
    capacities_[0] = std::max<std::size_t>(capacities_[0], std::min(k_, 2048));
  }
  void compress() {
    for (std::size_t h = 0; h < levels_.size(); ++h)
      if (levels_[h].size() >= capacities_[h]) compact(h);
  }
  void compact(std::size_t h) {
    if (h + 1 == levels_.size()) add_level();
    std::vector<double>& from = levels_[h];
    if (h == 0)
      std::sort(from.begin(), from.end(), [](double x, double y) {
        return x < y || (x == y && std::signbit(x) && !std::signbit(y));
      });
    double left_over = 0;
    const bool odd = from.size() % 2 == 1;
    if (odd) {
      left_over = from.back();
      from.pop_back();
    }
    const std::uint64_t n = compactions_[h];
    const PhiloxStream coins(seed_, (n >> 32) * QuantileSketch::kMaxLevels + h, stream_id("statistics.quantile_sketch"));
    const std::size_t offset = coins.uniform(std::uint32_t(n)) <= 0.5 ? 0 : 1;
    std::vector<double>& to = levels_[h + 1];
    const std::size_t before = to.size();
    for (std::size_t i = offset; i < from.size(); i += 2) to.push_back(from[i]);
    std::inplace_merge(to.begin(), to.begin() + std::ptrdiff_t(before), to.end());
    from.clear();
    if (odd) from.push_back(left_over);
    ++compactions_[h];
  }

  int k_;
  std::uint64_t seed_;
  std::vector<std::vector<double>> levels_;
  std::vector<std::uint64_t> compactions_;
  std::vector<std::size_t> capacities_;
};

TEST(QuantileSketch, IsTheSameAsAPlainlyWrittenSecondFormulation) {
  // Ties (ten values), zeros of both signs, and values arriving in order of magnitude (long runs
  // from one input of each merge), at small and large k.
  for (int distribution : {0, 2, 3})
    for (int k : {100, 1000, QuantileSketch::kDefaultK}) {
      std::vector<double> v = draws(distribution, 150000, unsigned(k));
      for (std::size_t i = 5; i < v.size(); i += 13) v[i] = i % 2 == 0 ? 0.0 : -0.0;
      QuantileSketch sketch(k, 17);
      ReferenceSketch reference(k, 17);
      sketch.add(v.data(), v.size());
      for (double x : v) reference.add(x);
      const QuantileSketch::State a = sketch.save(), b = reference.save();
      ASSERT_EQ(a.level_sizes, b.level_sizes) << "distribution " << distribution << ", k " << k;
      EXPECT_EQ(a.compactions, b.compactions);
      for (std::size_t i = 0; i < a.values.size(); ++i) {
        std::uint64_t x, y;
        std::memcpy(&x, &a.values[i], sizeof x);
        std::memcpy(&y, &b.values[i], sizeof y);
        ASSERT_EQ(x, y) << "value " << i << ", distribution " << distribution << ", k " << k;
      }
    }
}

// The value at a rank, read plainly from weighted_values: the first pair whose running weight
// exceeds t; −∞ below rank 0, +∞ past the count.
double value_at_rank_of_weighted(const std::vector<std::pair<double, double>>& weighted, double t) {
  if (t < 0) return -INFINITY;
  double cumulative = 0;
  for (const auto& [value, weight] : weighted)
    if ((cumulative += weight) > t) return value;
  return INFINITY;
}

// values_at_ranks and weights_at_or_below search the levels instead of merging them: they must
// read what weighted_values' running weights give (values equal as numbers: a zero's sign may
// differ), at every rank and at every retained value and its neighbours, with ties (ten values;
// zeros of both signs), at many levels (small k) and few, and after merges that leave levels of
// any size.
TEST(QuantileSketch, RanksAndWeightsAreThoseOfTheWeightedValues) {
  for (int distribution : {0, 2, 3})
    for (int k : {16, 100, QuantileSketch::kDefaultK})
      for (std::size_t n : {std::size_t(1), std::size_t(37), std::size_t(7000), std::size_t(60000)}) {
        std::vector<double> v = draws(distribution, n, unsigned(k + n));
        for (std::size_t i = 5; i < v.size(); i += 13) v[i] = i % 2 == 0 ? 0.0 : -0.0;
        QuantileSketch sketch(k, 3), other(k, 4);
        sketch.add(v.data(), v.size() / 2);
        other.add(v.data() + v.size() / 2, v.size() - v.size() / 2);
        sketch.merge(other);
        const std::vector<std::pair<double, double>> weighted = sketch.weighted_values();
        const double count = double(sketch.count());
        // Every whole rank, the halves between, and beyond both ends (all of them up to a few
        // thousand; past that every 7th, and each rank where a retained value's weight ends).
        std::vector<double> t = {-1.0, -0.5, count - 0.5, count, count + 3};
        const double step = count < 5000 ? 1.0 : 7.0;
        for (double r = 0; r < count; r += step) t.insert(t.end(), {r, r + 0.5});
        double cumulative = 0;
        for (const auto& [value, weight] : weighted) {
          cumulative += weight;
          t.insert(t.end(), {cumulative - 1, cumulative - 0.5});
        }
        std::vector<double> found(t.size());
        sketch.values_at_ranks(t.data(), t.size(), found.data());
        for (std::size_t i = 0; i < t.size(); ++i) {
          const double expected = value_at_rank_of_weighted(weighted, t[i]);
          // Equal as numbers: of zeros of both signs at the rank, either may be read.
          ASSERT_EQ(found[i], expected) << "rank " << t[i] << " (distribution " << distribution << ", k " << k << ", n "
                                        << n << ", " << sketch.retained() << " retained)";
        }
        std::vector<double> x = {-INFINITY, INFINITY, 0.0, -0.0};
        for (const auto& [value, weight] : weighted)
          x.insert(x.end(), {value, std::nextafter(value, -INFINITY), std::nextafter(value, INFINITY)});
        std::vector<double> w(x.size());
        sketch.weights_at_or_below(x.data(), x.size(), w.data());
        std::vector<double> running(weighted.size() + 1, 0.0);  // the weight of the first i pairs
        for (std::size_t i = 0; i < weighted.size(); ++i) running[i + 1] = running[i] + weighted[i].second;
        for (std::size_t i = 0; i < x.size(); ++i) {
          const auto past = std::upper_bound(weighted.begin(), weighted.end(), x[i],
                                             [](double v, const std::pair<double, double>& p) { return v < p.first; });
          const double expected = running[std::size_t(past - weighted.begin())];
          ASSERT_EQ(w[i], expected) << "W(<= " << x[i] << ") (distribution " << distribution << ", k " << k
                                    << ", n " << n << ")";
        }
      }
}

// Few values: no compaction, the estimates are order statistics and the bound is 0.
TEST(QuantileSketch, FewValuesAreKeptExactly) {
  QuantileSketch s;
  for (double x : {5.0, 1.0, 3.0, 2.0, 4.0}) s.add(x);
  EXPECT_EQ(s.rank_error_95(), 0.0);
  EXPECT_EQ(s.quantile(0.5), 3.0);
  EXPECT_EQ(s.quantile(0.0), 1.0);
  EXPECT_EQ(s.quantile(1.0), 5.0);
  EXPECT_TRUE(std::isnan(QuantileSketch().quantile(0.5)));
}

// Both sorts (the build's, vqsort where found, and the portable bucket sort, always built) give
// the values' order bit for bit, -0 before +0, on every kind of column: spread, heavy-tailed,
// tied, values across the whole exponent range, a crowd with far outliers (the bucket sort's
// recursion), sizes around its insertion-sort threshold, and zeros of mixed sign, one of which
// (5,120 of them, about 7 in 8 negative, as a free body's position column holds) made Highway
// 1.0.3's vqsort on doubles read out of bounds and corrupt the heap.
// A column compacted before it arrives (rbmc/stats/batch_compaction.hpp): its values keep their
// weights (the count, and quantiles read off the weighted values), and its compactions count in
// the bound exactly as the sketch's own: 1000 values compacted 3 levels (1000 → 500 → 250 → 125,
// none kept back) make Σ 4^l = 1 + 4 + 16.
TEST(QuantileSketch, ACompactedColumnKeepsItsWeightsAndCountsItsCompactions) {
  std::vector<double> v = draws(0, 1000, 3);
  std::sort(v.begin(), v.end());
  const int levels = batch_compaction_levels(v.size(), 100);
  ASSERT_EQ(levels, 3);
  const std::uint64_t coins = batch_compaction_coins(9, 0, levels);
  std::vector<double> sent(compacted_count(v.size(), levels));
  for (std::size_t j = 0; j < sent.size(); ++j) sent[j] = v[compacted_position(v.size(), levels, coins, j)];
  QuantileSketch sketch;
  sketch.merge_compacted(sent.data(), v.size(), levels);
  EXPECT_EQ(sketch.count(), 1000u);
  EXPECT_EQ(sketch.retained(), 125u);
  EXPECT_DOUBLE_EQ(sketch.rank_error_95(), std::sqrt(2 * std::log(40.0) * 21) / 1000);
  // Each value stands for 8: the median's rank 499.5 falls in the 63rd (8 × 62 = 496 ≤ 499.5 < 504).
  EXPECT_EQ(sketch.quantile(0.5), sent[62]);
  // A column with values kept back: 1001 → 500 → 250 → 125, one kept back at level 0 (the largest).
  std::vector<double> w = draws(1, 1001, 4);
  std::sort(w.begin(), w.end());
  ASSERT_EQ(compacted_count(w.size(), levels), 126u);
  std::vector<double> sent_w(126);
  for (std::size_t j = 0; j < sent_w.size(); ++j) sent_w[j] = w[compacted_position(w.size(), levels, coins, j)];
  EXPECT_EQ(sent_w.back(), w.back());
  QuantileSketch with_kept_back;
  with_kept_back.merge_compacted(sent_w.data(), w.size(), levels);
  EXPECT_EQ(with_kept_back.count(), 1001u);
  EXPECT_EQ(with_kept_back.quantile(1.0), w.back());
}

TEST(SortFinite, BothSortsGiveTheValuesOrderBitForBit) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  std::vector<std::vector<double>> columns;
  for (int d = 0; d < 4; ++d)
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(32), std::size_t(33),
                          std::size_t(2048), std::size_t(5000)})
      columns.push_back(draws(d, n, unsigned(n) + 11));
  std::vector<double> exponents, crowd;
  for (int i = 0; i < 3000; ++i) exponents.push_back(std::ldexp(normal(rng), int(rng() % 2040) - 1020));
  for (int i = 0; i < 4000; ++i) crowd.push_back(i % 1000 == 0 ? 1e200 * normal(rng) : 1.0 + 1e-12 * normal(rng));
  columns.insert(columns.end(), {exponents, crowd});
  for (double negative : {0.0, 0.5, 0.87, 1.0})
    for (std::size_t n : {std::size_t(300), std::size_t(2048), std::size_t(5120)}) {
      std::vector<double> zeros(n);
      for (double& z : zeros) z = uniform(rng) < negative ? -0.0 : 0.0;
      columns.push_back(zeros);
    }
  const auto bits = [](double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  };
  for (const std::vector<double>& column : columns) {
    std::vector<double> expected = column, sorted = column, bucket = column;
    std::sort(expected.begin(), expected.end(), [](double a, double b) {
      return a < b || (a == b && std::signbit(a) && !std::signbit(b));
    });
    sort_finite(sorted.data(), sorted.size());
    bucket_sort_finite(bucket.data(), bucket.size());
    for (std::size_t i = 0; i < column.size(); ++i) {
      ASSERT_EQ(bits(sorted[i]), bits(expected[i])) << "sort_finite, value " << i << " of " << column.size();
      ASSERT_EQ(bits(bucket[i]), bits(expected[i])) << "bucket_sort_finite, value " << i << " of " << column.size();
    }
  }
}

// The sketch's copy of a column keeps its finite values in order, bit for bit, after what the
// level holds: all of them (the block copy) or some (one by one), a non-finite one in every
// position of a short column.
TEST(AppendFinite, KeepsTheFiniteValuesInOrder) {
  const std::vector<double> finite = draws(0, 37, 5), held = {-1.5, 2.0};
  std::vector<double> out = held;
  ASSERT_EQ(append_finite(finite.data(), finite.size(), out), finite.size());
  std::vector<double> expected = held;
  expected.insert(expected.end(), finite.begin(), finite.end());
  EXPECT_EQ(out, expected);
  for (double bad : {double(NAN), double(INFINITY), double(-INFINITY)})
    for (std::size_t at = 0; at < finite.size(); ++at) {
      std::vector<double> column = finite;
      column[at] = bad;
      expected = held;
      expected.insert(expected.end(), finite.begin(), finite.end());
      expected.erase(expected.begin() + std::ptrdiff_t(held.size() + at));
      out = held;
      ASSERT_EQ(append_finite(column.data(), column.size(), out), finite.size() - 1) << at;
      EXPECT_EQ(out, expected) << at;
    }
}

}  // namespace
}  // namespace rbmc

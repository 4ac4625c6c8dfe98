// A batch's column compacted at once (rbmc/stats/batch_compaction.hpp) against the compactions
// done one level at a time, as the quantile sketch does them: the same values at the same levels.
#include "rbmc/stats/batch_compaction.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <vector>

namespace rbmc {
namespace {

// The reference: level by level, the sorted level's largest value kept back when its count is
// odd, then the even (coin 0) or odd (coin 1) ones of the rest moved up. Returns the positions in
// the sorted column of the values left at each level.
std::vector<std::vector<std::uint64_t>> level_by_level(std::uint64_t m0, int levels, std::uint64_t coins) {
  std::vector<std::vector<std::uint64_t>> at(std::size_t(levels) + 1);
  std::vector<std::uint64_t> level(m0);
  std::iota(level.begin(), level.end(), 0);
  for (int l = 0; l < levels; ++l) {
    if (level.size() % 2 == 1) {
      at[std::size_t(l)].push_back(level.back());
      level.pop_back();
    }
    std::vector<std::uint64_t> up;
    for (std::size_t j = (coins >> l) & 1; j < level.size(); j += 2) up.push_back(level[j]);
    level = up;
  }
  at[std::size_t(levels)] = level;
  return at;
}

TEST(BatchCompaction, EqualsTheCompactionsOneLevelAtATime) {
  for (std::uint64_t m0 : std::vector<std::uint64_t>{0, 1, 2, 3, 7, 64, 100, 1000, 1023, 4097, 12345}) {
    for (int levels = 0; levels <= 8; ++levels) {
      if (levels > 0 && (m0 >> (levels - 1)) < 2) break;  // compactions need two values
      for (std::uint64_t coins : std::vector<std::uint64_t>{0, 1, 0x55, 0xAA, 0xFF, 0x3C}) {
        const auto reference = level_by_level(m0, levels, coins);
        const std::uint64_t n = compacted_count(m0, levels);
        std::vector<std::vector<std::uint64_t>> at(std::size_t(levels) + 1);
        for (std::uint64_t j = 0; j < n; ++j)
          at[std::size_t(compacted_level(m0, levels, j))].push_back(compacted_position(m0, levels, coins, j));
        EXPECT_EQ(at, reference) << "m0 " << m0 << ", " << levels << " levels, coins " << coins;
        // The weights are kept: the values stand for the whole column.
        std::uint64_t weight = 0;
        for (std::size_t l = 0; l < at.size(); ++l) weight += std::uint64_t(at[l].size()) << l;
        EXPECT_EQ(weight, m0);
      }
    }
  }
}

TEST(BatchCompaction, KeepsAtLeastKeepValuesAndFewerThanTwiceAtTheTop) {
  for (std::uint64_t keep : std::vector<std::uint64_t>{1, 8, 10240})
    for (std::uint64_t m0 : std::vector<std::uint64_t>{0, keep, 2 * keep - 1, 2 * keep, 5 * keep + 3, 1000 * keep + 17}) {
      const int h = batch_compaction_levels(m0, keep);
      const std::uint64_t top = m0 >> h;
      if (h > 0) EXPECT_GE(top, keep) << m0;
      EXPECT_LT(top, 2 * keep) << m0;
      EXPECT_LE(compacted_count(m0, h), compacted_capacity(m0, keep));
      EXPECT_LE(compacted_count(m0, h), compacted_capacity(1000 * keep + 17, keep));  // the batch's slot holds any column
    }
  EXPECT_EQ(batch_compaction_levels(1u << 20, 0), 0);  // keep 0: exact quantiles, nothing compacted
}

TEST(BatchCompaction, CoinsAreFairAndDifferPerColumnAndBatch) {
  // Over 4,000 (column, batch) keys, each level's coin comes up 1 about half the time: 2,000 ± 32
  // (one standard deviation); 5 standard deviations allowed.
  constexpr int kLevels = 10, kKeys = 4000;
  int ones[kLevels] = {};
  std::set<std::uint64_t> distinct;
  for (int k = 0; k < kKeys; ++k) {
    const std::uint64_t bits = batch_compaction_coins(statistics_column_seed(7, std::size_t(k % 40)), std::uint64_t(k / 40) * 8192, kLevels);
    distinct.insert(bits);
    for (int l = 0; l < kLevels; ++l) ones[l] += int((bits >> l) & 1);
    EXPECT_EQ(bits, batch_compaction_coins(statistics_column_seed(7, std::size_t(k % 40)), std::uint64_t(k / 40) * 8192, kLevels));
  }
  for (int l = 0; l < kLevels; ++l) EXPECT_NEAR(ones[l], kKeys / 2, 5 * 32) << "level " << l;
  EXPECT_GT(distinct.size(), 900u);  // 1,024 patterns: nearly all drawn
  EXPECT_EQ(batch_compaction_coins(1, 2, 0), 0u);
}

// Brackets that overlap ([−1.5, −1.2] inside [−2, −1]), one of a single point ([0, 0]) and an
// empty one ([3, −∞]), and values that test them: NaN of both signs, infinities, zeros of both
// signs, each edge and its neighbouring doubles, and `normals` draws of N(0, 2²).
constexpr double kBracketLo[kColumnBrackets] = {-2.0, -1.5, 0.0, 1.0, 3.0};
constexpr double kBracketHi[kColumnBrackets] = {-1.0, -1.2, 0.0, 2.0, -std::numeric_limits<double>::infinity()};
std::vector<double> values_about_the_brackets(unsigned seed, int normals) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> values = {nan, -nan, inf, -inf, 0.0, -0.0, 3.0, 4.0, 2.5};
  for (double e : {-2.0, -1.5, -1.2, -1.0, 1.0, 2.0})
    for (double x : {e, std::nextafter(e, -inf), std::nextafter(e, inf)}) values.push_back(x);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 2.0);
  for (int i = 0; i < normals; ++i) values.push_back(normal(rng));
  return values;
}

// A column's classification against its brackets (tally_value, as the device's kernel and the
// CPU's reference make it): a value is kept when finite and inside some closed bracket; every
// other finite value counts below each bracket whose lower edge it is under; non-finite values are
// neither. Checked against the definition written out, on edge values, zeros of both signs,
// infinities and NaN, with overlapping, one-point, open and empty brackets.
TEST(BatchCompaction, TallyKeepsTheValuesInsideSomeBracketAndCountsTheOthersBelowEach) {
  const double inf = std::numeric_limits<double>::infinity();
  const double *lo = kBracketLo, *hi = kBracketHi;
  ColumnBrackets b{};
  for (int j = 0; j < kColumnBrackets; ++j) {
    b.lo[j] = lo[j];
    b.hi[j] = hi[j];
  }
  const std::vector<double> values = values_about_the_brackets(3, 2000);
  ColumnTally tally{};
  std::uint64_t kept = 0, below[kColumnBrackets] = {};
  for (double x : values) {
    bool inside = false;
    for (int j = 0; j < kColumnBrackets; ++j) inside = inside || (lo[j] <= x && x <= hi[j]);
    const bool expected = std::isfinite(x) && inside;
    EXPECT_EQ(tally_value(x, b, tally), expected) << x;
    kept += expected ? 1 : 0;
    if (std::isfinite(x) && !inside)
      for (int j = 0; j < kColumnBrackets; ++j) below[j] += x < lo[j] ? 1 : 0;
  }
  EXPECT_EQ(tally.kept, kept);
  for (int j = 0; j < kColumnBrackets; ++j) EXPECT_EQ(tally.below[j], below[j]) << j;
  EXPECT_GT(kept, 0u);
  EXPECT_GT(below[4], 0u);
  // Open brackets keep every finite value; empty ones none.
  ColumnBrackets open{}, none{};
  for (int j = 0; j < kColumnBrackets; ++j) {
    open.lo[j] = -inf;
    open.hi[j] = inf;
    none.lo[j] = inf;
    none.hi[j] = -inf;
  }
  ColumnTally all{}, nothing{};
  for (double x : values) {
    EXPECT_EQ(tally_value(x, open, all), bool(std::isfinite(x))) << x;
    EXPECT_FALSE(tally_value(x, none, nothing)) << x;
  }
  EXPECT_EQ(nothing.kept, 0u);
}

// The rule on a vector of values (GCC's vector extension, as the CPU's filter uses it) gives
// every lane the mask of that value alone: all bits where the scalar rule gives 1, none where 0.
// Such values, four at a time in every rotation, against the same brackets.
TEST(BatchCompaction, TheBracketRuleOnAVectorIsTheRuleOnEachOfItsValues) {
  using Four = double __attribute__((vector_size(4 * sizeof(double))));
  using FourMask = decltype(Four{} < Four{});
  const double *lo = kBracketLo, *hi = kBracketHi;
  const std::vector<double> values = values_about_the_brackets(5, 203);
  Four lo_v[kColumnBrackets], hi_v[kColumnBrackets];
  for (int j = 0; j < kColumnBrackets; ++j)
    for (int l = 0; l < 4; ++l) {
      lo_v[j][l] = lo[j];
      hi_v[j][l] = hi[j];
    }
  const auto lane_agrees = [](FourMask vector_mask, int l, int scalar_mask) {
    return (scalar_mask == 1 && vector_mask[l] == -1) || (scalar_mask == 0 && vector_mask[l] == 0);
  };
  int kept = 0;
  for (std::size_t i = 0; i + 4 <= values.size(); ++i) {
    Four x;
    for (int l = 0; l < 4; ++l) x[l] = values[i + std::size_t(l)];
    const BracketMasks<FourMask> v = bracket_masks(x, lo_v, hi_v);
    for (int l = 0; l < 4; ++l) {
      const BracketMasks<int> one = bracket_masks(x[l], lo, hi);
      EXPECT_TRUE(lane_agrees(v.finite, l, one.finite)) << x[l];
      EXPECT_TRUE(lane_agrees(v.kept, l, one.kept)) << x[l];
      for (int j = 0; j < kColumnBrackets; ++j) EXPECT_TRUE(lane_agrees(v.below[j], l, one.below[j])) << x[l] << " " << j;
      kept += one.kept;
    }
  }
  EXPECT_GT(kept, 0);
}

}  // namespace
}  // namespace rbmc

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

// A radix sort's order of floating-point keys, as CUB's: the bits with every bit flipped for a
// negative sign and the sign bit flipped otherwise, compared as unsigned integers.
template <class Scalar, class Bits>
Bits radix_key(Scalar x) {
  Bits b;
  std::memcpy(&b, &x, sizeof b);
  const Bits sign = Bits(1) << (8 * sizeof(Bits) - 1);
  return (b & sign) != 0 ? Bits(~b) : Bits(b | sign);
}

// The device's step for one column (kernels/statistics.cu): its values sorted by their bits, the
// finite ones found among the non-finite ones at both ends, and compacted by position. The same
// values as the CPU's reference, which sorts the finite values alone.
template <class Scalar, class Bits>
void check_radix_sorted_column(unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<Scalar> normal;
  const Scalar nan = std::numeric_limits<Scalar>::quiet_NaN(), inf = std::numeric_limits<Scalar>::infinity();
  std::vector<Scalar> column;
  for (int i = 0; i < 5000; ++i) column.push_back(normal(rng));
  for (Scalar x : {nan, -nan, inf, -inf, Scalar(0), -Scalar(0), nan, -inf, -nan}) column.push_back(x);
  std::shuffle(column.begin(), column.end(), rng);
  std::vector<Scalar> by_bits = column, finite;
  std::sort(by_bits.begin(), by_bits.end(),
            [](Scalar a, Scalar b) { return radix_key<Scalar, Bits>(a) < radix_key<Scalar, Bits>(b); });
  for (Scalar x : column)
    if (std::isfinite(x)) finite.push_back(x);
  std::sort(finite.begin(), finite.end());
  const std::size_t first = first_finite_of_sorted(by_bits.data(), by_bits.size());
  EXPECT_EQ(first, 4u);  // two −NaN, then two −∞
  for (std::size_t i = 0; i < finite.size(); ++i) ASSERT_EQ(by_bits[first + i], finite[i]) << i;
  const std::uint64_t m0 = finite.size();
  const int levels = batch_compaction_levels(m0, 300);
  ASSERT_EQ(levels, 4);  // 5,002 → 2,501 → 1,250 (one kept back) → 625 → 312
  const std::uint64_t coins = batch_compaction_coins(statistics_column_seed(5, 7), 0, levels);
  for (std::uint64_t j = 0; j < compacted_count(m0, levels); ++j) {
    const std::uint64_t at = compacted_position(m0, levels, coins, j);
    ASSERT_EQ(by_bits[first + at], finite[at]) << j;
  }
  // Without a non-finite value, or with nothing finite.
  EXPECT_EQ(first_finite_of_sorted(finite.data(), finite.size()), 0u);
  const Scalar none[] = {-nan, -inf, inf, nan};
  EXPECT_EQ(first_finite_of_sorted(none, 4), 2u);
}

TEST(BatchCompaction, FindsAndCompactsTheFiniteValuesOfARadixSortedColumn) {
  check_radix_sorted_column<double, std::uint64_t>(1);
  check_radix_sorted_column<float, std::uint32_t>(2);
}

}  // namespace
}  // namespace rbmc

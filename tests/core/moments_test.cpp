// Mergeable moments: any split of the values, merged in any order, gives the two-pass mean and
// variance to rounding (Chan et al.'s update is stable: errors of order n ε relative to the
// spread, not to the mean²), and NaN is not counted.
#include "rbmc/stats/moments.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace rbmc {
namespace {

TEST(Moments, AnySplitMergesToTheTwoPassValues) {
  std::mt19937_64 rng(3);
  // A large offset: the naive Σx² − n x̄² would lose 12 of its 16 digits here.
  std::normal_distribution<double> normal(1e6, 1.0);
  std::vector<double> x(10000);
  for (double& v : x) v = normal(rng);
  double mean = 0;
  for (double v : x) mean += v / double(x.size());
  double m2 = 0;
  for (double v : x) m2 += (v - mean) * (v - mean);
  const double variance = m2 / double(x.size() - 1);
  for (std::size_t split : {1u, 7u, 100u, 9999u}) {
    Moments a, b;
    for (std::size_t i = 0; i < split; ++i) a = merge(a, Moments::of(x[i]));
    for (std::size_t i = split; i < x.size(); ++i) b = merge(b, Moments::of(x[i]));
    for (const Moments& m : {merge(a, b), merge(b, a)}) {
      EXPECT_EQ(m.count, double(x.size()));
      EXPECT_NEAR(m.mean, mean, 1e-15 * 1e6 * 4);
      EXPECT_NEAR(m.variance(), variance, 1e-9 * variance);  // n ε (mean/σ) / √n ≈ 2e-10 relative
      EXPECT_EQ(m.min, *std::min_element(x.begin(), x.end()));
      EXPECT_EQ(m.max, *std::max_element(x.begin(), x.end()));
    }
  }
}

// Welford's update, a value at a time (add_value, as the GPU's column reduction takes them), then
// merged with another such run: the two-pass values to the same rounding as merges of single
// values (Welford's update is as stable as Chan's), counts and extremes exactly, and a
// non-finite value counted as Moments::of counts it.
TEST(Moments, ValuesAddedOneAtATimeGiveTheTwoPassValues) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(1e6, 1.0);
  std::vector<double> x(10000);
  for (double& v : x) v = normal(rng);
  x[17] = NAN;
  x[4242] = std::numeric_limits<double>::infinity();
  double mean = 0, n = 0;
  for (double v : x)
    if (std::isfinite(v)) n += 1;
  for (double v : x)
    if (std::isfinite(v)) mean += v / n;
  double m2 = 0;
  for (double v : x)
    if (std::isfinite(v)) m2 += (v - mean) * (v - mean);
  for (std::size_t split : {0u, 1u, 5000u, 10000u}) {
    Moments a, b;
    for (std::size_t i = 0; i < split; ++i) a = add_value(a, x[i]);
    for (std::size_t i = split; i < x.size(); ++i) b = add_value(b, x[i]);
    const Moments m = merge(a, b);
    EXPECT_EQ(m.count, n);
    EXPECT_EQ(m.non_finite, 1);
    EXPECT_NEAR(m.mean, mean, 1e-15 * 1e6 * 4);
    EXPECT_NEAR(m.variance(), m2 / (n - 1), 1e-9 * m2 / (n - 1));  // as AnySplitMergesToTheTwoPassValues
    double lo = INFINITY, hi = -INFINITY;
    for (double v : x)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    EXPECT_EQ(m.min, lo);
    EXPECT_EQ(m.max, hi);
  }
  EXPECT_EQ(add_value(Moments{}, NAN).count + add_value(Moments{}, NAN).non_finite, 0);
  EXPECT_EQ(add_value(Moments{}, -INFINITY).non_finite, 1);
}

TEST(Moments, NanIsNotCountedAndEmptyIsNeutral) {
  Moments m = merge(Moments::of(1.0), Moments::of(NAN));
  m = merge(m, Moments::of(3.0));
  EXPECT_EQ(m.count, 2);
  EXPECT_EQ(m.mean, 2);
  EXPECT_EQ(m.variance(), 2);
  EXPECT_EQ(merge(Moments{}, m).mean, m.mean);
  EXPECT_EQ(Moments{}.variance(), 0);
  EXPECT_EQ(Moments::of(NAN).count, 0);
}

// An infinity (a quantity that overflowed) is counted apart and never reaches the moments; the
// counts add up in any merge order.
TEST(Moments, InfinitiesAreCountedApart) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Moments::of(inf).count, 0);
  EXPECT_EQ(Moments::of(-inf).non_finite, 1);
  EXPECT_EQ(Moments::of(NAN).non_finite, 0);
  const Moments m = merge(merge(Moments::of(1.0), Moments::of(inf)), merge(Moments::of(-inf), Moments::of(3.0)));
  EXPECT_EQ(m.count, 2);
  EXPECT_EQ(m.non_finite, 2);
  EXPECT_EQ(m.mean, 2.0);
  EXPECT_EQ(m.max, 3.0);
  EXPECT_EQ(merge(Moments{}, Moments::of(inf)).non_finite, 1);
}

}  // namespace
}  // namespace rbmc

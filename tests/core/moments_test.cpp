// Mergeable moments: any split of the values, merged in any order, gives the two-pass mean and
// variance to rounding (Chan et al.'s update is stable: errors of order n ε relative to the
// spread, not to the mean²), and NaN is not counted.
#include "rbmc/stats/moments.hpp"

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

#include "rbmc/random/philox_stream.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace rbmc {
namespace {

// Known-answer vectors from Random123's tests/kat_vectors ("philox4x32 10" lines): counter and
// key all zeros, and all ones.
TEST(PhiloxStream, MatchesRandom123KnownAnswers) {
  const auto zero = r123::Philox4x32()({{0, 0, 0, 0}}, {{0, 0}});
  EXPECT_EQ(zero[0], 0x6627e8d5u);
  EXPECT_EQ(zero[1], 0xe169c58du);
  EXPECT_EQ(zero[2], 0xbc57ac4cu);
  EXPECT_EQ(zero[3], 0x9b00dbd8u);
  const std::uint32_t f = 0xffffffffu;
  const auto ones = r123::Philox4x32()({{f, f, f, f}}, {{f, f}});
  EXPECT_EQ(ones[0], 0x408f276du);
  EXPECT_EQ(ones[3], 0x6d5451fdu);
  // PhiloxStream places (seed, sample, stream, draw) in that key and counter.
  EXPECT_EQ(PhiloxStream(0, 0, 0).block(0)[0], 0x6627e8d5u);
  EXPECT_EQ(PhiloxStream(~0ull, ~0ull, f).block(f)[0], 0x408f276du);
}

// FNV-1a reference values: "" = 0x811c9dc5, "a" = 0xe40c292c, "foobar" = 0xbf9cf968.
TEST(PhiloxStream, StreamIdsAreStableFnv1a) {
  static_assert(stream_id("") == 0x811c9dc5u);
  EXPECT_EQ(stream_id("a"), 0xe40c292cu);
  EXPECT_EQ(stream_id("foobar"), 0xbf9cf968u);
  EXPECT_NE(stream_id("body.mass"), stream_id("body.center_of_mass"));
}

// 10⁵ draws: the sample mean of U(0,1] is within 5 standard errors (σ = 1/√12) of ½, and of
// N(0,1) within 5/√n of 0 with variance within 5·√(2/n) of 1 (false-failure rate < 1e-6).
TEST(PhiloxStream, UniformAndNormalMoments) {
  const int n = 100000;
  double su = 0, sn = 0, sn2 = 0, lo = 1, hi = 0;
  for (int k = 0; k < n; ++k) {
    const PhiloxStream s(42, std::uint64_t(k), stream_id("test"));
    const double u = s.uniform(3), z = s.normal(3);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    su += u;
    sn += z;
    sn2 += z * z;
  }
  EXPECT_GT(lo, 0.0);
  EXPECT_LE(hi, 1.0);
  EXPECT_NEAR(su / n, 0.5, 5 / std::sqrt(12.0 * n));
  const double mean = sn / n;
  EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(sn2 / n - mean * mean, 1.0, 5 * std::sqrt(2.0 / n));
}

TEST(PhiloxStream, EveryKeyPartChangesTheDraw) {
  const PhiloxStream base(1, 2, 3);
  EXPECT_NE(base.uniform(0), PhiloxStream(9, 2, 3).uniform(0));
  EXPECT_NE(base.uniform(0), PhiloxStream(1, 9, 3).uniform(0));
  EXPECT_NE(base.uniform(0), PhiloxStream(1, 2, 9).uniform(0));
  EXPECT_NE(base.uniform(0), base.uniform(1));
  EXPECT_EQ(base.uniform(5), PhiloxStream(1, 2, 3).uniform(5));  // and nothing else does
}

}  // namespace
}  // namespace rbmc

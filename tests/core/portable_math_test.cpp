#include "rbmc/math/portable_math.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "portable_draws.hpp"
#include "rbmc/random/design_points.hpp"
#include "rbmc/random/inverse_transforms.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc {
namespace {

// |got − ref| in units of the last place of ref rounded to double.
double ulps(double got, long double ref) {
  const double r = std::fabs(double(ref));
  const double ulp = std::nextafter(r, std::numeric_limits<double>::infinity()) - r;
  return double(std::fabs((long double)got - ref) / ulp);
}

// Every positive finite double is as likely as any other: all exponents, subnormals included.
double random_positive_double(std::mt19937_64& rng) {
  for (;;) {
    const std::uint64_t bits = rng() & 0x7fffffffffffffffull;
    double x;
    std::memcpy(&x, &bits, sizeof x);
    if (x > 0 && std::isfinite(x)) return x;
  }
}

// The error bounds below are those of the algorithms in double: fdlibm's log within 1 ulp, and
// exp's e^r − 1 rounded below ¼ ulp before its last addition (portable_math.hpp). The reference
// is long double (64-bit significand), 2^-11 ulp of a double.
TEST(PortableMath, LogIsWithinOneUlpEverywhere) {
  std::mt19937_64 rng(7);
  double worst = 0;
  for (int i = 0; i < 400000; ++i) {
    const double x = random_positive_double(rng);
    worst = std::max(worst, ulps(portable::log(x), logl(x)));
  }
  for (int i = -50000; i <= 50000; ++i) {  // around 1, where log x ≈ x − 1 is small
    const double x = 1 + i * 0x1p-45;
    worst = std::max(worst, ulps(portable::log(x), logl(x)));
  }
  EXPECT_LT(worst, 1.0);
  EXPECT_EQ(portable::log(1.0), 0.0);
  EXPECT_EQ(portable::log(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(portable::log(-1.0)));
  EXPECT_EQ(portable::log(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
}

TEST(PortableMath, ExpIsWithinOneUlpAboveTheSubnormals) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> wide(-708, 709.78), narrow(-1, 1);
  double worst = 0;
  for (int i = 0; i < 400000; ++i) {
    const double x = i % 2 == 0 ? wide(rng) : narrow(rng) * 1e-3;
    worst = std::max(worst, ulps(portable::exp(x), expl(x)));
  }
  EXPECT_LT(worst, 1.0);
  EXPECT_EQ(portable::exp(0.0), 1.0);
  EXPECT_EQ(portable::exp(710.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(portable::exp(-746.0), 0.0);
  EXPECT_GT(portable::exp(-744.0), 0.0);  // subnormal, not flushed
  EXPECT_TRUE(std::isnan(portable::exp(std::nan(""))));
}

// Cody's approximations are good to about 10^-17 (Cody 1969); evaluated in double, each is a
// quotient of two Horner evaluations of degree ≤ 8 with positive terms (≤ 2 · 8 roundings of
// ½ ulp each, and the quotient's) times two exponentials (1 ulp each) and two products: within
// 16 · 2^-53 relative. log1p's quotient corrects u = 1 + x's rounding: log u (1 ulp), the
// quotient and the product, within 4 · 2^-53.
TEST(PortableMath, ErfcAndLog1pAreWithinTheirRoundingBounds) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> wide(-6, 26.5), unit(0, 1);
  const auto relative = [](double value, long double reference) {
    return double(std::fabs((value - reference) / reference) * 0x1p53L);
  };
  double worst_erfc = 0, worst_log1p = 0;
  for (int i = 0; i < 300000; ++i) {
    const double x = i % 3 == 0 ? wide(rng) : wide(rng) / (i % 3 == 1 ? 10 : 100);
    worst_erfc = std::max(worst_erfc, relative(portable::erfc(x), erfcl(x)));
    const double y = std::ldexp(unit(rng) * 2 - 1, -int(rng() % 60));  // |y| < 1, down to 2^-60
    worst_log1p = std::max(worst_log1p, relative(portable::log1p(y), log1pl(y)));
  }
  EXPECT_LE(worst_erfc, 16.0);
  EXPECT_LE(worst_log1p, 4.0);
  EXPECT_EQ(portable::erfc(0.0), 1.0);
  EXPECT_EQ(portable::erfc(27.0), 0.0);
  EXPECT_EQ(portable::erfc(-27.0), 2.0);
  EXPECT_EQ(portable::log1p(0x1p-60), 0x1p-60);
}

// Against sinl and cosl of the same exactly reduced angle, (4t − n) π/2 in long double, turned by
// the quadrant n. The error bound, relative, in units of u = 2^-53: θ = f × fl(π/2) rounded, 2u;
// sin θ = θ S(θ²) with S within 1.6u (θ² within 5u, weighted by θ²/6 ≤ 0.103, and S's last
// rounding) and a last product, u: 4.6u; cos θ = 1 − θ²/2 C(θ²), θ²'s 5u weighted by
// θ²/2 / cos θ ≤ 0.44, and the roundings after it: 3.5u. Tested at 5u.
TEST(PortableMath, SinAndCosOfTurnsAreWithinTheirRoundingBound) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> unit(0, 1);
  const long double half_pi = 1.570796326794896619231321691639751442L;
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    // Uniform turns, and turns just off the quadrants' ends, where sin or cos is small.
    const double t = i % 2 == 0 ? unit(rng) : std::floor(unit(rng) * 4) / 4 + (unit(rng) - 0.5) * 1e-9;
    if (!(t >= 0 && t < 1)) continue;
    const double x = 4 * t, n = std::floor(x + 0.5);
    const long double theta = (long double)(x - n) * half_pi;
    long double s = sinl(theta), c = cosl(theta);
    for (int q = 0; q < (int(n) & 3); ++q) {
      const long double turned = c;
      c = -s;
      s = turned;
    }
    const portable::SinCos got = portable::sin_cos_of_turns(t);
    const auto relative = [](double value, long double reference) {
      return reference == 0 ? double(value != 0) : double(std::fabs((value - reference) / reference) * 0x1p53L);
    };
    worst = std::max({worst, relative(got.sin, s), relative(got.cos, c)});
  }
  EXPECT_LE(worst, 5.0);
  EXPECT_EQ(portable::sin_cos_of_turns(0.25).sin, 1.0);
  EXPECT_EQ(portable::sin_cos_of_turns(0.5).sin, 0.0);
  EXPECT_EQ(portable::sin_cos_of_turns(0.75).cos, 0.0);
  EXPECT_EQ(portable::sin_cos_of_turns(0.0).cos, 1.0);
}

// sin_cos_of_radians' bound (portable_math.hpp): 1.5 ulp of the result plus 2^-66. Against long
// double's sinl and cosl, over every quadrant up to its reach of 2^19 rad, near the multiples of
// π/2 (where one of them is small and the reduction's absolute error shows), and small angles
// down to the subnormals, where sin x is x.
TEST(PortableMath, SinAndCosOfRadiansAreWithinTheirRoundingBound) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  const long double half_pi = 1.570796326794896619231321691639751442L;
  double worst = 0;
  const auto check = [&](double x) {
    double s, c;
    portable::sin_cos_of_radians(x, s, c);
    const long double refs[2] = {sinl((long double)x), cosl((long double)x)};
    const double got[2] = {s, c};
    for (int k = 0; k < 2; ++k) {
      const double r = std::fabs(double(refs[k]));
      const double ulp = std::nextafter(r, std::numeric_limits<double>::infinity()) - r;
      worst = std::max(worst, double((std::fabs((long double)got[k] - refs[k]) - 0x1p-66L) / ulp));
    }
  };
  for (int i = 0; i < 200000; ++i) {
    const double u = unit(rng) * 2 - 1;
    check(u * 4);                                               // the first turns
    check(u * portable::kSinCosRadiansMax);                     // the whole reach
    check(std::ldexp(u, -int(unit(rng) * 1060)));              // small angles, subnormals too
    const double n = std::floor(unit(rng) * 300000);            // beside a multiple of π/2
    check(double(n * half_pi) + (unit(rng) - 0.5) * 1e-6);
  }
  check(portable::kSinCosRadiansMax);
  check(-portable::kSinCosRadiansMax);
  EXPECT_LE(worst, 1.5);
  std::printf("worst: %.3f ulp beyond 2^-66\n", worst);
  double s, c;
  portable::sin_cos_of_radians(-0.0, s, c);
  EXPECT_TRUE(s == 0 && std::signbit(s)) << "sin(−0) is −0";
  EXPECT_EQ(c, 1.0);
  portable::sin_cos_of_radians(std::numeric_limits<double>::infinity(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
  portable::sin_cos_of_radians(std::numeric_limits<double>::quiet_NaN(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
}

// fdlibm's atan is within 1 ulp; the quotient t = min/max adds at most ½ ulp of t, which atan
// does not magnify (t atan′(t) / atan(t) ≤ 1): 1.5 ulp below the diagonal. Above it, π/2 − r
// with r ≤ π/4 carries r's 1.5 ulp of at most π/4, no more than 1.5 ulp of the result, and a
// rounding: 2 ulp. In float the polynomial is far more accurate than float, but the reduction's
// quotient z (½ ulp of z, no larger than the result) and the last subtractions (½ ulp each), which
// fdlibm's double analysis keeps within its 1 ulp, each count in full: 2.5 ulp.
TEST(PortableMath, FirstQuadrantAtan2IsWithinItsRoundingBound) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  double worst = 0, worst_float = 0;
  const auto check = [&](double y, double x) {
    worst = std::max(worst, ulps(portable::atan2_first_quadrant(y, x), atan2l(y, x)));
    const float yf = float(y), xf = float(x);
    const long double ref = atan2l(yf, xf);
    const float got = portable::atan2_first_quadrant(yf, xf);
    const float r = std::fabs(float(ref));
    const float ulp = std::nextafter(r, std::numeric_limits<float>::infinity()) - r;
    if (std::isnormal(r)) worst_float = std::max(worst_float, double(std::fabs((long double)got - ref) / ulp));
  };
  for (int i = 0; i < 400000; ++i) check(unit(rng), unit(rng));  // every angle
  for (int i = 0; i < 100000; ++i) {
    const double t = unit(rng);
    check(t, 1);                           // below the diagonal, each reduction's range
    check(1, t);                           // above it
    check(t * 1e-150, 1);                  // near 0
    check(1, 1 + (t - 0.5) * 1e-9);        // at the diagonal
    const double c = 7.0 / 16 + (t - 0.5) * 1e-12, d = 11.0 / 16 + (t - 0.5) * 1e-12;
    check(c, 1);                           // at the reductions' seams
    check(d, 1);
  }
  EXPECT_LE(worst, 2.0);
  EXPECT_LE(worst_float, 2.5);
  EXPECT_EQ(portable::atan2_first_quadrant(0.0, 1.0), 0.0);
  EXPECT_EQ(portable::atan2_first_quadrant(0.0, 0.0), 0.0);
  EXPECT_EQ(portable::atan2_first_quadrant(1.0, 0.0), double(atan2l(1, 0)));
  EXPECT_EQ(portable::atan2_first_quadrant(1.0, 1.0), double(atan2l(1, 1)));
  std::printf("worst: %.3f ulp (double), %.3f ulp (float)\n", worst, worst_float);
}

// The sphere's and SO(3)'s draws: unit length to rounding, and uniform, by their first moments
// (E z = 0, E z² = ⅓ for a direction; E w² = ¼ for a rotation's every component): over 10^5
// draws the standard errors are 0.0018, 0.0009 and 0.0007, tested at 5 of them.
TEST(PortableMath, DirectionsAndRotationsAreUnitAndUniform) {
  const int n = 100000;
  double z = 0, z2 = 0, w2 = 0, y2 = 0;
  for (int k = 0; k < n; ++k) {
    const PhiloxStream stream(99, std::uint64_t(k), stream_id("test.rotation"));
    const Vec3<double> d = uniform_direction(stream.uniform_open(0), stream.uniform_open(1));
    const Quaternion<double> q = uniform_rotation(stream.uniform_open(2), stream.uniform_open(3), stream.uniform_open(4));
    ASSERT_NEAR(d.norm(), 1.0, 4e-16);
    ASSERT_NEAR(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z, 1.0, 6e-16);
    z += d.z();
    z2 += d.z() * d.z();
    w2 += q.w * q.w;
    y2 += q.y * q.y;
  }
  EXPECT_NEAR(z / n, 0.0, 5 * 0.0018);
  EXPECT_NEAR(z2 / n, 1.0 / 3, 5 * 0.0009);
  EXPECT_NEAR(w2 / n, 0.25, 5 * 0.0007);
  EXPECT_NEAR(y2 / n, 0.25, 5 * 0.0007);
}

// Φ⁻¹ to long double by Newton's method on erfcl, from AS 241's answer, for the lower half (the
// upper by symmetry, 1 − p being exact there).
long double reference_normal_quantile(double p) {
  if (p > 0.5) return -reference_normal_quantile(1 - p);
  long double x = normal_quantile(p);
  for (int i = 0; i < 6; ++i) {
    const long double cdf = 0.5L * erfcl(-x / sqrtl(2.0L));
    const long double pdf = expl(-x * x / 2) / sqrtl(2 * 3.141592653589793238462643383279502884L);
    x -= (cdf - p) / pdf;
  }
  return x;
}

// AS 241's approximations are good to about 10^-16 relative (Wichura 1988); evaluated in double,
// each quotient of two degree-7 polynomials of positive terms takes 29 roundings of at most
// ½ ulp, and the tails a logarithm (1 ulp) and a square root before them: at most 16 ulp.
TEST(NormalQuantile, IsWithinTheRoundingOfAs241) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(0, 1);
  double worst = 0;
  for (int i = 0; i < 100000; ++i) {
    double p;
    switch (i % 5) {
      case 0: p = 0.075 + 0.85 * unit(rng); break;                // the central approximation
      case 1: p = std::pow(10.0, -1.125 - 9.7 * unit(rng)); break;  // r ≤ 5
      case 2: p = std::pow(10.0, -11 - 290 * unit(rng)); break;   // r > 5
      case 3: p = 1 - std::pow(10.0, -1.125 - 14.8 * unit(rng)); break;
      // Near the median, where Φ⁻¹ is small: relative accuracy there too (Acklam's approximation
      // refined by a Halley step on erfc, used before, was 10^7 ulp off at |p − ½| < 10^-6).
      default: p = 0.5 + (unit(rng) - 0.5) * std::pow(10.0, -1 - 14 * unit(rng)); break;
    }
    worst = std::max(worst, ulps(normal_quantile(p), reference_normal_quantile(p)));
  }
  EXPECT_LE(worst, 16.0);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-15);
  EXPECT_EQ(normal_quantile(0.5), 0.0);
  EXPECT_EQ(normal_quantile(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(normal_quantile(1.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(normal_quantile(1.5)));
}

// Increasing across the three approximations' seams (p = 0.075, 0.925 and e^-25, where r = 5), so
// that a design's strata keep their order; and odd, Φ⁻¹(1 − p) = −Φ⁻¹(p), where 1 − p is exact.
TEST(NormalQuantile, IncreasesAcrossItsSeamsAndIsOdd) {
  for (double seam : {0.075, 0.925, std::exp(-25.0), 1 - std::exp(-25.0)}) {
    double previous = -std::numeric_limits<double>::infinity();
    // 10^-12 of the distance to 0 or 1, and at least 64 ulp: far above the rounding's noise.
    const double step = std::max(1e-12 * std::min(seam, 1 - seam), 64 * (std::nextafter(seam, 2.0) - seam));
    for (int i = -1000; i <= 1000; ++i) {
      const double x = normal_quantile(seam + i * step);
      EXPECT_GT(x, previous) << "at " << seam << " + " << i << " × " << step;
      previous = x;
    }
  }
  for (int i = 1; i < (1 << 17); ++i) {
    const double p = 0.5 + i * 0x1p-18;
    ASSERT_EQ(normal_quantile(1 - p), -normal_quantile(p)) << p;
  }
}

// kDrawRevision names these draws: the bits of every test uniform's draws (the control aside)
// and of the designs' uniforms hash to the value recorded for it. When a change alters any draw,
// this fails: raise kDrawRevision (rbmc/random/inverse_transforms.hpp) and record the new hash,
// so that --resume and rbmc merge refuse to mix the old draws with the new. Revision 4 changed
// which samples are redrawn, not these bits (SamplingPlan.ALoadValueThatIsNotPhysicalIsRedrawn).
TEST(DrawRevision, NamesTheseDraws) {
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over the values' bits
  const auto add = [&](double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int byte = 0; byte < 8; ++byte) hash = (hash ^ ((bits >> (8 * byte)) & 0xff)) * 1099511628211ull;
  };
  const std::vector<double> draws = test::portable_draws(test::portable_draw_uniforms());
  for (std::size_t i = 0; i < draws.size(); ++i)
    if (i % test::kPortableDrawValues != test::kPortableDrawValues - 1) add(draws[i]);
  std::uint32_t directions[2 * 32];
  for (int b = 0; b < 64; ++b) directions[b] = (0x80000000u >> (b % 32)) ^ std::uint32_t(b * 2654435761u);
  const DrawUnitKey unit{2026, 1000, stream_id("body.mass"), directions};
  for (std::uint64_t k = 0; k < 1000; ++k)
    for (UniformSource source : {UniformSource::philox, UniformSource::latin_hypercube, UniformSource::sobol})
      for (int attempt : {0, 1}) add(design_uniform(source, unit, k, attempt, int(k % 2)));
  const std::pair<int, std::uint64_t> recorded{4, 0xf3622918fb2ec52aull};
  EXPECT_EQ(kDrawRevision, recorded.first);
  EXPECT_EQ(hash, recorded.second) << "the draws changed: raise kDrawRevision and record 0x" << std::hex << hash;
}

// The point of these functions: a build that fuses multiply-adds (nvcc's default, GCC's on
// aarch64 or with -mfma) draws the same bits. RBMC_PORTABLE_DRAWS_FUSED is portable_draws_main.cpp
// built so; its control, Horner's rule with plain products, shows that it does fuse.
TEST(PortableMath, DrawsAreTheSameBitsWhenTheCompilerFusesMultiplyAdds) {
#if !defined(RBMC_PORTABLE_DRAWS_FUSED)
  GTEST_SKIP() << "this compiler cannot build the program with fused multiply-adds";
#else
#if defined(__x86_64__) || defined(__i386__)
  if (!__builtin_cpu_supports("fma")) GTEST_SKIP() << "this processor has no fused multiply-add";
#endif
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(RBMC_PORTABLE_DRAWS_FUSED, "r"), pclose);
  ASSERT_TRUE(pipe);
  const std::vector<double> u = test::portable_draw_uniforms();
  std::vector<double> fused;
  for (std::uint64_t bits = 0; std::fscanf(pipe.get(), "%" SCNx64, &bits) == 1;) {
    double v;
    std::memcpy(&v, &bits, sizeof v);
    fused.push_back(v);
  }
  ASSERT_EQ(fused.size(), u.size() * test::kPortableDrawValues) << "the program's output is cut short";
  const int control_differs = test::compare_portable_draws(u, fused, [](int value, double at, double ours, double theirs) {
    ADD_FAILURE() << "value " << value << " at u = " << at << ": " << ours << " here, " << theirs << " fused";
  });
  if (control_differs >= 0) EXPECT_GT(control_differs, 0) << "the program was not built with fused multiply-adds: this test shows nothing";
#endif
}

}  // namespace
}  // namespace rbmc

// Double-precision arithmetic whose every result is the same bits on any compiler, machine and
// backend: what a sample's draws are made of (rbmc/random/inverse_transforms.hpp), so that sample
// k's inputs do not depend on where they are drawn.
//
// Two things make floating-point results differ between builds of the same source:
// - Contraction. A compiler may fuse a * b + c into one fused multiply-add, rounded once instead
//   of twice: nvcc does by default, GCC does wherever the target has FMA (aarch64, or x86 with
//   -mfma), Clang within an expression. `mul` returns a product rounded on its own, which no
//   compiler may fuse into the addition that follows.
// - The math library. log and exp are not correctly rounded in glibc, in CUDA's libdevice or
//   elsewhere, and their last bits differ between them. `log`, `log1p`, `exp`, `erfc` and
//   `sin_cos_of_turns` here are written with +, −, ×, ÷, √ and exact scalings only, each rounded
//   as IEEE 754 prescribes on every target.
//
// Division and square root are correctly rounded on the host and, under nvcc's defaults
// (-prec-div=true, -prec-sqrt=true, no --use_fast_math), on the device: they need no wrapper.
#pragma once

#include <cmath>
#include <limits>

#include "rbmc/hd.hpp"

namespace rbmc::portable {

// A host product p made to exist rounded in a register, so that the compiler has nothing left
// to fuse with the addition that follows it.
template <class T>
inline T kept_rounded(T p) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __asm__("" : "+x"(p));
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__("" : "+w"(p));
#else
  volatile T rounded = p;
  p = rounded;
#endif
  return p;
}

// a × b, rounded to double and never fused with an addition.
RBMC_HD inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);  // "never merged into a fused multiply-add" (CUDA Math API)
#else
  return kept_rounded(a * b);
#endif
}

// The same for float: a × b rounded to float, never fused.
RBMC_HD inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return kept_rounded(a * b);
#endif
}

// Natural logarithm, within one unit in the last place. fdlibm's scheme (e_log.c): x = 2^e m
// with m in [√½, √2), f = m − 1, s = f / (2 + f), and log(1 + f) = 2 atanh s
// = f − (f²/2 − s (f²/2 + R)), where R = 2 (s²/3 + s⁴/5 + …). The series here is Taylor's
// (|s| ≤ 0.172, so 11 terms reach 2^-56 of the result) rather than a minimax fit.
RBMC_HD inline double log(double x) {
  if (!(x > 0)) return x == 0 ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (!(x < std::numeric_limits<double>::infinity())) return x;
  int e = 0;
  double m = ::frexp(x, &e);  // x = m 2^e, m in [½, 1): exact
  if (m < 0.70710678118654752440) {
    m = m + m;  // exact
    --e;
  }
  const double f = m - 1;  // exact (Sterbenz)
  const double s = f / (2 + f), z = mul(s, s);
  double series = 2.0 / 23;
  for (int k = 10; k >= 1; --k) series = 2.0 / (2 * k + 1) + mul(z, series);
  const double r = mul(z, series);
  const double hfsq = mul(0.5, mul(f, f));
  // ln 2 split (fdlibm): e × ln2_hi is exact for |e| < 2^11.
  const double ln2_hi = 0x1.62e42feep-1, ln2_lo = 0x1.a39ef35793c76p-33;
  const double k = double(e);
  return mul(k, ln2_hi) - ((hfsq - (mul(s, hfsq + r) + mul(k, ln2_lo))) - f);
}

// e^x, within one unit in the last place for results above 2^-1022 (below, the last scaling
// rounds a subnormal once more). x = k ln 2 + r with |r| ≤ ½ ln 2, and e^r = 1 + (r + r²/2 T)
// from its Taylor series to r^16/16! (below 2^-60 of the result): T = 1 + r/3 (1 + r/4 (…)). The
// sum in parentheses is e^r − 1, rounded well below the result's last place before 1 is added.
RBMC_HD inline double exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return std::numeric_limits<double>::infinity();
  if (x < -745.2) return 0;
  const double ln2_hi = 0x1.62e42feep-1, ln2_lo = 0x1.a39ef35793c76p-33;
  const double k = ::floor(mul(x, 1.4426950408889634074) + 0.5);  // x / ln 2, to the nearest integer
  const double r = (x - mul(k, ln2_hi)) - mul(k, ln2_lo);           // the first difference is exact
  double t = 1;
  for (int n = 16; n >= 3; --n) t = 1 + mul(r, t) / n;
  const double exp_r = 1 + (r + mul(mul(r, r), t) * 0.5);
  // Scaled by 2^k in two exact steps (k may be 1,024).
  const int half = int(k) / 2;
  return ::ldexp(::ldexp(exp_r, half), int(k) - half);
}

// log(1 + x), accurate where x is small: log u · x / (u − 1) with u = 1 + x rounded, whose
// quotient corrects u's rounding (Goldberg, "What every computer scientist should know about
// floating-point arithmetic", 1991, theorem 4).
RBMC_HD inline double log1p(double x) {
  const double u = 1 + x;
  if (u == 1) return x;
  return mul(log(u), x / (u - 1));
}

// The complementary error function, by W. J. Cody's rational Chebyshev approximations ("Rational
// Chebyshev approximations for the error function", Math. Comp. 23, 631–637, 1969; SPECFUN's
// CALERF): erf on |x| ≤ 0.46875, erfc e^{x²} on (0.46875, 4] and in 1/x² beyond. e^{−x²} is
// taken as e^{−s²} e^{−(x − s)(x + s)} with s = x rounded down to sixteenths, s² exact, so that
// x²'s rounding does not enter. Relative error within 16 · 2^-53 (8 measured; glibc's erfc 5) up
// to erfc(26.5) ≈ 10^-308, 0 beyond.
RBMC_HD inline double erfc(double x) {
  const double y = ::fabs(x);
  if (y <= 0.46875) {
    constexpr double a[5] = {3.16112374387056560e0, 1.13864154151050156e2, 3.77485237685302021e2,
                             3.20937758913846947e3, 1.85777706184603153e-1};
    constexpr double b[4] = {2.36012909523441209e1, 2.44024637934444173e2, 1.28261652607737228e3,
                             2.84423683343917062e3};
    const double ysq = y > 1.11e-16 ? mul(y, y) : 0;
    double num = mul(a[4], ysq), den = ysq;
    for (int i = 0; i < 3; ++i) {
      num = mul(num + a[i], ysq);
      den = mul(den + b[i], ysq);
    }
    return 1 - mul(x, num + a[3]) / (den + b[3]);
  }
  double r = 0;  // erfc(y) e^{y²}
  if (y <= 4) {
    constexpr double c[9] = {5.64188496988670089e-1, 8.88314979438837594e0, 6.61191906371416295e1,
                             2.98635138197400131e2,  8.81952221241769090e2, 1.71204761263407058e3,
                             2.05107837782607147e3,  1.23033935479799725e3, 2.15311535474403846e-8};
    constexpr double d[8] = {1.57449261107098347e1, 1.17693950891312499e2, 5.37181101862009858e2,
                             1.62138957456669019e3, 3.29079923573345963e3, 4.36261909014324716e3,
                             3.43936767414372164e3, 1.23033935480374942e3};
    double num = mul(c[8], y), den = y;
    for (int i = 0; i < 7; ++i) {
      num = mul(num + c[i], y);
      den = mul(den + d[i], y);
    }
    r = (num + c[7]) / (den + d[7]);
  } else if (y < 26.543) {
    constexpr double p[6] = {3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
                             1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2};
    constexpr double q[5] = {2.56852019228982242e0, 1.87295284992346047e0, 5.27905102951428412e-1,
                             6.05183413124413191e-2, 2.33520497626869185e-3};
    const double z = 1 / mul(y, y);
    double num = mul(p[5], z), den = z;
    for (int i = 0; i < 4; ++i) {
      num = mul(num + p[i], z);
      den = mul(den + q[i], z);
    }
    r = (5.6418958354775628695e-1 - mul(z, num + p[4]) / (den + q[4])) / y;  // 1/√π − …
  }
  if (r != 0) {
    const double s = ::floor(16 * y) / 16;
    r = mul(mul(exp(-mul(s, s)), exp(-mul(y - s, y + s))), r);
  }
  return x < 0 ? 2 - r : r;
}

// sin and cos of 2π t, each within 5 · 2^-53 relative (2.7 measured). 4t is split exactly into
// the nearest integer n (the quadrant) and f in [−½, ½], and sin, cos of θ = f π/2 (|θ| ≤ π/4,
// rounded once) come from their Taylor series to θ^23/23! (below 2^-70). Exact at the quarter
// turns, and as accurate, relative to the small value, just beside them, where rounding 2π t
// first would not be.
struct SinCos {
  double sin, cos;
};
RBMC_HD inline SinCos sin_cos_of_turns(double t) {
  const double x = 4 * (t - ::floor(t));  // exact: t's fraction, in quarter turns
  const double n = ::floor(x + 0.5);
  const double theta = mul(x - n, 1.5707963267948966192);  // x − n is exact (Sterbenz)
  const double z = mul(theta, theta);
  double s = 1, c = 1;
  for (int k = 11; k >= 1; --k) {
    s = 1 - mul(z, s) / ((2 * k) * (2 * k + 1));  // sin θ / θ = 1 − θ²/(2·3) (1 − θ²/(4·5) (…))
    c = 1 - mul(z, c) / ((2 * k - 1) * (2 * k));  // cos θ = 1 − θ²/(1·2) (1 − θ²/(3·4) (…))
  }
  s = mul(theta, s);
  switch (int(n) & 3) {  // the quadrant: a quarter turn maps (sin, cos) to (cos, −sin)
    case 1: return {c, -s};
    case 2: return {-s, -c};
    case 3: return {-c, s};
    default: return {s, c};
  }
}

// atan2(y, x) for y ≥ 0 and x ≥ 0 (0 when both are 0), within 2 units in the last place: the
// angle of a rotation from its quaternion (rotation.hpp). fdlibm's atan (s_atan.c): t = min/max
// in [0, 1] is reduced to |z| ≤ 7/16 by atan t = atan c + atan z, z = (t − c) / (1 + c t) for
// c = ½ (t ≥ 7/16) or c = 1 (t ≥ 11/16), each numerator exact (Sterbenz), and atan z = z − z (s₁ +
// s₂) by fdlibm's minimax polynomial in z², its even and odd terms apart; atan c is added as a
// head and a tail. Past the diagonal (y > x), π/2 − atan(x / y), π/2 again as head and tail.
//
// A template over the scalar, with choices made value by value (if_less_hd) and products by
// `mul`: for double and float it is the functions above, so that the result is the same bits on
// the host and the device; the CPU's SIMD lanes (rbmc/simd/lanes.hpp) supply their own `mul`
// (their units build with -ffp-contract=off) and take it W samples at a time.
template <class Scalar>
RBMC_HD inline Scalar atan2_first_quadrant(Scalar y, Scalar x) {
  constexpr double kAtanHalfHi = 4.63647609000806093515e-01, kAtanHalfLo = 2.26987774529616870924e-17;
  constexpr double kAtanOneHi = 7.85398163397448278999e-01, kAtanOneLo = 3.06161699786838301793e-17;
  constexpr double kHalfPiHi = 1.57079632679489655800e+00, kHalfPiLo = 6.12323399573676603587e-17;
  const Scalar zero(0), one(1), two(2);
  const Scalar low = if_less_hd(x, y, x, y), high = if_less_hd(x, y, y, x);
  const Scalar t = low / if_less_hd(zero, high, high, one);  // in [0, 1]; 0 when both are 0
  const Scalar seven_16(7.0 / 16), eleven_16(11.0 / 16);
  // z = t, (2t − 1) / (2 + t) or (t − 1) / (t + 1): one division of the chosen numerator and
  // denominator, t / 1 = t exactly, so that a vector (or a GPU thread) divides once, not twice,
  // for the same bits.
  const Scalar z = if_less_hd(t, seven_16, t, if_less_hd(t, eleven_16, two * t - one, t - one)) /
                   if_less_hd(t, seven_16, one, if_less_hd(t, eleven_16, two + t, t + one));
  const Scalar head = if_less_hd(t, seven_16, zero, if_less_hd(t, eleven_16, Scalar(kAtanHalfHi), Scalar(kAtanOneHi)));
  const Scalar tail = if_less_hd(t, seven_16, zero, if_less_hd(t, eleven_16, Scalar(kAtanHalfLo), Scalar(kAtanOneLo)));
  const Scalar z2 = mul(z, z), z4 = mul(z2, z2);
  const auto c = [](double a) { return Scalar(a); };  // fdlibm's aT[0..10]
  const Scalar even = c(3.33333333333329318027e-01) +
                      mul(z4, c(1.42857142725034663711e-01) +
                                  mul(z4, c(9.09088713343650656196e-02) +
                                              mul(z4, c(6.66107313738753120669e-02) +
                                                          mul(z4, c(4.97687799461593236017e-02) +
                                                                      mul(z4, c(1.62858201153657823623e-02))))));
  const Scalar odd = c(-1.99999999998764832476e-01) +
                     mul(z4, c(-1.11111104054623557880e-01) +
                                 mul(z4, c(-7.69187620504482999495e-02) +
                                             mul(z4, c(-5.83357013379057348645e-02) + mul(z4, c(-3.65315727442169155270e-02)))));
  const Scalar series = mul(z2, even) + mul(z4, odd);
  const Scalar angle = head - ((mul(z, series) - tail) - z);  // atan t
  return if_less_hd(x, y, Scalar(kHalfPiHi) - (angle - Scalar(kHalfPiLo)), angle);
}

// The largest |x| that sin_cos_of_radians takes: n · π/2's 33-bit head is exact for |n| < 2^20.
inline constexpr double kSinCosRadiansMax = 524288.0;  // 2^19

// sin x and cos x for |x| ≤ kSinCosRadiansMax (the caller checks; NaN and ±∞ give NaN), each
// within 1.5 ulp of the result plus 2^-66: fdlibm's kernels are within 1 ulp, the reduced
// argument's rounding adds ½ ulp (sin and cos do not magnify it), and π/2's tail and n times it,
// each rounded, leave an absolute error below |n| 2^-86 ≤ 2^-67. x is reduced by the
// nearest multiple n of π/2 (Cody and Waite: π/2 as a 33-bit head, by which n's product is exact
// and x minus it too (Sterbenz), and a tail) to r in [−π/4, π/4]; sin r and cos r are fdlibm's
// __kernel_sin and __kernel_cos (k_sin.c, k_cos.c, their minimax polynomials), and n mod 4 picks
// the quadrant. Below 2^-27 sin r is r itself (what the polynomial rounds to), so −0 stays −0.
//
// A template over the scalar as atan2_first_quadrant is, choices by if_less_hd and products by
// `mul`: the same bits on the host and the device, and the CPU's SIMD lanes take it W samples at
// a time (the splitting's sub-flows: rbmc/math/sincos.hpp).
template <class Scalar>
RBMC_HD inline void sin_cos_of_radians(Scalar x, Scalar& sin_x, Scalar& cos_x) {
  constexpr double kRound = 6755399441055744.0;  // 1.5 · 2^52: (t + kRound) − kRound is t rounded to an integer
  constexpr double kTwoOverPi = 6.36619772367581382433e-01;
  constexpr double kPio2Head = 1.57079632673412561417e+00;  // π/2's first 33 bits
  constexpr double kPio2Tail = 6.07710050650619224932e-11;  // π/2 − kPio2Head
  const auto c = [](double a) { return Scalar(a); };
  const Scalar zero(0), half(0.5), one(1);
  const Scalar n = (mul(x, c(kTwoOverPi)) + c(kRound)) - c(kRound);
  const Scalar r = (x - mul(n, c(kPio2Head))) - mul(n, c(kPio2Tail));
  const Scalar z = mul(r, r);
  const Scalar sin_poly = c(8.33333333332248946124e-03) +
                          mul(z, c(-1.98412698298579493134e-04) +
                                     mul(z, c(2.75573137070700676789e-06) +
                                                mul(z, c(-2.50507602534068634195e-08) + mul(z, c(1.58969099521155010221e-10)))));
  const Scalar magnitude = if_less_hd(r, zero, -r, r);
  const Scalar sin_r =
      if_less_hd(magnitude, c(0x1p-27), r, r + mul(mul(z, r), c(-1.66666666666666324348e-01) + mul(z, sin_poly)));
  const Scalar cos_poly =
      mul(z, c(4.16666666666666019037e-02) +
                 mul(z, c(-1.38888888888741095749e-03) +
                            mul(z, c(2.48015872894767294178e-05) +
                                       mul(z, c(-2.75573143513906633035e-07) +
                                                  mul(z, c(2.08757232129817482790e-09) +
                                                             mul(z, c(-1.13596475577881948265e-11)))))));
  const Scalar hz = mul(half, z), w = one - hz;
  const Scalar cos_r = w + (((one - w) - hz) + mul(z, cos_poly));
  // n mod 4 as m in {−2, …, 2} (±2 alike): a quarter turn maps (sin, cos) to (cos, −sin).
  const Scalar m = n - mul(c(4), (mul(n, c(0.25)) + c(kRound)) - c(kRound));
  const Scalar m_magnitude = if_less_hd(m, zero, -m, m);
  const Scalar off_odd = if_less_hd(m_magnitude, one, one - m_magnitude, m_magnitude - one);  // 0 for m = ±1
  sin_x = if_less_hd(off_odd, half, if_less_hd(m, zero, -cos_r, cos_r), if_less_hd(m_magnitude, one, sin_r, -sin_r));
  cos_x = if_less_hd(off_odd, half, if_less_hd(m, zero, sin_r, -sin_r), if_less_hd(m_magnitude, one, cos_r, -cos_r));
}

}  // namespace rbmc::portable

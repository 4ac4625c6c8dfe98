// From a uniform u in (0, 1) to a draw of the distributions a scenario names, by inversion of
// their CDFs: every design (Monte Carlo, Latin hypercube, Sobol) feeds the same transforms.
// Written with rbmc/math/portable_math.hpp, so that a draw is the same bits on any compiler,
// machine and backend, the device included.
#pragma once

#include <limits>

#include "rbmc/hd.hpp"
#include "rbmc/math/portable_math.hpp"
#include "rbmc/math/quaternion.hpp"
#include "rbmc/math/rotation.hpp"

namespace rbmc {

// Which draws a build makes: raised whenever a dispersion's drawn bits change (a transform, a
// design's uniforms, the arithmetic under them), so that a resume or a merge never mixes samples
// drawn by two builds. Results files record it (`draw_revision`; a file without it has revision
// 1). DrawRevision.NamesTheseDraws fails when the draws change and this does not.
// 1: before 2026-11-24; 2: the portable draws (rbmc/math/portable_math.hpp); 3: a uniform
// rotation's rotation vector portable too (uniform_rotation_vector, 2026-11-25); 4: a load value
// that is not physical (a negative stiffness) redrawn by the validity policy, as a body is
// (draw_sample_inputs, 2026-12-07): the same uniforms, other samples' values where one was drawn.
constexpr int kDrawRevision = 4;

// Φ⁻¹(p), the standard normal quantile: Wichura's algorithm AS 241 (PPND16), "The percentage
// points of the normal distribution", Applied Statistics 37(3), 477–484, 1988. Rational
// approximations in three ranges, relative error about 10^-16; the tails through
// r = √(−log min(p, 1 − p)), where 1 − p is exact for p ≥ ½. ±∞ at p = 0 and 1.
RBMC_HD inline double normal_quantile(double p) {
  using portable::mul;
  if (!(p > 0)) return p == 0 ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (!(p < 1)) return p == 1 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  // Horner's rule with products that are rounded alone: c[0] + x (c[1] + x (… + x c[7])).
  const auto poly = [](const double* c, double x) {
    double v = c[7];
    for (int i = 6; i >= 0; --i) v = c[i] + mul(x, v);
    return v;
  };
  const double q = p - 0.5;  // exact
  if (q >= -0.425 && q <= 0.425) {
    constexpr double a[8] = {3.3871328727963666080e0,  1.3314166789178437745e+2, 1.9715909503065514427e+3,
                             1.3731693765509461125e+4, 4.5921953931549871457e+4, 6.7265770927008700853e+4,
                             3.3430575583588128105e+4, 2.5090809287301226727e+3};
    constexpr double b[8] = {1.0,
                             4.2313330701600911252e+1, 6.8718700749205790830e+2, 5.3941960214247511077e+3,
                             2.1213794301586595867e+4, 3.9307895800092710610e+4, 2.8729085735721942674e+4,
                             5.2264952788528545610e+3};
    const double r = 0.180625 - mul(q, q);
    return mul(q, poly(a, r)) / poly(b, r);
  }
  double r = q < 0 ? p : 1 - p;
  r = ::sqrt(-portable::log(r));
  double x;
  if (r <= 5) {
    constexpr double c[8] = {1.42343711074968357734e0,  4.63033784615654529590e0,  5.76949722146069140550e0,
                             3.64784832476320460504e0,  1.27045825245236838258e0,  2.41780725177450611770e-1,
                             2.27238449892691845833e-2, 7.74545014278341407640e-4};
    constexpr double d[8] = {1.0,
                             2.05319162663775882187e0,  1.67638483018380384940e0,  6.89767334985100004550e-1,
                             1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4,
                             1.05075007164441684324e-9};
    r = r - 1.6;
    x = poly(c, r) / poly(d, r);
  } else {
    constexpr double e[8] = {6.65790464350110377720e0,  5.46378491116411436990e0,  1.78482653991729133580e0,
                             2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
                             2.71155556874348757815e-5, 2.01033439929228813265e-7};
    constexpr double f[8] = {1.0,
                             5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
                             7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7,
                             2.04426310338993978564e-15};
    r = r - 5;
    x = poly(e, r) / poly(f, r);
  }
  return q < 0 ? -x : x;
}

// normal(mean, sd) at probability u.
RBMC_HD inline double normal_from_uniform(double mean, double sd, double u) {
  return mean + portable::mul(sd, normal_quantile(u));
}

// lognormal(median, σ) at probability u: median · e^(σ Φ⁻¹(u)).
RBMC_HD inline double lognormal_from_uniform(double median, double sigma, double u) {
  return portable::mul(median, portable::exp(portable::mul(sigma, normal_quantile(u))));
}

// std::clamp, on the device too: v itself when it is NaN.
RBMC_HD inline double clamp_hd(double v, double lo, double hi) { return v < lo ? lo : hi < v ? hi : v; }

// Φ(x), the standard normal CDF.
RBMC_HD inline double normal_cdf(double x) { return 0.5 * portable::erfc(-x / 1.41421356237309504880); }

// log Q(x), Q(x) = 1 − Φ(x) the standard normal's survival function, accurate for every x
// (Q(40) = 3.7e-350 is below double's range; its log is not).
RBMC_HD inline double log_normal_survival(double x) {
  using portable::mul;
  if (x < 5) return portable::log(0.5 * portable::erfc(x / 1.41421356237309504880));  // Q(5) = 2.9e-7
  // Q(x) = φ(x) / (x + 1/(x + 2/(x + 3/(x + ...)))) (Laplace's continued fraction), evaluated from
  // the back: 60 terms are exact to double precision for x ≥ 5, and nothing underflows.
  double tail = x;
  for (int k = 60; k >= 1; --k) tail = x + double(k) / tail;
  return (-0.5 * mul(x, x) - 0.91893853320467274178) - portable::log(tail);  // ½ log 2π
}

// The standard normal truncated to [a, b] with 0 ≤ a < b ≤ ∞, at probability u, on the log scale:
// log Q(x) = log Q(a) + log(1 − u (1 − Q(b)/Q(a))). log Q is concave and decreasing, so Newton's
// method from a lands right of the root and then converges monotonically to it.
RBMC_HD inline double upper_tail_inverse(double a, double b, double u) {
  using portable::mul;
  const double log_qa = log_normal_survival(a);
  const double ratio = b == std::numeric_limits<double>::infinity() ? 0.0 : portable::exp(log_normal_survival(b) - log_qa);
  const double target = log_qa + portable::log1p(-mul(u, 1 - ratio));
  double x = a;
  for (int i = 0; i < 100; ++i) {
    const double log_q = log_normal_survival(x);
    // d/dx log Q(x) = −φ(x) / Q(x).
    const double slope = -portable::exp(((-0.5 * mul(x, x)) - 0.91893853320467274178) - log_q);
    const double next = clamp_hd(x - (log_q - target) / slope, a, b);
    if (::fabs(next - x) <= mul(4e-16, ::fmax(1.0, ::fabs(x)))) return next;
    x = next;
  }
  return x;
}

// A normal(mean, sd) truncated to [lo, hi], by inversion of its CDF at u: exact in the far tails
// (an interval 40 σ from the mean draws as well as one around it). With α = (lo − mean)/sd and
// β = (hi − mean)/sd: an interval above the mean is inverted on the log scale of the survival
// function, one below it by symmetry, one around it from whichever side of the median u falls.
// Increasing in u, as every design's transform needs.
RBMC_HD inline double truncated_normal_from_uniform(double mean, double sd, double lo, double hi, double u) {
  using portable::mul;
  if (!(sd > 0)) return clamp_hd(mean, lo, hi);
  const double a = (lo - mean) / sd, b = (hi - mean) / sd;
  double z;
  if (a >= 0) {
    z = upper_tail_inverse(a, b, u);  // both bounds above the mean
  } else if (b <= 0) {
    z = -upper_tail_inverse(-b, -a, 1 - u);  // both below: the mirror image, still increasing in u
  } else {
    // The interval holds the mean: Φ(a) ≤ ½ ≤ Φ(b), so the mass is not a small difference of
    // probabilities near 1. Invert on whichever side of ½ the probability falls, where the
    // quantile function is accurate.
    const double pa = normal_cdf(a), pb = normal_cdf(b), p = pa + mul(u, pb - pa);
    if (p <= 0.5) {
      z = normal_quantile(p);
    } else {
      const double qa = normal_cdf(-a), qb = normal_cdf(-b);
      z = -normal_quantile(qa - mul(u, qa - qb));
    }
  }
  return clamp_hd(mean + mul(sd, z), lo, hi);
}

// uniform(lo, hi) at probability u.
RBMC_HD inline double uniform_from_uniform(double lo, double hi, double u) { return lo + portable::mul(hi - lo, u); }

// Which of n choices u selects, given their cumulative probabilities (n values, the last 1):
// the first whose cumulative probability is at least u.
RBMC_HD inline int discrete_choice(const double* cumulative, int n, double u) {
  int choice = 0;
  while (choice + 1 < n && u > cumulative[choice]) ++choice;
  return choice;
}

// A unit vector uniform on the sphere from two uniforms: z uniform in (−1, 1) (Archimedes), the
// azimuth 2π u2.
RBMC_HD inline Vec3<double> uniform_direction(double u1, double u2) {
  using portable::mul;
  const double z = 2 * u1 - 1, r = ::sqrt(::fmax(0.0, 1 - mul(z, z)));
  const portable::SinCos azimuth = portable::sin_cos_of_turns(u2);
  return Vec3<double>(mul(r, azimuth.cos), mul(r, azimuth.sin), z);
}

// A rotation uniform on SO(3) from three uniforms (Shoemake, "Uniform random rotations", Graphics
// Gems III, 1992): (w, x, y, z) = (√u1 cos 2πu3, √(1 − u1) sin 2πu2, √(1 − u1) cos 2πu2, √u1 sin 2πu3),
// renormalised.
RBMC_HD inline Quaternion<double> uniform_rotation(double u1, double u2, double u3) {
  using portable::mul;
  const double a = ::sqrt(1 - u1), b = ::sqrt(u1);
  const portable::SinCos t2 = portable::sin_cos_of_turns(u2), t3 = portable::sin_cos_of_turns(u3);
  const double w = mul(b, t3.cos), x = mul(a, t2.sin), y = mul(a, t2.cos), z = mul(b, t3.sin);
  const double norm = ::sqrt(((mul(w, w) + mul(x, x)) + mul(y, y)) + mul(z, z));
  return {w / norm, x / norm, y / norm, z / norm};
}

// A uniform rotation's draw as rbmc stores it: the rotation vector of reference* ⊗ R, R =
// uniform_rotation(u1, u2, u3), so that reference ⊗ exp(v) is R (the attitude's nominal as the
// reference; the identity for the principal axes, where the rotation itself is the draw).
RBMC_HD inline Vec3<double> uniform_rotation_vector(const Quaternion<double>& reference, double u1, double u2,
                                                    double u3) {
  return rotation_vector_from_quaternion(product_rounded(reference.conjugate(), uniform_rotation(u1, u2, u3)));
}

}  // namespace rbmc

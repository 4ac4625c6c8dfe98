#include "host/sampling/distributions.hpp"

#include <algorithm>
#include <cmath>

namespace rbmc {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_quantile(double p) {
  if (p <= 0) return -INFINITY;
  if (p >= 1) return INFINITY;
  // Acklam's coefficients.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double low = 0.02425;
  double x;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley step: e = Φ(x) − p, u = e √(2π) e^{x²/2}.
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double log_normal_survival(double x) {
  if (x < 5) return std::log(0.5 * std::erfc(x / std::sqrt(2.0)));  // Q(5) = 2.9e-7: no cancellation
  // Q(x) = φ(x) / (x + 1/(x + 2/(x + 3/(x + ...)))) (Laplace's continued fraction), evaluated from
  // the back: 60 terms are exact to double precision for x ≥ 5, and nothing underflows.
  double tail = x;
  for (int k = 60; k >= 1; --k) tail = x + double(k) / tail;
  return -0.5 * x * x - 0.5 * std::log(2 * M_PI) - std::log(tail);
}

namespace {

// The standard normal truncated to [a, b] with 0 <= a < b <= ∞, at probability u, on the log
// scale: log Q(x) = log Q(a) + log(1 − u (1 − Q(b)/Q(a))). log Q is concave and decreasing, so
// Newton's method from a lands right of the root and then converges monotonically to it.
double upper_tail_inverse(double a, double b, double u) {
  const double log_qa = log_normal_survival(a);
  const double ratio = std::isinf(b) ? 0.0 : std::exp(log_normal_survival(b) - log_qa);
  const double target = log_qa + std::log1p(-u * (1 - ratio));
  double x = a;
  for (int i = 0; i < 100; ++i) {
    const double log_q = log_normal_survival(x);
    // d/dx log Q(x) = −φ(x) / Q(x).
    const double slope = -std::exp(-0.5 * x * x - 0.5 * std::log(2 * M_PI) - log_q);
    const double next = std::clamp(x - (log_q - target) / slope, a, b);
    if (std::abs(next - x) <= 4e-16 * std::max(1.0, std::abs(x))) return next;
    x = next;
  }
  return x;
}

}  // namespace

double truncated_normal(double mean, double sd, double lo, double hi, double u) {
  if (!(sd > 0)) return std::clamp(mean, lo, hi);
  const double a = (lo - mean) / sd, b = (hi - mean) / sd;
  double z;
  if (a >= 0) {
    z = upper_tail_inverse(a, b, u);  // both bounds above the mean
  } else if (b <= 0) {
    z = -upper_tail_inverse(-b, -a, 1 - u);  // both below: the mirror image, still increasing in u
  } else {
    // The interval holds the mean: Φ(a) <= 1/2 <= Φ(b), so the mass is not a small difference of
    // probabilities near 1. Invert on whichever side of 1/2 the probability falls, where the
    // quantile function is accurate.
    const double pa = normal_cdf(a), pb = normal_cdf(b), p = pa + u * (pb - pa);
    if (p <= 0.5) {
      z = normal_quantile(p);
    } else {
      const double qa = 0.5 * std::erfc(a / std::sqrt(2.0)), qb = 0.5 * std::erfc(b / std::sqrt(2.0));
      z = -normal_quantile(qa - u * (qa - qb));
    }
  }
  return std::clamp(mean + sd * z, lo, hi);
}

Quaternion<double> uniform_rotation(double u1, double u2, double u3) {
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  const double t2 = 2 * M_PI * u2, t3 = 2 * M_PI * u3;
  return normalized(Quaternion<double>{b * std::cos(t3), a * std::sin(t2), a * std::cos(t2), b * std::sin(t3)});
}

Vec3<double> uniform_direction(double u1, double u2) {
  const double z = 2 * u1 - 1, r = std::sqrt(std::max(0.0, 1 - z * z)), phi = 2 * M_PI * u2;
  return Vec3<double>(r * std::cos(phi), r * std::sin(phi), z);
}

}  // namespace rbmc

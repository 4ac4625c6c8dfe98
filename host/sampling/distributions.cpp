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

double truncated_normal(double mean, double sd, double lo, double hi, double u) {
  if (!(sd > 0)) return std::clamp(mean, lo, hi);
  const double pa = normal_cdf((lo - mean) / sd), pb = normal_cdf((hi - mean) / sd);
  return std::clamp(mean + sd * normal_quantile(pa + u * (pb - pa)), lo, hi);
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

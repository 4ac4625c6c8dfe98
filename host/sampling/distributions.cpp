#include "host/sampling/distributions.hpp"

#include <algorithm>
#include <cmath>

namespace rbmc {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

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

}  // namespace rbmc

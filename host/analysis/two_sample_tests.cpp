#include "host/analysis/two_sample_tests.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "rbmc/random/inverse_transforms.hpp"
#include "host/stats/run_statistics.hpp"

namespace rbmc {

namespace {

std::vector<double> finite(std::vector<double> x) {
  x.erase(std::remove_if(x.begin(), x.end(), [](double v) { return !std::isfinite(v); }), x.end());
  return x;
}

// Q_KS(λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2 j² λ²}.
double kolmogorov_q(double lambda) {
  if (lambda < 0.2) return 1.0;
  double sum = 0, sign = 1;
  for (int j = 1; j <= 100; ++j) {
    const double term = sign * std::exp(-2.0 * j * j * lambda * lambda);
    sum += term;
    if (std::abs(term) < 1e-16 * std::abs(sum)) break;
    sign = -sign;
  }
  return std::clamp(2 * sum, 0.0, 1.0);
}

void mean_variance(const std::vector<double>& x, double& mean, double& variance) {
  mean = std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
  variance = 0;
  for (double v : x) variance += (v - mean) * (v - mean);
  variance /= double(x.size() > 1 ? x.size() - 1 : 1);
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 == 1 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

}  // namespace

TestResult ks_two_sample(std::vector<double> a, std::vector<double> b) {
  a = finite(std::move(a));
  b = finite(std::move(b));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return ks_two_sample_sorted(a, b);
}

TestResult ks_two_sample_sorted(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return {NAN, NAN};
  const double na = double(a.size()), nb = double(b.size());
  std::size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x) ++i;  // ties step both CDFs together
    while (j < b.size() && b[j] == x) ++j;
    d = std::max(d, std::abs(double(i) / na - double(j) / nb));
  }
  const double m = std::sqrt(na * nb / (na + nb));
  return {d, kolmogorov_q((m + 0.12 + 0.11 / m) * d)};
}

TestResult welch_means(const std::vector<double>& a_in, const std::vector<double>& b_in) {
  const std::vector<double> a = finite(a_in), b = finite(b_in);
  if (a.size() < 2 || b.size() < 2) return {NAN, NAN};
  double ma, va, mb, vb;
  mean_variance(a, ma, va);
  mean_variance(b, mb, vb);
  const double se = std::sqrt(va / double(a.size()) + vb / double(b.size()));
  if (!(se > 0)) return {0, ma == mb ? 1.0 : 0.0};
  const double t = (ma - mb) / se;
  return {t, std::erfc(std::abs(t) / std::sqrt(2.0))};
}

TestResult brown_forsythe_spread(const std::vector<double>& a_in, const std::vector<double>& b_in) {
  std::vector<double> a = finite(a_in), b = finite(b_in);
  if (a.size() < 2 || b.size() < 2) return {NAN, NAN};
  const double ma = median(a), mb = median(b);
  for (double& v : a) v = std::abs(v - ma);
  for (double& v : b) v = std::abs(v - mb);
  return welch_means(a, b);
}

std::vector<double> holm_adjusted(const std::vector<double>& p) {
  // Tests without a p-value (NaN: no data) are not counted.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (!std::isnan(p[i])) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  std::vector<double> adjusted(p.size(), NAN);
  double running = 0;
  for (std::size_t r = 0; r < order.size(); ++r) {
    running = std::max(running, std::min(1.0, double(order.size() - r) * p[order[r]]));
    adjusted[order[r]] = running;
  }
  return adjusted;
}

namespace {

// One sample's p-quantile and its distribution-free standard error (see the header), from its
// values sorted.
void quantile_and_se(const std::vector<double>& x, double p, double z, double& q, double& se) {
  q = quantile_of_sorted(x, p);
  const double n = double(x.size()), half = z * std::sqrt(n * p * (1 - p));
  const auto at_rank = [&](double r) { return x[std::size_t(std::clamp(r, 0.0, n - 1))]; };
  se = (at_rank(std::ceil(n * p + half)) - at_rank(std::floor(n * p - half))) / (2 * z);
}

EquivalenceResult judge(double difference, double se, double margin, double z) {
  EquivalenceResult r;
  r.difference = difference;
  r.bound = std::abs(difference) + z * se;
  r.equivalent = r.bound <= margin;
  return r;
}

}  // namespace

EquivalenceResult mean_equivalence(const std::vector<double>& a_in, const std::vector<double>& b_in, double margin,
                                   double alpha) {
  const std::vector<double> a = finite(a_in), b = finite(b_in);
  if (a.empty() || b.empty()) return {NAN, NAN, a.empty() && b.empty()};
  double ma, va, mb, vb;
  mean_variance(a, ma, va);
  mean_variance(b, mb, vb);
  return judge(mb - ma, std::sqrt(va / double(a.size()) + vb / double(b.size())), margin, normal_quantile(1 - alpha));
}

EquivalenceResult paired_mean_equivalence(const std::vector<double>& d_in, double margin, double alpha) {
  const std::vector<double> d = finite(d_in);
  if (d.empty()) return {NAN, NAN, true};
  double mean, variance;
  mean_variance(d, mean, variance);
  return judge(mean, std::sqrt(variance / double(d.size())), margin, normal_quantile(1 - alpha));
}

QuantileEquivalence quantile_equivalence(const std::vector<double>& a_in, const std::vector<double>& b_in, double p,
                                         double margin, double rank_margin, double alpha) {
  std::vector<double> a = finite(a_in), b = finite(b_in);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return quantile_equivalence_sorted(a, b, p, margin, rank_margin, alpha);
}

QuantileEquivalence quantile_equivalence_sorted(const std::vector<double>& a, const std::vector<double>& b, double p,
                                                double margin, double rank_margin, double alpha) {
  QuantileEquivalence r;
  if (a.empty() || b.empty()) {
    r.difference = r.bound = r.rank_shift = r.rank_bound = NAN;
    r.equivalent = a.empty() && b.empty();
    return r;
  }
  const double z = normal_quantile(1 - alpha);
  double qa, sa, qb, sb;
  quantile_and_se(a, p, z, qa, sa);
  quantile_and_se(b, p, z, qb, sb);
  static_cast<EquivalenceResult&>(r) = judge(qb - qa, std::sqrt(sa * sa + sb * sb), margin, z);
  // F_a at b's quantile, ties counted half.
  const double below = double(std::lower_bound(a.begin(), a.end(), qb) - a.begin()),
               at_or_below = double(std::upper_bound(a.begin(), a.end(), qb) - a.begin());
  const double na = double(a.size()), nb = double(b.size());
  r.rank_shift = 0.5 * (below + at_or_below) / na - p;
  r.rank_bound = std::abs(r.rank_shift) + z * std::sqrt(p * (1 - p) * (1 / na + 1 / nb));
  r.equivalent = r.equivalent || r.rank_bound <= rank_margin;
  return r;
}

}  // namespace rbmc

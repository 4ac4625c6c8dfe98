// Two-sample tests for comparing runs: Kolmogorov–Smirnov for the distributions, Welch for the
// means, Brown–Forsythe for the spreads, and Holm's correction for testing many at once.
#pragma once

#include <vector>

namespace rbmc {

struct TestResult {
  double statistic;
  double p_value;
};

// Two-sided two-sample Kolmogorov–Smirnov: D = sup |F_a − F_b|, p from the asymptotic
// Kolmogorov distribution with Stephens' small-sample correction, λ = (√m + 0.12 + 0.11/√m) D,
// m = n_a n_b / (n_a + n_b) (Press et al., Numerical Recipes, §14.3). NaN values are dropped.
TestResult ks_two_sample(std::vector<double> a, std::vector<double> b);
// The same of two samples' finite values sorted ascending: a caller judging several things of
// one pair sorts them once (rbmc compare: each component's KS and quantiles, 12 sorts before).
TestResult ks_two_sample_sorted(const std::vector<double>& a, const std::vector<double>& b);

// Welch's t for a difference of means; p two-sided from the normal distribution (the runs
// compared hold thousands of samples).
TestResult welch_means(const std::vector<double>& a, const std::vector<double>& b);

// Brown–Forsythe: Welch's test on the absolute deviations from each sample's median. Robust to
// the heavy tails that tumbling attitudes and chaotic states have, where an F test is not.
TestResult brown_forsythe_spread(const std::vector<double>& a, const std::vector<double>& b);

// Holm's step-down adjustment: the family-wise error stays below α when each adjusted p is
// compared with α.
std::vector<double> holm_adjusted(const std::vector<double>& p);

// Equivalence rather than difference: two one-sided tests (Schuirmann, "A comparison of the two
// one-sided tests procedure and the power approach for assessing the equivalence of average
// bioavailability", 1987). A difference d with standard error se is shown to lie within ±margin
// at level α when the one-sided (1 − α) bound |d| + z₁₋α se is at most the margin.
struct EquivalenceResult {
  double difference = 0;  // b − a
  double bound = 0;       // |difference| + z₁₋α se
  bool equivalent = false;
};

// The means: se from Welch's unpooled variances.
EquivalenceResult mean_equivalence(const std::vector<double>& a, const std::vector<double>& b, double margin,
                                   double alpha);

// The mean of paired differences d = b − a (the same samples in two runs): se = sd(d) / √n.
EquivalenceResult paired_mean_equivalence(const std::vector<double>& differences, double margin, double alpha);

// The p-quantiles (linear interpolation, numpy's default), judged two ways; either suffices.
// - In value: the difference's se is distribution-free: the order statistics at ranks
//   n p ± z √(n p (1 − p)) bound each quantile with probability 1 − α (the binomial count below
//   it, normal approximation), so se = half that interval / z. Equivalent when the bound is
//   within `margin`.
// - In probability: where a's distribution puts b's quantile, r = F_a(Q_b(p)) − p, with se
//   √(p (1 − p) (1/n_a + 1/n_b)). Equivalent when |r| + z se is within `rank_margin`. This is the
//   scale-free reading where the value scale misleads (a quantile in a sparse tail or between
//   two modes).
struct QuantileEquivalence : EquivalenceResult {
  double rank_shift = 0, rank_bound = 0;  // r and |r| + z se
};
QuantileEquivalence quantile_equivalence(const std::vector<double>& a, const std::vector<double>& b, double p,
                                         double margin, double rank_margin, double alpha);
// The same of the samples' finite values sorted ascending (as ks_two_sample_sorted).
QuantileEquivalence quantile_equivalence_sorted(const std::vector<double>& a, const std::vector<double>& b, double p,
                                                double margin, double rank_margin, double alpha);

}  // namespace rbmc

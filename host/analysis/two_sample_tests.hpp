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

// Welch's t for a difference of means; p two-sided from the normal distribution (the runs
// compared hold thousands of samples).
TestResult welch_means(const std::vector<double>& a, const std::vector<double>& b);

// Brown–Forsythe: Welch's test on the absolute deviations from each sample's median. Robust to
// the heavy tails that tumbling attitudes and chaotic states have, where an F test is not.
TestResult brown_forsythe_spread(const std::vector<double>& a, const std::vector<double>& b);

// Holm's step-down adjustment: the family-wise error stays below α when each adjusted p is
// compared with α.
std::vector<double> holm_adjusted(const std::vector<double>& p);

}  // namespace rbmc

// rbmc compare: two results files, aligned by global sample index, judged sample by sample and
// as distributions (docs/compare.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "host/analysis/two_sample_tests.hpp"

namespace rbmc {

struct CompareOptions {
  bool statistical = false;  // judge only the distributions
  double rtol = 1e-6, atol = 1e-9;  // per sample: |a − b| ≤ atol + rtol · max(|a|, |b|)
  double alpha = 0.01;              // family-wise level of the distribution tests (Holm)
};

struct ComponentComparison {
  std::string name;  // e.g. "final/position[2]"
  double max_abs = 0, max_rel = 0;  // over the common samples
  std::uint64_t mismatched = 0;     // common samples beyond the per-sample tolerance
  TestResult ks{}, mean{}, spread{};
  double ks_adjusted = 1, mean_adjusted = 1, spread_adjusted = 1;  // Holm-adjusted p-values
};

struct Comparison {
  std::string path_a, path_b;
  std::uint64_t n_a = 0, n_b = 0, n_common = 0;
  bool same_scenario = false;
  std::uint64_t status_mismatches = 0;  // common samples whose status differs
  std::vector<ComponentComparison> components;
  bool per_sample_pass = false, distribution_pass = false, pass = false;
  std::vector<std::string> reasons;  // why it failed
};

Comparison compare_results(const std::string& path_a, const std::string& path_b, const CompareOptions& options);
void print_comparison(const Comparison& c, const CompareOptions& options, std::FILE* out);

}  // namespace rbmc

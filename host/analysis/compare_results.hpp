// rbmc compare: two results files, aligned by global sample index, judged sample by sample against
// a numerical tolerance derived from the runs, and as distributions by equivalence tests
// (docs/compare.md says what each verdict means and why).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "host/analysis/two_sample_tests.hpp"

namespace rbmc {

struct CompareOptions {
  bool statistical = false;  // judge only the distributions (other seeds or sample sets)
  // Per sample: |a − b| ≤ atol + rtol · max(‖a‖, ‖b‖, the quantity's median ‖·‖), norms over the
  // quantity's components. Unset: derived from the two runs (numerical_tolerance()).
  std::optional<double> rtol, atol;
  // Distributions agree when their means and 5, 50 and 95 % quantiles differ by at most
  // margin × the quantity's standard deviation plus the numerical tolerance (two one-sided tests).
  double margin = 0.25;
  // Or, for each quantile, in probability: b's quantile lies within a's at p ± rank_margin.
  double rank_margin = 0.05;
  double alpha = 0.05;  // level of each one-sided test
  // Mismatched samples re-integrated (CPU, double) from inputs perturbed at rounding level, to
  // tell sensitive dependence (chaos) from a real difference; 0 turns the check off.
  std::size_t sensitivity_samples = 64;
  // The kept trajectories are read about this many values of a dataset at a time (16 MiB of
  // doubles), and their typical size is the median norm of a's rows, or, beyond this many rows, of
  // blocks of samples evenly spread through the file. Tests make both small.
  std::size_t trajectory_block_values = std::size_t(1) << 21;
  std::size_t trajectory_norm_rows = std::size_t(1) << 22;
};

// What the two runs' arithmetic can resolve (derived from their precisions, integrators, step
// counts and tolerances).
struct NumericalTolerance {
  double rtol = 0, atol = 0;
  double epsilon = 0;       // unit roundoff of the coarser precision
  double steps = 0;         // steps per sample (the mean for dopri5)
  std::string derivation;   // in words, for the report
  // The inputs': drawn in double by the same code whatever the backend or precision, so the same
  // samples agree to 1e-12 relative; where a file stores its values in float32 ([output] storage),
  // to that rounding (2⁻²⁴ relative, and float's smallest subnormal below its normal range).
  double input_rtol = 0, input_atol = 0;
};
NumericalTolerance numerical_tolerance(const std::string& path_a, const std::string& path_b);

struct ComponentComparison {
  std::string name;                 // e.g. "final/position[z]"
  bool input = false;               // an input (body, initial state, drawn parameter), not a result
  double max_abs = 0;               // largest |a − b| over the common samples
  double max_ratio = 0;             // largest |a − b| / tolerance
  std::uint64_t mismatched = 0;     // common samples beyond the tolerance
  double tolerance = 0;             // the tolerance at the quantity's median magnitude
  double spread = 0;                // standard deviation over a's samples
  bool resolution_limited = false;  // spread below 10 tolerances: judged sample by sample only
  bool per_sample_only = false;     // a kept trajectory: no spread, margin or tests (the report prints "-")
  double rms_difference = 0;        // over the common samples' finite pairs
  bool unresolved_by_coarser = false;  // float's error is >= 10 % of a spread double resolves
  double margin = 0;                // of the equivalence tests
  EquivalenceResult mean{};
  QuantileEquivalence quantiles[3]{};  // 5, 50, 95 %
  bool equivalent = true;            // mean and quantiles within the margin
  TestResult ks{};                   // reported, not judged: KS rejects differences of rounding size
};

// Samples that differ beyond the tolerance, re-integrated from inputs perturbed at the coarser
// precision's rounding level: sensitive when the perturbation alone moves them by at least a
// tenth of the difference between the files.
struct SensitivityCheck {
  std::uint64_t checked = 0, sensitive = 0;
  double median_growth_rate = 0;  // 1/s: ln(separation(t) / separation(0)) / t at saturation
  double min_ratio = 0;           // smallest perturbed separation / file difference
  std::vector<std::uint64_t> insensitive_samples;  // global indices, at most 10
  std::string unavailable;        // why it could not run, if it did not
};

struct Comparison {
  std::string path_a, path_b;
  bool complete_a = true, complete_b = true;
  std::uint64_t n_a = 0, n_b = 0, n_common = 0;
  bool same_scenario = false;
  NumericalTolerance tolerance;
  std::uint64_t status_mismatches = 0;   // common samples whose status differs
  std::uint64_t input_mismatches = 0;    // common samples whose inputs differ: not the same samples
  std::vector<std::uint64_t> mismatched_samples;  // global indices of common samples beyond tolerance
  std::vector<std::string> mismatched_quantities;
  SensitivityCheck sensitivity;
  double trajectory_growth_rate = NAN;   // from the retained trajectories both files keep, 1/s
  std::uint64_t trajectories_compared = 0;
  std::vector<ComponentComparison> components;
  bool per_sample_pass = false, distribution_pass = false, pass = false;
  // The mismatched samples are all sensitive to rounding: in one precision, chaos; between float
  // and double, float's rounding grown beyond single samples. Then the distributions decide.
  bool chaotic = false, float_unresolved = false;
  std::vector<std::string> reasons;  // why it failed
  std::vector<std::string> notes;    // what a careful reader should know even when it passed
};

Comparison compare_results(const std::string& path_a, const std::string& path_b, const CompareOptions& options);
void print_comparison(const Comparison& c, const CompareOptions& options, std::FILE* out);
// rbmc compare --json: the verdict and every figure of the report as one JSON object.
void print_comparison_json(const Comparison& c, const CompareOptions& options, std::FILE* out);

}  // namespace rbmc

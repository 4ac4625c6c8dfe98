// rbmc validate: the same samples of one scenario on the CPU build in double (the reference) and
// on a candidate (CUDA in either precision, or the CPU in float), then rbmc compare's verdict.
#pragma once

#include <optional>
#include <string>

#include "host/analysis/compare_results.hpp"
#include "host/backend/backend.hpp"

namespace rbmc {

struct Scenario;  // host/scenario/scenario.hpp

struct ValidateOptions {
  std::string scenario;                        // TOML path (or, with a parsed scenario, its name in the report)
  std::optional<std::uint64_t> samples, seed;  // override the scenario's
  BackendChoice candidate = BackendChoice::cuda;
  Precision precision = Precision::float64;    // the candidate's
  unsigned threads = 0;                        // CPU threads (0 = all cores)
  std::string keep;                            // keep the two files in this directory; empty: delete them
  bool progress = true;
  CompareOptions compare;
};

struct Validation {
  std::string reference_file, candidate_file;  // kept only when ValidateOptions::keep is set
  std::string reference, candidate;             // "cpu double", "cuda float", ...
  double reference_seconds = 0, candidate_seconds = 0;
  Comparison comparison;
};

// Throws NotBuiltWithCuda or CudaError before any work when the candidate is CUDA and there is none.
Validation validate_scenario(const ValidateOptions& options);
// The same for a scenario already parsed (the Python module's dicts).
Validation validate_scenario(const Scenario& scenario, const ValidateOptions& options);
void print_validation(const Validation& v, const ValidateOptions& options, std::FILE* out);

}  // namespace rbmc

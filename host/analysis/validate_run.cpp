#include "host/analysis/validate_run.hpp"

#include <unistd.h>

#include <filesystem>

#include "host/errors.hpp"
#include "host/io/results_writer.hpp"  // ResultsWriter::suspended_path
#include "host/run/run_driver.hpp"
#include "host/scenario/scenario.hpp"

namespace rbmc {

namespace {

// A fresh private directory for the two files, removed (with them) unless they are to be kept.
class WorkDirectory {
 public:
  explicit WorkDirectory(const std::string& keep) : keep_(!keep.empty()) {
    namespace fs = std::filesystem;
    if (keep_) {
      path_ = keep;
      fs::create_directories(path_);
      return;
    }
    std::string pattern = (fs::temp_directory_path() / "rbmc-validate-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw Hdf5Error("cannot create a temporary directory for rbmc validate");
    path_ = pattern;
  }
  ~WorkDirectory() {
    std::error_code ignored;
    if (!keep_) std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  bool keep_;
  std::filesystem::path path_;
};

}  // namespace

Validation validate_scenario(const ValidateOptions& options) {
  return validate_scenario(load_scenario(options.scenario), options);
}

Validation validate_scenario(const Scenario& scenario, const ValidateOptions& options) {
  // No GPU: say so now, before the reference run's minutes, and what validates without one (the
  // backend's own advice, --backend cpu, would judge the reference against itself).
  const std::string without_gpu =
      "; without a GPU, rbmc validate --backend cpu --precision float judges float against double on the CPU";
  try {
    (void)make_backend(options.candidate, options.precision, options.threads);
  } catch (const NotBuiltWithCuda&) {
    throw NotBuiltWithCuda("rbmc validate --backend cuda: this rbmc was built without CUDA (CMake found no nvcc)" +
                           without_gpu);
  } catch (const CudaError& e) {
    throw CudaError(e.what() + without_gpu);
  }
  Validation v;
  v.reference = "cpu double";
  v.candidate = std::string(options.candidate == BackendChoice::cuda ? "cuda " : "cpu ") + precision_name(options.precision);
  if (v.reference == v.candidate)
    throw UsageError("rbmc validate: the candidate (" + v.candidate + ") is the reference itself; pick --backend cuda or "
                     "--precision float");
  const WorkDirectory dir(options.keep);
  RunOptions run;
  run.samples = options.samples;
  run.seed = options.seed;
  run.threads = options.threads;
  run.progress = options.progress;
  run.overwrite = !options.keep.empty();
  run.output = dir.file(scenario.name + "-cpu-double.h5");
  run.backend = BackendChoice::cpu;
  run.precision = Precision::float64;
  // An interrupted run's message tells how to resume it, which validate cannot: its own says
  // what is left (nothing, or with --keep the run's partial file).
  const auto wall_seconds_of = [&](const std::string& which) {
    try {
      return run_scenario(scenario, run).totals.wall_seconds;
    } catch (const Interrupted&) {
      throw Interrupted("validate: interrupted during the " + which + " run; " +
                        (options.keep.empty() ? std::string("nothing is kept")
                                              : "its partial file is left in " + ResultsWriter::suspended_path(run.output)));
    }
  };
  v.reference_seconds = wall_seconds_of("reference (" + v.reference + ")");
  const std::string reference_file = run.output;
  run.output = dir.file(scenario.name + "-" + (options.candidate == BackendChoice::cuda ? "cuda" : "cpu") + "-" +
                        precision_name(options.precision) + ".h5");
  run.backend = options.candidate;
  run.precision = options.precision;
  v.candidate_seconds = wall_seconds_of("candidate (" + v.candidate + ")");
  v.comparison = compare_results(reference_file, run.output, options.compare);
  if (!options.keep.empty()) {
    v.reference_file = reference_file;
    v.candidate_file = run.output;
  }
  return v;
}

void print_validation(const Validation& v, const ValidateOptions& options, std::FILE* out) {
  std::fprintf(out, "rbmc validate: %s, %llu samples: reference %s (%.2f s), candidate %s (%.2f s)\n",
               options.scenario.c_str(), static_cast<unsigned long long>(v.comparison.n_common), v.reference.c_str(),
               v.reference_seconds, v.candidate.c_str(), v.candidate_seconds);
  if (!v.reference_file.empty())
    std::fprintf(out, "  kept         %s, %s\n", v.reference_file.c_str(), v.candidate_file.c_str());
  print_comparison(v.comparison, options.compare, out);
}

}  // namespace rbmc

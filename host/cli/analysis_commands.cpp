#include "host/cli/analysis_commands.hpp"

#include <cstdio>
#include <memory>

#include "host/analysis/compare_results.hpp"
#include "host/analysis/results_info.hpp"
#include "host/analysis/validate_run.hpp"
#include "host/cli/number_checks.hpp"
#include "host/cli/stop_signals.hpp"
#include "host/errors.hpp"

namespace rbmc::cli {

void add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* info = app.add_subcommand("info", "Summarise a results file: scenario, backend, counts, statuses, final states");
  info->add_option("file", *path, "Results file (HDF5)")->required()->check(CLI::ExistingFile);
  info->add_flag("--json", *json, "The same as one JSON object, for scripts");
  info->callback([path, json] {
    const ResultsInfo r = read_results_info(*path);
    if (*json) print_results_info_json(r, stdout);
    else print_results_info(r, stdout);
  });
}

namespace {

// The options compare and validate share.
void add_verdict_options(CLI::App* command, CompareOptions& o) {
  command->add_option_function<double>("--rtol", [&o](double v) { o.rtol = v; },
                                       "Per-sample relative tolerance (default: derived from the runs' precisions, "
                                       "integrators and step counts)")
      ->check(non_negative_number_check());
  command->add_option_function<double>("--atol", [&o](double v) { o.atol = v; },
                                       "Per-sample absolute tolerance (default: derived)")
      ->check(non_negative_number_check());
  command->add_option("--margin", o.margin,
                      "Equivalence margin of means and quantiles, in standard deviations of the quantity (plus the "
                      "tolerance)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  command->add_option("--rank-margin", o.rank_margin,
                      "Or each quantile's equivalence margin in probability (b's quantile within p +- this in a)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.5));
  command->add_option("--alpha", o.alpha, "Level of each one-sided equivalence test")
      ->capture_default_str()
      ->check(CLI::Range(1e-12, 0.5));
  command->add_option("--sensitivity-samples", o.sensitivity_samples,
                      "Mismatched samples re-integrated to tell chaos from a real difference (0: none)")
      ->capture_default_str()
      ->check(whole_number_check(0));
}

}  // namespace

void add_compare_command(CLI::App& app) {
  struct Arguments {
    std::string a, b;
    CompareOptions options;
    bool json = false;
  };
  auto args = std::make_shared<Arguments>();
  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two results files sample by sample and as distributions; PASS or FAIL (exit code 6)");
  compare->add_option("a", args->a, "Reference results file")->required()->check(CLI::ExistingFile);
  compare->add_option("b", args->b, "Results file judged against it")->required()->check(CLI::ExistingFile);
  compare->add_flag("--statistical", args->options.statistical,
                    "Judge only the distributions (other seeds or sample sets)");
  compare->add_flag("--json", args->json, "The verdict and the report's figures as one JSON object, for scripts");
  add_verdict_options(compare, args->options);
  compare->callback([args] {
    const Comparison c = compare_results(args->a, args->b, args->options);
    if (args->json) print_comparison_json(c, args->options, stdout);
    else print_comparison(c, args->options, stdout);
    std::fflush(stdout);
    if (!c.pass) throw ComparisonFailed("the results differ (FAIL)");
  });
}

void add_validate_command(CLI::App& app) {
  struct Arguments {
    ValidateOptions options;
    std::uint64_t samples = 0, seed = 0;
    std::string backend = "cuda", precision = "double";
  };
  auto args = std::make_shared<Arguments>();
  CLI::App* validate = app.add_subcommand(
      "validate",
      "Run a scenario's samples on the CPU in double and on CUDA (or in float), and compare them: PASS or FAIL (exit 6)");
  validate->add_option("scenario", args->options.scenario, "Scenario file (TOML)")->required()->check(CLI::ExistingFile);
  validate->add_option("--samples", args->samples, "Number of samples (overrides run.samples)")
      ->check(whole_number_check(1));
  validate->add_option("--seed", args->seed, "Random seed (overrides run.seed)")->check(whole_number_check(0));
  validate->add_option("--backend", args->backend, "The candidate's backend (the reference is the CPU in double)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  validate->add_option("--precision", args->precision, "The candidate's precision")
      ->capture_default_str()
      ->check(CLI::IsMember({"double", "float"}));
  validate->add_option("--threads", args->options.threads, "CPU threads (0 = all cores)")
      ->check(whole_number_check(0));
  validate->add_option("--keep", args->options.keep, "Keep the two results files in this directory");
  validate->add_flag_callback("--no-progress", [args] { args->options.progress = false; }, "No progress bar");
  add_verdict_options(validate, args->options.compare);
  validate->callback([args, validate] {
    stop_cleanly_on_signals();
    ValidateOptions& o = args->options;
    if (validate->count("--samples")) o.samples = args->samples;
    if (validate->count("--seed")) o.seed = args->seed;
    o.candidate = args->backend == "cpu" ? BackendChoice::cpu : BackendChoice::cuda;
    o.precision = args->precision == "float" ? Precision::float32 : Precision::float64;
    const Validation v = validate_scenario(o);
    print_validation(v, o, stdout);
    std::fflush(stdout);
    if (!v.comparison.pass) throw ComparisonFailed("the candidate differs from the reference (FAIL)");
  });
}

}  // namespace rbmc::cli

#include "host/cli/analysis_commands.hpp"

#include <cstdio>
#include <memory>

#include "host/analysis/compare_results.hpp"
#include "host/analysis/results_info.hpp"
#include "host/errors.hpp"

namespace rbmc::cli {

void add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* info = app.add_subcommand("info", "Summarise a results file: scenario, backend, counts, statuses, final states");
  info->add_option("file", *path, "Results file (HDF5)")->required()->check(CLI::ExistingFile);
  info->callback([path] { print_results_info(*path, stdout); });
}

void add_compare_command(CLI::App& app) {
  struct Arguments {
    std::string a, b;
    CompareOptions options;
  };
  auto args = std::make_shared<Arguments>();
  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two results files sample by sample and as distributions; PASS or FAIL (exit code 6)");
  compare->add_option("a", args->a, "First results file")->required()->check(CLI::ExistingFile);
  compare->add_option("b", args->b, "Second results file")->required()->check(CLI::ExistingFile);
  compare->add_flag("--statistical", args->options.statistical,
                    "Judge only the distributions (chaotic scenarios, other seeds or sample sets)");
  compare->add_option("--rtol", args->options.rtol, "Per-sample relative tolerance")->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  compare->add_option("--atol", args->options.atol, "Per-sample absolute tolerance")->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  compare->add_option("--alpha", args->options.alpha, "Family-wise significance level of the distribution tests")
      ->capture_default_str()
      ->check(CLI::Range(1e-12, 0.5));
  compare->callback([args] {
    const Comparison c = compare_results(args->a, args->b, args->options);
    print_comparison(c, args->options, stdout);
    std::fflush(stdout);
    if (!c.pass) throw ComparisonFailed("the results differ (FAIL)");
  });
}

}  // namespace rbmc::cli

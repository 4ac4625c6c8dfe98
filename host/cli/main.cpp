// rbmc's command line: each error type maps to a message on stderr and its own exit code
// (documented in README.md).
#include <string>

#include <hdf5.h>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "host/cli/analysis_commands.hpp"
#include "host/cli/check_command.hpp"
#include "host/cli/run_command.hpp"
#include "host/errors.hpp"
#include "host/run/run_driver.hpp"
#include "host/stats/sort_finite.hpp"

#ifndef RBMC_VERSION
#define RBMC_VERSION "unknown"
#endif

namespace {

enum ExitCode : int {
  kOk = 0,
  kFailure = 1,        // an unexpected error
  kBadInput = 2,       // scenario or command line
  kNoCuda = 3,         // CUDA asked for, not built in
  kCudaFailure = 4,    // a CUDA runtime error
  kOutputFailure = 5,  // writing or reading HDF5
  kCompareFail = 6,    // rbmc compare: FAIL
  kInterrupted = 130,  // SIGINT or SIGTERM
};

// rbmc --version: what a bug report needs to name this build.
std::string version_text() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  std::string text = std::string("rbmc ") + RBMC_VERSION + "\n  commit       " + RBMC_COMMIT;
#ifdef RBMC_HAVE_CUDA
  text += std::string("\n  CUDA         built for architectures ") + RBMC_CUDA_ARCHITECTURES;
#else
  text += "\n  CUDA         not built (CPU backend only)";
#endif
  text += "\n  HDF5         " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
#ifdef H5_HAVE_PARALLEL
  text += " (parallel: MPI ranks write one file together)";
#endif
#ifdef RBMC_HAVE_MPI
  text += "\n  MPI          yes (mpirun -n R rbmc run)";
#else
  text += "\n  MPI          no";
#endif
#ifdef RBMC_HAVE_LIBDEFLATE
  text += "\n  compression  libdeflate";
#else
  text += "\n  compression  zlib";
#endif
  text += rbmc::sort_finite_uses_vqsort() ? "\n  sketch sort  vqsort (Highway)" : "\n  sketch sort  bucket sort";
  return text;
}

int fail(int code, const char* what) {
  std::fprintf(stderr, "rbmc: error: %s\n", what);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // SIGINT and SIGTERM: installed by the commands that stop cleanly on them (stop_signals.hpp).
  CLI::App app("rbmc: GPU-batched Monte Carlo simulation of rigid-body dynamics", "rbmc");
  app.set_version_flag("--version", version_text);
  app.require_subcommand(1);
  rbmc::cli::add_run_command(app);
  rbmc::cli::add_merge_command(app);
  rbmc::cli::add_check_command(app);
  rbmc::cli::add_info_command(app);
  rbmc::cli::add_compare_command(app);
  rbmc::cli::add_validate_command(app);
  // `rbmc help [COMMAND]`: the same as --help.
  CLI::App* help = app.add_subcommand("help", "Print this help, or a command's: rbmc help run");
  std::string help_topic;
  help->add_option("command", help_topic, "A command");
  help->callback([&app, &help_topic] {
    CLI::App* topic = &app;
    if (!help_topic.empty()) {
      try {
        topic = app.get_subcommand(help_topic);
      } catch (const CLI::Error&) {
        throw rbmc::UsageError("help: there is no command '" + help_topic + "' (rbmc help lists them)");
      }
    }
    const std::string name = help_topic.empty() ? "rbmc" : "rbmc " + help_topic;
    std::fputs(app.get_formatter()->make_help(topic, name, CLI::AppFormatMode::Normal).c_str(), stdout);
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kBadInput;
  } catch (const rbmc::ScenarioError& e) {
    return fail(kBadInput, e.what());
  } catch (const rbmc::UsageError& e) {
    return fail(kBadInput, e.what());
  } catch (const rbmc::NotBuiltWithCuda& e) {
    return fail(kNoCuda, e.what());
  } catch (const rbmc::CudaError& e) {
    return fail(kCudaFailure, e.what());
  } catch (const rbmc::ComparisonFailed&) {
    return kCompareFail;  // the report, ending in FAIL, is on stdout
  } catch (const rbmc::Hdf5Error& e) {
    return fail(kOutputFailure, e.what());
  } catch (const rbmc::Interrupted& e) {
    return fail(kInterrupted, e.what());
  } catch (const std::exception& e) {
    return fail(kFailure, e.what());
  }
  return kOk;
}

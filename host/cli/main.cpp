// rbmc's command line: each error type maps to a message on stderr and its own exit code
// (documented in README.md).
#include <csignal>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "host/cli/analysis_commands.hpp"
#include "host/cli/check_command.hpp"
#include "host/cli/run_command.hpp"
#include "host/errors.hpp"
#include "host/run/run_driver.hpp"

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

extern "C" void on_signal(int) { rbmc::interrupt_requested() = true; }

int fail(int code, const char* what) {
  std::fprintf(stderr, "rbmc: error: %s\n", what);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  CLI::App app("rbmc: GPU-batched Monte Carlo simulation of rigid-body dynamics", "rbmc");
  app.set_version_flag("--version", RBMC_VERSION);
  app.require_subcommand(1);
  rbmc::cli::add_run_command(app);
  rbmc::cli::add_merge_command(app);
  rbmc::cli::add_check_command(app);
  rbmc::cli::add_info_command(app);
  rbmc::cli::add_compare_command(app);
  rbmc::cli::add_validate_command(app);
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

// `rbmc run`: flags, then the run pipeline, then the summary.
#pragma once

#include <CLI/CLI.hpp>

namespace rbmc::cli {

// Registers the subcommand; its callback runs the scenario.
void add_run_command(CLI::App& app);
// `rbmc merge OUT SHARD...`: joins the parts of a sharded run.
void add_merge_command(CLI::App& app);

}  // namespace rbmc::cli

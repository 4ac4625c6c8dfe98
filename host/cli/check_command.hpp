// `rbmc check`: validate a scenario and show its resolved inputs, without running it.
#pragma once

#include <CLI/CLI.hpp>

namespace rbmc::cli {

void add_check_command(CLI::App& app);

}  // namespace rbmc::cli

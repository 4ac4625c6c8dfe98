// `rbmc info`, `rbmc compare` and `rbmc validate`: reading results files back.
#pragma once

#include <CLI/CLI.hpp>

namespace rbmc::cli {

void add_info_command(CLI::App& app);
// Throws ComparisonFailed after printing FAIL, so that main exits with its own code.
void add_compare_command(CLI::App& app);
// rbmc validate: CPU double against CUDA (or float); throws ComparisonFailed on FAIL.
void add_validate_command(CLI::App& app);

}  // namespace rbmc::cli

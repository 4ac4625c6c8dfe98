// A scenario from a TOML table already built in memory (the Python module's dicts): the same
// reading and validation as a file's. Nodes built in memory have no lines, so an error names the
// key path after `path`, the table's name in messages.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "host/scenario/scenario.hpp"

namespace rbmc {

// `text` is the table as TOML, kept in the results file; `default_name` is the scenario's name
// when [scenario] gives none (a file's: its stem).
Scenario parse_scenario_table(const toml::table& root, const std::string& text, const std::string& path,
                              const std::string& default_name);

}  // namespace rbmc

// The sections of a scenario read in files of their own, called by parse_scenario_table
// (parse_scenario.cpp) in the order it documents: each reads its table or array of tables into
// the scenario, or throws ScenarioError naming the file, line and key.
#pragma once

#include <string>

#include <toml++/toml.h>

#include "host/scenario/scenario.hpp"
#include "host/scenario/table_reader.hpp"

namespace rbmc::scenario_sections {

// [[events]] (read_output.cpp): after [initial] and [run].
void read_events(const toml::node& node, Scenario& s);
// [output] (read_output.cpp).
void read_output(TableReader& r, Scenario& s);
// [dispersions] (read_dispersions.cpp): after the nominal values, which they default to.
void read_dispersions(const toml::table& table, const std::string& prefix, Scenario& s);
// [[correlations]] (read_dispersions.cpp): after [dispersions].
void read_correlations(const toml::node& node, Scenario& s);
// [design] (read_dispersions.cpp): samples_given when [run] names samples.
void read_design(TableReader& r, Scenario& s, bool samples_given);

}  // namespace rbmc::scenario_sections

// A scenario given to the Python module: a TOML file's path, or a dict of the same tables and keys.
#pragma once

#include <pybind11/pybind11.h>

#include "host/scenario/scenario.hpp"

namespace rbmc::python {

// The name a dict scenario goes by in error messages, where a file gives its path and line.
inline constexpr const char* kDictLabel = "scenario dict";

// A str: the file, read by load_scenario. A dict: converted key by key to a TOML
// table (bool, int, float, str, lists and nested dicts; NumPy arrays and scalars as their lists
// and numbers; dotted keys as paths of nested tables, as in TOML) and read by the same parser, so it meets the same checks; an error names the key
// path, e.g. "scenario dict: key 'body.mass': must be positive".
Scenario scenario_from_python(const pybind11::handle& scenario);

}  // namespace rbmc::python

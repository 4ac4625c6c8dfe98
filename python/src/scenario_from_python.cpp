#include "python/src/scenario_from_python.hpp"

#include <memory>
#include <sstream>
#include <string>

#include <toml++/toml.h>

#include "host/errors.hpp"
#include "host/scenario/parse_scenario_table.hpp"

namespace py = pybind11;

namespace rbmc::python {

namespace {

[[noreturn]] void fail(const std::string& key_path, const std::string& message) {
  throw ScenarioError(kDictLabel, 0, 0, key_path, message);
}

std::string type_name(const py::handle& value) { return py::str(py::type::handle_of(value).attr("__name__")); }

toml::table table_from_dict(const py::dict& dict, const std::string& path);

// One value as a TOML node. bool before int: Python's bool is an int.
std::unique_ptr<toml::node> node_from_python(py::handle value, const std::string& path) {
  if (value.is_none()) fail(path, "None has no TOML value: leave the key out to take its default");
  if (py::isinstance<py::bool_>(value)) return std::make_unique<toml::value<bool>>(value.cast<bool>());
  if (py::isinstance<py::str>(value)) return std::make_unique<toml::value<std::string>>(value.cast<std::string>());
  if (py::isinstance<py::dict>(value)) return std::make_unique<toml::table>(table_from_dict(value.cast<py::dict>(), path));
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    auto array = std::make_unique<toml::array>();
    std::size_t i = 0;
    for (py::handle item : value) {
      std::unique_ptr<toml::node> node = node_from_python(item, path + "[" + std::to_string(i++) + "]");
      node->visit([&array](auto&& n) { array->push_back(std::move(n)); });
    }
    return array;
  }
  if (py::isinstance<py::int_>(value)) {
    try {
      return std::make_unique<toml::value<std::int64_t>>(value.cast<std::int64_t>());
    } catch (const py::cast_error&) {
      fail(path, "the integer " + std::string(py::str(value)) + " does not fit TOML's 64 bits");
    }
  }
  if (py::isinstance<py::float_>(value)) return std::make_unique<toml::value<double>>(value.cast<double>());
  // NumPy arrays and scalars (float32, int64, ...): their Python lists and numbers.
  if (py::hasattr(value, "tolist")) {
    py::object plain = value.attr("tolist")();
    if (!plain.is(value) && !py::hasattr(plain, "tolist")) return node_from_python(plain, path);
  }
  fail(path, "a value of type " + type_name(value) + " has no TOML value (give a bool, int, float, str, list or dict)");
}

// Puts `node` at `name` in `table`. A dotted name ("body.mass") is a path of nested tables, as a
// TOML dotted key is; tables met twice ({"body": {...}, "body.mass": 2.0}) are merged, and a key
// given twice is an error.
void insert(toml::table& table, const std::string& name, const std::string& key_path, toml::node&& node) {
  const std::size_t dot = name.find('.');
  const std::string head = name.substr(0, dot);
  if (head.empty()) fail(key_path, "has an empty part: give key paths as a.b.c");
  toml::node* existing = table.get(head);
  if (dot == std::string::npos) {
    if (existing == nullptr) {
      node.visit([&table, &head](auto&& n) { table.insert(head, std::move(n)); });
      return;
    }
    if (!existing->is_table() || !node.is_table()) fail(key_path, "is given twice (once nested, once as a dotted key)");
    for (auto&& [key, value] : *node.as_table())
      insert(*existing->as_table(), std::string(key.str()), key_path + "." + std::string(key.str()), std::move(value));
    return;
  }
  if (existing == nullptr) existing = table.insert(head, toml::table{}).first->second.as_table();
  if (!existing->is_table()) fail(key_path, "'" + head + "' is a value, not a table");
  insert(*existing->as_table(), name.substr(dot + 1), key_path, std::move(node));
}

toml::table table_from_dict(const py::dict& dict, const std::string& path) {
  toml::table table;
  for (const auto& [key, value] : dict) {
    if (!py::isinstance<py::str>(key))
      fail(path, "key " + std::string(py::repr(key)) + ": keys are str, not " + type_name(key));
    const std::string name = key.cast<std::string>();
    const std::string key_path = path.empty() ? name : path + "." + name;
    insert(table, name, key_path, std::move(*node_from_python(value, key_path)));
  }
  return table;
}

}  // namespace

Scenario scenario_from_python(const py::handle& scenario) {
  if (py::isinstance<py::dict>(scenario)) {
    const toml::table root = table_from_dict(scenario.cast<py::dict>(), "");
    std::ostringstream text;  // kept in the results file, as a file's text is
    text << toml::toml_formatter(root) << '\n';
    return parse_scenario_table(root, text.str(), kDictLabel, "scenario");
  }
  // A path (the package's Python side turns os.PathLike into str and rejects other types).
  const std::string path = scenario.cast<std::string>();
  return load_scenario(path);
}

}  // namespace rbmc::python

// [dispersions], [[correlations]] and [design]: which inputs vary from sample to sample, and
// how (docs/scenario.md).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/scenario/scenario.hpp"
#include "host/scenario/scenario_sections.hpp"
#include "rbmc/body/shapes.hpp"
#include "rbmc/dynamics/model_values.hpp"

namespace rbmc::scenario_sections {

namespace {

// Looks up an input a dispersion or a grid axis names, and claims it: an input is dispersed or
// swept once, and of the inputs that describe one thing two ways (the attitude as a rotation or
// as Euler angles; the inertia as moments or as a shape) only one. A load or constraint parameter
// gets its per-sample values (Scenario::model_parameters).
DispersedInputInfo claim_input(Scenario& s, const std::string& key, const std::string& path,
                               const SourceLocation& where) {
  const std::vector<DispersedInputInfo> known = dispersible_inputs(s);
  const auto found = std::find_if(known.begin(), known.end(), [&](const auto& c) { return c.key_path == path; });
  if (found == known.end()) {
    std::string names, near;
    for (const auto& c : known) {
      names += (names.empty() ? "" : ", ") + c.key_path;
      if (near.empty() && near_miss(path, c.key_path)) near = " (did you mean '" + c.key_path + "'?)";
    }
    throw ScenarioError(where.file, where.line, where.column, key,
                        "is not an input this scenario can disperse or sweep" + near + " (known: " + names + ")");
  }
  DispersedInputInfo info = *found;
  std::vector<const DispersedInputInfo*> claimed;
  for (const Dispersion& d : s.dispersions) claimed.push_back(&d.info);
  for (const GridAxis& a : s.design.axes) claimed.push_back(&a.info);
  for (const DispersedInputInfo* other : claimed) {
    if (other->key_path == path)
      throw ScenarioError(where.file, where.line, where.column, key,
                          "is already dispersed or swept: an input is either swept or dispersed, once");
    if (info.group != InputGroup::none && other->group == info.group && other->input != info.input)
      throw ScenarioError(where.file, where.line, where.column, key,
                          "conflicts with " + other->key_path + ": both describe the " +
                              (info.group == InputGroup::attitude ? "attitude" : "inertia") + "; vary one of them");
  }
  if (info.input == DispersedInput::model_parameter) {
    ModelParameters<double>& table = s.model_parameters;
    if (table.n + info.dim > kMaxModelParameters)
      throw ScenarioError(where.file, where.line, where.column, key,
                          "too many load and constraint parameters varied (at most " +
                              std::to_string(kMaxModelParameters) + " values per sample)");
    info.slot = table.n;
    for (int c = 0; c < info.dim; ++c) {
      ModelParameter<double> target = info.target;
      target.component = std::uint8_t(c);
      table.add(target);
    }
  }
  return info;
}

// What a value of the input given outright (a fixed distribution's, a discrete choice, a grid's
// value) breaks of the rule its nominal obeys, or nothing: such a value is every sample's that
// takes it, so one that no body or load can have is an error here, not a run of invalid samples.
std::optional<std::string> broken_value_rule(const DispersedInputInfo& info, double v) {
  const bool body = info.input == DispersedInput::mass || info.input == DispersedInput::principal_moments ||
                    info.input == DispersedInput::shape_dimension;
  if (body && !(v > 0)) return "must be positive (" + info.units + ")";
  if (info.input == DispersedInput::model_parameter && !model_value_physical(info.target.field, v))
    return std::string(model_value_rule(info.target.field)) + " (" + info.units + "), as the scenario's own value must be";
  return std::nullopt;
}

Dispersion read_dispersion(TableReader& d, const DispersedInputInfo& info, const Scenario& s) {
  Dispersion out;
  out.info = info;
  const auto& b = d.table().source().begin;
  out.where = {s.path, b.line, b.column};
  out.nominal = info.nominal;
  const std::string kind = d.optional_string("distribution").value_or("");
  // Other names for the parameters, met before the missing key they stand for would be reported:
  // other tools' spellings, and sigma_ln, low and high, the names results files' design groups
  // used until they took the scenario's (design_group.cpp).
  static constexpr std::pair<const char*, const char*> kOtherNames[] = {
      {"low", "min"}, {"high", "max"}, {"lower", "min"}, {"upper", "max"}, {"sigma_ln", "log_sigma"},
      {"sd", "sigma"}, {"std", "sigma"}, {"stddev", "sigma"}, {"mu", "mean"}};
  for (const auto& [other, name] : kOtherNames)
    if (const toml::node* n = d.table().get(other); n != nullptr && d.table().get(name) == nullptr)
      d.fail_at(*n, other, std::string("unknown key (did you mean '") + name + "'?)");
  if (kind == "normal") {
    out.kind = DistributionKind::normal;
    const auto sigma = d.optional_scalar_or_vec("sigma", info.dim);
    if (!sigma) d.fail_here("sigma", "is required for a normal distribution (standard deviation)");
    const auto mean = d.optional_scalar_or_vec("mean", info.dim);
    for (int i = 0; i < info.dim; ++i) {
      if ((*sigma)[i] < 0) d.fail_at(*d.table().get("sigma"), "sigma", "must be non-negative");
      out.a[i] = mean ? (*mean)[i] : info.nominal[i];
      out.b[i] = (*sigma)[i];
    }
  } else if (kind == "uniform") {
    out.kind = DistributionKind::uniform;
    const auto lo = d.optional_scalar_or_vec("min", info.dim);
    const auto hi = d.optional_scalar_or_vec("max", info.dim);
    const auto half = d.optional_scalar_or_vec("half_width", info.dim);
    if (half && (lo || hi))
      d.fail_at(*d.table().get("half_width"), "half_width", "cannot be combined with min and max");
    if (!half && !(lo && hi))
      d.fail_here("min", "a uniform distribution needs min and max, or half_width about the nominal value");
    for (int i = 0; i < info.dim; ++i) {
      if (half) {
        if ((*half)[i] < 0) d.fail_at(*d.table().get("half_width"), "half_width", "must be non-negative");
        const double c = info.nominal[i];
        out.a[i] = c - (*half)[i];
        out.b[i] = c + (*half)[i];
      } else {
        if ((*lo)[i] > (*hi)[i]) d.fail_at(*d.table().get("max"), "max", "must not be less than min");
        out.a[i] = (*lo)[i];
        out.b[i] = (*hi)[i];
      }
    }
  } else if (kind == "truncated_normal") {
    out.kind = DistributionKind::truncated_normal;
    const auto sigma = d.optional_scalar_or_vec("sigma", info.dim);
    const auto mean = d.optional_scalar_or_vec("mean", info.dim);
    const auto lo = d.optional_scalar_or_vec("min", info.dim), hi = d.optional_scalar_or_vec("max", info.dim);
    if (!sigma) d.fail_here("sigma", "is required for a truncated normal distribution");
    if (!lo || !hi) d.fail_here(lo ? "max" : "min", "is required: a truncated normal needs both bounds");
    for (int i = 0; i < info.dim; ++i) {
      if ((*sigma)[i] < 0) d.fail_at(*d.table().get("sigma"), "sigma", "must be non-negative");
      if (!((*lo)[i] < (*hi)[i])) d.fail_at(*d.table().get("max"), "max", "must be greater than min");
      out.a[i] = mean ? (*mean)[i] : out.nominal[i];
      out.b[i] = (*sigma)[i];
      out.lo[i] = (*lo)[i];
      out.hi[i] = (*hi)[i];
    }
  } else if (kind == "lognormal") {
    out.kind = DistributionKind::lognormal;
    const auto median = d.optional_scalar_or_vec("median", info.dim);
    const auto log_sigma = d.optional_scalar_or_vec("log_sigma", info.dim);
    if (!log_sigma) d.fail_here("log_sigma", "is required for a lognormal distribution (sd of ln x)");
    for (int i = 0; i < info.dim; ++i) {
      out.a[i] = median ? (*median)[i] : out.nominal[i];
      out.b[i] = (*log_sigma)[i];
      if (!(out.a[i] > 0))
        d.fail_at(median ? *d.table().get("median") : *d.table().get("log_sigma"), median ? "median" : "log_sigma",
                  "a lognormal needs a positive median (the nominal value is used when none is given)");
      if (out.b[i] < 0) d.fail_at(*d.table().get("log_sigma"), "log_sigma", "must be non-negative");
    }
  } else if (kind == "fixed") {
    out.kind = DistributionKind::fixed;
    const auto value = d.optional_scalar_or_vec("value", info.dim);
    if (!value) d.fail_here("value", "is required for a fixed distribution");
    for (int i = 0; i < info.dim; ++i) out.a[i] = (*value)[i];
    for (int i = 0; i < info.dim; ++i)
      if (const auto broken = broken_value_rule(info, out.a[i])) d.fail_at(*d.table().get("value"), "value", *broken);
  } else if (kind == "discrete") {
    out.kind = DistributionKind::discrete;
    const toml::node* values = d.find("values");
    const toml::array* list = values != nullptr ? values->as_array() : nullptr;
    if (list == nullptr || list->empty()) d.fail_here("values", "is required: a non-empty array of the choices");
    for (const toml::node& v : *list) {
      std::array<double, 3> choice{};
      if (info.dim == 1) {
        choice[0] = d.number(v, "values");
      } else {
        const auto c = d.numbers(v, "values", std::size_t(info.dim));
        for (int i = 0; i < info.dim; ++i) choice[i] = c[std::size_t(i)];
      }
      for (int i = 0; i < info.dim; ++i)
        if (const auto broken = broken_value_rule(info, choice[std::size_t(i)])) d.fail_at(v, "values", *broken);
      out.values.push_back(choice);
    }
    std::vector<double> weights(out.values.size(), 1.0);
    if (const toml::node* w = d.find("weights")) {
      weights = d.numbers(*w, "weights", out.values.size());
      for (double x : weights)
        if (!(x >= 0)) d.fail_at(*w, "weights", "must be non-negative");
    }
    double total = 0;
    for (double x : weights) total += x;
    if (!(total > 0)) d.fail_here("weights", "must not all be zero");
    double running = 0;
    for (double x : weights) out.cumulative.push_back((running += x) / total);
    out.cumulative.back() = 1.0;
  } else if ((kind == "uniform_rotation" || kind == "random_axis") &&
             (info.input == DispersedInput::attitude || info.input == DispersedInput::principal_axes)) {
    if (kind == "uniform_rotation") {
      out.kind = DistributionKind::uniform_rotation;
    } else {
      out.kind = DistributionKind::random_axis;
      const auto sigma = d.optional_number("angle_sigma"), max_angle = d.optional_number("max_angle");
      if (sigma.has_value() == max_angle.has_value())
        d.fail_here("angle_sigma", "give one of angle_sigma (half-normal angle, rad) or max_angle (uniform, rad)");
      if (sigma) {
        if (*sigma < 0) d.fail_at(*d.table().get("angle_sigma"), "angle_sigma", "must be non-negative");
        out.b[0] = *sigma;
      } else {
        if (!(*max_angle >= 0 && *max_angle <= M_PI))
          d.fail_at(*d.table().get("max_angle"), "max_angle", "must lie in [0, pi]");
        out.a[0] = *max_angle;
      }
    }
  } else if (kind == "uniform_rotation" || kind == "random_axis") {
    d.fail_at(*d.table().get("distribution"), "distribution",
              "'" + kind + "' applies to initial.attitude and body.principal_axes only");
  } else if (kind.empty()) {
    d.fail_here("distribution", "is required (normal, uniform, truncated_normal, lognormal, fixed, discrete)");
  } else {
    d.fail_at(*d.table().get("distribution"), "distribution",
              "unknown distribution '" + kind +
                  "' (available: normal, uniform, truncated_normal, lognormal, fixed, discrete; for initial.attitude "
                  "also uniform_rotation, random_axis)");
  }
  d.reject_unknown_keys();
  return out;
}

// [design]: type = "monte_carlo" (the default) or "grid" with [design.axes] key paths, each
// { values = [...] }, { linspace = [start, stop, n] } or { logspace = [start, stop, n] }.
void read_grid_axes(const toml::table& table, const std::string& prefix, Scenario& s) {
  for (auto&& [key, node] : table) {
    const std::string path = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    const auto& b = key.source().begin;
    const toml::table* t = node.as_table();
    if (t == nullptr)
      throw ScenarioError(s.path, b.line, b.column, "design.axes." + path,
                          "must be a table such as { linspace = [1.0, 3.0, 5] }");
    if (t->get("values") == nullptr && t->get("linspace") == nullptr && t->get("logspace") == nullptr) {
      read_grid_axes(*t, path, s);
      continue;
    }
    const DispersedInputInfo info = claim_input(s, "design.axes." + path, path, {s.path, b.line, b.column});
    TableReader r(*t, "design.axes." + path, s.path);
    GridAxis axis{info, {}};
    const int dim = info.dim;
    const auto point = [&](const toml::node& n, const char* key) {
      std::array<double, 3> v{};
      if (dim == 1) {
        v[0] = r.number(n, key);
      } else {
        const auto c = r.numbers(n, key, std::size_t(dim));
        for (int i = 0; i < dim; ++i) v[i] = c[std::size_t(i)];
      }
      return v;
    };
    const auto keep = [&](const std::array<double, 3>& v, const toml::node& at, const char* key) {
      for (int i = 0; i < dim; ++i)
        if (const auto broken = broken_value_rule(info, v[std::size_t(i)])) r.fail_at(at, key, *broken);
      axis.values.push_back(v);
    };
    if (const toml::node* n = r.find("values")) {
      const toml::array* list = n->as_array();
      if (list == nullptr || list->empty()) r.fail_at(*n, "values", "must be a non-empty array");
      for (const toml::node& v : *list) keep(point(v, "values"), v, "values");
    }
    for (const char* spacing : {"linspace", "logspace"}) {
      const toml::node* n = r.find(spacing);
      if (n == nullptr) continue;
      if (!axis.values.empty()) r.fail_at(*n, spacing, "give one of values, linspace or logspace");
      const toml::array* a = n->as_array();
      if (a == nullptr || a->size() != 3 || !a->get(2)->is_integer())
        r.fail_at(*n, spacing, "must be [start, stop, count] (count an integer >= 2)");
      const std::int64_t count = a->get(2)->as_integer()->get();
      if (count < 2 || count > 100000) r.fail_at(*n, spacing, "count must be from 2 to 100000");
      const auto start = point(*a->get(0), spacing), stop = point(*a->get(1), spacing);
      const bool log = std::string(spacing) == "logspace";
      for (int i = 0; i < dim; ++i)
        if (log && !(start[i] > 0 && stop[i] > 0)) r.fail_at(*n, spacing, "logspace needs positive start and stop");
      for (std::int64_t j = 0; j < count; ++j) {
        const double f = double(j) / double(count - 1);
        std::array<double, 3> v{};
        for (int i = 0; i < dim; ++i)
          v[i] = log ? start[i] * std::pow(stop[i] / start[i], f) : start[i] + f * (stop[i] - start[i]);
        keep(v, *n, spacing);
      }
    }
    r.reject_unknown_keys();
    s.design.axes.push_back(axis);
  }
}

// The table's row count: run.samples, when given, must agree.
void take_table_rows(TableReader& r, Scenario& s, const toml::node& file, bool samples_given) {
  const std::uint64_t rows = s.design.n_points();
  if (samples_given && s.run.n_samples != rows)
    r.fail_at(file, "file", "the table has " + std::to_string(rows) + " rows (one per sample), but run.samples is " +
                                std::to_string(s.run.n_samples) + " (omit run.samples to take the table's)");
  s.run.n_samples = rows;
}

// [design] type = "table", file = "samples.h5" (or .hdf5): one dataset per input, named by its
// key path, (rows,) for a scalar input and (rows, 3) for a vector, in the file's root or in
// [design] group (a results file's "samples/params" or "samples/table" runs a previous run's
// values again). Errors name the file, the dataset and the row.
void read_hdf5_table(TableReader& r, Scenario& s, const toml::node& file, const std::string& path, bool samples_given) {
  const std::string group = r.optional_string("group").value_or("");
  std::optional<ResultsReader> reader;
  try {
    reader.emplace(path);
  } catch (const std::exception& e) {
    r.fail_at(file, "file", "cannot read the HDF5 table " + path + ": " + e.what());
  }
  std::vector<std::string> names;
  try {
    names = reader->children(group.empty() ? "/" : group);
  } catch (const std::exception&) {
    if (const toml::node* g = r.find("group")) r.fail_at(*g, "group", "is not a group of " + path);
    throw ScenarioError(path, 0, 0, "", "has no readable root group");
  }
  if (names.empty()) throw ScenarioError(path, 0, 0, group, "holds no dataset: the table needs one per input");
  // Datasets in name order (the file's); the design's axes follow it.
  std::uint64_t rows = 0;
  for (const std::string& name : names) {
    const SourceLocation where{path, 0, 0};
    const std::string dataset = group.empty() ? name : group + "/" + name;
    // A results file's coordinates (sample, xyz: HDF5 dimension scales) are not inputs.
    if (reader->has_attribute(dataset, "CLASS") && reader->string_attribute(dataset, "CLASS") == "DIMENSION_SCALE") continue;
    Array<double> a;
    try {
      a = reader->doubles(dataset);
    } catch (const std::exception&) {
      throw ScenarioError(path, 0, 0, name, "is not a dataset of numbers");
    }
    GridAxis axis{claim_input(s, name, name, where), {}};
    const std::uint64_t dim = std::uint64_t(axis.info.dim);
    const bool scalar_shape = a.shape.size() == 1 || (a.shape.size() == 2 && a.shape[1] == 1);
    if (dim == 1 ? !scalar_shape : !(a.shape.size() == 2 && a.shape[1] == 3))
      throw ScenarioError(path, 0, 0, name, dim == 1 ? "is a scalar input: its dataset must be (rows,)"
                                                     : "is a vector input: its dataset must be (rows, 3)");
    if (s.design.axes.empty()) rows = a.shape[0];
    if (a.shape[0] != rows)
      throw ScenarioError(path, 0, 0, name, "has " + std::to_string(a.shape[0]) + " rows, the table's first dataset " +
                                                std::to_string(rows));
    for (std::uint64_t row = 0; row < rows; ++row) {
      std::array<double, 3> v{};
      for (std::uint64_t c = 0; c < dim; ++c) {
        v[c] = a.data[row * dim + c];
        if (!std::isfinite(v[c]))
          throw ScenarioError(path, 0, 0, name, "row " + std::to_string(row) + " is not a finite number");
      }
      axis.values.push_back(v);
    }
    s.design.axes.push_back(axis);
  }
  if (s.design.axes.empty()) throw ScenarioError(path, 0, 0, group, "holds no input's dataset");
  if (rows == 0) throw ScenarioError(path, 0, 0, "", "the table has no rows");
  take_table_rows(r, s, file, samples_given);
}

// [design] type = "table", file = "samples.csv": a header of key paths (a vector input's
// components as key.x, key.y, key.z), then one row of numbers per sample, in order. Errors name
// the table's file, line and column. An HDF5 file instead: read_hdf5_table.
void read_table_design(TableReader& r, Scenario& s, bool samples_given) {
  namespace fs = std::filesystem;
  const toml::node* file = r.find("file");
  if (file == nullptr || !file->is_string())
    r.fail_here("file", "a table design needs file = \"samples.csv\" (a header of key paths, one row per sample) "
                        "or \"samples.h5\" (a dataset per key path)");
  s.design.table_file = file->as_string()->get();
  const fs::path given(s.design.table_file);
  const std::string path = (given.is_absolute() ? given : fs::path(s.path).parent_path() / given).string();
  const std::string extension = given.extension().string();
  if (extension == ".h5" || extension == ".hdf5") return read_hdf5_table(r, s, *file, path, samples_given);
  if (const toml::node* group = r.find("group")) r.fail_at(*group, "group", "applies to an HDF5 table only");
  std::ifstream in(path);
  if (!in) r.fail_at(*file, "file", "cannot open the table " + path);
  // One line's fields, with the column (1-based) where each begins.
  const auto split = [](const std::string& line) {
    std::vector<std::pair<std::string, std::uint32_t>> fields;
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = line.find(',', start);
      std::string f = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const std::size_t a = f.find_first_not_of(" \t\r"), b = f.find_last_not_of(" \t\r");
      const std::uint32_t column = std::uint32_t(start + (a == std::string::npos ? 0 : a) + 1);
      fields.push_back({a == std::string::npos ? std::string() : f.substr(a, b - a + 1), column});
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return fields;
  };
  std::string line;
  std::uint32_t line_number = 0;
  const auto next_line = [&]() -> bool {
    while (std::getline(in, line)) {
      ++line_number;
      const std::size_t a = line.find_first_not_of(" \t\r");
      if (a != std::string::npos && line[a] != '#') return true;  // blank lines and # comments skipped
    }
    return false;
  };
  if (!next_line()) throw ScenarioError(path, 0, 0, "", "the table is empty: it needs a header of key paths");
  // The header: which input and component each column sets.
  const auto header = split(line);
  struct Column {
    std::size_t axis;
    int component;
  };
  std::vector<Column> columns;
  const std::vector<DispersedInputInfo> known = dispersible_inputs(s);
  for (const auto& [name, column] : header) {
    std::string key = name;
    int component = 0;
    const auto is_input = [&](const std::string& k) {
      return std::any_of(known.begin(), known.end(), [&](const DispersedInputInfo& i) { return i.key_path == k; });
    };
    if (!is_input(key) && name.size() > 2 && name[name.size() - 2] == '.' && std::string("xyz").find(name.back()) != std::string::npos) {
      key = name.substr(0, name.size() - 2);
      component = int(std::string("xyz").find(name.back()));
    }
    std::size_t axis = s.design.axes.size();
    for (std::size_t j = 0; j < s.design.axes.size(); ++j)
      if (s.design.axes[j].info.key_path == key) axis = j;
    if (axis == s.design.axes.size()) {
      s.design.axes.push_back({claim_input(s, name, key, {path, line_number, column}), {}});
    }
    const int dim = s.design.axes[axis].info.dim;
    if ((dim == 1) != (key == name))
      throw ScenarioError(path, line_number, column, name,
                          dim == 1 ? "is a scalar input: name its column " + key
                                   : "is a vector input: give its components as columns " + key + ".x, " + key + ".y, " +
                                         key + ".z");
    for (const Column& c : columns)
      if (c.axis == axis && c.component == component)
        throw ScenarioError(path, line_number, column, name, "appears twice in the header");
    columns.push_back({axis, component});
  }
  for (std::size_t j = 0; j < s.design.axes.size(); ++j) {
    int given_components = 0;
    for (const Column& c : columns) given_components += c.axis == j ? 1 : 0;
    if (given_components != s.design.axes[j].info.dim)
      throw ScenarioError(path, line_number, 1, s.design.axes[j].info.key_path,
                          "the table gives some of this vector's components but not all of .x, .y and .z");
  }
  // The rows: one number per column, every one finite.
  while (next_line()) {
    const auto fields = split(line);
    if (fields.size() != columns.size())
      throw ScenarioError(path, line_number, 1, "", "this row has " + std::to_string(fields.size()) +
                                                        " values, the header " + std::to_string(columns.size()) + " columns");
    for (GridAxis& a : s.design.axes) a.values.push_back({});
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string& text = fields[c].first;
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
        throw ScenarioError(path, line_number, fields[c].second, header[c].first,
                            "'" + text + "' is not a finite number (row " + std::to_string(s.design.axes[0].values.size()) +
                                ")");
      s.design.axes[columns[c].axis].values.back()[std::size_t(columns[c].component)] = v;
    }
  }
  if (s.design.n_points() == 0) throw ScenarioError(path, line_number, 0, "", "the table has a header but no rows");
  take_table_rows(r, s, *file, samples_given);
}

}  // namespace

void read_design(TableReader& r, Scenario& s, bool samples_given) {
  const std::string type = r.optional_string("type").value_or("monte_carlo");
  if (type == "grid") {
    s.design.kind = Design::Kind::grid;
    const toml::table* axes = r.optional_table("axes");
    if (axes == nullptr || axes->empty()) r.fail_here("axes", "a grid needs [design.axes] with at least one input");
    read_grid_axes(*axes, "", s);
    if (auto m = r.optional_integer("replicates")) {
      if (*m <= 0) r.fail_at(*r.table().get("replicates"), "replicates", "must be a positive integer");
      s.design.replicates = std::uint64_t(*m);
    }
    const std::uint64_t n = s.design.n_points() * s.design.replicates;
    if (samples_given && s.run.n_samples != n)
      r.fail_here("replicates", "the grid has " + std::to_string(s.design.n_points()) + " points x " +
                                    std::to_string(s.design.replicates) + " replicates = " + std::to_string(n) +
                                    " samples, but run.samples is " + std::to_string(s.run.n_samples) +
                                    " (omit run.samples to take the grid's)");
    s.run.n_samples = n;
  } else if (type == "latin_hypercube" || type == "sobol") {
    s.design.kind = type == "sobol" ? Design::Kind::sobol : Design::Kind::latin_hypercube;
    if (s.run.n_samples > (std::uint64_t(1) << 32))
      r.fail_at(*r.table().get("type"), "type", "a " + type + " design takes at most 2^32 samples");
  } else if (type == "table") {
    s.design.kind = Design::Kind::table;
    read_table_design(r, s, samples_given);
  } else if (type != "monte_carlo") {
    r.fail_at(*r.table().get("type"), "type",
              "unknown design '" + type + "' (available: monte_carlo, grid, latin_hypercube, sobol, table)");
  }
  if (s.design.kind != Design::Kind::grid) {
    for (const char* key : {"axes", "replicates"})
      if (const toml::node* n = r.find(key)) r.fail_at(*n, key, "belongs to a grid design (type = \"grid\")");
  }
  if (s.design.kind != Design::Kind::table)
    if (const toml::node* n = r.find("file")) r.fail_at(*n, "file", "belongs to a table design (type = \"table\")");
  const std::string policy = r.optional_string("invalid_bodies").value_or("redraw");
  if (policy == "reject") {
    s.design.invalid_bodies = Design::InvalidBodies::reject;
  } else if (policy != "redraw") {
    r.fail_at(*r.table().get("invalid_bodies"), "invalid_bodies",
              "must be \"redraw\" (draw again from the sample's own streams) or \"reject\" (flag the sample "
              "invalid_body or invalid_load), not \"" + policy + "\"");
  }
  r.reject_unknown_keys();
}

// [[correlations]]: inputs = [key paths of normal dispersions], matrix = the correlation of
// their scalar components, in that order. Read after [dispersions].
void read_correlations(const toml::node& node, Scenario& s) {
  const toml::array* array = node.as_array();
  const auto& b = node.source().begin;
  if (array == nullptr || !array->is_array_of_tables())
    throw ScenarioError(s.path, b.line, b.column, "correlations",
                        "must be an array of tables: [[correlations]] entries with inputs and matrix");
  std::size_t index = 0;
  for (const toml::node& entry : *array) {
    TableReader r(*entry.as_table(), "correlations[" + std::to_string(index++) + "]", s.path);
    CorrelationGroup group;
    const auto& where = entry.source().begin;
    group.where = {s.path, where.line, where.column};
    const toml::node* inputs = r.find("inputs");
    const toml::array* names = inputs != nullptr ? inputs->as_array() : nullptr;
    if (names == nullptr || names->size() < 2)
      r.fail_here("inputs", "is required: an array of at least two dispersed key paths");
    for (const toml::node& n : *names) {
      if (!n.is_string()) r.fail_at(n, "inputs", "must hold key paths (strings)");
      const std::string path = n.as_string()->get();
      const auto d = std::find_if(s.dispersions.begin(), s.dispersions.end(),
                                  [&](const Dispersion& x) { return x.info.key_path == path; });
      if (d == s.dispersions.end()) r.fail_at(n, "inputs", "'" + path + "' is not dispersed in [dispersions]");
      if (d->kind != DistributionKind::normal)
        r.fail_at(n, "inputs", "'" + path + "' must have a normal distribution to be correlated (multivariate normal)");
      const std::size_t which = std::size_t(d - s.dispersions.begin());
      for (const CorrelationGroup& other : s.correlations)
        if (std::count(other.dispersions.begin(), other.dispersions.end(), which) > 0)
          r.fail_at(n, "inputs", "'" + path + "' is already in another correlation group");
      if (std::count(group.dispersions.begin(), group.dispersions.end(), which) > 0)
        r.fail_at(n, "inputs", "'" + path + "' is listed twice");
      group.inputs.push_back(path);
      group.dispersions.push_back(which);
      group.dim += d->info.dim;
    }
    const toml::node* m = r.find("matrix");
    const toml::array* rows = m != nullptr ? m->as_array() : nullptr;
    const std::string shape = std::to_string(group.dim) + "x" + std::to_string(group.dim);
    if (rows == nullptr || rows->size() != std::size_t(group.dim))
      r.fail_here("matrix", "is required: the " + shape + " correlation matrix of the inputs' components, in order");
    const int n = group.dim;
    for (int i = 0; i < n; ++i) {
      const auto row = r.numbers(*rows->get(std::size_t(i)), "matrix", std::size_t(n));
      group.matrix.insert(group.matrix.end(), row.begin(), row.end());
    }
    const auto at = [&](int i, int j) { return group.matrix[std::size_t(i * n + j)]; };
    for (int i = 0; i < n; ++i) {
      if (at(i, i) != 1.0) r.fail_at(*m, "matrix", "must have ones on its diagonal (a correlation matrix)");
      for (int j = 0; j < n; ++j) {
        if (at(i, j) != at(j, i)) r.fail_at(*m, "matrix", "must be symmetric");
        if (std::abs(at(i, j)) > 1) r.fail_at(*m, "matrix", "entries must lie in [-1, 1]");
      }
    }
    // Cholesky factor, L Lᵀ = matrix; a correlation matrix must be positive definite.
    group.cholesky.assign(std::size_t(n * n), 0.0);
    const auto L = [&](int i, int j) -> double& { return group.cholesky[std::size_t(i * n + j)]; };
    for (int j = 0; j < n; ++j) {
      double d = at(j, j);
      for (int k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
      if (!(d > 1e-12))
        r.fail_at(*m, "matrix", "is not positive definite (some combination of the inputs would have no variance)");
      L(j, j) = std::sqrt(d);
      for (int i = j + 1; i < n; ++i) {
        double x = at(i, j);
        for (int k = 0; k < j; ++k) x -= L(i, k) * L(j, k);
        L(i, j) = x / L(j, j);
      }
    }
    r.reject_unknown_keys();
    s.correlations.push_back(std::move(group));
  }
}

// [dispersions] holds key paths of inputs (dotted keys nest as tables) whose leaves are
// distribution tables, recognised by their `distribution` key.
void read_dispersions(const toml::table& table, const std::string& prefix, Scenario& s) {
  for (auto&& [key, node] : table) {
    const std::string path = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    const auto& b = key.source().begin;
    const toml::table* t = node.as_table();
    if (t == nullptr)
      throw ScenarioError(s.path, b.line, b.column, "dispersions." + path,
                          "must be a table such as { distribution = \"normal\", sigma = 0.1 }");
    if (t->get("distribution") == nullptr) {
      read_dispersions(*t, path, s);
      continue;
    }
    const DispersedInputInfo info = claim_input(s, "dispersions." + path, path, {s.path, b.line, b.column});
    TableReader reader(*t, "dispersions." + path, s.path);
    s.dispersions.push_back(read_dispersion(reader, info, s));
  }
}

}  // namespace rbmc::scenario_sections

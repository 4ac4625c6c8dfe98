// Scenario parsing and validation: TOML (toml++) to a checked Scenario, or a ScenarioError that
// names the file, the line and the key. Every key is consumed explicitly, so anything left over
// is an unknown key and an error, not silently ignored.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/scenario/parse_scenario_table.hpp"
#include "host/scenario/scenario.hpp"
#include "host/scenario/output_schema.hpp"
#include "rbmc/body/principal_axes.hpp"
#include "rbmc/body/inertia.hpp"
#include "rbmc/body/shapes.hpp"
#include "rbmc/math/euler.hpp"
#include "rbmc/math/quaternion.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

std::vector<DispersedInputInfo> dispersible_inputs(const Scenario& s) {
  using In = DispersedInput;
  const auto v3 = [](const Vec3<double>& v) { return std::array<double, 3>{v(0), v(1), v(2)}; };
  const std::array<double, 3> zero{};
  const Vec3<double> moments = principal_frame(s.body.inertia_c_b, PrincipalOrder::keep_body_axes).moments;
  std::vector<DispersedInputInfo> table = {
      {In::mass, "body.mass", 1, "kg", true, {s.body.mass, 0, 0}},
      {In::center_of_mass, "body.center_of_mass", 3, "m", true, v3(s.body.com_b)},
      {In::principal_moments, "body.principal_moments", 3, "kg m^2", true, v3(moments), InputGroup::inertia},
      {In::principal_axes, "body.principal_axes", 3, "rad", true, zero},
      {In::position, "initial.position", 3, "m", false, v3(s.initial.p_w)},
      {In::attitude, "initial.attitude", 3, "rad", false, zero, InputGroup::attitude},
      {In::attitude_euler_zxz, "initial.attitude_euler_zxz", 3, "rad", false,
       v3(s.initial_euler_zxz.value_or(euler_zxz_from_quaternion(s.initial.q_wb))), InputGroup::attitude},
      {In::attitude_euler_zyx, "initial.attitude_euler_zyx", 3, "rad", false,
       v3(s.initial_euler_zyx.value_or(euler_zyx_from_quaternion(s.initial.q_wb))), InputGroup::attitude},
      {In::velocity, "initial.velocity", 3, "m/s", false, v3(s.initial.v_w)},
      {In::angular_velocity, "initial.angular_velocity", 3, "rad/s", false, v3(s.initial.omega_b)},
      {In::gravity, "gravity.acceleration", 3, "m/s^2", false, v3(s.gravity_w)},
  };
  // The shape's dimensions, under the names the [body] shape table uses.
  const auto dimension = [&](const char* key, int slot, int dim) {
    DispersedInputInfo info{In::shape_dimension, std::string("body.shape.") + key, dim, "m", true, {}, InputGroup::inertia,
                            slot};
    for (int i = 0; i < dim; ++i) info.nominal[i] = s.shape.dimensions[slot + i];
    table.push_back(info);
  };
  switch (s.shape.kind) {
    case ShapeKind::box: dimension("size", 0, 3); break;
    case ShapeKind::solid_cylinder: dimension("radius", 0, 1), dimension("height", 1, 1); break;
    case ShapeKind::hollow_cylinder:
      dimension("inner_radius", 0, 1), dimension("outer_radius", 1, 1), dimension("height", 2, 1);
      break;
    case ShapeKind::solid_sphere:
    case ShapeKind::thin_disk: dimension("radius", 0, 1); break;
    case ShapeKind::slender_rod: dimension("length", 0, 1), dimension("radius", 1, 1); break;
    case ShapeKind::none: break;
  }
  // Load and constraint parameters, by [[loads]] index: loads.<i>.<key>, constraint.<key>.
  const auto parameter = [&](const std::string& path, const char* units, ModelField field, int index,
                             std::array<double, 3> nominal, int dim, double offset = 0) {
    DispersedInputInfo info{In::model_parameter, path, dim, units, false, nominal};
    info.target = {field, std::uint8_t(index), 0, offset};
    table.push_back(info);
  };
  const LoadSet<double>& L = s.loads;
  const std::array<double, 4> damping_total{L.linear_damping, L.quadratic_damping, L.angular_linear_damping,
                                            L.angular_quadratic_damping};
  for (std::size_t e = 0; e < s.load_entries.size(); ++e) {
    const Scenario::LoadEntry& entry = s.load_entries[e];
    const std::string at = "loads." + std::to_string(e) + ".";
    const int i = entry.index;
    if (entry.type == "point_force") {
      parameter(at + "point", "m", ModelField::point_force_point, i, v3(L.point_forces[i].point_b), 3);
      parameter(at + "force", "N", ModelField::point_force_force, i, v3(L.point_forces[i].force), 3);
    } else if (entry.type == "torque") {
      parameter(at + "torque", "N m", ModelField::torque, i, v3(L.torques[i].torque), 3);
    } else if (entry.type == "spring") {
      const LoadSet<double>::Spring& k = L.springs[i];
      parameter(at + "point", "m", ModelField::spring_point, i, v3(k.point_b), 3);
      parameter(at + "anchor", "m", ModelField::spring_anchor, i, v3(k.anchor_w), 3);
      parameter(at + "stiffness", "N/m", ModelField::spring_stiffness, i, {k.stiffness, 0, 0}, 1);
      parameter(at + "rest_length", "m", ModelField::spring_rest_length, i, {k.rest_length, 0, 0}, 1);
      parameter(at + "damping", "N s/m", ModelField::spring_damping, i, {k.damping, 0, 0}, 1);
    } else if (entry.type == "damping") {
      // Damping entries add up: the per-sample total is this entry's value plus the others'.
      const char* keys[4] = {"linear", "quadratic", "angular_linear", "angular_quadratic"};
      const char* units[4] = {"N s/m", "N s^2/m^2", "N m s", "N m s^2"};
      const ModelField fields[4] = {ModelField::linear_damping, ModelField::quadratic_damping,
                                    ModelField::angular_linear_damping, ModelField::angular_quadratic_damping};
      for (int c = 0; c < 4; ++c)
        parameter(at + keys[c], units[c], fields[c], 0, {entry.damping[c], 0, 0}, 1, damping_total[c] - entry.damping[c]);
    } else if (entry.type == "central_gravity") {
      parameter(at + "mu", "m^3/s^2", ModelField::central_mu, 0, {L.central_mu, 0, 0}, 1);
      parameter(at + "center", "m", ModelField::central_center, 0, v3(L.central_center_w), 3);
    }
  }
  const Constraint<double>& c = s.constraint;
  if (c.kind == ConstraintKind::pivot) {
    parameter("constraint.point", "m", ModelField::pivot_point, 0, v3(c.point_b), 3);
    parameter("constraint.anchor", "m", ModelField::pivot_anchor, 0, v3(c.anchor_w), 3);
  } else if (c.kind == ConstraintKind::planar) {
    parameter("constraint.height", "m", ModelField::plane_height, 0, {c.plane_height, 0, 0}, 1);
  }
  return table;
}

namespace {

const char* type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date or time";
    default: return "nothing";
  }
}

// Reads one TOML table, remembering which keys were used so that the rest can be reported.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string prefix, const std::string& file)
      : table_(table), prefix_(std::move(prefix)), file_(file) {}

  std::string path_of(std::string_view key) const {
    return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
  }

  [[noreturn]] void fail_at(const toml::node& node, std::string_view key, const std::string& msg) const {
    const auto& b = node.source().begin;
    throw ScenarioError(file_, b.line, b.column, path_of(key), msg);
  }
  [[noreturn]] void fail_here(std::string_view key, const std::string& msg) const {
    const auto& b = table_.source().begin;
    throw ScenarioError(file_, b.line, b.column, path_of(key), msg);
  }

  const toml::node* find(std::string_view key) {
    used_.insert(std::string(key));
    return table_.get(key);
  }

  const toml::table* optional_table(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return nullptr;
    if (!n->is_table()) fail_at(*n, key, std::string("must be a table, not ") + type_name(n->type()));
    return n->as_table();
  }

  double number(const toml::node& n, std::string_view key) const {
    if (!n.is_number()) fail_at(n, key, std::string("must be a number, not ") + type_name(n.type()));
    const double v = *n.value<double>();
    if (!std::isfinite(v)) fail_at(n, key, "must be finite (not inf or nan)");
    return v;
  }

  std::optional<double> optional_number(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    return number(*n, key);
  }

  double required_number(std::string_view key, const char* meaning) {
    const toml::node* n = find(key);
    if (n == nullptr) fail_here(key, std::string("is required (") + meaning + ")");
    return number(*n, key);
  }

  std::optional<std::int64_t> optional_integer(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_integer()) fail_at(*n, key, std::string("must be an integer, not ") + type_name(n->type()));
    return n->as_integer()->get();
  }

  std::optional<std::string> optional_string(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_string()) fail_at(*n, key, std::string("must be a string, not ") + type_name(n->type()));
    return n->as_string()->get();
  }

  // An array of `size` numbers.
  std::vector<double> numbers(const toml::node& n, std::string_view key, std::size_t size) const {
    const toml::array* a = n.as_array();
    if (a == nullptr)
      fail_at(n, key, "must be an array of " + std::to_string(size) + " numbers, not " + type_name(n.type()));
    if (a->size() != size)
      fail_at(n, key, "must have " + std::to_string(size) + " elements, not " + std::to_string(a->size()));
    std::vector<double> out;
    for (const toml::node& e : *a) out.push_back(number(e, key));
    return out;
  }

  std::optional<Vec3<double>> optional_vec3(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    const auto v = numbers(*n, key, 3);
    return Vec3<double>(v[0], v[1], v[2]);
  }

  // A scalar applies to every component of a vector input; an array gives each one.
  std::optional<std::array<double, 3>> optional_scalar_or_vec(std::string_view key, int dim) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    std::array<double, 3> out{};
    if (n->is_number()) {
      out.fill(number(*n, key));
    } else if (dim == 1) {
      out[0] = number(*n, key);  // reports the type error
    } else {
      const auto v = numbers(*n, key, static_cast<std::size_t>(dim));
      for (int i = 0; i < dim; ++i) out[i] = v[i];
    }
    return out;
  }

  // Every key not read is unknown: a typo must not silently fall back to a default.
  void reject_unknown_keys() const {
    for (auto&& [key, node] : table_) {
      if (used_.count(std::string(key.str())) == 0) {
        const auto& b = key.source().begin;
        throw ScenarioError(file_, b.line, b.column, path_of(key.str()), "unknown key");
      }
    }
  }

  const toml::table& table() const { return table_; }
  const std::string& file() const { return file_; }

 private:
  const toml::table& table_;
  std::string prefix_;
  const std::string& file_;
  std::set<std::string> used_;
};

Mat3<double> read_inertia(TableReader& body) {
  const toml::node* n = body.find("inertia");
  if (n == nullptr)
    body.fail_here("inertia", "is required (3x3 inertia tensor about the centre of mass, kg m^2), or give a shape");
  const toml::array* rows = n->as_array();
  if (rows == nullptr || rows->size() != 3)
    body.fail_at(*n, "inertia", "must be a 3x3 array of numbers [[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]]");
  Mat3<double> m;
  for (int r = 0; r < 3; ++r) {
    const auto row = body.numbers(*rows->get(static_cast<std::size_t>(r)), "inertia", 3);
    for (int c = 0; c < 3; ++c) m(r, c) = row[c];
  }
  return m;
}

// [body] shape = { type = "...", ... }: the inertia of a homogeneous solid about its centre of
// mass, in its own axes (symmetry axis z), from include/rbmc/body/shapes.hpp.
Mat3<double> read_shape(TableReader& body, Scenario& s) {
  const toml::node* n = body.find("shape");
  const toml::table* t = n->as_table();
  if (t == nullptr) body.fail_at(*n, "shape", "must be a table such as { type = \"box\", size = [0.3, 0.2, 0.1] }");
  TableReader shape(*t, "body.shape", body.file());
  const auto type = shape.optional_string("type");
  if (!type) shape.fail_here("type", "is required (box, solid_cylinder, hollow_cylinder, solid_sphere, thin_disk, slender_rod)");
  const auto positive = [&](const char* key, const char* meaning) {
    const double v = shape.required_number(key, meaning);
    if (!(v > 0)) shape.fail_at(*t->get(key), key, "must be positive");
    return v;
  };
  if (*type == "box") {
    const toml::node* size = shape.find("size");
    if (size == nullptr) shape.fail_here("size", "is required (edge lengths along x, y, z, m)");
    const auto e = shape.numbers(*size, "size", 3);
    for (double x : e)
      if (!(x > 0)) shape.fail_at(*size, "size", "edge lengths must be positive");
    s.shape = {ShapeKind::box, {e[0], e[1], e[2]}};
  } else if (*type == "solid_cylinder") {
    s.shape = {ShapeKind::solid_cylinder, {positive("radius", "m"), positive("height", "m, along z"), 0}};
  } else if (*type == "hollow_cylinder") {
    const double r_in = positive("inner_radius", "m"), r_out = positive("outer_radius", "m");
    if (!(r_in < r_out)) shape.fail_at(*t->get("inner_radius"), "inner_radius", "must be less than outer_radius");
    s.shape = {ShapeKind::hollow_cylinder, {r_in, r_out, positive("height", "m, along z")}};
  } else if (*type == "solid_sphere") {
    s.shape = {ShapeKind::solid_sphere, {positive("radius", "m"), 0, 0}};
  } else if (*type == "thin_disk") {
    s.shape = {ShapeKind::thin_disk, {positive("radius", "m, in the xy plane"), 0, 0}};
  } else if (*type == "slender_rod") {
    s.shape = {ShapeKind::slender_rod, {positive("length", "m, along z"), positive("radius", "m"), 0}};
  } else {
    shape.fail_at(*t->get("type"), "type",
                  "unknown shape '" + *type +
                      "' (available: box, solid_cylinder, hollow_cylinder, solid_sphere, thin_disk, slender_rod)");
  }
  shape.reject_unknown_keys();
  s.body_shape = *type;
  return shape_inertia(s.shape, s.body.mass);
}

void read_run(TableReader& r, Scenario& s) {
  if (auto n = r.optional_integer("samples")) {
    if (*n <= 0) r.fail_at(*r.table().get("samples"), "samples", "must be a positive integer");
    if (std::uint64_t(*n) > kMaxSamples)
      r.fail_at(*r.table().get("samples"), "samples", "is more than rbmc runs in one file (at most 2^40)");
    s.run.n_samples = static_cast<std::uint64_t>(*n);
  }
  if (auto n = r.optional_integer("seed")) {
    if (*n < 0) r.fail_at(*r.table().get("seed"), "seed", "must be a non-negative integer");
    s.run.seed = static_cast<std::uint64_t>(*n);
  }
  s.run.duration = r.required_number("duration", "simulated time span, s");
  if (!(s.run.duration > 0)) r.fail_at(*r.table().get("duration"), "duration", "must be positive");
  s.run.step = r.required_number("step", "integration step, s");
  if (!(s.run.step > 0)) r.fail_at(*r.table().get("step"), "step", "must be positive");
  if (s.run.step > s.run.duration)
    r.fail_at(*r.table().get("step"), "step", "must not exceed run.duration");
  // The step actually used divides the duration exactly and never exceeds the one asked for.
  const double ratio = s.run.duration / s.run.step;
  if (ratio > 1e12) r.fail_at(*r.table().get("step"), "step", "gives more than 1e12 steps; use a larger step");
  s.run.n_steps = static_cast<std::int64_t>(std::ceil(ratio * (1 - 1e-12)));
  if (auto name = r.optional_string("integrator")) {
    if (*name != "rk4" && *name != "dopri5" && *name != "splitting")
      r.fail_at(*r.table().get("integrator"), "integrator",
                "unknown integrator '" + *name + "' (available: rk4, dopri5, splitting)");
    s.run.integrator = *name;
  }
  // Step control: meaningful for the adaptive integrator only, so an error elsewhere.
  s.run.min_step = s.run.duration * 1e-12;
  s.run.max_step = s.run.duration;
  for (const char* key : {"rtol", "atol", "min_step", "max_step", "max_steps"}) {
    const toml::node* n = r.table().get(key);
    if (n != nullptr && s.run.integrator != "dopri5")
      r.fail_at(*n, key, "applies to integrator = \"dopri5\" only (this run uses " + s.run.integrator + ")");
  }
  const auto positive = [&](const char* key, double& value) {
    if (auto v = r.optional_number(key)) {
      if (!(*v > 0)) r.fail_at(*r.table().get(key), key, "must be positive");
      value = *v;
    }
  };
  positive("rtol", s.run.rtol);
  positive("atol", s.run.atol);
  positive("min_step", s.run.min_step);
  positive("max_step", s.run.max_step);
  if (auto n = r.optional_integer("max_steps")) {
    if (*n <= 0) r.fail_at(*r.table().get("max_steps"), "max_steps", "must be a positive integer");
    s.run.max_steps = *n;
  }
  if (s.run.min_step > s.run.max_step) r.fail_at(*r.table().get("min_step"), "min_step", "must not exceed max_step");
  if (auto attitude = r.optional_string("attitude")) {
    if (*attitude != "quaternion" && *attitude != "euler_zxz")
      r.fail_at(*r.table().get("attitude"), "attitude", "must be \"quaternion\" or \"euler_zxz\"");
    if (*attitude == "euler_zxz" && s.run.integrator != "rk4")
      r.fail_at(*r.table().get("attitude"), "attitude", "euler_zxz is carried by integrator = \"rk4\" only");
    s.run.attitude = *attitude;
  }
  if (auto v = r.optional_number("euler_threshold")) {
    if (s.run.attitude != "euler_zxz")
      r.fail_at(*r.table().get("euler_threshold"), "euler_threshold", "applies to attitude = \"euler_zxz\" only");
    if (!(*v > 0 && *v < 1)) r.fail_at(*r.table().get("euler_threshold"), "euler_threshold", "must be in (0, 1)");
    s.run.euler_threshold = *v;
  }
  // The accuracy guard: a sample that reaches the end with its conserved quantities drifted beyond
  // these ends with status inaccurate (0 turns a check off).
  for (const char* key : {"max_energy_drift", "max_momentum_drift"})
    if (auto v = r.optional_number(key)) {
      if (!(*v >= 0)) r.fail_at(*r.table().get(key), key, "must be >= 0 (0 turns the check off)");
      (std::string(key) == "max_energy_drift" ? s.run.max_energy_drift : s.run.max_momentum_drift) = *v;
    }
  // Events are located to this tolerance in time on each step's interpolant.
  s.events.tolerance = s.run.duration * 1e-12;
  if (auto v = r.optional_number("event_tolerance")) {
    if (!(*v > 0)) r.fail_at(*r.table().get("event_tolerance"), "event_tolerance", "must be positive");
    s.events.tolerance = *v;
  }
  r.reject_unknown_keys();
}

void read_body(TableReader& b, Scenario& s) {
  s.body.mass = b.required_number("mass", "kg");
  s.body.com_b = b.optional_vec3("center_of_mass").value_or(Vec3<double>::Zero());
  const bool has_inertia = b.table().get("inertia") != nullptr, has_shape = b.table().get("shape") != nullptr;
  if (has_inertia && has_shape)
    b.fail_at(*b.table().get("shape"), "shape", "give either inertia or shape, not both");
  if (!(s.body.mass > 0)) b.fail_at(*b.table().get("mass"), "mass", describe(BodyValidity::non_positive_mass));
  if (has_shape) {
    s.body.inertia_c_b = read_shape(b, s);
  } else {
    s.body.inertia_c_b = read_inertia(b);
    // A tensor about the body origin is moved to the centre of mass (parallel axis, 001).
    const std::string about = b.optional_string("inertia_about").value_or("center_of_mass");
    if (about == "origin") {
      s.body.inertia_c_b = inertia_about_center_of_mass<double>(s.body.inertia_c_b, s.body.mass, s.body.com_b);
    } else if (about != "center_of_mass") {
      b.fail_at(*b.table().get("inertia_about"), "inertia_about",
                "must be \"center_of_mass\" or \"origin\", not \"" + about + "\"");
    }
  }
  const BodyValidity v = check_mass_properties(s.body);
  if (v != BodyValidity::valid) {
    const char* key = v == BodyValidity::non_positive_mass ? "mass" : (has_shape ? "shape" : "inertia");
    b.fail_at(*b.table().get(key), key, describe(v));
  }
  b.reject_unknown_keys();
}

void read_initial(TableReader& r, Scenario& s) {
  s.initial.p_w = r.optional_vec3("position").value_or(Vec3<double>::Zero());
  s.initial.v_w = r.optional_vec3("velocity").value_or(Vec3<double>::Zero());
  s.initial.omega_b = r.optional_vec3("angular_velocity").value_or(Vec3<double>::Zero());
  s.initial.q_wb = Quaternion<double>::identity();
  // The attitude in one of four forms (docs/scenario.md); at most one may be given.
  const char* forms[] = {"attitude", "attitude_euler_zxz", "attitude_euler_zyx", "attitude_rotation_vector"};
  const char* given = nullptr;
  for (const char* key : forms) {
    if (r.table().get(key) == nullptr) continue;
    if (given != nullptr) r.fail_at(*r.table().get(key), key, std::string("conflicts with ") + given + ": give one attitude");
    given = key;
  }
  if (const toml::node* n = r.find("attitude")) {
    const auto q = r.numbers(*n, "attitude", 4);
    const Quaternion<double> quat{q[0], q[1], q[2], q[3]};
    // Accept decimal rounding in a hand-written quaternion, not a non-unit one.
    if (std::abs(quat.norm() - 1.0) > 1e-6)
      r.fail_at(*n, "attitude", "must be a unit quaternion (w, x, y, z); its norm is " + std::to_string(quat.norm()));
    s.initial.q_wb = normalized(quat);
  }
  // Euler angles as given stay the nominal values of their dispersion: extracting them again from
  // the quaternion could land on another branch (or a singular one) of the same attitude.
  if (const auto a = r.optional_vec3("attitude_euler_zxz")) {
    s.initial.q_wb = quaternion_from_euler_zxz<double>(*a);
    s.initial_euler_zxz = *a;
  }
  if (const auto a = r.optional_vec3("attitude_euler_zyx")) {
    s.initial.q_wb = quaternion_from_euler_zyx<double>(*a);
    s.initial_euler_zyx = *a;
  }
  if (const auto a = r.optional_vec3("attitude_rotation_vector"))
    s.initial.q_wb = quaternion_from_rotation_vector<double>(*a);
  r.reject_unknown_keys();
}

Dispersion read_dispersion(TableReader& d, const DispersedInputInfo& info, const Scenario& s) {
  Dispersion out;
  out.info = info;
  const auto& b = d.table().source().begin;
  out.where = {s.path, b.line, b.column};
  out.nominal = info.nominal;
  const std::string kind = d.optional_string("distribution").value_or("");
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
    // A fixed value is every sample's: one that no body can have is an error here, not a run of
    // invalid bodies.
    const bool positive = info.input == DispersedInput::mass || info.input == DispersedInput::principal_moments ||
                          info.input == DispersedInput::shape_dimension;
    for (int i = 0; i < info.dim && positive; ++i)
      if (!(out.a[i] > 0)) d.fail_at(*d.table().get("value"), "value", "must be positive (" + info.units + ")");
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

LoadFrame read_frame(TableReader& r) {
  const std::string frame = r.optional_string("frame").value_or("");
  if (frame == "body") return LoadFrame::body;
  if (frame == "world") return LoadFrame::world;
  if (frame.empty()) r.fail_here("frame", "is required (\"body\": turns with the body, or \"world\": fixed in space)");
  r.fail_at(*r.table().get("frame"), "frame", "must be \"body\" or \"world\", not \"" + frame + "\"");
}

Vec3<double> required_vec3(TableReader& r, std::string_view key, const char* meaning) {
  const auto v = r.optional_vec3(key);
  if (!v) r.fail_here(key, std::string("is required (") + meaning + ")");
  return *v;
}

double non_negative(TableReader& r, std::string_view key, const char* meaning, double fallback) {
  const double v = r.optional_number(key).value_or(fallback);
  if (v < 0) r.fail_at(*r.table().get(key), key, std::string("must be non-negative (") + meaning + ")");
  return v;
}

// [[loads]]: an array of tables, each with a `type`. Uniform gravity stays in [gravity].
void read_loads(const toml::node& node, Scenario& s) {
  const toml::array* array = node.as_array();
  const auto& b = node.source().begin;
  if (array == nullptr || !array->is_array_of_tables())
    throw ScenarioError(s.path, b.line, b.column, "loads", "must be an array of tables: [[loads]] entries with a type");
  LoadSet<double>& loads = s.loads;
  std::size_t index = 0;
  for (const toml::node& entry : *array) {
    TableReader r(*entry.as_table(), "loads[" + std::to_string(index++) + "]", s.path);
    const std::string type = r.optional_string("type").value_or("");
    Scenario::LoadEntry record{type, 0, {}};
    if (type == "point_force") record.index = loads.n_point_forces;
    if (type == "torque") record.index = loads.n_torques;
    if (type == "spring") record.index = loads.n_springs;
    if (type == "point_force") {
      if (loads.n_point_forces == LoadSet<double>::kMaxPointForces)
        r.fail_here("type", "too many point forces (at most " + std::to_string(LoadSet<double>::kMaxPointForces) + ")");
      loads.point_forces[loads.n_point_forces++] = {r.optional_vec3("point").value_or(Vec3<double>::Zero()),
                                                    required_vec3(r, "force", "N"), read_frame(r)};
    } else if (type == "torque") {
      if (loads.n_torques == LoadSet<double>::kMaxTorques)
        r.fail_here("type", "too many torques (at most " + std::to_string(LoadSet<double>::kMaxTorques) + ")");
      loads.torques[loads.n_torques++] = {required_vec3(r, "torque", "N m"), read_frame(r)};
    } else if (type == "damping") {
      record.damping = {non_negative(r, "linear", "N s/m", 0), non_negative(r, "quadratic", "N s^2/m^2", 0),
                        non_negative(r, "angular_linear", "N m s", 0), non_negative(r, "angular_quadratic", "N m s^2", 0)};
      loads.linear_damping += record.damping[0];
      loads.quadratic_damping += record.damping[1];
      loads.angular_linear_damping += record.damping[2];
      loads.angular_quadratic_damping += record.damping[3];
    } else if (type == "spring") {
      if (loads.n_springs == LoadSet<double>::kMaxSprings)
        r.fail_here("type", "too many springs (at most " + std::to_string(LoadSet<double>::kMaxSprings) + ")");
      LoadSet<double>::Spring spring;
      spring.point_b = r.optional_vec3("point").value_or(Vec3<double>::Zero());
      spring.anchor_w = required_vec3(r, "anchor", "world point, m");
      spring.stiffness = r.required_number("stiffness", "N/m");
      if (spring.stiffness < 0) r.fail_at(*r.table().get("stiffness"), "stiffness", "must be non-negative");
      spring.rest_length = non_negative(r, "rest_length", "m", 0);
      spring.damping = non_negative(r, "damping", "N s/m", 0);
      loads.springs[loads.n_springs++] = spring;
    } else if (type == "central_gravity") {
      if (loads.has_central_body) r.fail_here("type", "only one central body is supported");
      loads.has_central_body = true;
      loads.central_mu = r.required_number("mu", "gravitational parameter, m^3/s^2");
      if (!(loads.central_mu > 0)) r.fail_at(*r.table().get("mu"), "mu", "must be positive");
      loads.central_center_w = r.optional_vec3("center").value_or(Vec3<double>::Zero());
    } else if (type.empty()) {
      r.fail_here("type", "is required (point_force, torque, damping, spring, central_gravity)");
    } else {
      r.fail_at(*r.table().get("type"), "type",
                "unknown load '" + type + "' (available: point_force, torque, damping, spring, central_gravity)");
    }
    r.reject_unknown_keys();
    s.load_entries.push_back(record);
  }
}

// [constraint]: a spherical pivot or plane motion. Read after [initial] and [run]: the defaults
// (anchor, plane height, stabilisation rate) come from them.
void read_constraint(TableReader& r, Scenario& s) {
  Constraint<double>& c = s.constraint;
  const std::string type = r.optional_string("type").value_or("");
  if (type == "pivot") {
    c.kind = ConstraintKind::pivot;
    c.point_b = r.optional_vec3("point").value_or(Vec3<double>::Zero());
    // By default the joint is where the body point starts.
    c.anchor_w = r.optional_vec3("anchor").value_or(s.initial.p_w + rotate(s.initial.q_wb, c.point_b));
  } else if (type == "planar") {
    c.kind = ConstraintKind::planar;
    c.plane_height = r.optional_number("height").value_or(s.initial.p_w.z());
  } else if (type.empty()) {
    r.fail_here("type", "is required (pivot or planar)");
  } else {
    r.fail_at(*r.table().get("type"), "type", "unknown constraint '" + type + "' (available: pivot, planar)");
  }
  if (s.run.integrator == "splitting")
    r.fail_at(*r.table().get("type"), "type",
              "integrator = \"splitting\" does not handle constraints; use rk4 or dopri5");
  // Baumgarte rate: by default independent of the step, so that the step converges (constraints.hpp).
  c.stabilization = non_negative(r, "stabilization", "1/s", default_stabilization(s.run.duration, s.step_used()));
  r.reject_unknown_keys();
}

// [[events]]: an array of tables, each with a name and a type. Read after [initial] (the
// attitude reference defaults to the initial attitude) and [run] (the tolerance).
void read_events(const toml::node& node, Scenario& s) {
  const toml::array* array = node.as_array();
  const auto& b = node.source().begin;
  if (array == nullptr || !array->is_array_of_tables())
    throw ScenarioError(s.path, b.line, b.column, "events", "must be an array of tables: [[events]] entries");
  std::size_t index = 0;
  for (const toml::node& entry : *array) {
    TableReader r(*entry.as_table(), "events[" + std::to_string(index++) + "]", s.path);
    if (s.events.n == EventSet<double>::kMax)
      r.fail_here("name", "too many events (at most " + std::to_string(EventSet<double>::kMax) + ")");
    const std::string name = r.optional_string("name").value_or("");
    if (name.empty()) r.fail_here("name", "is required (letters, digits and _; names the output group)");
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        r.fail_at(*r.table().get("name"), "name", "may hold only letters, digits and _");
    for (const std::string& other : s.event_names)
      if (other == name) r.fail_at(*r.table().get("name"), "name", "is used by another event");
    EventSpec<double> e;
    if (const toml::node* t = r.find("terminal")) {
      if (!t->is_boolean()) r.fail_at(*t, "terminal", std::string("must be true or false, not ") + type_name(t->type()));
      e.terminal = t->as_boolean()->get();
    }
    const std::string type = r.optional_string("type").value_or("");
    if (type == "point_crossing") {
      e.kind = EventKind::point_crossing;
      e.point_b = r.optional_vec3("point").value_or(Vec3<double>::Zero());
      const std::string axis = r.optional_string("axis").value_or("");
      if (axis != "x" && axis != "y" && axis != "z") {
        if (axis.empty()) r.fail_here("axis", "is required (\"x\", \"y\" or \"z\": the world coordinate)");
        r.fail_at(*r.table().get("axis"), "axis", "must be \"x\", \"y\" or \"z\"");
      }
      e.axis = axis[0] - 'x';
      e.value = r.required_number("value", "the coordinate crossed, m");
      const std::string direction = r.optional_string("direction").value_or("either");
      if (direction == "rising") e.direction = CrossingDirection::rising;
      else if (direction == "falling") e.direction = CrossingDirection::falling;
      else if (direction == "either") e.direction = CrossingDirection::either;
      else r.fail_at(*r.table().get("direction"), "direction", "must be \"rising\", \"falling\" or \"either\"");
    } else if (type == "attitude_angle") {
      e.kind = EventKind::attitude_angle;
      e.direction = CrossingDirection::rising;
      e.value = r.required_number("angle", "rad: the angle from the reference that triggers it");
      if (!(e.value > 0)) r.fail_at(*r.table().get("angle"), "angle", "must be positive");
      e.reference = s.initial.q_wb;
      if (const toml::node* n = r.find("reference")) {
        const auto q = r.numbers(*n, "reference", 4);
        const Quaternion<double> quat{q[0], q[1], q[2], q[3]};
        if (std::abs(quat.norm() - 1.0) > 1e-6) r.fail_at(*n, "reference", "must be a unit quaternion (w, x, y, z)");
        e.reference = normalized(quat);
      }
    } else if (type == "angular_rate_below") {
      e.kind = EventKind::angular_rate_below;
      e.direction = CrossingDirection::rising;
      e.value = r.required_number("rate", "rad/s");
      if (!(e.value > 0)) r.fail_at(*r.table().get("rate"), "rate", "must be positive");
    } else if (type == "time_limit") {
      e.kind = EventKind::time_limit;
      e.direction = CrossingDirection::rising;
      e.value = r.required_number("time", "s");
      if (!(e.value > 0)) r.fail_at(*r.table().get("time"), "time", "must be positive");
    } else if (type.empty()) {
      r.fail_here("type", "is required (point_crossing, attitude_angle, angular_rate_below, time_limit)");
    } else {
      r.fail_at(*r.table().get("type"), "type",
                "unknown event '" + type + "' (available: point_crossing, attitude_angle, angular_rate_below, time_limit)");
    }
    r.reject_unknown_keys();
    s.events.events[s.events.n++] = e;
    s.event_names.push_back(name);
  }
}

// [output]: the times at which every sample's state is kept: `interval` (every Δt from 0) or a
// `times` list of up to OutputTimes::kMaxListed ascending times in [0, duration].
// [output] trajectories = "all" | "none" | { every | samples | status | event | final, min, max;
// limit }. Read after [[events]]: a rule may name one.
void read_retention(TableReader& output, const toml::node& node, Scenario& s) {
  TrajectoryRetention& t = s.output.trajectories;
  using Kind = TrajectoryRetention::Kind;
  if (const auto* text = node.as_string()) {
    const std::string v = text->get();
    if (v == "all") t.kind = Kind::all;
    else if (v == "none") t.kind = Kind::none;
    else output.fail_at(node, "trajectories", "must be \"all\", \"none\" or a table such as { every = 100 }, not \"" + v + "\"");
    return;
  }
  const toml::table* table = node.as_table();
  if (table == nullptr)
    output.fail_at(node, "trajectories", "must be \"all\", \"none\" or a table such as { every = 100 }");
  TableReader r(*table, "output.trajectories", s.path);
  int rules = 0;
  if (const auto every = r.optional_integer("every")) {
    if (*every <= 0) r.fail_at(*table->get("every"), "every", "must be a positive integer");
    t.kind = Kind::every;
    t.every = std::uint64_t(*every);
    ++rules;
  }
  if (const toml::node* list = r.find("samples")) {
    const toml::array* a = list->as_array();
    if (a == nullptr || a->empty()) r.fail_at(*list, "samples", "must be a non-empty array of sample indices");
    for (const toml::node& e : *a) {
      if (!e.is_integer() || e.as_integer()->get() < 0)
        r.fail_at(e, "samples", "must hold non-negative integer sample indices");
      t.samples.push_back(std::uint64_t(e.as_integer()->get()));
    }
    std::sort(t.samples.begin(), t.samples.end());
    t.samples.erase(std::unique(t.samples.begin(), t.samples.end()), t.samples.end());
    t.kind = Kind::list;
    ++rules;
  }
  if (const auto status = r.optional_string("status")) {
    int found = -1;
    std::string names;
    for (int c = 0; c < kSampleStatusCount; ++c) {
      if (*status == status_name(SampleStatus(c))) found = c;
      names += std::string(names.empty() ? "" : ", ") + status_name(SampleStatus(c));
    }
    if (found < 0) r.fail_at(*table->get("status"), "status", "unknown status '" + *status + "' (" + names + ")");
    t.kind = Kind::status;
    t.status = SampleStatus(found);
    ++rules;
  }
  if (const auto event = r.optional_string("event")) {
    const auto it = std::find(s.event_names.begin(), s.event_names.end(), *event);
    if (it == s.event_names.end()) r.fail_at(*table->get("event"), "event", "no [[events]] entry is named '" + *event + "'");
    t.kind = Kind::event;
    t.event = int(it - s.event_names.begin());
    ++rules;
  }
  if (const auto final = r.optional_string("final")) {
    static const std::pair<const char*, int> columns[] = {
        {"position.x", output_column::p_w},     {"position.y", output_column::p_w + 1},
        {"position.z", output_column::p_w + 2}, {"velocity.x", output_column::v_w},
        {"velocity.y", output_column::v_w + 1}, {"velocity.z", output_column::v_w + 2},
        {"angular_velocity.x", output_column::omega_b}, {"angular_velocity.y", output_column::omega_b + 1},
        {"angular_velocity.z", output_column::omega_b + 2}, {"time", output_column::time}};
    std::string names;
    int found = -1;
    for (const auto& [name, column] : columns) {
      if (*final == name) found = column;
      names += std::string(names.empty() ? "" : ", ") + name;
    }
    if (found < 0) r.fail_at(*table->get("final"), "final", "unknown final quantity '" + *final + "' (" + names + ")");
    const auto lo = r.optional_number("min"), hi = r.optional_number("max");
    if (!lo || !hi) r.fail_here(lo ? "max" : "min", "is required with final: the range [min, max] of the final value");
    if (*lo > *hi) r.fail_at(*table->get("max"), "max", "must not be less than min");
    t.kind = Kind::final;
    t.final_column = found;
    t.final_quantity = *final;
    t.min = *lo;
    t.max = *hi;
    ++rules;
  }
  if (const auto limit = r.optional_integer("limit")) {
    if (*limit <= 0) r.fail_at(*table->get("limit"), "limit", "must be a positive integer");
    t.limit = std::uint64_t(*limit);
    if (rules == 0) t.kind = Kind::all;  // the first `limit` samples
  } else if (rules == 0) {
    r.fail_here("every", "give a rule: every, samples, status, event, or final with min and max (and optionally limit)");
  }
  if (rules > 1) r.fail_here("every", "give one rule of every, samples, status, event and final");
  r.reject_unknown_keys();
}

void read_output(TableReader& r, Scenario& s) {
  OutputTimes<double>& o = s.output_times;
  const toml::node* interval = r.find("interval");
  const toml::node* times = r.find("times");
  const toml::node* trajectories = r.find("trajectories");
  const toml::node* statistics = r.find("statistics");
  const toml::node* memory = r.find("quantile_memory_mb");
  const toml::node* samples = r.find("samples");
  const toml::node* storage = r.find("storage");
  r.reject_unknown_keys();  // a misspelt key says so before "interval is required" would
  if (samples != nullptr) {
    const toml::array* a = samples->as_array();
    if (a == nullptr || a->empty())
      r.fail_at(*samples, "samples", "must be a non-empty array of per-sample dataset names, e.g. [\"final/position\", \"status\"]");
    for (const toml::node& e : *a) {
      if (!e.is_string()) r.fail_at(e, "samples", "must list dataset names as strings (e.g. \"final/position\")");
      s.output.sample_datasets.push_back(e.as_string()->get());
      s.output.sample_dataset_positions.push_back({int(e.source().begin.line), int(e.source().begin.column)});
    }
  }
  if (storage != nullptr) {
    const std::optional<std::string> v = storage->value<std::string>();
    if (v == "float32") s.output.storage = OutputSettings::Storage::float32;
    else if (v != "float64") r.fail_at(*storage, "storage", "must be \"float64\" (the default) or \"float32\"");
  }
  if (trajectories != nullptr) read_retention(r, *trajectories, s);
  if (statistics != nullptr) {
    if (!statistics->is_boolean()) r.fail_at(*statistics, "statistics", "must be true or false");
    s.output.statistics = statistics->as_boolean()->get();
  }
  if (memory != nullptr) {
    if (!memory->is_integer() || memory->as_integer()->get() < 1 || memory->as_integer()->get() > (1 << 20))
      r.fail_at(*memory, "quantile_memory_mb", "must be an integer from 1 to 1048576 (MiB)");
    s.output.quantile_memory = std::uint64_t(memory->as_integer()->get()) << 20;
  }
  if (interval != nullptr && times != nullptr) r.fail_at(*times, "times", "give either interval or times, not both");
  if (interval != nullptr) {
    const double dt = r.number(*interval, "interval");
    if (!(dt > 0)) r.fail_at(*interval, "interval", "must be positive");
    // A bound on the memory one sample's states at the output times take (13 + 12 doubles each).
    if (s.run.duration / dt > 1e5) r.fail_at(*interval, "interval", "gives more than 100000 output times");
    o.interval = dt;
    o.n = int(std::floor(s.run.duration / dt * (1 + 1e-12))) + 1;  // 0, Δt, ..., up to the duration
  } else if (times != nullptr) {
    const toml::array* a = times->as_array();
    if (a == nullptr || a->empty()) r.fail_at(*times, "times", "must be a non-empty array of times (s)");
    if (a->size() > std::size_t(OutputTimes<double>::kMaxListed))
      r.fail_at(*times, "times",
                "lists more than " + std::to_string(OutputTimes<double>::kMaxListed) + " times; use interval");
    o.listed = true;
    for (const toml::node& t : *a) {
      const double v = r.number(t, "times");
      if (v < 0 || v > s.run.duration) r.fail_at(t, "times", "must lie in [0, run.duration]");
      if (o.n > 0 && !(v > o.list[o.n - 1])) r.fail_at(t, "times", "must be strictly ascending");
      o.list[o.n++] = v;
    }
  } else if (trajectories != nullptr || statistics != nullptr || memory != nullptr ||
             (samples == nullptr && storage == nullptr)) {
    // An [output] of only samples and storage chooses what the file keeps of the final states.
    r.fail_here("interval", "is required (or times)");
  }
}

// Looks up an input a dispersion or a grid axis names, and claims it: an input is dispersed or
// swept once, and of the inputs that describe one thing two ways (the attitude as a rotation or
// as Euler angles; the inertia as moments or as a shape) only one. A load or constraint parameter
// gets its per-sample values (Scenario::model_parameters).
DispersedInputInfo claim_input(Scenario& s, const std::string& key, const std::string& path,
                               const SourceLocation& where) {
  const std::vector<DispersedInputInfo> known = dispersible_inputs(s);
  const auto found = std::find_if(known.begin(), known.end(), [&](const auto& c) { return c.key_path == path; });
  if (found == known.end()) {
    std::string names;
    for (const auto& c : known) names += (names.empty() ? "" : ", ") + c.key_path;
    throw ScenarioError(where.file, where.line, where.column, key,
                        "is not an input this scenario can disperse or sweep (known: " + names + ")");
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
      table.targets[table.n] = info.target;
      table.targets[table.n++].component = std::uint8_t(c);
    }
  }
  return info;
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
    if (const toml::node* n = r.find("values")) {
      const toml::array* list = n->as_array();
      if (list == nullptr || list->empty()) r.fail_at(*n, "values", "must be a non-empty array");
      for (const toml::node& v : *list) axis.values.push_back(point(v, "values"));
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
        axis.values.push_back(v);
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
              "invalid_body), not \"" + policy + "\"");
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

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw ScenarioError(path, b.line, b.column, "", "malformed TOML: " + std::string(e.description()));
  }
  return parse_scenario_table(root, text, path, std::filesystem::path(path).stem().string());
}

Scenario parse_scenario_table(const toml::table& root, const std::string& text, const std::string& path,
                              const std::string& default_name) {
  Scenario s;
  s.path = path;
  s.text = text;
  TableReader top(root, "", s.path);
  const auto required_table = [&](std::string_view key, const char* what) -> const toml::table& {
    const toml::table* t = top.optional_table(key);
    if (t == nullptr) throw ScenarioError(path, 0, 0, std::string(key), std::string("the table is required (") + what + ")");
    return *t;
  };

  s.name = default_name;
  if (const toml::table* t = top.optional_table("scenario")) {
    TableReader r(*t, "scenario", s.path);
    s.name = r.optional_string("name").value_or(s.name);
    // The name makes the default output file, here: no directories, no hidden or odd file names.
    if (s.name.empty() || s.name.front() == '.' ||
        s.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != std::string::npos)
      r.fail_at(*r.table().get("name"), "name",
                "may hold only letters, digits, '_', '-' and '.', and not begin with '.' (it names the default "
                "output file in the current directory)");
    s.description = r.optional_string("description").value_or("");
    r.reject_unknown_keys();
  }
  {
    TableReader r(required_table("run", "samples, seed, duration, step"), "run", s.path);
    read_run(r, s);
  }
  {
    TableReader r(required_table("body", "mass, center_of_mass, inertia"), "body", s.path);
    read_body(r, s);
  }
  if (const toml::table* t = top.optional_table("initial")) {
    TableReader r(*t, "initial", s.path);
    read_initial(r, s);
  } else {
    s.initial = {Vec3<double>::Zero(), Quaternion<double>::identity(), Vec3<double>::Zero(), Vec3<double>::Zero()};
  }
  if (const toml::table* t = top.optional_table("gravity")) {
    TableReader r(*t, "gravity", s.path);
    s.gravity_w = r.optional_vec3("acceleration").value_or(Vec3<double>::Zero());
    r.reject_unknown_keys();
  }
  if (const toml::node* loads = top.find("loads")) read_loads(*loads, s);
  if (const toml::node* events = top.find("events")) read_events(*events, s);
  if (const toml::table* t = top.optional_table("output")) {
    TableReader r(*t, "output", s.path);
    read_output(r, s);
  }
  if (const toml::table* t = top.optional_table("constraint")) {
    TableReader r(*t, "constraint", s.path);
    read_constraint(r, s);
  }
  // Read after the nominal values: dispersions default to them.
  if (const toml::table* t = top.optional_table("dispersions")) read_dispersions(*t, "", s);
  if (const toml::node* c = top.find("correlations")) read_correlations(*c, s);
  if (const toml::table* t = top.optional_table("design")) {
    TableReader r(*t, "design", s.path);
    const toml::table* run = root.get_as<toml::table>("run");
    read_design(r, s, run != nullptr && run->get("samples") != nullptr);
  }
  top.reject_unknown_keys();
  // [output] samples names datasets that only the whole scenario determines (params, events).
  for (std::size_t i = 0; i < s.output.sample_datasets.size(); ++i) {
    const std::string problem = check_sample_selection(s, s.output.sample_datasets[i]);
    if (!problem.empty())
      throw ScenarioError(path, std::uint32_t(s.output.sample_dataset_positions[i].first),
                          std::uint32_t(s.output.sample_dataset_positions[i].second), "output.samples", problem);
  }
  return s;
}

IntegrationSettings<double> Scenario::integration() const {
  const IntegratorKind kind = run.integrator == "dopri5"      ? IntegratorKind::dopri5
                              : run.integrator == "splitting" ? IntegratorKind::splitting
                                                              : IntegratorKind::rk4;
  IntegrationSettings<double> how{kind,         run.duration, kind == IntegratorKind::dopri5 ? run.step : step_used(),
                                  run.n_steps,  run.rtol,     run.atol,
                                  run.min_step, run.max_step, run.max_steps,
                                  run.attitude == "euler_zxz", run.euler_threshold};
  // The guard looks only at what this scenario conserves.
  how.max_energy_drift = conserves_energy() ? run.max_energy_drift : 0;
  how.max_momentum_drift = conserves_momentum() ? run.max_momentum_drift : 0;
  return how;
}

// A constraint's ideal reaction does no work, so energy depends on the loads only; the pivot and
// the plane exert moments about the centre of mass, so they break momentum conservation.
bool Scenario::conserves_energy() const { return loads.is_conservative(); }
bool Scenario::conserves_momentum() const {
  return constraint.kind == ConstraintKind::none && conserves_angular_momentum(loads);
}

Scenario load_scenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, 0, 0, "", "cannot open the scenario file (does it exist and is it readable?)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScenarioError(path, 0, 0, "", "error while reading the scenario file");
  return parse_scenario(text.str(), path);
}

}  // namespace rbmc

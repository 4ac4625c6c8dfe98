// Scenario parsing and validation: TOML (toml++) to a checked Scenario, or a ScenarioError that
// names the file, the line and the key. Every key is consumed explicitly (table_reader.hpp), so
// anything left over is an unknown key and an error, not silently ignored. This file reads [run],
// [body], [initial], [gravity], [[loads]] and [constraint], and calls the other sections' readers
// (scenario_sections.hpp: read_output.cpp, read_dispersions.cpp).
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
#include "host/scenario/parse_scenario_table.hpp"
#include "host/scenario/scenario_sections.hpp"
#include "host/scenario/table_reader.hpp"
#include "host/scenario/scenario.hpp"
#include "host/scenario/output_schema.hpp"
#include "rbmc/body/principal_axes.hpp"
#include "rbmc/body/inertia.hpp"
#include "rbmc/body/shapes.hpp"
#include "rbmc/dynamics/model_values.hpp"
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

Mat3<double> read_inertia(TableReader& body) {
  const toml::node* n = body.find("inertia");
  if (n == nullptr)
    body.fail_here("inertia", "is required (3x3 inertia tensor about the centre of mass, kg m^2), or give a shape");
  const char* const full = "must be a 3x3 array of numbers [[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]]";
  const toml::array* rows = n->as_array();
  if (rows == nullptr || rows->size() != 3) body.fail_at(*n, "inertia", full);
  // Three numbers are most likely the principal moments: say how to write them (the row check
  // below would say "must be an array of 3 numbers, not an integer" of the first).
  if (std::all_of(rows->begin(), rows->end(), [](const toml::node& e) { return e.is_number(); }))
    body.fail_at(*n, "inertia",
                 std::string(full) + "; principal moments [a, b, c] are [[a, 0, 0], [0, b, 0], [0, 0, c]]");
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
    const std::optional<IntegratorKind> kind = integrator_named(*name);
    if (!kind)
      r.fail_at(*r.table().get("integrator"), "integrator",
                "unknown integrator '" + *name + "' (available: rk4, dopri5, splitting)");
    s.run.integrator = *kind;
  }
  // Step control: meaningful for the adaptive integrator only, so an error elsewhere.
  s.run.min_step = s.run.duration * 1e-12;
  s.run.max_step = s.run.duration;
  for (const char* key : {"rtol", "atol", "min_step", "max_step", "max_steps"}) {
    const toml::node* n = r.table().get(key);
    if (n != nullptr && s.run.integrator != IntegratorKind::dopri5)
      r.fail_at(*n, key,
                std::string("applies to integrator = \"dopri5\" only (this run uses ") + integrator_name(s.run.integrator) + ")");
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
    if (*attitude == "euler_zxz" && s.run.integrator != IntegratorKind::rk4)
      r.fail_at(*r.table().get("attitude"), "attitude", "euler_zxz is carried by integrator = \"rk4\" only");
    s.run.attitude = *attitude == "euler_zxz" ? AttitudeCoordinates::euler_zxz : AttitudeCoordinates::quaternion;
  }
  if (auto v = r.optional_number("euler_threshold")) {
    if (s.run.attitude != AttitudeCoordinates::euler_zxz)
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
    std::string why = describe(v);
    // A tensor about the origin may be physical there and not once moved: say which it is.
    const bool moved = !has_shape && b.optional_string("inertia_about").value_or("") == "origin";
    if (moved && v != BodyValidity::non_positive_mass) {
      const Mat3<double>& i = s.body.inertia_c_b;
      std::ostringstream text;
      text.precision(6);
      text << " about the centre of mass: moved there from the origin (parallel axis, I_c = I_o - m (|c|^2 1 - c c^T)) "
           << "it is [[" << i(0, 0) << ", " << i(0, 1) << ", " << i(0, 2) << "], [" << i(1, 0) << ", " << i(1, 1)
           << ", " << i(1, 2) << "], [" << i(2, 0) << ", " << i(2, 1) << ", " << i(2, 2)
           << "]] kg m^2; a body whose centre of mass lies that far from its origin has more inertia about the origin";
      why += text.str();
    }
    b.fail_at(*b.table().get(key), key, why);
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

// A load's value of `field` (its key, with its meaning or units), under the rule its drawn values
// obey too (model_value_physical); `fallback` where the key may be left out.
double load_value(TableReader& r, std::string_view key, const char* meaning, ModelField field,
                  std::optional<double> fallback = std::nullopt) {
  const double v = fallback ? r.optional_number(key).value_or(*fallback) : r.required_number(key, meaning);
  if (!model_value_physical(field, v))
    r.fail_at(*r.table().get(key), key, std::string(model_value_rule(field)) + " (" + meaning + ")");
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
      record.damping = {load_value(r, "linear", "N s/m", ModelField::linear_damping, 0),
                        load_value(r, "quadratic", "N s^2/m^2", ModelField::quadratic_damping, 0),
                        load_value(r, "angular_linear", "N m s", ModelField::angular_linear_damping, 0),
                        load_value(r, "angular_quadratic", "N m s^2", ModelField::angular_quadratic_damping, 0)};
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
      spring.stiffness = load_value(r, "stiffness", "N/m", ModelField::spring_stiffness);
      spring.rest_length = load_value(r, "rest_length", "m", ModelField::spring_rest_length, 0);
      spring.damping = load_value(r, "damping", "N s/m", ModelField::spring_damping, 0);
      loads.springs[loads.n_springs++] = spring;
    } else if (type == "central_gravity") {
      if (loads.has_central_body) r.fail_here("type", "only one central body is supported");
      loads.has_central_body = true;
      loads.central_mu = load_value(r, "mu", "gravitational parameter, m^3/s^2", ModelField::central_mu);
      loads.central_center_w = r.optional_vec3("center").value_or(Vec3<double>::Zero());
      // Its attraction grows as 1/r^2 from the centre: a body that starts there has none defined
      // (every sample's first step would be non-finite). [initial] is read before the loads.
      const Vec3<double> c_w = s.initial.p_w + rotate(s.initial.q_wb, s.body.com_b);
      if ((c_w - loads.central_center_w).norm() == 0)
        r.fail_here("center", "is where the body's centre of mass starts (initial.position, body.center_of_mass): "
                              "the attraction is infinite there; move the body or the centre");
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
  if (s.run.integrator == IntegratorKind::splitting)
    r.fail_at(*r.table().get("type"), "type",
              "integrator = \"splitting\" does not handle constraints; use rk4 or dopri5");
  // Baumgarte rate: by default independent of the step, so that the step converges (constraints.hpp).
  c.stabilization = non_negative(r, "stabilization", "1/s", default_stabilization(s.run.duration, s.step_used()));
  r.reject_unknown_keys();
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
  if (const toml::node* events = top.find("events")) scenario_sections::read_events(*events, s);
  if (const toml::table* t = top.optional_table("output")) {
    TableReader r(*t, "output", s.path);
    scenario_sections::read_output(r, s);
  }
  if (const toml::table* t = top.optional_table("constraint")) {
    TableReader r(*t, "constraint", s.path);
    read_constraint(r, s);
  }
  // Read after the nominal values: dispersions default to them.
  if (const toml::table* t = top.optional_table("dispersions")) scenario_sections::read_dispersions(*t, "", s);
  if (const toml::node* c = top.find("correlations")) scenario_sections::read_correlations(*c, s);
  if (const toml::table* t = top.optional_table("design")) {
    TableReader r(*t, "design", s.path);
    const toml::table* run = root.get_as<toml::table>("run");
    scenario_sections::read_design(r, s, run != nullptr && run->get("samples") != nullptr);
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
  const IntegratorKind kind = run.integrator;
  IntegrationSettings<double> how{kind,         run.duration, kind == IntegratorKind::dopri5 ? run.step : step_used(),
                                  run.n_steps,  run.rtol,     run.atol,
                                  run.min_step, run.max_step, run.max_steps,
                                  run.attitude == AttitudeCoordinates::euler_zxz, run.euler_threshold};
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
  // A directory opens as an empty stream, and an empty scenario's first complaint is its missing
  // [run] table; a results file given where the scenario goes fails as TOML at byte 1. Both say
  // what was given instead.
  const char* const scenario_is = "a scenario is a TOML file (configs/*.toml; docs/scenario.md)";
  std::error_code e;
  if (std::filesystem::is_directory(path, e))
    throw ScenarioError(path, 0, 0, "", std::string("a directory, not a scenario file: ") + scenario_is);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, 0, 0, "", "cannot open the scenario file (does it exist and is it readable?)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScenarioError(path, 0, 0, "", "error while reading the scenario file");
  static constexpr char kHdf5Signature[] = "\x89HDF\r\n\x1a\n";  // at byte 0 of the files rbmc writes
  if (text.str().compare(0, sizeof kHdf5Signature - 1, kHdf5Signature) == 0)
    throw ScenarioError(path, 0, 0, "",
                        std::string("an HDF5 file (a results file?), not a scenario: ") + scenario_is +
                            "; rbmc info summarises a results file");
  return parse_scenario(text.str(), path);
}

}  // namespace rbmc

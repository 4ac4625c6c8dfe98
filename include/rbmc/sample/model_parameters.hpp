// Per-sample values of load and constraint parameters.
//
// Loads and the constraint are shared by every sample of a run (SharedModel). When a scenario
// disperses one of their parameters, each sample carries its own value of it (an input column,
// sample_layout.hpp) and run_sample integrates a copy of the shared loads and constraint with
// those values set. The table below says which field each value sets; the host's sampling plan
// and the per-sample function both apply it with apply_model_parameters, so the initial state the
// host projects onto a dispersed constraint and the constraint the sample integrates are the same.
#pragma once

#include <cstdint>

#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/dynamics/load_set.hpp"

namespace rbmc {

// Scalar values per sample (a 3-vector takes three).
inline constexpr int kMaxModelParameters = 16;

enum class ModelField : std::uint8_t {
  point_force_point,          // LoadSet::point_forces[index].point_b, component (m)
  point_force_force,          // .force, component (N)
  torque,                     // LoadSet::torques[index].torque, component (N m)
  spring_point,               // LoadSet::springs[index].point_b, component (m)
  spring_anchor,              // .anchor_w, component (m)
  spring_stiffness,           // .stiffness (N/m)
  spring_rest_length,         // .rest_length (m)
  spring_damping,             // .damping (N s/m)
  linear_damping,             // the run's total; `offset` holds the other damping entries' sum
  quadratic_damping,          //   "
  angular_linear_damping,     //   "
  angular_quadratic_damping,  //   "
  central_mu,                 // m³/s²
  central_center,             // component (m)
  pivot_point,                // Constraint::point_b, component (m)
  pivot_anchor,               // Constraint::anchor_w, component (m)
  plane_height,               // Constraint::plane_height (m)
};

// One per-sample value's destination: field = value + offset.
template <class Scalar>
struct ModelParameter {
  ModelField field;
  std::uint8_t index;      // which point force, torque or spring
  std::uint8_t component;  // of a vector field
  Scalar offset;           // damping: what the entries not dispersed contribute to the total

  template <class Other>
  ModelParameter<Other> cast() const {
    return {field, index, component, Other(offset)};
  }
};

template <class Scalar>
struct ModelParameters {
  int n = 0;
  ModelParameter<Scalar> targets[kMaxModelParameters];

  template <class Other>
  ModelParameters<Other> cast() const {
    ModelParameters<Other> o;
    o.n = n;
    for (int i = 0; i < n; ++i) o.targets[i] = targets[i].template cast<Other>();
    return o;
  }
};

template <class Scalar>
RBMC_HD inline void apply_model_parameter(const ModelParameter<Scalar>& p, Scalar value, LoadSet<Scalar>& loads,
                                          Constraint<Scalar>& constraint) {
  const int i = p.index, c = p.component;
  const Scalar v = value + p.offset;
  switch (p.field) {
    case ModelField::point_force_point: loads.point_forces[i].point_b(c) = v; break;
    case ModelField::point_force_force: loads.point_forces[i].force(c) = v; break;
    case ModelField::torque: loads.torques[i].torque(c) = v; break;
    case ModelField::spring_point: loads.springs[i].point_b(c) = v; break;
    case ModelField::spring_anchor: loads.springs[i].anchor_w(c) = v; break;
    case ModelField::spring_stiffness: loads.springs[i].stiffness = v; break;
    case ModelField::spring_rest_length: loads.springs[i].rest_length = v; break;
    case ModelField::spring_damping: loads.springs[i].damping = v; break;
    case ModelField::linear_damping: loads.linear_damping = v; break;
    case ModelField::quadratic_damping: loads.quadratic_damping = v; break;
    case ModelField::angular_linear_damping: loads.angular_linear_damping = v; break;
    case ModelField::angular_quadratic_damping: loads.angular_quadratic_damping = v; break;
    case ModelField::central_mu: loads.central_mu = v; break;
    case ModelField::central_center: loads.central_center_w(c) = v; break;
    case ModelField::pivot_point: constraint.point_b(c) = v; break;
    case ModelField::pivot_anchor: constraint.anchor_w(c) = v; break;
    case ModelField::plane_height: constraint.plane_height = v; break;
  }
}

// Sets every per-sample value (values[j] for targets[j]) in the given copies of the loads and constraint.
template <class Scalar>
RBMC_HD inline void apply_model_parameters(const ModelParameters<Scalar>& table, const Scalar* values,
                                           LoadSet<Scalar>& loads, Constraint<Scalar>& constraint) {
  for (int j = 0; j < table.n; ++j) apply_model_parameter(table.targets[j], values[j], loads, constraint);
}

}  // namespace rbmc

// Per-sample values of load and constraint parameters: the constraint a sample integrates, and a
// whole copy of the loads and constraint with a sample's values set (for the host and the tests;
// the per-sample function never copies the loads, see dynamics/model_values.hpp).
#pragma once

#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/dynamics/model_values.hpp"

namespace rbmc {

// The constraint with the sample's own pivot point and anchor or plane height: a few values,
// copied once per sample.
template <class Scalar, class Own>
RBMC_HD inline Constraint<Scalar> constraint_of(const Constraint<Scalar>& shared, const Own& own) {
  Constraint<Scalar> c = shared;
  own.apply(ModelField::pivot_point, 0, c.point_b);
  own.apply(ModelField::pivot_anchor, 0, c.anchor_w);
  own.apply(ModelField::plane_height, 0, c.plane_height);
  return c;
}

// Sets the sample's own values (own: OwnModelValues) in the given copies of the loads and
// constraint: the same per-member lookups the loads' evaluation makes when it reads them in place.
template <class Scalar, class Own>
RBMC_HD inline void apply_own_values(const Own& own, LoadSet<Scalar>& loads, Constraint<Scalar>& constraint) {
  for (int i = 0; i < loads.n_point_forces; ++i) loads.point_forces[i] = point_force_of(loads, own, i);
  for (int i = 0; i < loads.n_torques; ++i) loads.torques[i] = torque_of(loads, own, i);
  for (int i = 0; i < loads.n_springs; ++i) loads.springs[i] = spring_of(loads, own, i);
  const Damping<Scalar> d = damping_of(loads, own);
  loads.linear_damping = d.linear;
  loads.quadratic_damping = d.quadratic;
  loads.angular_linear_damping = d.angular_linear;
  loads.angular_quadratic_damping = d.angular_quadratic;
  central_body_of(loads, own, loads.central_mu, loads.central_center_w);
  constraint = constraint_of(constraint, own);
}

// The same with the values given as an array (values[j] for table.targets[j]).
template <class Scalar>
RBMC_HD inline void apply_model_parameters(const ModelParameters<Scalar>& table, const Scalar* values,
                                           LoadSet<Scalar>& loads, Constraint<Scalar>& constraint) {
  apply_own_values(own_values(table, values), loads, constraint);
}

}  // namespace rbmc

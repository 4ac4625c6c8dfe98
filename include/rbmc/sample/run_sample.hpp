// The one per-sample function: both the CPU backend and the CUDA kernel call it.
#pragma once

#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/integrate/rk4.hpp"
#include "rbmc/sample/sample_inputs.hpp"

namespace rbmc {

// The parts of the model that every sample of a run shares.
template <class Scalar>
struct SharedModel {
  LoadSet<Scalar> loads;
  Constraint<Scalar> constraint;

  template <class Other>
  SharedModel<Other> cast() const {
    return {loads.template cast<Other>(), constraint.template cast<Other>()};
  }
};

template <class Scalar>
struct BodyRate {
  FreeBodyModel<Scalar> model;
  const SharedModel<Scalar>* shared;
  RBMC_HD ConstrainedRate<Scalar> evaluate(const RigidBodyState<Scalar>& x) const {
    return constrained_rate(shared->constraint, model, x, evaluate_loads(shared->loads, model, x));
  }
  RBMC_HD RigidBodyStateRate<Scalar> operator()(const RigidBodyState<Scalar>& x) const { return evaluate(x).rate; }
};

template <class Scalar>
RBMC_HD inline Scalar relative_change(Scalar now, Scalar before, Scalar scale) {
  return scale > Scalar(0) ? (now - before) / scale : now - before;
}

// Integrates one body under uniform gravity, the shared loads and constraint, with fixed-step
// RK4. The initial state must satisfy the constraint (the sampling plan projects it). A body
// whose mass properties are not physical is not integrated (status invalid_body); a state that
// turns non-finite stops the sample at the last finite step (status non_finite_state).
template <class Scalar>
RBMC_HD inline SampleResult<Scalar> run_sample(const SampleInputs<Scalar>& in, const SharedModel<Scalar>& shared,
                                               const FixedStepSettings<Scalar>& how) {
  SampleResult<Scalar> out{in.initial, Scalar(0), SampleStatus::ok, Vec3<Scalar>::Zero(), Vec3<Scalar>::Zero(),
                           Scalar(0), Scalar(0)};
  if (check_mass_properties(in.body) != BodyValidity::valid) {
    out.status = SampleStatus::invalid_body;
    return out;
  }
  const BodyRate<Scalar> rate{make_free_body_model(in.body, in.gravity_w), &shared};
  RigidBodyState<Scalar> x = in.initial;
  const Scalar kinetic0 = kinetic_energy(rate.model, x), potential0 = potential_energy(shared.loads, rate.model, x);
  const Vec3<Scalar> momentum0 = angular_momentum_c_w(rate.model, x);
  std::int64_t step = 0;
  for (; step < how.n_steps; ++step) {
    const RigidBodyState<Scalar> next = rk4_step(rate, x, how.step);
    if (!is_finite(next)) {
      out.status = SampleStatus::non_finite_state;
      break;
    }
    x = next;
  }
  out.final_state = x;
  out.time = Scalar(step) * how.step;  // a product, not a running sum: no accumulated rounding
  if (shared.constraint.kind != ConstraintKind::none) {
    const Vec3<Scalar> lambda = rate.evaluate(x).lambda;
    out.reaction_force_w = reaction_wrench(shared.constraint, rate.model, x, lambda).force_w;
    // The couple the joint itself applies (the planar constraint's; a pivot applies none).
    if (shared.constraint.kind == ConstraintKind::planar)
      out.reaction_torque_b = Vec3<Scalar>(lambda(1), lambda(2), Scalar(0));
  }
  // Relative to the larger of T + |V| at the start and the end: a body released from rest at the
  // potential's zero has T₀ + |V₀| = 0, but not at the end.
  const Scalar kinetic1 = kinetic_energy(rate.model, x), potential1 = potential_energy(shared.loads, rate.model, x);
  const Scalar scale0 = kinetic0 + Eigen::numext::abs(potential0), scale1 = kinetic1 + Eigen::numext::abs(potential1);
  out.energy_drift = relative_change(kinetic1 + potential1, kinetic0 + potential0, scale0 > scale1 ? scale0 : scale1);
  out.momentum_drift = relative_change((angular_momentum_c_w(rate.model, x) - momentum0).norm(), Scalar(0),
                                       momentum0.norm());
  return out;
}

}  // namespace rbmc

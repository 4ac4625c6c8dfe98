// The right-hand side of one sample: its body under uniform gravity, the run's loads with the
// sample's own values of their dispersed fields, and the run's constraint.
#pragma once

#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/dynamics/model_values.hpp"

namespace rbmc {

// Own: SharedValuesOnly or OwnModelValues (model_values.hpp). kFreeBody: uniform gravity alone,
// the loads and constraint not looked at (a free body's general rate is this one, bit for bit).
// kConstraint: the constraint's kind compiled in (constrained_rate), any by default; the same
// numbers as the general rate's for a run of that kind.
template <class Scalar, class Own = SharedValuesOnly, bool kFreeBody = false,
          CompiledConstraint kConstraint = CompiledConstraint::any>
struct BodyRate {
  // Whether the rate is uniform gravity alone or the loads alone (no constraint): light enough that
  // the device keeps a fixed step's rare interpolating end inline in a run without events
  // (fixed_step.hpp, close_fixed_step).
  static constexpr bool kLight = kFreeBody || kConstraint == CompiledConstraint::none;
  FreeBodyModel<Scalar> model;
  const LoadSet<Scalar>* loads;
  const Constraint<Scalar>* constraint;
  Own own{};
  const Mat3<Scalar>* pivot_k_inv = nullptr;  // a pivot's K_b⁻¹ computed once (constraints.hpp), or null

  // The applied wrench: gravity and the loads (not the constraint's reaction).
  RBMC_HD_INLINE Wrench<Scalar> wrench(const RigidBodyState<Scalar>& x) const {
    if constexpr (kFreeBody) return uniform_gravity_wrench(model.mass, model.gravity_w);
    else return evaluate_loads(*loads, own, model, x);
  }
  RBMC_HD_INLINE ConstrainedRate<Scalar> evaluate(const RigidBodyState<Scalar>& x) const {
    if constexpr (kFreeBody) return {free_body_rate(model, x), Vec3<Scalar>::Zero()};
    else return constrained_rate<kConstraint>(*constraint, model, x, wrench(x), pivot_k_inv);
  }
  RBMC_HD_INLINE RigidBodyStateRate<Scalar> operator()(const RigidBodyState<Scalar>& x) const { return evaluate(x).rate; }
  RBMC_HD Scalar potential_energy(const RigidBodyState<Scalar>& x) const {
    return rbmc::potential_energy(*loads, own, model, x);
  }
};

}  // namespace rbmc

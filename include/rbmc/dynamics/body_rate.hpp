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
// kReadsInPlace: on the device, each evaluation reads the model, the constraint, the loads and a
// pivot's K_b⁻¹ from memory where it uses them (read_in_place), so that the loop around it does
// not hold them in registers through every stage (SampleKinds::rate_reads_in_place says where).
// The same operations, so the same numbers; on the host it changes nothing.
template <class Scalar, class Own = SharedValuesOnly, bool kFreeBody = false,
          CompiledConstraint kConstraint = CompiledConstraint::any, bool kReadsInPlace = false>
struct BodyRate {
  // Whether the rate is uniform gravity alone or the loads alone (no constraint): light enough that
  // the device keeps a fixed step's rare interpolating end inline in a run without events
  // (fixed_step.hpp, close_fixed_step).
  static constexpr bool kLight = kFreeBody || kConstraint == CompiledConstraint::none;
  static constexpr bool kReadsModelInPlace = kReadsInPlace;
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
    if constexpr (kFreeBody) {
      return {free_body_rate(model, x), Vec3<Scalar>::Zero()};
    } else {
      const FreeBodyModel<Scalar>& m = in_place(model);
      const Wrench<Scalar> applied = evaluate_loads(in_place(*loads), own, m, x);
      return constrained_rate<kConstraint>(in_place(*constraint), m, x, applied,
                                           pivot_k_inv != nullptr ? &in_place(*pivot_k_inv) : nullptr);
    }
  }
  RBMC_HD_INLINE RigidBodyStateRate<Scalar> operator()(const RigidBodyState<Scalar>& x) const { return evaluate(x).rate; }
  template <class T>
  RBMC_HD_INLINE static const T& in_place(const T& v) {
    if constexpr (kReadsModelInPlace) return read_in_place(v);
    else return v;
  }
  RBMC_HD Scalar potential_energy(const RigidBodyState<Scalar>& x) const {
    return rbmc::potential_energy(*loads, own, model, x);
  }
};

}  // namespace rbmc

// Everything one sample needs, and how it is integrated.
#pragma once

#include <cstdint>

#include "rbmc/body/mass_properties.hpp"
#include "rbmc/dynamics/state.hpp"
#include "rbmc/sample/sample_status.hpp"

namespace rbmc {

template <class Scalar>
struct SampleInputs {
  MassProperties<Scalar> body;
  RigidBodyState<Scalar> initial;
  Vec3<Scalar> gravity_w;
};

// Fixed-step integration: n_steps steps of size step, from t = 0.
template <class Scalar>
struct FixedStepSettings {
  Scalar step;
  std::int64_t n_steps;
};

template <class Scalar>
struct SampleResult {
  RigidBodyState<Scalar> final_state;
  Scalar time;  // time of final_state (s)
  SampleStatus status;
  Vec3<Scalar> reaction_force_w;   // the constraint's reaction at the final state (N, world)
  Vec3<Scalar> reaction_torque_b;  // and its couple (N m, body); zero without a constraint
  Scalar energy_drift;             // (E − E₀) / max(T₀ + |V₀|, T + |V|), E = T + V of the conservative loads
  Scalar momentum_drift;           // |h_C − h_C,0| / |h_C,0|, angular momentum about the centre of mass
};

}  // namespace rbmc

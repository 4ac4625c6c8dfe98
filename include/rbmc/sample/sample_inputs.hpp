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
};

}  // namespace rbmc

// Everything one sample needs, and how it is integrated.
#pragma once

#include <cstdint>

#include "rbmc/body/mass_properties.hpp"
#include "rbmc/dynamics/state.hpp"
#include "rbmc/integrate/events.hpp"
#include "rbmc/integrate/integration_settings.hpp"
#include "rbmc/dynamics/model_values.hpp"
#include "rbmc/sample/sample_status.hpp"

namespace rbmc {

template <class Scalar>
struct SampleInputs {
  MassProperties<Scalar> body;
  RigidBodyState<Scalar> initial;
  Vec3<Scalar> gravity_w;
  // Dispersed load and constraint parameters, in the order of SharedModel::parameters.
  Scalar model_values[kMaxModelParameters];
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
  std::int64_t steps;              // accepted steps
  std::int64_t rejected_steps;     // steps the adaptive controller rejected
  int stopping_event;              // index of the terminal event that stopped it, or −1
  EventRecord<Scalar> events[EventSet<Scalar>::kMax];
};

// Whether a sample's inputs can be integrated, and if not, why: its body first (invalid_body: mass
// properties not physical, check_mass_properties), then its own load values (invalid_load:
// Own::physical, model_values.hpp). The one verdict: run_sample records it, the lanes fall back
// to run_sample on it, and `rbmc check` previews it (preview_draws).
template <class Scalar, class Own>
RBMC_HD SampleStatus inputs_status(const SampleInputs<Scalar>& in, const Own& own) {
  if (check_mass_properties(in.body) != BodyValidity::valid) return SampleStatus::invalid_body;
  return own.physical() ? SampleStatus::ok : SampleStatus::invalid_load;
}

}  // namespace rbmc

// The one per-sample function: both the CPU backend and the CUDA kernel call it.
//
// run_sample is a list of named stages: start the result, check the body, integrate with the
// run's stepper, then record the end, the constraint's reaction and the conservation drifts, and
// apply the accuracy guard. It is compiled for the run's SampleKinds (sample_kinds.hpp).
#pragma once

#include <type_traits>

#include "rbmc/dynamics/body_rate.hpp"
#include "rbmc/integrate/dopri5.hpp"
#include "rbmc/integrate/output_times.hpp"
#include "rbmc/sample/fixed_stepper.hpp"
#include "rbmc/sample/model_parameters.hpp"
#include "rbmc/sample/sample_inputs.hpp"
#include "rbmc/sample/sample_kinds.hpp"
#include "rbmc/sample/shared_model.hpp"

namespace rbmc {

template <class Scalar>
RBMC_HD inline Scalar relative_change(Scalar now, Scalar before, Scalar scale) {
  return scale > Scalar(0) ? (now - before) / scale : now - before;
}

// Where run_sample puts the event records unless told otherwise: into the SampleResult it returns.
struct EventsInResult {};

// The event policy of a kind: the tracker handing its records to Records, or nothing at all.
template <class Kinds, class Scalar, class Records>
using EventsOf = std::conditional_t<
    Kinds::events,
    EventTracker<Scalar, std::conditional_t<std::is_same_v<Records, EventsInResult>, HeldEventRecords<Scalar>, Records>>,
    NoEvents>;

// Stage: integrate from x0 with the kind's stepper.
template <class Kinds, class Scalar, class Rate, class Events, class Sink>
RBMC_HD_KERNEL_INLINE IntegrationEnd<Scalar> integrate_sample(const Rate& rate, const RigidBodyState<Scalar>& x0,
                                                              const IntegrationSettings<Scalar>& how, Events& events,
                                                              Sink& sink) {
  if constexpr (Kinds::stepper == StepperKind::dopri5) {
    return integrate_dopri5(rate, x0, how, events, sink);
  } else {
    FixedStepperOf<Kinds::stepper, Scalar, Rate> stepper = make_fixed_stepper<Kinds::stepper, Scalar>(rate, how);
    return integrate_fixed_step(stepper, rate, x0, how, events, sink);
  }
}

// Stage: the reaction of the constraint at the final state (zero without one).
template <class Scalar, class Rate>
RBMC_HD inline void record_reaction(const Rate& rate, const RigidBodyState<Scalar>& x, SampleResult<Scalar>& out) {
  const Constraint<Scalar>& c = *rate.constraint;
  if (c.kind == ConstraintKind::none) return;
  const Vec3<Scalar> lambda = rate.evaluate(x).lambda;
  out.reaction_force_w = reaction_wrench(c, rate.model, x, lambda).force_w;
  // The couple the joint itself applies (the planar constraint's; a pivot applies none).
  if (c.kind == ConstraintKind::planar) out.reaction_torque_b = Vec3<Scalar>(lambda(1), lambda(2), Scalar(0));
}

// What the drifts compare a sample's end with: T + V, T + |V| and the angular momentum about the
// centre of mass at its start. Five values, which run_sample may take before the integration
// rather than hold the start state's thirteen through it.
template <class Scalar>
struct DriftReference {
  Scalar energy;      // T₀ + V₀ (J)
  Scalar scale;       // T₀ + |V₀| (J)
  Vec3<Scalar> momentum_w;  // H₀ about the centre of mass, world frame (kg m²/s)
};

template <class Scalar, class Rate>
RBMC_HD inline DriftReference<Scalar> drift_reference(const Rate& rate, const RigidBodyState<Scalar>& x0) {
  const Scalar kinetic0 = kinetic_energy(rate.model, x0), potential0 = rate.potential_energy(x0);
  return {kinetic0 + potential0, kinetic0 + Eigen::numext::abs(potential0), angular_momentum_c_w(rate.model, x0)};
}

// Stage: the drifts of T + V and of the angular momentum about the centre of mass from the start
// to x.
template <class Scalar, class Rate>
RBMC_HD inline void record_drift(const Rate& rate, const DriftReference<Scalar>& start, const RigidBodyState<Scalar>& x,
                                 SampleResult<Scalar>& out) {
  // Relative to the larger of T + |V| at the start and the end: a body released from rest at the
  // potential's zero has T₀ + |V₀| = 0, but not at the end.
  const Scalar kinetic1 = kinetic_energy(rate.model, x), potential1 = rate.potential_energy(x);
  const Scalar scale1 = kinetic1 + Eigen::numext::abs(potential1);
  out.energy_drift = relative_change(kinetic1 + potential1, start.energy, start.scale > scale1 ? start.scale : scale1);
  out.momentum_drift = relative_change((angular_momentum_c_w(rate.model, x) - start.momentum_w).norm(), Scalar(0),
                                       start.momentum_w.norm());
}

// Stage: the accuracy guard, once per sample at its end (never per step).
template <class Scalar>
RBMC_HD inline void apply_accuracy_guard(const IntegrationSettings<Scalar>& how, SampleResult<Scalar>& out) {
  const Scalar energy_drift = out.energy_drift < Scalar(0) ? -out.energy_drift : out.energy_drift;
  if (out.status == SampleStatus::ok &&
      ((how.max_energy_drift > Scalar(0) && !(energy_drift <= how.max_energy_drift)) ||
       (how.max_momentum_drift > Scalar(0) && !(out.momentum_drift <= how.max_momentum_drift))))
    out.status = SampleStatus::inaccurate;
}

// Stage: the result before integrating: the initial state, status ok, nothing recorded.
template <class Scalar>
RBMC_HD_INLINE SampleResult<Scalar> started_result(const RigidBodyState<Scalar>& x0) {
  SampleResult<Scalar> out;
  out.final_state = x0;
  out.time = Scalar(0);
  out.status = SampleStatus::ok;
  out.reaction_force_w = out.reaction_torque_b = Vec3<Scalar>::Zero();
  out.energy_drift = out.momentum_drift = Scalar(0);
  out.steps = out.rejected_steps = 0;
  out.stopping_event = -1;
  return out;
}

// Stages after the integration: where it ended, the constraint's reaction, the conservation
// drifts and the accuracy guard. The CPU's lanes (simd/fixed_step_lanes.hpp) finish each of their
// samples here too.
template <class Kinds, class Scalar, class Rate>
RBMC_HD_INLINE void finish_sample(const Rate& rate, const DriftReference<Scalar>& start,
                                  const IntegrationEnd<Scalar>& end, const IntegrationSettings<Scalar>& how,
                                  SampleResult<Scalar>& out) {
  out.final_state = end.state;
  out.time = end.time;
  out.status = end.status;
  out.steps = end.steps;
  out.rejected_steps = end.rejected_steps;
  out.stopping_event = end.stopping_event;
  if constexpr (!Kinds::free_body) record_reaction(rate, end.state, out);
  record_drift(rate, start, end.state, out);
  apply_accuracy_guard(how, out);
}

// Integrates one body under uniform gravity, the shared loads and constraint with the sample's
// own values of their dispersed fields (own: OwnModelValues), with the kind's integrator. The
// initial state must satisfy the constraint (the sampling plan projects it). A sample whose body
// or own load values are not physical is not integrated: its status is inputs_status's verdict
// (invalid_body or invalid_load). The event records go to
// `records` (events.hpp: a target such as the batch's output columns), by default into the
// result's own.
template <class Scalar, class Kinds, class Own, class Sink, class Records = EventsInResult>
RBMC_HD_KERNEL_INLINE SampleResult<Scalar> run_sample(const SampleInputs<Scalar>& in, const Own& own,
                                                      const SharedModel<Scalar>& shared,
                                                      const IntegrationSettings<Scalar>& how, Sink& sink,
                                                      const Records& records = {}) {
  const RigidBodyState<Scalar>& x0 = in.initial;
  SampleResult<Scalar> out = started_result(x0);
  EventsOf<Kinds, Scalar, Records> events;
  if constexpr (Kinds::events) {
    if constexpr (std::is_same_v<Records, EventsInResult>)
      events.records = {out.events};
    else
      events.records = records;
    events.start(shared.events, Scalar(0), x0);
  }
  const SampleStatus verdict = inputs_status(in, own);
  if (verdict != SampleStatus::ok) {
    out.status = verdict;
    // Not integrated: nothing measured, so no final state (its time 0, where it stopped) and no
    // drifts or reaction. The initial state as the final one, and the drifts' and the reaction's
    // zeros (an exact conservation, no force), were taken in by a mean over the samples.
    const Scalar nan = Eigen::NumTraits<Scalar>::quiet_NaN();
    out.final_state = no_state<Scalar>();
    out.energy_drift = out.momentum_drift = nan;
    out.reaction_force_w = out.reaction_torque_b = Vec3<Scalar>::Constant(nan);
    sink.finish(false, x0);
    events.finish();
    return out;
  }
  const FreeBodyModel<Scalar> model = make_free_body_model(in.body, in.gravity_w);
  const Constraint<Scalar> constraint = constraint_of(shared.constraint, own);
  using Rate = BodyRate<Scalar, Own, Kinds::free_body, Kinds::constraint, Kinds::template rate_reads_in_place<Scalar>>;
  // A pivot's K_b⁻¹ once per sample, where the rate does not hold it in registers: on the host, and
  // on the GPU where the rate reads its model in place; else at each evaluation (pivot_k_inverse
  // says why).
#ifdef __CUDA_ARCH__
  constexpr bool kHoldsKInverse = Rate::kReadsModelInPlace;
#else
  constexpr bool kHoldsKInverse = true;
#endif
  constexpr bool kMayBePivot =
      Kinds::constraint == CompiledConstraint::pivot || Kinds::constraint == CompiledConstraint::any;
  const bool pivot = kHoldsKInverse && kMayBePivot && constraint.kind == ConstraintKind::pivot;
  const Mat3<Scalar> k_inv = pivot ? pivot_k_inverse(constraint, model) : Mat3<Scalar>::Zero();
  const Mat3<Scalar>* pivot_k_inv = pivot ? &k_inv : nullptr;
  const Rate rate{model, &shared.loads, &constraint, own, pivot_k_inv};
  sink.start(Scalar(0), x0);
  // The drifts' reference before the integration, so that x0 is not held through it: in double on
  // the device, dopri5's kernels spilled 88 and 268 bytes more holding it, and the RK4 kernels
  // without events took 16 to 32 registers more. After it for RK4 with events, whose double kernels
  // spilled 16 to 44 bytes with it before (sm_90, bench/RESULTS.md, forty-second session). The
  // same values either way.
  // In double dopri5 with events, the reference first waits in memory through the integration,
  // read back once at the end (opaque_address; the host's code is the same either way): that
  // kernel spilled these five values (40 bytes). Elsewhere it never spilled, and in memory it only
  // grew the frames (the splitting's and Euler angles' with events, by 32 and 48 bytes, for 6 and 8
  // registers that change no occupancy), so it stays in registers there (bench/RESULTS.md,
  // fifty-ninth session).
  constexpr bool kDriftReferenceFirst = !(Kinds::stepper == StepperKind::rk4 && Kinds::events);
  constexpr bool kDriftReferenceInMemory =
      Kinds::stepper == StepperKind::dopri5 && Kinds::events && std::is_same_v<Scalar, double>;
  DriftReference<Scalar> start{};
  if constexpr (kDriftReferenceFirst) start = drift_reference(rate, x0);
  const DriftReference<Scalar>* start_in_memory = kDriftReferenceInMemory ? opaque_address(start) : &start;
  const IntegrationEnd<Scalar> end = integrate_sample<Kinds>(rate, x0, how, events, sink);
  sink.finish(end.status == SampleStatus::ok, end.state);
  events.finish();
  if constexpr (!kDriftReferenceFirst) start = drift_reference(rate, x0);
  finish_sample<Kinds>(rate, kDriftReferenceInMemory ? *start_in_memory : start, end, how, out);
  return out;
}

// The kinds chosen at run time (choose_sample_kinds), for callers that integrate one sample at a
// time: the host's analyses and the tests.
struct RuntimeKinds {};

template <class Scalar, class Kinds = RuntimeKinds, class Sink>
RBMC_HD inline SampleResult<Scalar> run_sample(const SampleInputs<Scalar>& in, const SharedModel<Scalar>& shared,
                                               const IntegrationSettings<Scalar>& how, Sink& sink) {
  const OwnModelValues<Scalar> own = own_values(shared.parameters, in.model_values);
  if constexpr (std::is_same_v<Kinds, RuntimeKinds>) {
    return with_sample_kinds(choose_sample_kinds(shared, how), [&](auto kinds) {
      return run_sample<Scalar, decltype(kinds)>(in, own, shared, how, sink);
    });
  } else {
    return run_sample<Scalar, Kinds>(in, own, shared, how, sink);
  }
}

template <class Scalar>
RBMC_HD inline SampleResult<Scalar> run_sample(const SampleInputs<Scalar>& in, const SharedModel<Scalar>& shared,
                                               const IntegrationSettings<Scalar>& how) {
  NoTrajectory none;
  return run_sample(in, shared, how, none);
}

}  // namespace rbmc

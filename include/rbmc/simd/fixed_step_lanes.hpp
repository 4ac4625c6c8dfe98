// W samples of a fixed-step kind integrated together in SIMD lanes on the CPU: RK4 on the free
// body (sample_kinds.hpp) or on a body under the run's loads with its constraint (a pivot, the
// plane) or none, and the symplectic splitting under the run's loads (it takes no constraint);
// each lane with its sample's own values of the dispersed fields, with the run's events or none
// (lane_events.hpp). The same fixed-step loop, stepper and right-hand side (BodyRate) as one
// sample's path, instantiated on Lanes<Scalar, W>, so every lane's result equals its sample's
// one-sample result bit for bit (tests/host/fixed_step_lanes_test.cpp). What the lanes cannot do
// as vectors they do lane by lane with the one-sample path's own functions: the splitting's
// principal frame (a Jacobi iteration that stops when it converges), and its sines and cosines in
// float (in double they are rbmc's own polynomial, on the vectors: rbmc/math/sincos.hpp).
//
// Whatever the lanes cannot do alike leaves them: a group in which a body is not physical, in
// which the bodies' centres of mass disagree on lying at the origin or the samples on having any
// damping (branches of the right-hand side), or in which a lane's state stops being finite (a
// spring at zero length included: hd.hpp's not_positive_hd; a lane that a terminal event stopped
// rides along, and counts too), is integrated sample by sample
// instead (the caller's one-sample path), which writes every result and output time afresh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/simd/lane_events.hpp"
#include "rbmc/simd/lanes.hpp"

namespace rbmc {

// The states at the output times of W samples into their group's block (sample_layout.hpp's
// TrajectoryLayout::by_group: [(k · 13 + c) · W + lane]): each component's W lanes in one store.
template <class Scalar, int W>
struct LaneTrajectorySink {
  using L = Lanes<Scalar, W>;
  const OutputTimes<Scalar>* times;
  double* data;  // the group's block; null: no state is kept
  int next = 0;

  bool active() const { return data != nullptr && next < times->n; }

  void write(int k, const RigidBodyState<L>& x) {
    const StateVector<L> y = pack(x);
    for (int c = 0; c < kTrajectoryColumns; ++c) store_lanes(y(c), data + (std::size_t(k) * kTrajectoryColumns + c) * W);
  }
  void start(const L& t0, const RigidBodyState<L>& x0) {
    while (active() && times->at(next) <= t0[0]) write(next++, x0);
  }
  // Every lane's step ends at the same time (a fixed step), so lane 0's time stands for all.
  bool interpolates(const L& t1) const { return data != nullptr && covers_time_before_end(*times, next, t1[0]); }
  template <class Interpolant>
  void step(const Interpolant& interp, const L& t1, const RigidBodyState<L>& x1) {
    if (data == nullptr) return;
    next = take_output_times(*times, next, t1[0], [&](int k, Scalar t, bool on_end) {
      write(k, on_end ? x1 : interpolated_state<L>(interp, L(t)));
    });
  }
  // Only a group whose lanes all reached the end time finishes in the lanes.
  void finish(const RigidBodyState<L>& x_end) {
    while (active()) write(next++, x_end);
  }
};

// The lanes always give pivot_rate its K_b⁻¹ (LaneRate). Its fallback is a call on the host
// (constraints.hpp); in the lanes' code a call that is never taken still cost 10–25 % (it
// clobbers every vector register), so for lanes the fallback is inline.
template <class S, int W>
RBMC_HD_INLINE Mat3<Lanes<S, W>> pivot_k_inverse_call(const Constraint<Lanes<S, W>>& c,
                                                      const FreeBodyModel<Lanes<S, W>>& model) {
  return pivot_k_inverse(c, model);
}

// BodyRate's right-hand side for lanes whose own values are in the load set and constraint
// already. Two things BodyRate's general form costs the lanes (bench/RESULTS.md, 2026-11-23 fifth
// session: a pivot at 16 M body-steps/s against 22 M): the constraint is held by value, since
// through a pointer every store of the stepper's may alias it (both are lanes of one type) and its
// values are loaded again at each use; and a run without loads takes gravity's wrench directly,
// which is what evaluate_loads returns for an empty set, bit for bit, without its loop and
// branches in the way of scheduling.
template <class L, bool kFreeBody>
struct LaneRate {
  FreeBodyModel<L> model;
  const LoadSet<L>* loads;
  Constraint<L> constraint;
  Mat3<L> pivot_k_inv;  // a pivot's K_b⁻¹ (constraints.hpp's pivot_k_inverse), each lane its sample's
  bool gravity_alone;   // no load in the set: no force, couple, spring, damping or central body

  BodyRate<L, SharedValuesOnly, kFreeBody> body_rate() const { return {model, loads, &constraint, {}, &pivot_k_inv}; }
  ConstrainedRate<L> evaluate(const RigidBodyState<L>& x) const {
    if constexpr (kFreeBody) {
      return body_rate().evaluate(x);
    } else {
      const Wrench<L> applied = gravity_alone ? uniform_gravity_wrench(model.mass, model.gravity_w) : body_rate().wrench(x);
      return constrained_rate(constraint, model, x, applied, &pivot_k_inv);
    }
  }
  RigidBodyStateRate<L> operator()(const RigidBodyState<L>& x) const { return evaluate(x).rate; }
  // The applied wrench alone: the splitting's kicks (its stepper asks for it).
  Wrench<L> wrench(const RigidBodyState<L>& x) const {
    return gravity_alone ? uniform_gravity_wrench(model.mass, model.gravity_w) : body_rate().wrench(x);
  }
};

// The splitting's principal frame of W bodies: each lane's by the one-sample path's Jacobi
// iteration on its own inertia (its sweeps stop when that lane's converge, a branch the lanes
// cannot take together), so each lane's frame is its sample's bit for bit. Found by
// SplittingStepper::start through argument-dependent lookup, before splitting.hpp's.
template <class S, int W>
inline SplittingFrame<Lanes<S, W>> splitting_frame(const FreeBodyModel<Lanes<S, W>>& model) {
  SplittingFrame<Lanes<S, W>> f;
  for (int lane = 0; lane < W; ++lane) {
    Mat3<S> inertia;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) inertia(r, c) = model.inertia_c_b(r, c)[lane];
    FreeBodyModel<S> one{};
    one.inertia_c_b = inertia;
    const SplittingFrame<S> frame = splitting_frame(one);
    set_lane(f.axes, lane, frame.axes);
    set_lane(f.moments, lane, frame.moments);
  }
  return f;
}

// A load set of W samples, lane by lane, from each sample's own copy (apply_own_values): the
// counts and frames are the run's, the same in every lane.
template <class S, int W>
inline void set_lane(LoadSet<Lanes<S, W>>& l, int lane, const LoadSet<S>& one) {
  l.n_point_forces = one.n_point_forces;
  l.n_torques = one.n_torques;
  l.n_springs = one.n_springs;
  for (int i = 0; i < one.n_point_forces; ++i) {
    set_lane(l.point_forces[i].point_b, lane, one.point_forces[i].point_b);
    set_lane(l.point_forces[i].force, lane, one.point_forces[i].force);
    l.point_forces[i].frame = one.point_forces[i].frame;
  }
  for (int i = 0; i < one.n_torques; ++i) {
    set_lane(l.torques[i].torque, lane, one.torques[i].torque);
    l.torques[i].frame = one.torques[i].frame;
  }
  for (int i = 0; i < one.n_springs; ++i) {
    set_lane(l.springs[i].point_b, lane, one.springs[i].point_b);
    set_lane(l.springs[i].anchor_w, lane, one.springs[i].anchor_w);
    l.springs[i].stiffness.set(lane, one.springs[i].stiffness);
    l.springs[i].rest_length.set(lane, one.springs[i].rest_length);
    l.springs[i].damping.set(lane, one.springs[i].damping);
  }
  l.linear_damping.set(lane, one.linear_damping);
  l.quadratic_damping.set(lane, one.quadratic_damping);
  l.angular_linear_damping.set(lane, one.angular_linear_damping);
  l.angular_quadratic_damping.set(lane, one.angular_quadratic_damping);
  l.has_central_body = one.has_central_body;
  l.central_mu.set(lane, one.central_mu);
  set_lane(l.central_center_w, lane, one.central_center_w);
}

// A model of W samples, lane by lane; com_at_origin, a branch, is lane 0's (the callers check that
// every lane agrees).
template <class S, int W>
inline void set_lane(FreeBodyModel<Lanes<S, W>>& m, int lane, const FreeBodyModel<S>& one) {
  m.mass.set(lane, one.mass);
  set_lane(m.com_b, lane, one.com_b);
  set_lane(m.inertia_c_b, lane, one.inertia_c_b);
  set_lane(m.inertia_inv_c_b, lane, one.inertia_inv_c_b);
  set_lane(m.gravity_w, lane, one.gravity_w);
  if (lane == 0) m.com_at_origin = one.com_at_origin;
}

// Integrates samples first, ..., first + W − 1 of a batch (the layout of sample_layout.hpp) in
// lanes and stores their results; their states at the output times into group_states (their
// group's block, TrajectoryLayout::by_group), or nowhere when null.
// Kinds: FreeBodyRk4Kinds, RK4 with or without events (SampleKinds<rk4, events>: any loads and
// constraint), or the splitting with or without them (SampleKinds<splitting, events>: any loads);
// events through LaneEventTracker, lane_events.hpp. Returns false, having stored nothing the
// one-sample path would not overwrite, when the group must go sample by sample.
template <class Scalar, int W, class Kinds, class StoredIn, class StoredOut>
inline bool run_fixed_step_lanes(const StoredIn* inputs, StoredOut* outputs, StoredOut* group_states,
                                 std::uint8_t* status, std::size_t n, std::size_t first,
                                 const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how) {
  static_assert(Kinds::stepper == StepperKind::rk4 || Kinds::stepper == StepperKind::splitting,
                "the lanes run RK4 and the splitting");
  using L = Lanes<Scalar, W>;
  // Stage: each lane's inputs, model and constraint, as the one-sample path makes them (the CPU's
  // copied model values: run_sample_in_batch).
  RigidBodyState<Scalar> x0[W];
  FreeBodyModel<Scalar> model[W];
  Constraint<Scalar> constraint[W];
  LoadSet<Scalar> loads[Kinds::free_body ? 1 : W];  // each sample's own copy (the free body has none)
  Mat3<Scalar> k_inv[W];                            // a pivot's K_b⁻¹, once per sample (constraints.hpp)
  for (int lane = 0; lane < W; ++lane) {
    const std::size_t i = first + std::size_t(lane);
    const SampleInputs<Scalar> in = load_sample_inputs<Scalar>(inputs, n, i, 0);
    if (check_mass_properties(in.body) != BodyValidity::valid) return false;
    x0[lane] = in.initial;
    model[lane] = make_free_body_model(in.body, in.gravity_w);
    if (model[lane].com_at_origin != model[0].com_at_origin) return false;
    constraint[lane] = shared.constraint;
    if constexpr (!Kinds::free_body) {
      loads[lane] = shared.loads;
      apply_own_values(own_values_in_batch(shared.parameters, inputs, n, i), loads[lane], constraint[lane]);
      // Damping is evaluated or not for the whole group (Damping::any, a branch).
      if (damping_of(loads[lane], SharedValuesOnly{}).any() != damping_of(loads[0], SharedValuesOnly{}).any()) return false;
    }
    k_inv[lane] = shared.constraint.kind == ConstraintKind::pivot ? pivot_k_inverse(constraint[lane], model[lane])
                                                                   : Mat3<Scalar>::Zero();
  }
  // Stage: the lanes' model, loads, constraint and initial state.
  FreeBodyModel<L> lanes_model;
  Constraint<L> lanes_constraint;
  LoadSet<L> lanes_loads;
  Mat3<L> lanes_k_inv;
  RigidBodyState<L> lanes_x0;
  lanes_constraint.kind = shared.constraint.kind;
  for (int lane = 0; lane < W; ++lane) {
    set_lane(lanes_model, lane, model[lane]);
    set_lane(lanes_constraint.point_b, lane, constraint[lane].point_b);
    set_lane(lanes_constraint.anchor_w, lane, constraint[lane].anchor_w);
    lanes_constraint.plane_height.set(lane, constraint[lane].plane_height);
    lanes_constraint.stabilization.set(lane, constraint[lane].stabilization);
    set_lane(lanes_k_inv, lane, k_inv[lane]);
    if constexpr (!Kinds::free_body) set_lane(lanes_loads, lane, loads[lane]);
    set_lane(lanes_x0, lane, x0[lane]);
  }
  // Stage: integrate, with the one-sample path's stepper and loop (fixed_step.hpp).
  static_assert(std::is_same_v<StoredOut, double>, "the lanes store doubles");
  LaneTrajectorySink<Scalar, W> sink{&shared.output_times, group_states, 0};
  // The lanes' own values are in lanes_loads and lanes_constraint already: nothing to look up.
  using Rate = LaneRate<L, Kinds::free_body>;
  const LoadSet<Scalar>& loads0 = loads[0];
  const bool gravity_alone = Kinds::free_body || (loads0.n_point_forces == 0 && loads0.n_torques == 0 && loads0.n_springs == 0 &&
                                                  !loads0.has_central_body && !damping_of(loads0, SharedValuesOnly{}).any());
  const Rate rate{lanes_model, &lanes_loads, lanes_constraint, lanes_k_inv, gravity_alone};
  using Stepper =
      std::conditional_t<Kinds::stepper == StepperKind::splitting, SplittingStepper<L, Rate>, Rk4Stepper<L, Rate>>;
  Stepper stepper{rate};
  // The events' records are written as they happen, into the samples' output columns; a group
  // that leaves the lanes is integrated again by the one-sample path, which writes them afresh.
  std::conditional_t<Kinds::events, LaneEventTracker<Scalar, W>, NoEvents> events;
  if constexpr (Kinds::events) events.start(shared.events, outputs, n, first, x0, group_states ? &sink.next : nullptr);
  sink.start(L(0), lanes_x0);
  const IntegrationEnd<L> end = integrate_fixed_step(stepper, rate, lanes_x0, how.template cast<L>(), events, sink);
  // Every lane ran to the end, or (with events) every lane stopped at a terminal event.
  if (end.status != SampleStatus::ok && !(Kinds::events && end.status == SampleStatus::terminal_event)) return false;
  sink.finish(end.state);
  if constexpr (Kinds::events) {
    for (int lane = 0; lane < W; ++lane) events.finish_trajectory(lane, shared.output_times, group_states);
    events.finish();
  }
  // Stage: each lane's end, reaction, drifts and guard, as the one-sample path finishes it
  // (run_sample.hpp), with that path's right-hand side.
  for (int lane = 0; lane < W; ++lane) {
    const BodyRate<Scalar, SharedValuesOnly, Kinds::free_body> one{
        model[lane], Kinds::free_body ? &shared.loads : &loads[lane], &constraint[lane], {}, &k_inv[lane]};
    IntegrationEnd<Scalar> lane_end{lane_of(end.state, lane), end.time[lane], end.status, end.steps,
                                    end.rejected_steps, end.stopping_event};
    if constexpr (Kinds::events) {
      const auto& stop = events.stops[lane];
      if (stop.stopped)
        lane_end = {stop.state, stop.time, SampleStatus::terminal_event, stop.steps, 0, stop.event};
    }
    SampleResult<Scalar> r = started_result(x0[lane]);
    finish_sample<Kinds>(one, x0[lane], lane_end, how, r);
    const std::size_t i = first + std::size_t(lane);
    store_sample_result(outputs, n, i, r);
    status[i] = static_cast<std::uint8_t>(r.status);
  }
  return true;
}

}  // namespace rbmc

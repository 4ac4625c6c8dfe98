// W samples of a fixed-step kind integrated together in SIMD lanes on the CPU: RK4 on the free
// body (sample_kinds.hpp) or on a body under the run's loads with its constraint (a pivot, the
// plane) or none, the same with the attitude as ZXZ Euler angles, and the symplectic splitting
// under the run's loads (it takes no constraint);
// each lane with its sample's own values of the dispersed fields, with the run's events or none
// (lane_events.hpp). The same fixed-step loop, stepper and right-hand side (BodyRate) as one
// sample's path, instantiated on Lanes<Scalar, W>, so every lane's result equals its sample's
// one-sample result bit for bit (tests/host/lane_groups_test.cpp). What the lanes cannot do
// as vectors they do lane by lane with the one-sample path's own functions: the splitting's
// principal frame (a Jacobi iteration that stops when it converges), the Euler angles of the
// initial attitude, and the sines and cosines in float (in double they are rbmc's own
// polynomial, on the vectors: rbmc/math/sincos.hpp).
//
// Whatever the lanes cannot do alike leaves them: a group in which a body is not physical, in
// which the bodies' centres of mass disagree on lying at the origin or the samples on having any
// damping (branches of the right-hand side), or in which a lane's state stops being finite (a
// spring at zero length included: hd.hpp's not_positive_hd; a lane that a terminal event stopped
// rides along, and counts too) or its Euler angles come near their singularity, is integrated
// sample by sample
// instead (the caller's one-sample path), which writes every result and output time afresh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "rbmc/sample/fixed_stepper.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/simd/lane_events.hpp"
#include "rbmc/simd/lane_group.hpp"
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

// Integrates samples first, ..., first + W − 1 of a batch (the layout of sample_layout.hpp) in
// lanes and stores their results; their states at the output times into group_states (their
// group's block, TrajectoryLayout::by_group), or nowhere when null.
// Kinds: FreeBodyRk4Kinds, RK4 with or without events (SampleKinds<rk4, events>: any loads and
// constraint), RK4 on Euler angles likewise (SampleKinds<rk4_euler_zxz, events>), or the
// splitting with or without them (SampleKinds<splitting, events>: any loads);
// events through LaneEventTracker, lane_events.hpp. Returns false, having stored nothing the
// one-sample path would not overwrite, when the group must go sample by sample.
template <class Scalar, int W, class Kinds, class StoredIn, class StoredOut>
inline bool run_fixed_step_lanes(const StoredIn* inputs, StoredOut* outputs, StoredOut* group_states,
                                 std::uint8_t* status, std::size_t n, std::size_t first,
                                 const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how) {
  static_assert(Kinds::stepper == StepperKind::rk4 || Kinds::stepper == StepperKind::splitting ||
                    Kinds::stepper == StepperKind::rk4_euler_zxz,
                "the lanes run RK4, on quaternions or Euler angles, and the splitting");
  using L = Lanes<Scalar, W>;
  LaneGroup<Scalar, W, Kinds> group;
  if (!group.load(inputs, n, first, shared)) return false;
  // Stage: integrate, with the one-sample path's stepper and loop (fixed_step.hpp).
  static_assert(std::is_same_v<StoredOut, double>, "the lanes store doubles");
  LaneTrajectorySink<Scalar, W> sink{&shared.output_times, group_states, 0};
  using Rate = typename LaneGroup<Scalar, W, Kinds>::Rate;
  const Rate rate = group.rate();
  const IntegrationSettings<L> lanes_how = how.template cast<L>();
  // The one-sample path's stepper for the kind, on lanes (fixed_stepper.hpp).
  FixedStepperOf<Kinds::stepper, L, Rate> stepper = make_fixed_stepper<Kinds::stepper, L>(rate, lanes_how);
  // The events' records are written as they happen, into the samples' output columns; a group
  // that leaves the lanes is integrated again by the one-sample path, which writes them afresh.
  std::conditional_t<Kinds::events, LaneEventTracker<Scalar, W>, NoEvents> events;
  if constexpr (Kinds::events) events.start(shared.events, outputs, n, first, group.x0, group_states ? &sink.next : nullptr);
  sink.start(L(0), group.lanes_x0);
  const IntegrationEnd<L> end = integrate_fixed_step(stepper, rate, group.lanes_x0, lanes_how, events, sink);
  // Every lane ran to the end, or (with events) every lane stopped at a terminal event. A group
  // in which a lane met a reason to stop (a state that is not finite, Euler angles near their
  // singularity) goes sample by sample.
  if (end.status != SampleStatus::ok && !(Kinds::events && end.status == SampleStatus::terminal_event)) return false;
  sink.finish(end.state);
  if constexpr (Kinds::events) {
    for (int lane = 0; lane < W; ++lane) events.finish_trajectory(lane, shared.output_times, group_states);
    events.finish();
  }
  for (int lane = 0; lane < W; ++lane) {
    IntegrationEnd<Scalar> lane_end{lane_of(end.state, lane), end.time[lane], end.status, end.steps,
                                    end.rejected_steps, end.stopping_event};
    if constexpr (Kinds::events) {
      const auto& stop = events.stops[lane];
      if (stop.stopped)
        lane_end = {stop.state, stop.time, SampleStatus::terminal_event, stop.steps, 0, stop.event};
    }
    group.finish(lane, lane_end, shared, how, outputs, status, n, first);
  }
  return true;
}

}  // namespace rbmc

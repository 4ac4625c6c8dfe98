// W samples on the adaptive Dormand–Prince 5(4) (dopri5.hpp) integrated together in SIMD lanes on
// the CPU, each lane with its own step, time and counts. Every iteration tries a step in all lanes
// at once: the right-hand side is autonomous, so the seven stages are one sample's operations on
// Lanes<Scalar, W> whatever each lane's time and step (lane_group.hpp's LaneRate). Each lane's
// verdict, step control (Dopri5Control), output times (its own TrajectorySink) and events (its own
// EventTracker, reached only where its event functions may have crossed, as in the fixed steps'
// lanes) are the one-sample path's, lane by lane, and the accepted lanes take their trial by a
// blend, so every lane's result equals its sample's one-sample result bit for bit
// (tests/host/lane_groups_test.cpp). A lane that has ended rides along on a null step until the
// whole group has: the group costs its longest sample's trials.
//
// What the lanes cannot follow alike leaves them: a group the LaneGroup cannot take (lane_group.hpp),
// or in which a running lane's trial is not finite (the one-sample path then shrinks that lane's
// step, and a right-hand side that branches on a non-finite value would not give each lane what
// it gives one sample) is integrated sample by sample instead, which writes every result afresh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "rbmc/integrate/dopri5.hpp"
#include "rbmc/simd/lane_events.hpp"
#include "rbmc/simd/lane_group.hpp"
#include "rbmc/simd/lanes.hpp"

namespace rbmc {

// Lane `lane` of a step's dense output from the lanes' start (y0, k1), trial and times: the
// interpolant the one-sample path keeps (integrate_dopri5), from the same values.
template <class S, int W>
inline Dopri5Dense<S> lane_of(const StateVector<Lanes<S, W>>& y0, const StateVector<Lanes<S, W>>& k1,
                              const Dopri5Trial<Lanes<S, W>>& trial, const Lanes<S, W>& t0, const Lanes<S, W>& h,
                              int lane) {
  Dopri5Dense<S> one;
  for (int c = 0; c < state_offset::count; ++c) {
    one.y0(c) = y0(c)[lane];
    one.k1(c) = k1(c)[lane];
    one.y1(c) = trial.y(c)[lane];
    one.k7(c) = trial.k7(c)[lane];
    one.r5(c) = trial.r5(c)[lane];
  }
  one.t0 = t0[lane];
  one.h = h[lane];
  return one;
}

// Integrates samples first, ..., first + W − 1 of a batch (the layout of sample_layout.hpp) in
// lanes and stores their results; their states at the output times into group_states (their
// group's block, TrajectoryLayout::by_group), or nowhere when null. Kinds: dopri5, with events
// or without (any loads and constraint). Returns false, having stored nothing the one-sample path
// would not overwrite, when the group must go sample by sample.
template <class Scalar, int W, class Kinds, class StoredIn, class StoredOut>
inline bool run_dopri5_lanes(const StoredIn* inputs, StoredOut* outputs, StoredOut* group_states, std::uint8_t* status,
                             std::size_t n, std::size_t first, const SharedModel<Scalar>& shared,
                             const IntegrationSettings<Scalar>& how) {
  static_assert(Kinds::stepper == StepperKind::dopri5, "the adaptive lanes run dopri5");
  static_assert(std::is_same_v<StoredOut, double>, "the lanes store doubles");
  using L = Lanes<Scalar, W>;
  LaneGroup<Scalar, W, Kinds> group;
  if (!group.load(inputs, n, first, shared)) return false;
  const typename LaneGroup<Scalar, W, Kinds>::Rate rate = group.rate();
  // Stage: each lane's start, as run_sample and integrate_dopri5 begin it.
  StateVector<L> y = pack(group.lanes_x0);
  StateVector<L> k1 = pack(rate(group.lanes_x0));
  Dopri5Control<Scalar> control[W];
  TrajectorySink<Scalar, double> sinks[W];
  std::conditional_t<Kinds::events, LaneEventTrackers<Scalar, W>, NoEvents> events;
  if constexpr (Kinds::events) events.start(shared.events, outputs, n, first, group.x0);
  IntegrationEnd<Scalar> ends[W];
  bool running[W];
  int n_running = W;
  for (int lane = 0; lane < W; ++lane) {
    control[lane] = Dopri5Control<Scalar>(how);
    sinks[lane] = {&shared.output_times, group_states, std::size_t(W), std::size_t(lane), 0};
    sinks[lane].start(Scalar(0), group.x0[lane]);
    running[lane] = true;
  }
  const L zero(0), rtol(how.rtol), atol(how.atol);
  const auto end_lane = [&](int lane, const IntegrationEnd<Scalar>& end) {
    ends[lane] = end;
    running[lane] = false;
    --n_running;
  };
  const auto end_where_it_is = [&](int lane) {
    const Dopri5Control<Scalar>& c = control[lane];
    end_lane(lane, {lane_of(unpack(y), lane), c.t, c.status, c.accepted, c.rejected, -1});
  };
  for (;;) {
    // Stage: each running lane's next trial, or its end; a lane that has ended tries a null step.
    L t, step;
    for (int lane = 0; lane < W; ++lane) {
      if (running[lane] && !control[lane].begin_trial(how)) end_where_it_is(lane);
      t.set(lane, control[lane].t);
      step.set(lane, running[lane] ? control[lane].step : Scalar(0));
    }
    if (n_running == 0) break;
    // Stage: the trial in every lane, its error norm, and its state back on the unit sphere.
    const Dopri5Trial<L> trial = dopri5_trial(rate, y, k1, step);
    const L err = error_norm(trial.error, y, trial.y, rtol, atol);
    StateVector<L> y_trial = trial.y;
    renormalize_attitude(y_trial);
    // Stage: each running lane's verdict; the accepted ones take their trial (taken: 1 in them).
    bool accepted[W];
    L taken(0), t1;
    const StateVector<L> y0 = y, k0 = k1;  // the step's start, which its interpolant needs
    for (int lane = 0; lane < W; ++lane) {
      accepted[lane] = false;
      if (running[lane]) {
        if (!isfinite_hd(err[lane])) return false;
        accepted[lane] = err[lane] <= Scalar(1);
        if (accepted[lane]) {
          taken.set(lane, Scalar(1));
          control[lane].accept(how);
        }
      }
      t1.set(lane, control[lane].t);
    }
    for (int c = 0; c < state_offset::count; ++c) {
      y(c) = if_less_hd(zero, taken, y_trial(c), y(c));
      k1(c) = if_less_hd(zero, taken, trial.k7(c), k1(c));
    }
    // Stage: the events and output times of each lane that moved, then every running lane's next
    // step, as integrate_dopri5 takes them.
    const RigidBodyState<L> x1 = unpack(y);
    L g1[EventSet<Scalar>::kMax];
    bool may_cross = false;
    if constexpr (Kinds::events) may_cross = events.evaluate(t1, x1, g1);
    for (int lane = 0; lane < W; ++lane) {
      if (!running[lane]) continue;
      if (accepted[lane]) {
        const Scalar t_end = t1[lane];
        if constexpr (Kinds::events) {
          Scalar t_stop;
          RigidBodyState<Scalar> x_stop;
          int which = -1;
          if (may_cross && events.crossed(lane, g1)) {
            const Dopri5Dense<Scalar> dense = lane_of(y0, k0, trial, t, step, lane);
            if (events.check_lane(lane, dense, t[lane], t_end, lane_of(x1, lane), t_stop, x_stop, which)) {
              sinks[lane].step(dense, t_stop, x_stop);
              const Dopri5Control<Scalar>& c = control[lane];
              end_lane(lane, {x_stop, t_stop, SampleStatus::terminal_event, c.accepted, c.rejected, which});
              continue;
            }
          }
        }
        if (sinks[lane].data != nullptr && covers_time_by_end(shared.output_times, sinks[lane].next, t_end))
          sinks[lane].step(lane_of(y0, k0, trial, t, step, lane), t_end, lane_of(x1, lane));
      }
      if (!control[lane].next_step(err[lane], accepted[lane], how)) end_where_it_is(lane);
    }
    // Each lane's g at its last accepted state: a lane that did not move evaluated them where it was.
    if constexpr (Kinds::events)
      for (int i = 0; i < events.lane_set.n; ++i) events.g[i] = g1[i];
  }
  // Stage: each lane's trajectory and event counts closed, and its end finished, as run_sample's.
  for (int lane = 0; lane < W; ++lane) sinks[lane].finish(ends[lane].status == SampleStatus::ok, ends[lane].state);
  events.finish();
  for (int lane = 0; lane < W; ++lane) group.finish(lane, ends[lane], shared, how, outputs, status, n, first);
  return true;
}

}  // namespace rbmc

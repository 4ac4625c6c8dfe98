// Events (rbmc/integrate/events.hpp) for W samples integrated together in SIMD lanes on the CPU:
// the event policy that the fixed-step loop (fixed_step.hpp) calls for the lanes
// (fixed_step_lanes.hpp), as EventTracker is for one sample, and the lane trackers it shares with
// dopri5's lanes (dopri5_lanes.hpp), whose lanes step on their own.
//
// Each step evaluates every event function in all lanes at once; most steps bracket no root in
// any lane and cost nothing more. Where a lane's function changes sign, that lane's own tracker
// (the one-sample path's EventTracker, writing the sample's records into its output columns)
// checks the step on that lane's interpolant, so the root, the record and the count are the
// one-sample path's bit for bit. A lane stopped by a terminal event keeps being integrated with
// the others (its results are then ignored: it holds what its end was), and the loop stops only
// when every lane has stopped. Where the sample stopped, its states at the later output times are
// the one-sample path's (NaN), written by its own sink when the group finishes
// (finish_trajectory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "rbmc/integrate/events.hpp"
#include "rbmc/integrate/output_times.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/simd/lanes.hpp"

namespace rbmc {

// Whether g may change sign between g0 and g1 in some lane, in either direction: a filter that
// passes every lane `crosses` (events.hpp, the one rule) would count, in any direction, which is
// then checked lane by lane (Lanes.FindASignChangeInAnyLane holds the two together).
template <class S, int W>
inline bool some_lane_changes_sign(const Lanes<S, W>& g0, const Lanes<S, W>& g1) {
  const auto up = (g0.v < S(0)) & (g1.v >= S(0));
  const auto down = (g0.v > S(0)) & (g1.v <= S(0));
  const auto either = up | down;  // all ones in a lane that may cross
  typename Lanes<S, W>::Vector bits;
  std::memcpy(&bits, &either, sizeof bits);
  return or_of_lane_bits<S, W>(bits) != 0;
}

// Lane `lane` of a step's interpolant: the one the one-sample path builds from the same values.
template <class S, int W>
inline PackedHermiteInterpolant<S> lane_of(const PackedHermiteInterpolant<Lanes<S, W>>& interp, int lane) {
  PackedHermiteInterpolant<S> one;
  for (int c = 0; c < interp.y0.size(); ++c) {
    one.y0(c) = interp.y0(c)[lane];
    one.f0(c) = interp.f0(c)[lane];
    one.y1(c) = interp.y1(c)[lane];
    one.f1(c) = interp.f1(c)[lane];
  }
  one.t0 = interp.t0[lane];
  one.h = interp.h[lane];
  return one;
}

// Each lane's own event tracker (the one-sample path's EventTracker, writing the sample's records
// into its output columns) and the event functions' values at each lane's last accepted state,
// held as lanes: what the lanes' event policies share, the fixed steps' (LaneEventTracker) and
// the adaptive steps' (dopri5_lanes.hpp), where each lane steps on its own.
template <class Scalar, int W>
struct LaneEventTrackers {
  using L = Lanes<Scalar, W>;
  using OneSample = EventTracker<Scalar, StoredEventRecords<Scalar, double>>;
  static constexpr int kMax = EventSet<Scalar>::kMax;

  EventSet<L> lane_set;  // the run's events, every lane the same
  L g[kMax];             // each g at the last accepted state, lane by lane
  OneSample lanes[W];    // each lane's tracker: its records and counts

  bool any() const { return lane_set.n > 0; }

  // The start at t = 0 from each lane's x0, writing each sample's records' start (samples first,
  // ..., first + W − 1 of a batch of n).
  void start(const EventSet<Scalar>& events, double* outputs, std::size_t n, std::size_t first,
             const RigidBodyState<Scalar>* x0) {
    lane_set = events.template cast<L>();
    for (int lane = 0; lane < W; ++lane) {
      lanes[lane].records = {outputs, n, first + std::size_t(lane)};
      lanes[lane].start(events, Scalar(0), x0[lane]);
      for (int i = 0; i < events.n; ++i) g[i].set(lane, lanes[lane].g[i]);
    }
  }

  // Every g at (t1, x1) in all lanes, into g1; whether any may have changed sign in some lane
  // since g (most steps: none, and nothing more is done).
  bool evaluate(const L& t1, const RigidBodyState<L>& x1, L* g1) const {
    bool may_cross = false;
    for (int i = 0; i < lane_set.n; ++i) {
      g1[i] = event_function(lane_set.events[i], t1, x1);
      may_cross = may_cross || some_lane_changes_sign(g[i], g1[i]);
    }
    return may_cross;
  }
  // Whether some g crossed in lane `lane` between g and g1, by the one rule (events.hpp).
  bool crossed(int lane, const L* g1) const {
    bool crossed = false;
    for (int i = 0; i < lane_set.n; ++i)
      crossed = crossed || crosses(lane_set.events[i].direction, g[i][lane], g1[i][lane]);
    return crossed;
  }
  // Lane `lane`'s own tracker on the lane's step (its g brought up to the lanes' first): true when
  // a terminal event stopped it, at t_stop in x_stop. Rare, and scalar: kept out of the lanes'
  // loop, which the group functions otherwise inline whole (cpu_lanes_unit.inc's flatten).
  template <class Interpolant>
  __attribute__((noinline, cold)) bool check_lane(int lane, const Interpolant& interp, Scalar t0, Scalar t1,
                                                  const RigidBodyState<Scalar>& x1, Scalar& t_stop,
                                                  RigidBodyState<Scalar>& x_stop, int& which) {
    OneSample& one = lanes[lane];
    for (int i = 0; i < lane_set.n; ++i) one.g[i] = g[i][lane];
    return one.step(interp, t0, t1, x1, t_stop, x_stop, which);
  }

  // Each lane's counts, once the integration has ended.
  void finish() const {
    for (int lane = 0; lane < W; ++lane) lanes[lane].finish();
  }
};

// The event policy of W lanes of a batch that step together (fixed steps), samples first, ...,
// first + W − 1: their records into their output columns (StoredEventRecords), as the one-sample
// path writes them.
template <class Scalar, int W>
struct LaneEventTracker {
  using L = Lanes<Scalar, W>;
  static constexpr int kMax = EventSet<Scalar>::kMax;

  // Where a lane stopped: its end, and what its sink needs to write the output times from the
  // stopping step on.
  struct Stop {
    bool stopped = false;
    Scalar time = 0;
    RigidBodyState<Scalar> state{};
    int event = -1;
    std::int64_t steps = 0;   // the steps taken, the stopping one included
    int next_output = 0;      // the first output time the lanes' sink had not written before it
    PackedHermiteInterpolant<Scalar> interp{};  // the stopping step's
  };

  LaneEventTrackers<Scalar, W> trackers;
  L g_end[kMax];  // every g at the current step's end, between advance() and step()
  Stop stops[W];
  const int* sink_next = nullptr;  // the lanes' sink's first output time not yet written (or none)
  std::int64_t steps = 0;   // steps closed so far
  int stopped = 0;          // lanes stopped

  bool any() const { return trackers.any(); }

  // The start at t = 0 from each lane's x0 (fixed_step_lanes.hpp), writing each sample's records'
  // start.
  void start(const EventSet<Scalar>& events, double* outputs, std::size_t n, std::size_t first,
             const RigidBodyState<Scalar>* x0, const int* next_output) {
    trackers.start(events, outputs, n, first, x0);
    sink_next = next_output;
  }

  // The fixed-step loop's check of each step's end (t1, x1), as EventTracker::advance: every g
  // there; false when no lane's g may have changed sign (most steps), and every g takes its new
  // value; true when one may have, and step() is to be called on the step's interpolant.
  bool advance(const L& t1, const RigidBodyState<L>& x1) {
    ++steps;
    if (trackers.evaluate(t1, x1, g_end)) return true;
    for (int i = 0; i < trackers.lane_set.n; ++i) trackers.g[i] = g_end[i];
    return false;
  }

  // The step to (t1, x1) on its interpolant, after advance() returned true: each lane in which an
  // event crossed is checked on its own. Returns true once every lane has stopped, with their
  // stopping times and states.
  template <class Interpolant>
  bool step(const Interpolant& interp, const L& t0, const L& t1, const RigidBodyState<L>& x1, L& t_stop,
            RigidBodyState<L>& x_stop, int& stopping_event) {
    for (int lane = 0; lane < W; ++lane)
      if (!stops[lane].stopped && trackers.crossed(lane, g_end))
        check_lane(lane, lane_of(interp, lane), t0[lane], t1[lane], lane_of(x1, lane));
    for (int i = 0; i < trackers.lane_set.n; ++i) trackers.g[i] = g_end[i];
    if (stopped < W) return false;
    for (int lane = 0; lane < W; ++lane) {
      t_stop.set(lane, stops[lane].time);
      set_lane(x_stop, lane, stops[lane].state);
    }
    stopping_event = stops[0].event;
    return true;
  }

  // Each lane's counts, once the integration has ended.
  void finish() const { trackers.finish(); }

  // A stopped lane's states at the output times from its stopping step on, into its group's block
  // (TrajectoryLayout::by_group), as its one-sample sink writes them: the times up to the stop on
  // the step's interpolant, NaN after it. The lanes' sink wrote the lane's later states there.
  void finish_trajectory(int lane, const OutputTimes<Scalar>& times, double* group_states) const {
    const Stop& s = stops[lane];
    if (!s.stopped || group_states == nullptr) return;
    TrajectorySink<Scalar, double> sink{&times, group_states, std::size_t(W), std::size_t(lane), s.next_output};
    sink.step(s.interp, s.time, s.state);
    sink.finish(false, s.state);
  }

 private:
  void check_lane(int lane, const PackedHermiteInterpolant<Scalar>& interp, Scalar t0, Scalar t1,
                  const RigidBodyState<Scalar>& x1) {
    Stop& s = stops[lane];
    if (!trackers.check_lane(lane, interp, t0, t1, x1, s.time, s.state, s.event)) return;
    s.stopped = true;
    s.steps = steps;
    s.next_output = sink_next != nullptr ? *sink_next : 0;
    s.interp = interp;
    ++stopped;
  }
};

}  // namespace rbmc

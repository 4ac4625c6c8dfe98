// States at requested output times, taken from each step's interpolant (DOPRI5's dense output or
// the cubic Hermite interpolant), so adaptive steps are never shortened to land on them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rbmc/dynamics/state.hpp"
#include "rbmc/integrate/events.hpp"

namespace rbmc {

// The output times: t_k = k · interval for k < n, or an ascending list of up to kMaxListed times
// (held in the struct, so that it travels to a kernel as an argument).
template <class Scalar>
struct OutputTimes {
  static constexpr int kMaxListed = 64;
  int n = 0;
  Scalar interval = 0;
  bool listed = false;
  Scalar list[kMaxListed] = {};

  RBMC_HD Scalar at(int k) const { return listed ? list[k] : Scalar(k) * interval; }

  template <class Other>
  OutputTimes<Other> cast() const {
    OutputTimes<Other> o;
    o.n = n;
    o.interval = Other(interval);
    o.listed = listed;
    for (int k = 0; k < kMaxListed; ++k) o.list[k] = Other(list[k]);
    return o;
  }
};

// How far from a step's end t1 an output time still lies on it: a few ulps, as k Δt against n h.
template <class Scalar>
RBMC_HD_INLINE Scalar on_end_tolerance(Scalar t1) {
  return Scalar(4) * Eigen::NumTraits<Scalar>::epsilon() * (t1 < Scalar(0) ? -t1 : t1);
}

// The output times that a step ending at t1 covers, from the first not yet taken (next): take(k,
// t_k, on_end) for each, where on_end says that t_k lies on the step's end (on_end_tolerance)
// and so takes the end state itself, not the interpolant. Returns the first time not covered.
// Every sink of states at the output times steps through them here.
template <class Scalar, class Take>
RBMC_HD_INLINE int take_output_times(const OutputTimes<Scalar>& times, int next, Scalar t1, Take&& take) {
  const Scalar ulps = on_end_tolerance(t1);
  for (; next < times.n && times.at(next) <= t1 + ulps; ++next) {
    const Scalar t = times.at(next);
    take(next, t, t >= t1 - ulps);
  }
  return next;
}

// Whether a step ending at t1 covers an output time, from next on, that does not lie on its end
// (take_output_times' on_end): only such a time needs the step's interpolant.
template <class Scalar>
RBMC_HD_INLINE bool covers_time_before_end(const OutputTimes<Scalar>& times, int next, Scalar t1) {
  return next < times.n && times.at(next) < t1 - on_end_tolerance(t1);
}

// Whether a step ending at t1 covers an output time from next on, on its end or before it: only
// then does a sink take anything of the step.
template <class Scalar>
RBMC_HD_INLINE bool covers_time_by_end(const OutputTimes<Scalar>& times, int next, Scalar t1) {
  return next < times.n && times.at(next) <= t1 + on_end_tolerance(t1);
}

// Columns per output time in the trajectory buffer: the state's 13 values (state_offset).
inline constexpr int kTrajectoryColumns = state_offset::count;

// Writes sample i's states at the output times into a structure-of-arrays buffer: component c
// at time k at data[(k · 13 + c) · n + i]. Times after the sample stopped are left as NaN.
// The output times are referred to, not copied: a kernel reads them from its parameters.
template <class Scalar, class Stored>
struct TrajectorySink {
  const OutputTimes<Scalar>* times;
  Stored* data = nullptr;  // null: no trajectory is kept
  std::size_t n = 0, i = 0;
  int next = 0;  // the first output time not yet written

  RBMC_HD bool active() const { return data != nullptr && next < times->n; }

  RBMC_HD void write(int k, const RigidBodyState<Scalar>& x) {
    const StateVector<Scalar> y = pack(x);
    for (int c = 0; c < kTrajectoryColumns; ++c) data[(std::size_t(k) * kTrajectoryColumns + c) * n + i] = Stored(y(c));
  }

  // Whether a step ending at t1 needs its interpolant here.
  RBMC_HD bool interpolates(Scalar t1) const { return data != nullptr && covers_time_before_end(*times, next, t1); }

  // The start: times at or before t0.
  RBMC_HD void start(Scalar t0, const RigidBodyState<Scalar>& x0) {
    while (active() && times->at(next) <= t0) write(next++, x0);
  }

  // One step ending at t1 in the state x1, with its interpolant: the times in (t0, t1].
  template <class Interpolant>
  RBMC_HD void step(const Interpolant& interp, Scalar t1, const RigidBodyState<Scalar>& x1) {
    if (data == nullptr) return;
    next = take_output_times(*times, next, t1, [&](int k, Scalar t, bool on_end) {
      write(k, on_end ? x1 : interpolated_state<Scalar>(interp, t));
    });
  }

  // The end. A sample that reached the end time gives its final state to any time not yet
  // written (only the last, when k Δt rounds an ulp past n h); one that stopped early has no state
  // for the times after it stopped (NaN).
  RBMC_HD void finish(bool reached_end, const RigidBodyState<Scalar>& x_end) {
    while (data != nullptr && next < times->n) {
      if (reached_end) {
        write(next++, x_end);
        continue;
      }
      for (int c = 0; c < kTrajectoryColumns; ++c)
        data[(std::size_t(next) * kTrajectoryColumns + c) * n + i] = Stored(Eigen::NumTraits<Scalar>::quiet_NaN());
      ++next;
    }
  }
};

// No trajectory: a sink that takes nothing.
struct NoTrajectory {
  RBMC_HD bool active() const { return false; }
  template <class Scalar>
  RBMC_HD bool interpolates(Scalar) const { return false; }
  template <class Scalar, class State>
  RBMC_HD void start(Scalar, const State&) {}
  template <class Interpolant, class Scalar, class State>
  RBMC_HD void step(const Interpolant&, Scalar, const State&) {}
  template <class State>
  RBMC_HD void finish(bool, const State&) {}
};

}  // namespace rbmc

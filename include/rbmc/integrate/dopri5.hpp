// Dormand–Prince 5(4): an explicit Runge–Kutta pair with an embedded error estimate, first same
// as last (the last stage's rate is the next step's first), and a fourth-order continuous
// extension for dense output (Hairer, Nørsett & Wanner, Solving ODEs I, §II.5–6; the
// coefficients of their DOPRI5 code).
#pragma once

#include <cstdint>

#include "rbmc/integrate/events.hpp"
#include "rbmc/integrate/integration_settings.hpp"
#include "rbmc/integrate/state_vector.hpp"

namespace rbmc {

template <class Scalar>
struct Dopri5Trial {
  StateVector<Scalar> y;      // fifth-order solution at t + h
  StateVector<Scalar> error;  // its estimated local error
  StateVector<Scalar> k7;     // the rate at y (the next step's k1 when accepted)
  StateVector<Scalar> r5;     // h Σ d_i k_i: the one term of the continuous extension needing k3…k6
};

// The continuous extension over one step from t0 to t0 + h, fourth order (Hairer, Nørsett & Wanner,
// Solving ODEs I, §II.6, their DOPRI5 code's dense output):
//   y(t0 + θh) = r1 + θ (r2 + (1 − θ)(r3 + θ (r4 + (1 − θ) r5))),  θ ∈ [0, 1],
// with r1 = y0, r2 = y1 − y0, r3 = h k1 − r2, r4 = r2 − h k7 − r3 from the step's ends (y0, k1) and
// (y1, k7), and r5 from its stages (Dopri5Trial). Only r5 is formed in the trial: the others come
// from values the loop holds anyway, so a step whose interpolant is never evaluated (no event
// declared and no output time inside it) forms none of them, and the trial hands back 4 vectors,
// not 8 (on the device in double it is a call whose result passes through the stack).
template <class Scalar>
RBMC_HD inline StateVector<Scalar> dopri5_dense_output(const StateVector<Scalar>& y0, const StateVector<Scalar>& k1,
                                                       const StateVector<Scalar>& y1, const StateVector<Scalar>& k7,
                                                       const StateVector<Scalar>& r5, Scalar t0, Scalar h, Scalar t) {
  const StateVector<Scalar> r2 = y1 - y0, r3 = h * k1 - r2, r4 = r2 - h * k7 - r3;
  const Scalar theta = (t - t0) / h, theta1 = Scalar(1) - theta;
  return y0 + theta * (r2 + theta1 * (r3 + theta * (r4 + theta1 * r5)));
}

// That interpolant over one step from t0 to t0 + h: the step's ends and r5. integrate_dopri5's loop
// keeps its step in one (the start, then the trial's end), and the CPU's lanes copy out a lane's
// (dopri5_lanes.hpp).
template <class Scalar>
struct Dopri5Dense {
  StateVector<Scalar> y0, k1, y1, k7, r5;
  Scalar t0, h;
  RBMC_HD StateVector<Scalar> at(Scalar t) const { return dopri5_dense_output(y0, k1, y1, k7, r5, t0, h, t); }
};

// The rate at a packed state, a stage's: inlined at each of the seven stages on the device.
// Left to nvcc, it stays a call, whose argument and result, and the caller's live values, pass
// through the stack: inlined, the double kernel's spill stores fall from 1,066 bytes to 396 (sm_90,
// bench/RESULTS.md). On the host the compiler chooses.
template <class Scalar, class Rate>
RBMC_HD_KERNEL_INLINE StateVector<Scalar> dopri5_stage_rate(const Rate& rate, const StateVector<Scalar>& z) {
  return pack(rate(unpack(z)));
}

// One trial step of size h from y with rate k1 = f(y); rate(x) returns ẋ for a state.
template <class Scalar, class Rate>
RBMC_HD_KERNEL_INLINE Dopri5Trial<Scalar> dopri5_trial(const Rate& rate, const StateVector<Scalar>& y,
                                                      const StateVector<Scalar>& k1, Scalar h) {
  // The Butcher tableau (nodes enter only through the rates: the system is autonomous), the error
  // weights e = b − b̂ and the dense-output weights d. Locals, not static members: device code
  // cannot take the address of a class template's static constant.
  const Scalar a21 = Scalar(1) / Scalar(5);
  const Scalar a31 = Scalar(3) / Scalar(40), a32 = Scalar(9) / Scalar(40);
  const Scalar a41 = Scalar(44) / Scalar(45), a42 = Scalar(-56) / Scalar(15), a43 = Scalar(32) / Scalar(9);
  const Scalar a51 = Scalar(19372) / Scalar(6561), a52 = Scalar(-25360) / Scalar(2187),
               a53 = Scalar(64448) / Scalar(6561), a54 = Scalar(-212) / Scalar(729);
  const Scalar a61 = Scalar(9017) / Scalar(3168), a62 = Scalar(-355) / Scalar(33), a63 = Scalar(46732) / Scalar(5247),
               a64 = Scalar(49) / Scalar(176), a65 = Scalar(-5103) / Scalar(18656);
  const Scalar a71 = Scalar(35) / Scalar(384), a73 = Scalar(500) / Scalar(1113), a74 = Scalar(125) / Scalar(192),
               a75 = Scalar(-2187) / Scalar(6784), a76 = Scalar(11) / Scalar(84);
  const Scalar e1 = Scalar(71) / Scalar(57600), e3 = Scalar(-71) / Scalar(16695), e4 = Scalar(71) / Scalar(1920),
               e5 = Scalar(-17253) / Scalar(339200), e6 = Scalar(22) / Scalar(525), e7 = Scalar(-1) / Scalar(40);
  const Scalar d1 = Scalar(-12715105075.0 / 11282082432.0), d3 = Scalar(87487479700.0 / 32700410799.0),
               d4 = Scalar(-10690763975.0 / 1880347072.0), d5 = Scalar(701980252875.0 / 199316789632.0),
               d6 = Scalar(-1453857185.0 / 822651844.0), d7 = Scalar(69997945.0 / 29380423.0);
  const StateVector<Scalar> k2 = dopri5_stage_rate<Scalar>(rate, y + h * (a21 * k1));
  const StateVector<Scalar> k3 = dopri5_stage_rate<Scalar>(rate, y + h * (a31 * k1 + a32 * k2));
  const StateVector<Scalar> k4 = dopri5_stage_rate<Scalar>(rate, y + h * (a41 * k1 + a42 * k2 + a43 * k3));
  const StateVector<Scalar> k5 = dopri5_stage_rate<Scalar>(rate, y + h * (a51 * k1 + a52 * k2 + a53 * k3 + a54 * k4));
  // The fifth-order sum, the error's and r5's taken as far as k5 before the sixth stage: three
  // vectors live through the last two rates, not four and five of the stages (the device's trial
  // call in double spilled with those held; sm_90, bench/RESULTS.md, forty-eighth session). Each
  // sum is the same terms in the same order as the one expression it replaces: the same roundings.
  const StateVector<Scalar> y_sum5 = a71 * k1 + a73 * k3 + a74 * k4 + a75 * k5;
  const StateVector<Scalar> error_sum5 = e1 * k1 + e3 * k3 + e4 * k4 + e5 * k5;
  const StateVector<Scalar> r5_sum5 = d1 * k1 + d3 * k3 + d4 * k4 + d5 * k5;
  const StateVector<Scalar> k6 = dopri5_stage_rate<Scalar>(rate, y + h * (a61 * k1 + a62 * k2 + a63 * k3 + a64 * k4 + a65 * k5));
  const StateVector<Scalar> error_sum6 = error_sum5 + e6 * k6;
  const StateVector<Scalar> r5_sum6 = r5_sum5 + d6 * k6;
  Dopri5Trial<Scalar> out;
  out.y = y + h * (y_sum5 + a76 * k6);
  out.k7 = dopri5_stage_rate<Scalar>(rate, out.y);
  out.error = h * (error_sum6 + e7 * out.k7);
  out.r5 = h * (r5_sum6 + d7 * out.k7);
  return out;
}

// The trial, where integrate_dopri5 takes it. On the device in float it is inlined into the
// kernel (the frame falls from 608 bytes to 32, with no spill either way); in double nvcc keeps it
// a call, as the host's compiler may: inlined, the double kernel spills 1,612 bytes against 396
// (sm_90, bench/RESULTS.md).
template <class Scalar, class Rate>
RBMC_HD inline Dopri5Trial<Scalar> dopri5_trial_call(const Rate& rate, const StateVector<Scalar>& y,
                                                     const StateVector<Scalar>& k1, Scalar h) {
  return dopri5_trial(rate, y, k1, h);
}
template <class Scalar, class Rate>
RBMC_HD_KERNEL_INLINE Dopri5Trial<Scalar> dopri5_trial_by_precision(const Rate& rate, const StateVector<Scalar>& y,
                                                                    const StateVector<Scalar>& k1, Scalar h) {
  if constexpr (sizeof(Scalar) == 4)
    return dopri5_trial(rate, y, k1, h);
  else
    return dopri5_trial_call(rate, y, k1, h);
}

// Hairer's error norm: the root-mean-square of e_i / (atol + rtol max(|y_i|, |ŷ_i|)); a step is
// accepted when it is at most 1.
template <class Scalar>
RBMC_HD inline Scalar error_norm(const StateVector<Scalar>& error, const StateVector<Scalar>& y,
                                 const StateVector<Scalar>& y_new, Scalar rtol, Scalar atol) {
  Scalar sum = Scalar(0);
  for (int i = 0; i < state_offset::count; ++i) {
    const Scalar a = Eigen::numext::abs(y(i)), b = Eigen::numext::abs(y_new(i));
    const Scalar scale = atol + rtol * if_less_hd(b, a, a, b);  // a > b ? a : b, also in the CPU's lanes
    const Scalar r = error(i) / scale;
    sum += r * r;
  }
  return sqrt_hd(sum / Scalar(int(state_offset::count)));
}

// The next step from this one's error norm (elementary controller, Hairer II.4): the factor
// 0.9 err^(−1/5), limited to [0.2, 10] (to [0.2, 1] right after a rejection).
template <class Scalar>
RBMC_HD inline Scalar next_step_factor(Scalar err, bool after_rejection) {
  const Scalar max_growth = after_rejection ? Scalar(1) : Scalar(10);
  if (!(err > Scalar(0))) return max_growth;
  Scalar factor = Scalar(0.9) * Eigen::numext::pow(err, Scalar(-0.2));
  factor = factor < Scalar(0.2) ? Scalar(0.2) : factor;
  return factor > max_growth ? max_growth : factor;
}

// An accepted step's state back onto the unit sphere of attitudes. The next step's k1 is the rate
// at the unnormalised state (the trial's k7), an O(tolerance) difference.
template <class Scalar>
RBMC_HD inline void renormalize_attitude(StateVector<Scalar>& y) {
  constexpr int q = state_offset::q_wb;
  const Scalar qn = sqrt_hd(y(q) * y(q) + y(q + 1) * y(q + 1) + y(q + 2) * y(q + 2) + y(q + 3) * y(q + 3));
  y.template segment<4>(q) /= qn;
}

// One sample's step control: its time, next step and counts, and the decisions around each trial
// (integrate_dopri5's loop; the CPU's lanes keep one per lane, rbmc/simd/dopri5_lanes.hpp). Each
// sample takes its own steps: accepted when the error norm is at most 1, then the step grows or
// shrinks by next_step_factor(); the last step is shortened to land on the end time.
template <class Scalar>
struct Dopri5Control {
  Scalar t = Scalar(0), h = Scalar(0);
  Scalar step = Scalar(0);  // the trial's
  bool last = false;        // the trial lands on the end time
  bool after_rejection = false;
  std::int64_t accepted = 0, rejected = 0;
  SampleStatus status = SampleStatus::ok;

  Dopri5Control() = default;
  RBMC_HD explicit Dopri5Control(const IntegrationSettings<Scalar>& how)
      : h(how.step < how.max_step ? how.step : how.max_step) {}

  // Whether a trial is due, and of what step: false at the end time, or at max_steps (the status
  // says so).
  RBMC_HD bool begin_trial(const IntegrationSettings<Scalar>& how) {
    if (!(t < how.duration)) return false;
    if (accepted + rejected >= how.max_steps) {
      status = SampleStatus::max_steps_reached;
      return false;
    }
    // Land on the end time; stretch by up to 1 % rather than leave a sliver of a step.
    const Scalar left = how.duration - t;
    last = h >= left * Scalar(0.99);
    step = last ? left : h;
    return true;
  }
  // A trial whose error norm is not finite: shrink like a rejection and try again (true); if the
  // step cannot shrink, the state itself is bad (false, status non_finite_state).
  RBMC_HD bool retry_non_finite(const IntegrationSettings<Scalar>& how) {
    if (step <= how.min_step) {
      status = SampleStatus::non_finite_state;
      return false;
    }
    h = step * Scalar(0.2);
    ++rejected;
    after_rejection = true;
    return true;
  }
  // An accepted trial: the time moves to the step's end. Returns the step's start.
  RBMC_HD Scalar accept(const IntegrationSettings<Scalar>& how) {
    const Scalar t0 = t;
    t = last ? how.duration : t + step;
    ++accepted;
    return t0;
  }
  // The next step after a trial of error norm err, accepted (after accept()) or rejected. False
  // when it underflows the least step before the end time (status step_size_underflow).
  RBMC_HD bool next_step(Scalar err, bool was_accepted, const IntegrationSettings<Scalar>& how) {
    if (was_accepted) {
      h = step * next_step_factor(err, after_rejection);
      after_rejection = false;
    } else {
      ++rejected;
      h = step * next_step_factor(err, true);
      after_rejection = true;
    }
    if (h > how.max_step) h = how.max_step;
    if (h < how.min_step && t < how.duration) {
      status = SampleStatus::step_size_underflow;
      return false;
    }
    return true;
  }
};

// The end of an accepted step `dense` to (t1, x1) that needs its interpolant: an event crossed in
// it (crossed: EventTracker::advance has taken the others' values), or it covers an output time
// short of its end. Returns true, with `end` filled in, when a terminal event stopped the sample.
template <class Scalar, class Events, class Sink>
RBMC_HD_KERNEL_INLINE bool close_interpolating_dopri5_step(const Dopri5Dense<Scalar>& dense, Events& events,
                                                           Sink& sink, Scalar t1, const RigidBodyState<Scalar>& x1,
                                                           bool crossed, const Dopri5Control<Scalar>& control,
                                                           IntegrationEnd<Scalar>& end) {
  Scalar t_stop;
  RigidBodyState<Scalar> x_stop;
  int which = -1;
  if (crossed && events.step(dense, dense.t0, t1, x1, t_stop, x_stop, which)) {
    sink.step(dense, t_stop, x_stop);
    end = {x_stop, t_stop, SampleStatus::terminal_event, control.accepted, control.rejected, which};
    return true;
  }
  sink.step(dense, t1, x1);
  return false;
}

// The same as a call: the device's in double. Inline, the root finding's and the interpolant's
// registers were taken from every step (sm_90, bench/RESULTS.md, forty-second session).
template <class Scalar, class Events, class Sink>
RBMC_HD_NOINLINE bool close_interpolating_dopri5_step_call(const Dopri5Dense<Scalar>& dense, Events& events,
                                                           Sink& sink, Scalar t1, const RigidBodyState<Scalar>& x1,
                                                           bool crossed, const Dopri5Control<Scalar>& control,
                                                           IntegrationEnd<Scalar>& end) {
  return close_interpolating_dopri5_step(dense, events, sink, t1, x1, crossed, control, end);
}

// The end of the accepted step `dense` to (t1, x1): events and output times. Most steps need no
// interpolant: no event crosses in them, and every output time they cover lies on their end, where
// the sink takes the end state. Returns true, with `end` filled in, when a terminal event stopped
// the sample.
template <class Scalar, class Events, class Sink>
RBMC_HD_KERNEL_INLINE bool close_dopri5_step(const Dopri5Dense<Scalar>& dense, Scalar t1,
                                             const RigidBodyState<Scalar>& x1, Events& events, Sink& sink,
                                             const Dopri5Control<Scalar>& control, IntegrationEnd<Scalar>& end) {
  bool crossed = false;
  if constexpr (kDeclaresEvents<Events>) crossed = events.advance(t1, x1);
  if (!crossed && !sink.interpolates(t1)) {
    sink.step(NoInterpolant{}, t1, x1);
    return false;
  }
#if defined(__CUDA_ARCH__)
  // A copy, so that the loop's own (integrate_dopri5's) need not live in memory for this rare call
  // where it need not (without events).
  if constexpr (sizeof(Scalar) == 8) {
    const Dopri5Dense<Scalar> copy = dense;
    return close_interpolating_dopri5_step_call(copy, events, sink, t1, x1, crossed, control, end);
  }
#endif
  return close_interpolating_dopri5_step(dense, events, sink, t1, x1, crossed, control, end);
}

// What one trial of integrate_dopri5's loop came to.
enum class Dopri5Outcome : std::uint8_t {
  rejected,       // try again from the same start (Dopri5Control has the next step)
  accepted,       // the step's end taken: close it, then go on
  accepted_last,  // the same, but the next step underflows (Dopri5Control's status): close it, then end
  stopped,        // the sample cannot go on (Dopri5Control's status)
};

// One trial from the start held in `step` (y0, k1) with Dopri5Control's step: its error norm and
// verdict, and the next step's size. The trial's end goes to `step` (y1, k7, r5, t0, h) and its
// state with the attitude renormalised to `y1`, accepted or not: written on some paths only, their
// values before the trial stayed live through it, the compiler not seeing that only an accepted
// trial's are read (float dopri5 went from 224 registers to 255 and spilled; sm_90).
template <class Scalar, class Rate>
RBMC_HD_KERNEL_INLINE Dopri5Outcome dopri5_attempt(const Rate& rate, Dopri5Dense<Scalar>& step,
                                                   StateVector<Scalar>& y1, Dopri5Control<Scalar>& control,
                                                   const IntegrationSettings<Scalar>& how) {
  const Dopri5Trial<Scalar> trial = dopri5_trial_by_precision(rate, step.y0, step.k1, control.step);
  const Scalar err = error_norm(trial.error, step.y0, trial.y, how.rtol, how.atol);
  step.y1 = trial.y;
  step.k7 = trial.k7;
  step.r5 = trial.r5;
  step.t0 = control.t;
  step.h = control.step;
  y1 = trial.y;
  renormalize_attitude(y1);
  if (!isfinite_hd(err)) return control.retry_non_finite(how) ? Dopri5Outcome::rejected : Dopri5Outcome::stopped;
  const bool accepted = err <= Scalar(1);
  if (accepted) control.accept(how);
  if (!control.next_step(err, accepted, how)) return accepted ? Dopri5Outcome::accepted_last : Dopri5Outcome::stopped;
  return accepted ? Dopri5Outcome::accepted : Dopri5Outcome::rejected;
}

// The same as a call: the device's in double with events. Inline, the kernel held the trial's
// result and the step's start with the events' values and spilled 284 bytes (sm_90,
// bench/RESULTS.md).
template <class Scalar, class Rate>
RBMC_HD_NOINLINE Dopri5Outcome dopri5_attempt_call(const Rate& rate, Dopri5Dense<Scalar>& step,
                                                   StateVector<Scalar>& y1, Dopri5Control<Scalar>& control,
                                                   const IntegrationSettings<Scalar>& how) {
  return dopri5_attempt(rate, step, y1, control, how);
}

// Adaptive Dormand–Prince 5(4) to the duration, each sample with its own step (Dopri5Control).
// Stops with max_steps_reached, step_size_underflow or non_finite_state when it cannot go on.
template <class Scalar, class Rate, class Events, class Sink>
RBMC_HD_KERNEL_INLINE IntegrationEnd<Scalar> integrate_dopri5(const Rate& rate, const RigidBodyState<Scalar>& x0,
                                                              const IntegrationSettings<Scalar>& how, Events& events,
                                                              Sink& sink) {
  // The step's start (y0, k1) and, after an accepted trial, its end and interpolant.
  Dopri5Dense<Scalar> step;
  step.y0 = pack(x0);
  step.k1 = pack(rate(x0));
  StateVector<Scalar> y1;
  Dopri5Control<Scalar> control(how);
  while (control.begin_trial(how)) {
    Dopri5Outcome outcome;
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(Scalar) == 8 && kDeclaresEvents<Events>)
      outcome = dopri5_attempt_call(rate, step, y1, control, how);
    else
#endif
      outcome = dopri5_attempt(rate, step, y1, control, how);
    if (outcome == Dopri5Outcome::stopped) break;
    if (outcome == Dopri5Outcome::rejected) continue;
    // The step's interpolant refers to its start, so the start moves on only after it is used.
    IntegrationEnd<Scalar> end;
    if ((events.any() || sink.active()) && close_dopri5_step(step, control.t, unpack(y1), events, sink, control, end))
      return end;
    step.y0 = y1;
    step.k1 = step.k7;
    if (outcome == Dopri5Outcome::accepted_last) break;
  }
  return {unpack(step.y0), control.t, control.status, control.accepted, control.rejected, -1};
}

}  // namespace rbmc

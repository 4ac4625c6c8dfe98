// The fixed-step loop, written once over a stepper: classical RK4 on quaternions, RK4 on ZXZ
// Euler angles (004's formulation), and the symplectic splitting.
//
// Each step's end is closed the same way whatever the stepper: a terminal event is located and
// the output times are filled on the cubic Hermite interpolant through the step's two states and
// their rates (third order), built only for a step in which an event crossed or that covers an
// output time short of its end. Times are products k h, not running sums: no accumulated rounding.
//
// A stepper offers:
//   kUsesStartRate            whether step() needs the rate at the step's start (RK4's first stage);
//                             when it does, the loop evaluates the rate at every step's end and
//                             hands it to the next step, so it is computed once; any other rate is
//                             evaluated only for a step that interpolates, on the host and the
//                             device alike;
//   start(x0) -> status       ok, or why the sample cannot start;
//   state()                   the state at the current step's start;
//   step(k0, h, next) -> status   the next state, or why it is not usable;
//   accept(next)              makes next the current state.
#pragma once

#include <type_traits>

#include "rbmc/dynamics/body_rate.hpp"
#include "rbmc/integrate/events.hpp"
#include "rbmc/integrate/integration_settings.hpp"
#include "rbmc/integrate/rk4.hpp"
#include "rbmc/integrate/splitting.hpp"
#include "rbmc/math/euler.hpp"
#include "rbmc/math/sincos.hpp"

namespace rbmc {

// Classical RK4 on the quaternion state (rk4.hpp).
template <class Scalar, class Rate>
struct Rk4Stepper {
  static constexpr bool kUsesStartRate = true;
  const Rate& rate;
  RigidBodyState<Scalar> x{};

  RBMC_HD SampleStatus start(const RigidBodyState<Scalar>& x0) {
    x = x0;
    return SampleStatus::ok;
  }
  RBMC_HD const RigidBodyState<Scalar>& state() const { return x; }
  RBMC_HD_INLINE SampleStatus step(const RigidBodyStateRate<Scalar>& k0, Scalar h, RigidBodyState<Scalar>& next) const {
    next = rk4_step(rate, x, k0, h);
    return is_finite(next) ? SampleStatus::ok : SampleStatus::non_finite_state;
  }
  RBMC_HD void accept(const RigidBodyState<Scalar>& next) { x = next; }
};

// The symplectic splitting (splitting.hpp); the body's principal frame is found once.
template <class Scalar, class Rate>
struct SplittingStepper {
  static constexpr bool kUsesStartRate = false;
  const Rate& rate;
  SplittingFrame<Scalar> frame{};
  RigidBodyState<Scalar> x{};

  RBMC_HD SampleStatus start(const RigidBodyState<Scalar>& x0) {
    frame = splitting_frame(rate.model);
    x = x0;
    return SampleStatus::ok;
  }
  RBMC_HD const RigidBodyState<Scalar>& state() const { return x; }
  RBMC_HD RigidBodyState<Scalar> next_state_call(Scalar h) const { return next_state(h); }
  RBMC_HD_KERNEL_INLINE RigidBodyState<Scalar> next_state(Scalar h) const {
    const auto wrench_of = [&](const RigidBodyState<Scalar>& s) { return rate.wrench(s); };
    return splitting_step(rate.model, frame, wrench_of, x, h);
  }
  // On the device in float the step is inlined into the kernel: its frame falls from 400 bytes to
  // 32 (800 to 432 with events), with no spill either way. In double the compiler keeps it a call,
  // as it does on the host: inlined, the double kernel spills 532 bytes against none (sm_90,
  // bench/RESULTS.md).
  RBMC_HD_INLINE SampleStatus step(const RigidBodyStateRate<Scalar>&, Scalar h, RigidBodyState<Scalar>& next) const {
    if constexpr (sizeof(Scalar) == 4)
      next = next_state(h);
    else
      next = next_state_call(h);
    return is_finite(next) ? SampleStatus::ok : SampleStatus::non_finite_state;
  }
  RBMC_HD void accept(const RigidBodyState<Scalar>& next) { x = next; }
};

// RK4 with the attitude carried as ZXZ Euler angles, the texts' own formulation: ẋ = A v of 004
// eq. 52, the angle rates from T (004 eq. 60) and the velocities' rates from the same right-hand
// side as always (evaluated at the angles' quaternion). The map T is singular at sin θ = 0: the
// sample stops with euler_singularity when |sin θ| falls below the threshold. Quaternions have no
// such singularity and are the default; this exists to reproduce 004.
//
// Each evaluation takes one sine and cosine of each half angle (sincos_hd: the same bits for one
// sample, on the device and in the CPU's SIMD lanes, which integrate this stepper too), from
// which come both the quaternion and the sines and cosines of θ and φ that T needs. On the host
// the state's attitude is kept with it, so a step's first stage and the loop's state() compute
// none; the device computes them again (kKeepsAttitude), the same numbers.
template <class Scalar, class Rate>
struct EulerZxzRk4Stepper {
  // The state [p, (ψ, θ, φ), v, ω] in a 13-vector whose last quaternion slot is unused.
  using V = StateVector<Scalar>;
  static constexpr int kAngles = state_offset::q_wb;  // where (ψ, θ, φ) lie
  static constexpr bool kUsesStartRate = false;
  // Kept, the attitudes and state (29 values more across every step) made the double kernel
  // spill 646 bytes where it spilled none (sm_90, bench/RESULTS.md, thirtieth session).
#if defined(__CUDA_ARCH__)
  static constexpr bool kKeepsAttitude = false;
#else
  static constexpr bool kKeepsAttitude = true;
#endif
  // The quaternion of a state's angles and the sines and cosines of θ and φ.
  struct Attitude {
    Quaternion<Scalar> q_wb;
    Scalar sin_theta, cos_theta, sin_phi, cos_phi;
  };
  const Rate& rate;
  Scalar threshold;
  V y{}, y_next{};
  Attitude at_y{}, at_next{};  // y's and y_next's (kKeepsAttitude)
  RigidBodyState<Scalar> x{};  // the state at y, as the loop sees it (kKeepsAttitude)

  // R = R_z(ψ) R_x(θ) R_z(φ) (004 eqs 56–59) as the product of the three axis rotations'
  // quaternions, written out (a product's terms with a zero factor add nothing, bit for bit),
  // and sin θ = 2 sin(θ/2) cos(θ/2), cos θ = (cos(θ/2) − sin(θ/2)) (cos(θ/2) + sin(θ/2)), the
  // same for φ.
  RBMC_HD static Attitude attitude_of(const V& z) {
    Scalar s_psi, c_psi, s_theta, c_theta, s_phi, c_phi;  // of the half angles
    sincos_hd(Scalar(0.5) * z(kAngles), s_psi, c_psi);
    sincos_hd(Scalar(0.5) * z(kAngles + 1), s_theta, c_theta);
    sincos_hd(Scalar(0.5) * z(kAngles + 2), s_phi, c_phi);
    // R_z(ψ) R_x(θ): (cψ cθ, cψ sθ, sψ sθ, sψ cθ) of the half angles.
    const Scalar w = c_psi * c_theta, qx = c_psi * s_theta, qy = s_psi * s_theta, qz = s_psi * c_theta;
    Attitude a;
    a.q_wb = Quaternion<Scalar>{w * c_phi - qz * s_phi, qx * c_phi + qy * s_phi, qy * c_phi - qx * s_phi,
                                w * s_phi + qz * c_phi};
    a.sin_theta = Scalar(2) * s_theta * c_theta;
    a.cos_theta = (c_theta - s_theta) * (c_theta + s_theta);
    a.sin_phi = Scalar(2) * s_phi * c_phi;
    a.cos_phi = (c_phi - s_phi) * (c_phi + s_phi);
    return a;
  }
  RBMC_HD static RigidBodyState<Scalar> state_of(const V& z, const Attitude& a) {
    return {z.template segment<3>(state_offset::p_w), a.q_wb, z.template segment<3>(state_offset::v_w),
            z.template segment<3>(state_offset::omega_b)};
  }
  // |s| below t (in any lane, for the CPU's SIMD lanes).
  RBMC_HD static bool below(const Scalar& s, const Scalar& t) {
    return less_in_any_hd(if_less_hd(s, Scalar(0), -s, s), t);
  }
  // θ's sine has fallen below the threshold.
  RBMC_HD bool too_close(const Attitude& a) const { return below(a.sin_theta, threshold); }

  RBMC_HD SampleStatus start(const RigidBodyState<Scalar>& x0) {
    bool at_start = false;
    y << x0.p_w, euler_zxz_from_quaternion(x0.q_wb, &at_start), Scalar(0), x0.v_w, x0.omega_b;
    const Attitude a = attitude_of(y);
    if constexpr (kKeepsAttitude) {
      at_y = a;
      x = state_of(y, a);
    }
    return at_start || too_close(a) ? SampleStatus::euler_singularity : SampleStatus::ok;
  }
  RBMC_HD RigidBodyState<Scalar> state() const {
    if constexpr (kKeepsAttitude)
      return x;
    else
      return state_of(y, attitude_of(y));
  }
  // The rates of [p, angles, v, ω] at z, whose attitude is a; singular is set where T is singular.
  RBMC_HD_INLINE V rates(const V& z, const Attitude& a, bool& singular) const {
    const RigidBodyStateRate<Scalar> xd = rate(state_of(z, a));
    V d;
    d << xd.p_dot_w,
        euler_zxz_rates_of(a.sin_theta, a.cos_theta, a.sin_phi, a.cos_phi, z.template segment<3>(state_offset::omega_b)),
        Scalar(0), xd.v_dot_w, xd.omega_dot_b;
    singular = singular || below(a.sin_theta, euler_singularity_threshold<Scalar>());
    return d;
  }
  RBMC_HD_INLINE V rates(const V& z, bool& singular) const { return rates(z, attitude_of(z), singular); }
  RBMC_HD V rates_call(const V& z, bool& singular) const { return rates(z, singular); }
  // A stage's rates. On the device in float, inlined at each of the four stages: the kernel's frame
  // falls from 648 bytes to 32, with no spill either way. In double the compiler keeps them one
  // call, as it does on the host: inlined, the double kernel spills 784 bytes against none (sm_90,
  // bench/RESULTS.md).
  RBMC_HD_KERNEL_INLINE V stage_rates(const V& z, bool& singular) const {
    if constexpr (sizeof(Scalar) == 4)
      return rates(z, singular);
    else
      return rates_call(z, singular);
  }
  RBMC_HD_INLINE SampleStatus step(const RigidBodyStateRate<Scalar>&, Scalar h, RigidBodyState<Scalar>& next) {
    bool singular = false;
    const Scalar half = Scalar(0.5) * h;
    V k1;
    if constexpr (kKeepsAttitude)
      k1 = rates(y, at_y, singular);
    else
      k1 = stage_rates(y, singular);
    const V k2 = stage_rates(y + half * k1, singular), k3 = stage_rates(y + half * k2, singular),
            k4 = stage_rates(y + h * k3, singular);
    y_next = y + (h / Scalar(6)) * (k1 + Scalar(2) * (k2 + k3) + k4);
    const Attitude a = attitude_of(y_next);
    if constexpr (kKeepsAttitude) at_next = a;
    next = state_of(y_next, a);
    if (!is_finite(next)) return SampleStatus::non_finite_state;
    if (singular || too_close(a)) return SampleStatus::euler_singularity;
    return SampleStatus::ok;
  }
  RBMC_HD void accept(const RigidBodyState<Scalar>& next) {
    y = y_next;
    if constexpr (kKeepsAttitude) {
      at_y = at_next;
      x = next;
    }
  }
};

// The end of a fixed step from x to next that needs the step's cubic Hermite interpolant through
// its two states and their rates: an event crossed in it (crossed: EventTracker::advance has
// taken the others' values), or it covers an output time short of its end. kEndRateGiven: the loop
// has the rate k1 at the step's end (RK4's next first stage). The rate at the start is evaluated
// again, not held from the step before: RK4's first stage is its last use, and held through the
// other three stages its 13 values took registers from every step (the same bits either way).
// Returns true, with `end` filled in, when a terminal event stopped the sample.
template <bool kEndRateGiven, class Scalar, class Rate, class Events, class Sink>
RBMC_HD_KERNEL_INLINE bool close_interpolating_step(const Rate& rate, Events& events, Sink& sink,
                                                    const RigidBodyState<Scalar>& x, const RigidBodyState<Scalar>& next,
                                                    const RigidBodyStateRate<Scalar>& k1_given, std::int64_t step,
                                                    Scalar h, bool crossed, IntegrationEnd<Scalar>& end) {
  const Scalar t0 = Scalar(step) * h, t1 = Scalar(step + 1) * h;
  const RigidBodyStateRate<Scalar> k0 = rate(x);
  RigidBodyStateRate<Scalar> k1_own{};
  if constexpr (!kEndRateGiven) k1_own = rate(next);
  const RigidBodyStateRate<Scalar>& k1 = kEndRateGiven ? k1_given : k1_own;
  // The device refers to the step's values, where packed copies cost the double kernels'
  // registers; the host packs them, where with references GCC's code integrated the README's
  // main job (the lanes) 19 % slower (bench/RESULTS.md, 2026-11-24, fifth session).
#if defined(__CUDA_ARCH__)
  const HermiteInterpolant<Scalar> interp{x, k0, next, k1, t0, h};
#else
  const PackedHermiteInterpolant<Scalar> interp{pack(x), pack(k0), pack(next), pack(k1), t0, h};
#endif
  Scalar t_stop;
  RigidBodyState<Scalar> x_stop;
  int which = -1;
  if (crossed && events.step(interp, t0, t1, next, t_stop, x_stop, which)) {
    sink.step(interp, t_stop, x_stop);
    end = {x_stop, t_stop, SampleStatus::terminal_event, step + 1, 0, which};
    return true;
  }
  sink.step(interp, t1, next);
  return false;
}

// The same as a call (kInterpolatingStepIsCall says where). Inlined, its rates, interpolant and
// root finding took registers from the loop around it, which runs it rarely: made a call, the
// double RK4 kernels' spill fell from 56-620 bytes to 0-240, for a frame of about 700 bytes more
// that only such a step touches (sm_90, bench/RESULTS.md, thirty-seventh session).
template <bool kEndRateGiven, class Scalar, class Rate, class Events, class Sink>
RBMC_HD_NOINLINE bool close_interpolating_step_call(const Rate& rate, Events& events, Sink& sink,
                                                    const RigidBodyState<Scalar>& x, const RigidBodyState<Scalar>& next,
                                                    const RigidBodyStateRate<Scalar>& k1_given, std::int64_t step,
                                                    Scalar h, bool crossed, IntegrationEnd<Scalar>& end) {
  return close_interpolating_step<kEndRateGiven>(rate, events, sink, x, next, k1_given, step, h, crossed, end);
}

template <class Rate, class = void>
inline constexpr bool kRateIsLight = false;
template <class Rate>
inline constexpr bool kRateIsLight<Rate, std::void_t<decltype(Rate::kLight)>> = Rate::kLight;
template <class Rate, class = void>
inline constexpr bool kRateReadsInPlace = false;
template <class Rate>
inline constexpr bool kRateReadsInPlace<Rate, std::void_t<decltype(Rate::kReadsModelInPlace)>> =
    Rate::kReadsModelInPlace;

// Whether the device makes a fixed step's rare interpolating end a call: in double, but where the
// loop leaves it registers inline. That is a light rate (BodyRate::kLight) without events, and RK4
// (kEndRateGiven) on a rate that reads its model in place: those spill nothing with it inline, and
// their frames are 330 to 370 bytes smaller (sm_90, bench/RESULTS.md, thirty-eighth session). Float
// kernels spill nothing with it inline.
template <class Scalar, class Rate, class Events, bool kEndRateGiven>
inline constexpr bool kInterpolatingStepIsCall = sizeof(Scalar) == 8 &&
                                                 !(kRateIsLight<Rate> && !kDeclaresEvents<Events>) &&
                                                 !(kRateReadsInPlace<Rate> && kEndRateGiven);

// The end of one fixed step from x to next: events and output times. Most steps need no
// interpolant: no event crosses in them (EventTracker::advance), and every output time they cover
// lies on their end, where the sink takes the end state (the main job's, 0.1 s apart on steps of
// 5 ms, all do). Then the host packs no copies and no rate is evaluated. Returns true, with `end`
// filled in, when a terminal event stopped the sample.
template <bool kEndRateGiven, class Scalar, class Rate, class Events, class Sink>
RBMC_HD_KERNEL_INLINE bool close_fixed_step(const Rate& rate, Events& events, Sink& sink, const RigidBodyState<Scalar>& x,
                                            const RigidBodyState<Scalar>& next,
                                            const RigidBodyStateRate<Scalar>& k1_given, std::int64_t step, Scalar h,
                                            IntegrationEnd<Scalar>& end) {
  const Scalar t1 = Scalar(step + 1) * h;
  bool crossed = false;
  if constexpr (kDeclaresEvents<Events>) crossed = events.advance(t1, next);
  if (!crossed && !sink.interpolates(t1)) {
    sink.step(NoInterpolant{}, t1, next);
    return false;
  }
#if defined(__CUDA_ARCH__)
  if constexpr (kInterpolatingStepIsCall<Scalar, Rate, Events, kEndRateGiven>)
    return close_interpolating_step_call<kEndRateGiven>(rate, events, sink, x, next, k1_given, step, h, crossed, end);
#endif
  return close_interpolating_step<kEndRateGiven>(rate, events, sink, x, next, k1_given, step, h, crossed, end);
}

// how.n_steps steps of how.step from x0. Stops at the last usable state when a step is not
// usable (non-finite, or a stepper's own reason), or at a terminal event.
template <class Scalar, class Stepper, class Rate, class Events, class Sink>
RBMC_HD_KERNEL_INLINE IntegrationEnd<Scalar> integrate_fixed_step(Stepper& stepper, const Rate& rate,
                                                                  const RigidBodyState<Scalar>& x0,
                                                                  const IntegrationSettings<Scalar>& how,
                                                                  Events& events, Sink& sink) {
  const Scalar h = how.step;
  const SampleStatus started = stepper.start(x0);
  if (started != SampleStatus::ok) return {x0, Scalar(0), started, 0, 0, -1};
  // The rate at the current step's start, for a stepper that uses it (RK4's first stage): the rate
  // at the last step's end, computed once. No other rate is held from step to step: a step that
  // interpolates evaluates the rates it needs (close_interpolating_step), with events or without.
  RigidBodyStateRate<Scalar> k0{};
  if constexpr (Stepper::kUsesStartRate) k0 = rate(stepper.state());
  for (std::int64_t step = 0; step < how.n_steps; ++step) {
    RigidBodyState<Scalar> next;
    const SampleStatus status = stepper.step(k0, h, next);
    if (status != SampleStatus::ok) return {stepper.state(), Scalar(step) * h, status, step, 0, -1};
    RigidBodyStateRate<Scalar> k1{};
    if constexpr (Stepper::kUsesStartRate) k1 = rate(next);
    IntegrationEnd<Scalar> end;
    if ((events.any() || sink.active()) &&
        close_fixed_step<Stepper::kUsesStartRate>(rate, events, sink, stepper.state(), next, k1, step, h, end))
      return end;
    stepper.accept(next);
    k0 = k1;
  }
  return {stepper.state(), Scalar(how.n_steps) * h, SampleStatus::ok, how.n_steps, 0, -1};
}

}  // namespace rbmc

// The one per-sample function: both the CPU backend and the CUDA kernel call it.
#pragma once

#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/integrate/dopri5.hpp"
#include "rbmc/integrate/rk4.hpp"
#include "rbmc/integrate/output_times.hpp"
#include "rbmc/integrate/splitting.hpp"
#include "rbmc/math/euler.hpp"
#include "rbmc/sample/model_parameters.hpp"
#include "rbmc/sample/sample_inputs.hpp"

namespace rbmc {

// The parts of the model that every sample of a run shares.
template <class Scalar>
struct SharedModel {
  LoadSet<Scalar> loads;
  Constraint<Scalar> constraint;
  EventSet<Scalar> events;
  OutputTimes<Scalar> output_times;
  ModelParameters<Scalar> parameters;  // the load and constraint fields each sample sets itself

  template <class Other>
  SharedModel<Other> cast() const {
    return {loads.template cast<Other>(), constraint.template cast<Other>(), events.template cast<Other>(),
            output_times.template cast<Other>(), parameters.template cast<Other>()};
  }
};

// The loads and constraint one sample integrates: the shared ones, or, when the scenario
// disperses some of their parameters, its own copy with its values set. Refers to itself, so it
// is neither copied nor moved.
template <class Scalar>
struct SampleModel {
  LoadSet<Scalar> own_loads;
  Constraint<Scalar> own_constraint;
  const LoadSet<Scalar>* loads;
  const Constraint<Scalar>* constraint;

  RBMC_HD SampleModel(const SharedModel<Scalar>& shared, const Scalar* values)
      : loads(&shared.loads), constraint(&shared.constraint) {
    if (shared.parameters.n > 0) {
      own_loads = shared.loads;
      own_constraint = shared.constraint;
      apply_model_parameters(shared.parameters, values, own_loads, own_constraint);
      loads = &own_loads;
      constraint = &own_constraint;
    }
  }
  SampleModel(const SampleModel&) = delete;
  SampleModel& operator=(const SampleModel&) = delete;
};

// Compile-time variants of the per-sample function. One kernel holding every integrator, the
// constraint solve and the load loops needs the registers of the largest; a kernel per variant
// needs only its own, and the CPU skips the general right-hand side's dispatch. Both compute the
// same numbers: a free body's general right-hand side is the free-body one, bit for bit.
struct GeneralVariant {
  static constexpr bool kFreeBodyRk4 = false;
};
// Uniform gravity only (no load set, no constraint, no per-sample model values, no events),
// fixed-step RK4 on quaternions; output times as usual.
struct FreeBodyRk4Variant {
  static constexpr bool kFreeBodyRk4 = true;
};

// Whether a run can take FreeBodyRk4Variant.
template <class Scalar>
RBMC_HD inline bool is_free_body_rk4(const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how) {
  const LoadSet<Scalar>& l = shared.loads;
  const bool no_loads = l.n_point_forces == 0 && l.n_torques == 0 && l.n_springs == 0 && !l.has_central_body &&
                        l.linear_damping == Scalar(0) && l.quadratic_damping == Scalar(0) &&
                        l.angular_linear_damping == Scalar(0) && l.angular_quadratic_damping == Scalar(0);
  return no_loads && shared.constraint.kind == ConstraintKind::none && shared.parameters.n == 0 &&
         shared.events.n == 0 && how.kind == IntegratorKind::rk4 && !how.euler_zxz;
}

// The right-hand side of one sample: its body, and the loads and constraint it integrates
// (kFreeBody: uniform gravity alone, the loads and constraint not looked at).
template <class Scalar, bool kFreeBody = false>
struct BodyRate {
  FreeBodyModel<Scalar> model;
  const LoadSet<Scalar>* loads;
  const Constraint<Scalar>* constraint;
  RBMC_HD_INLINE ConstrainedRate<Scalar> evaluate(const RigidBodyState<Scalar>& x) const {
    if constexpr (kFreeBody) return {free_body_rate(model, x), Vec3<Scalar>::Zero()};
    return constrained_rate(*constraint, model, x, evaluate_loads(*loads, model, x));
  }
  RBMC_HD_INLINE RigidBodyStateRate<Scalar> operator()(const RigidBodyState<Scalar>& x) const { return evaluate(x).rate; }
};

template <class Scalar>
RBMC_HD inline Scalar relative_change(Scalar now, Scalar before, Scalar scale) {
  return scale > Scalar(0) ? (now - before) / scale : now - before;
}

// Where an integration loop stopped.
template <class Scalar>
struct IntegrationEnd {
  RigidBodyState<Scalar> state;
  Scalar time;
  SampleStatus status;
  std::int64_t steps, rejected_steps;
  int stopping_event;
};

// The end of one fixed step from (x, k0) to (next, k1), for the fixed-step loops: events and
// output times on the step's cubic Hermite interpolant. Returns true, with `end` filled in, when
// a terminal event stopped the sample. Times are products, not running sums: no accumulated
// rounding.
template <class Scalar, class Sink, bool kEvents = true>
RBMC_HD inline bool close_fixed_step(EventTracker<Scalar>& events, Sink& sink, const RigidBodyState<Scalar>& x,
                                     const RigidBodyStateRate<Scalar>& k0, const RigidBodyState<Scalar>& next,
                                     const RigidBodyStateRate<Scalar>& k1, std::int64_t step, Scalar h,
                                     IntegrationEnd<Scalar>& end) {
  const HermiteInterpolant<Scalar> interp{pack(x), pack(k0), pack(next), pack(k1), Scalar(step) * h, h};
  Scalar t_stop;
  RigidBodyState<Scalar> x_stop;
  int which = -1;
  if (kEvents && events.set->n > 0 &&
      events.step(interp, Scalar(step) * h, Scalar(step + 1) * h, next, t_stop, x_stop, which)) {
    sink.step(interp, t_stop, x_stop);
    end = {x_stop, t_stop, SampleStatus::terminal_event, step + 1, 0, which};
    return true;
  }
  sink.step(interp, Scalar(step + 1) * h, next);
  return false;
}

// Fixed-step RK4 to n_steps; stops at the last finite state if one turns non-finite, or at a
// terminal event located on the cubic Hermite interpolant of each step, which also gives the
// states at the output times.
template <class Scalar, class Rate, class Sink, bool kEvents = true>
RBMC_HD inline IntegrationEnd<Scalar> integrate_rk4(const Rate& rate, RigidBodyState<Scalar> x,
                                                    const IntegrationSettings<Scalar>& how, EventTracker<Scalar>& events,
                                                    Sink& sink) {
  RigidBodyStateRate<Scalar> k1 = rate(x);
  for (std::int64_t step = 0; step < how.n_steps; ++step) {
    const RigidBodyState<Scalar> next = rk4_step(rate, x, k1, how.step);
    if (!is_finite(next)) return {x, Scalar(step) * how.step, SampleStatus::non_finite_state, step, 0, -1};
    const RigidBodyStateRate<Scalar> k1_next = rate(next);  // the next step's first stage
    IntegrationEnd<Scalar> end;
    if (((kEvents && events.set->n > 0) || sink.active()) &&
        close_fixed_step<Scalar, Sink, kEvents>(events, sink, x, k1, next, k1_next, step, how.step, end))
      return end;
    x = next;
    k1 = k1_next;
  }
  return {x, Scalar(how.n_steps) * how.step, SampleStatus::ok, how.n_steps, 0, -1};
}

// RK4 with the attitude carried as ZXZ Euler angles, the texts' own formulation: ẋ = A v of 004
// eq. 52, the angle rates from T (004 eq. 60) and the velocities' rates from the same
// right-hand side as always (evaluated at the angles' quaternion). The map T is singular at
// sin θ = 0: the sample stops with euler_singularity when |sin θ| falls below the threshold.
// Quaternions have no such singularity and are the default; this exists to reproduce 004.
template <class Scalar, class Sink>
RBMC_HD inline IntegrationEnd<Scalar> integrate_rk4_euler_zxz(const BodyRate<Scalar>& rate,
                                                              const RigidBodyState<Scalar>& x0,
                                                              const IntegrationSettings<Scalar>& how,
                                                              EventTracker<Scalar>& events, Sink& sink) {
  // The state [p, (ψ, θ, φ), v, ω] in a 13-vector whose last quaternion slot is unused.
  using V = StateVector<Scalar>;
  const auto to_state = [](const V& y) {
    return RigidBodyState<Scalar>{y.template segment<3>(0),
                                  quaternion_from_euler_zxz<Scalar>(EulerAngles<Scalar>(y.template segment<3>(3))),
                                  y.template segment<3>(7), y.template segment<3>(10)};
  };
  bool singular = false;
  const auto f = [&](const V& y) {
    const RigidBodyState<Scalar> x = to_state(y);
    const RigidBodyStateRate<Scalar> xd = rate(x);
    bool s = false;
    V d;
    d << xd.p_dot_w, euler_zxz_rates<Scalar>(EulerAngles<Scalar>(y.template segment<3>(3)), x.omega_b, &s), Scalar(0),
        xd.v_dot_w, xd.omega_dot_b;
    singular = singular || s;
    return d;
  };
  bool at_start = false;
  V y;
  y << x0.p_w, euler_zxz_from_quaternion(x0.q_wb, &at_start), Scalar(0), x0.v_w, x0.omega_b;
  const auto too_close = [&](const V& z) {
    return Eigen::numext::abs(Eigen::numext::sin(z(4))) < how.euler_threshold;
  };
  if (at_start || too_close(y)) return {x0, Scalar(0), SampleStatus::euler_singularity, 0, 0, -1};
  RigidBodyStateRate<Scalar> k0 = rate(to_state(y));
  for (std::int64_t step = 0; step < how.n_steps; ++step) {
    const Scalar h = how.step, half = Scalar(0.5) * h;
    const V k1 = f(y), k2 = f(y + half * k1), k3 = f(y + half * k2), k4 = f(y + h * k3);
    const V next = y + (h / Scalar(6)) * (k1 + Scalar(2) * (k2 + k3) + k4);
    const RigidBodyState<Scalar> x = to_state(y), x_next = to_state(next);
    if (!is_finite(x_next)) return {x, Scalar(step) * h, SampleStatus::non_finite_state, step, 0, -1};
    if (singular || too_close(next)) return {x, Scalar(step) * h, SampleStatus::euler_singularity, step, 0, -1};
    if (events.set->n > 0 || sink.active()) {
      const RigidBodyStateRate<Scalar> k1_next = rate(x_next);
      IntegrationEnd<Scalar> end;
      if (close_fixed_step(events, sink, x, k0, x_next, k1_next, step, h, end)) return end;
      k0 = k1_next;
    }
    y = next;
  }
  return {to_state(y), Scalar(how.n_steps) * how.step, SampleStatus::ok, how.n_steps, 0, -1};
}

// The symplectic splitting at a fixed step (integrate/splitting.hpp). With events, the rates at
// the step ends build the same cubic Hermite interpolant as for RK4.
template <class Scalar, class Sink>
RBMC_HD inline IntegrationEnd<Scalar> integrate_splitting(const BodyRate<Scalar>& rate, RigidBodyState<Scalar> x,
                                                          const IntegrationSettings<Scalar>& how,
                                                          EventTracker<Scalar>& events, Sink& sink) {
  const SplittingFrame<Scalar> frame = splitting_frame(rate.model);
  const auto wrench_of = [&](const RigidBodyState<Scalar>& s) {
    return evaluate_loads(*rate.loads, rate.model, s);
  };
  const bool with_events = events.set->n > 0 || sink.active();
  RigidBodyStateRate<Scalar> k0;
  if (with_events) k0 = rate(x);
  for (std::int64_t step = 0; step < how.n_steps; ++step) {
    const RigidBodyState<Scalar> next = splitting_step(rate.model, frame, wrench_of, x, how.step);
    if (!is_finite(next)) return {x, Scalar(step) * how.step, SampleStatus::non_finite_state, step, 0, -1};
    if (with_events) {
      const RigidBodyStateRate<Scalar> k1 = rate(next);
      IntegrationEnd<Scalar> end;
      if (close_fixed_step(events, sink, x, k0, next, k1, step, how.step, end)) return end;
      k0 = k1;
    }
    x = next;
  }
  return {x, Scalar(how.n_steps) * how.step, SampleStatus::ok, how.n_steps, 0, -1};
}

// Adaptive Dormand–Prince 5(4) to the duration, each sample with its own step: accepted when the
// error norm is at most 1, then the step grows or shrinks by next_step_factor(); the last step
// is shortened to land on the end time. Stops with max_steps_reached, step_size_underflow or
// non_finite_state when it cannot go on.
template <class Scalar, class Rate, class Sink>
RBMC_HD inline IntegrationEnd<Scalar> integrate_dopri5(const Rate& rate, const RigidBodyState<Scalar>& x0,
                                                       const IntegrationSettings<Scalar>& how,
                                                       EventTracker<Scalar>& events, Sink& sink) {
  StateVector<Scalar> y = pack(x0);
  StateVector<Scalar> k1 = pack(rate(x0));
  Scalar t = Scalar(0);
  Scalar h = how.step < how.max_step ? how.step : how.max_step;
  std::int64_t accepted = 0, rejected = 0;
  bool after_rejection = false;
  SampleStatus status = SampleStatus::ok;
  while (t < how.duration) {
    if (accepted + rejected >= how.max_steps) {
      status = SampleStatus::max_steps_reached;
      break;
    }
    // Land on the end time; stretch by up to 1 % rather than leave a sliver of a step.
    const Scalar left = how.duration - t;
    const bool last = h >= left * Scalar(0.99);
    const Scalar step = last ? left : h;
    const Dopri5Trial<Scalar> trial = dopri5_trial(rate, y, k1, t, step);
    const Scalar err = error_norm(trial.error, y, trial.y, how.rtol, how.atol);
    if (!isfinite_hd(err)) {
      // A non-finite trial: shrink like a rejection; if the step cannot shrink, the state itself is bad.
      if (step <= how.min_step) {
        status = SampleStatus::non_finite_state;
        break;
      }
      h = step * Scalar(0.2);
      ++rejected;
      after_rejection = true;
      continue;
    }
    if (err <= Scalar(1)) {
      y = trial.y;
      // Back onto the unit sphere; k7 belongs to the unnormalised y, an O(tolerance) difference.
      const Scalar qn = sqrt_hd(y(3) * y(3) + y(4) * y(4) + y(5) * y(5) + y(6) * y(6));
      y.template segment<4>(3) /= qn;
      k1 = trial.k7;
      const Scalar t0 = t;
      t = last ? how.duration : t + step;
      ++accepted;
      Scalar t_stop;
      RigidBodyState<Scalar> x_stop;
      int which = -1;
      if (events.set->n > 0 && events.step(trial.dense, t0, t, unpack(y), t_stop, x_stop, which)) {
        sink.step(trial.dense, t_stop, x_stop);
        return {x_stop, t_stop, SampleStatus::terminal_event, accepted, rejected, which};
      }
      sink.step(trial.dense, t, unpack(y));
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
      break;
    }
  }
  return {unpack(y), t, status, accepted, rejected, -1};
}

// Integrates one body under uniform gravity, the shared loads and constraint, with the chosen
// integrator. The initial state must satisfy the constraint (the sampling plan projects it). A
// body whose mass properties are not physical is not integrated (status invalid_body).
// No trajectory: a sink that takes nothing.
struct NoTrajectory {
  RBMC_HD bool active() const { return false; }
  template <class Scalar, class State>
  RBMC_HD void start(Scalar, const State&) {}
  template <class Interpolant, class Scalar, class State>
  RBMC_HD void step(const Interpolant&, Scalar, const State&) {}
  template <class State>
  RBMC_HD void finish(bool, const State&) {}
};

template <class Scalar, class Variant = GeneralVariant, class Sink>
RBMC_HD inline SampleResult<Scalar> run_sample(const SampleInputs<Scalar>& in, const SharedModel<Scalar>& shared,
                                               const IntegrationSettings<Scalar>& how, Sink& sink) {
  SampleResult<Scalar> out;
  out.final_state = in.initial;
  out.time = Scalar(0);
  out.status = SampleStatus::ok;
  out.reaction_force_w = out.reaction_torque_b = Vec3<Scalar>::Zero();
  out.energy_drift = out.momentum_drift = Scalar(0);
  out.steps = out.rejected_steps = 0;
  out.stopping_event = -1;
  EventTracker<Scalar> events;
  events.start(shared.events, Scalar(0), in.initial);
  for (int i = 0; i < shared.events.n; ++i) out.events[i] = events.records[i];
  if (check_mass_properties(in.body) != BodyValidity::valid) {
    out.status = SampleStatus::invalid_body;
    sink.finish(false, in.initial);
    return out;
  }
  const SampleModel<Scalar> own(shared, in.model_values);
  const LoadSet<Scalar>* loads = own.loads;
  const Constraint<Scalar>* constraint = own.constraint;
  const BodyRate<Scalar> rate{make_free_body_model(in.body, in.gravity_w), loads, constraint};
  const RigidBodyState<Scalar>& x0 = in.initial;
  sink.start(Scalar(0), x0);
  IntegrationEnd<Scalar> end;
  if constexpr (Variant::kFreeBodyRk4) {
    const BodyRate<Scalar, true> free_rate{rate.model, loads, constraint};
    end = integrate_rk4<Scalar, BodyRate<Scalar, true>, Sink, false>(free_rate, x0, how, events, sink);
  } else {
    end = how.kind == IntegratorKind::dopri5      ? integrate_dopri5(rate, x0, how, events, sink)
          : how.kind == IntegratorKind::splitting ? integrate_splitting(rate, x0, how, events, sink)
          : how.euler_zxz                         ? integrate_rk4_euler_zxz(rate, x0, how, events, sink)
                                                  : integrate_rk4(rate, x0, how, events, sink);
  }
  sink.finish(end.status == SampleStatus::ok, end.state);
  out.stopping_event = end.stopping_event;
  for (int i = 0; i < shared.events.n; ++i) out.events[i] = events.records[i];
  const RigidBodyState<Scalar>& x = end.state;
  out.final_state = x;
  out.time = end.time;
  out.status = end.status;
  out.steps = end.steps;
  out.rejected_steps = end.rejected_steps;
  if (constraint->kind != ConstraintKind::none) {
    const Vec3<Scalar> lambda = rate.evaluate(x).lambda;
    out.reaction_force_w = reaction_wrench(*constraint, rate.model, x, lambda).force_w;
    // The couple the joint itself applies (the planar constraint's; a pivot applies none).
    if (constraint->kind == ConstraintKind::planar)
      out.reaction_torque_b = Vec3<Scalar>(lambda(1), lambda(2), Scalar(0));
  }
  // Relative to the larger of T + |V| at the start and the end: a body released from rest at the
  // potential's zero has T₀ + |V₀| = 0, but not at the end.
  const Scalar kinetic0 = kinetic_energy(rate.model, x0), potential0 = potential_energy(*loads, rate.model, x0);
  const Scalar kinetic1 = kinetic_energy(rate.model, x), potential1 = potential_energy(*loads, rate.model, x);
  const Scalar scale0 = kinetic0 + Eigen::numext::abs(potential0), scale1 = kinetic1 + Eigen::numext::abs(potential1);
  out.energy_drift = relative_change(kinetic1 + potential1, kinetic0 + potential0, scale0 > scale1 ? scale0 : scale1);
  const Vec3<Scalar> momentum0 = angular_momentum_c_w(rate.model, x0);
  out.momentum_drift =
      relative_change((angular_momentum_c_w(rate.model, x) - momentum0).norm(), Scalar(0), momentum0.norm());
  // The accuracy guard: once per sample, at its end.
  const Scalar energy_drift = out.energy_drift < Scalar(0) ? -out.energy_drift : out.energy_drift;
  if (out.status == SampleStatus::ok &&
      ((how.max_energy_drift > Scalar(0) && !(energy_drift <= how.max_energy_drift)) ||
       (how.max_momentum_drift > Scalar(0) && !(out.momentum_drift <= how.max_momentum_drift))))
    out.status = SampleStatus::inaccurate;
  return out;
}

template <class Scalar>
RBMC_HD inline SampleResult<Scalar> run_sample(const SampleInputs<Scalar>& in, const SharedModel<Scalar>& shared,
                                               const IntegrationSettings<Scalar>& how) {
  NoTrajectory none;
  return run_sample(in, shared, how, none);
}

}  // namespace rbmc

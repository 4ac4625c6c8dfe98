// The kinds of model a run's samples need, chosen once on the host: the per-sample function is
// compiled for them, so that a kernel (or the CPU's loop) carries nothing the run does not use.
// A kernel holding every integrator, the event machinery and the load loops needs the registers
// and stack of the largest path; one per kind needs only its own.
#pragma once

#include <cstdint>

#include "rbmc/integrate/integration_settings.hpp"
#include "rbmc/sample/shared_model.hpp"

namespace rbmc {

enum class StepperKind : std::uint8_t {
  rk4,            // classical RK4 on quaternions
  rk4_euler_zxz,  // RK4 on ZXZ Euler angles (004's formulation)
  splitting,      // the symplectic splitting
  dopri5,         // adaptive Dormand–Prince 5(4)
};

// kEvents: the run declares events (without, no event records or root finding are compiled).
// kFreeBody: uniform gravity alone (no loads, constraint or per-sample model values), RK4, no
// events; its right-hand side skips the general one's dispatch, with the same numbers.
// kUnconstrained: no constraint, so the right-hand side has no dispatch on its kind; any loads.
// Only RK4 takes it: its double kernels spill 72 bytes instead of 372 (with events 156 instead of
// 608), where the other steppers' kernels spill as much or more (sm_90, bench/RESULTS.md,
// fourteenth session). The same numbers as the general kind's.
template <StepperKind kStepper, bool kEvents, bool kFreeBody = false, bool kUnconstrained = false>
struct SampleKinds {
  static constexpr StepperKind stepper = kStepper;
  static constexpr bool events = kEvents;
  static constexpr bool free_body = kFreeBody;
  static constexpr bool unconstrained = kUnconstrained || kFreeBody;
  static_assert(!kFreeBody || (kStepper == StepperKind::rk4 && !kEvents), "the free body is RK4 without events");
  static_assert(!kUnconstrained || !kFreeBody, "the free body is unconstrained already");
};
using FreeBodyRk4Kinds = SampleKinds<StepperKind::rk4, false, true>;
template <bool kEvents>
using UnconstrainedRk4Kinds = SampleKinds<StepperKind::rk4, kEvents, false, true>;

// The same choice as values, for the host to make and pass on.
struct SampleKindsChoice {
  StepperKind stepper;
  bool events;
  bool free_body;
  bool unconstrained;  // no constraint
};

template <class Scalar>
RBMC_HD inline SampleKindsChoice choose_sample_kinds(const SharedModel<Scalar>& shared,
                                                     const IntegrationSettings<Scalar>& how) {
  const StepperKind stepper = how.kind == IntegratorKind::dopri5      ? StepperKind::dopri5
                              : how.kind == IntegratorKind::splitting ? StepperKind::splitting
                              : how.euler_zxz                         ? StepperKind::rk4_euler_zxz
                                                                      : StepperKind::rk4;
  const LoadSet<Scalar>& l = shared.loads;
  const bool no_loads = l.n_point_forces == 0 && l.n_torques == 0 && l.n_springs == 0 && !l.has_central_body &&
                        l.linear_damping == Scalar(0) && l.quadratic_damping == Scalar(0) &&
                        l.angular_linear_damping == Scalar(0) && l.angular_quadratic_damping == Scalar(0);
  const bool events = shared.events.n > 0;
  const bool unconstrained = shared.constraint.kind == ConstraintKind::none;
  const bool free_body = no_loads && unconstrained && shared.parameters.n == 0 && !events && stepper == StepperKind::rk4;
  return {stepper, events, free_body, unconstrained};
}

// f(SampleKinds<...>{}) for the choice: the one place that lists the kinds compiled. Every
// instantiation of f must return the same type.
template <class F>
RBMC_HD inline decltype(auto) with_sample_kinds(const SampleKindsChoice& c, F&& f) {
  using S = StepperKind;
  if (c.free_body) return f(FreeBodyRk4Kinds{});
  switch (c.stepper) {
    case S::rk4:
      if (c.unconstrained) return c.events ? f(UnconstrainedRk4Kinds<true>{}) : f(UnconstrainedRk4Kinds<false>{});
      return c.events ? f(SampleKinds<S::rk4, true>{}) : f(SampleKinds<S::rk4, false>{});
    case S::rk4_euler_zxz:
      return c.events ? f(SampleKinds<S::rk4_euler_zxz, true>{}) : f(SampleKinds<S::rk4_euler_zxz, false>{});
    case S::splitting: return c.events ? f(SampleKinds<S::splitting, true>{}) : f(SampleKinds<S::splitting, false>{});
    case S::dopri5: break;
  }
  return c.events ? f(SampleKinds<S::dopri5, true>{}) : f(SampleKinds<S::dopri5, false>{});
}

}  // namespace rbmc

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
// kConstraint: the constraint's kind compiled in (CompiledConstraint, constraints.hpp), or any:
// the run's kind dispatched at each evaluation. Only RK4 takes one kind (the other steppers'
// kernels spill as much or more either way: fourteenth session). A double RK4 kernel then holds
// its own kind's registers alone (sm_90, spill without / with events: none 0 / 156 bytes, the
// plane 56 / 240, the pivot 256 / 456, against 200 / 620 for any kind; bench/RESULTS.md,
// thirty-sixth session). The same numbers as the general kind's.
template <StepperKind kStepper, bool kEvents, bool kFreeBody = false,
          CompiledConstraint kConstraint = CompiledConstraint::any>
struct SampleKinds {
  static constexpr StepperKind stepper = kStepper;
  static constexpr bool events = kEvents;
  static constexpr bool free_body = kFreeBody;
  static constexpr CompiledConstraint constraint = kFreeBody ? CompiledConstraint::none : kConstraint;
  // Whether the device reads the sample's model, constraint and loads from memory at each
  // evaluation of the rate (BodyRate's kReadsInPlace) rather than holding them in registers
  // (sm_90, bench/RESULTS.md, thirty-eighth session):
  // - in double, for a constraint's rate (any kind, the pivot or the plane) on RK4, RK4 on Euler
  //   angles and dopri5. Held, those 40-odd values made those kernels spill 52 to 384 bytes a
  //   thread. Not on the splitting, whose steps take the wrench alone (its events kernel then
  //   spilled 64 bytes against none). dopri5 with events reads in place since its trial stopped
  //   handing back the whole interpolant (forty-second session): holding the model, its trial (a
  //   call) spilled 256 bytes and the kernel 528 in all, against 284. The light rates
  //   (BodyRate::kLight) spill nothing holding them;
  // - in float, for every rate but the free body's on RK4 and the splitting without events: those
  //   kernels then fit 128 registers (four blocks of 128 an SM, 25 % occupancy; run_batch_kernel.cuh)
  //   with no spill, where holding the model they need 150 to 182. With events, on Euler angles or
  //   with dopri5 they spill 184 to 904 bytes at 128 registers, so they hold it at two blocks.
  template <class Scalar>
  static constexpr bool rate_reads_in_place =
      sizeof(Scalar) == 8 ? !kFreeBody && kConstraint != CompiledConstraint::none &&
                                kStepper != StepperKind::splitting
                          : !kFreeBody && !kEvents && (kStepper == StepperKind::rk4 || kStepper == StepperKind::splitting);
  static_assert(!kFreeBody || (kStepper == StepperKind::rk4 && !kEvents), "the free body is RK4 without events");
  static_assert(!kFreeBody || kConstraint == CompiledConstraint::any, "the free body is unconstrained already");
};
using FreeBodyRk4Kinds = SampleKinds<StepperKind::rk4, false, true>;
// RK4 compiled for one constraint kind (none: loads alone).
template <bool kEvents, CompiledConstraint kConstraint>
using Rk4KindsFor = SampleKinds<StepperKind::rk4, kEvents, false, kConstraint>;
template <bool kEvents>
using UnconstrainedRk4Kinds = Rk4KindsFor<kEvents, CompiledConstraint::none>;

// The same choice as values, for the host to make and pass on.
struct SampleKindsChoice {
  StepperKind stepper;
  bool events;
  bool free_body;
  ConstraintKind constraint;  // the run's
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
  return {stepper, events, free_body, shared.constraint.kind};
}

// f(SampleKinds<...>{}) for the choice: the one place that lists the kinds compiled. Every
// instantiation of f must return the same type.
template <class F>
RBMC_HD inline decltype(auto) with_sample_kinds(const SampleKindsChoice& c, F&& f) {
  using S = StepperKind;
  if (c.free_body) return f(FreeBodyRk4Kinds{});
  switch (c.stepper) {
    case S::rk4: {
      using C = CompiledConstraint;
      if (c.constraint == ConstraintKind::none)
        return c.events ? f(Rk4KindsFor<true, C::none>{}) : f(Rk4KindsFor<false, C::none>{});
      if (c.constraint == ConstraintKind::pivot)
        return c.events ? f(Rk4KindsFor<true, C::pivot>{}) : f(Rk4KindsFor<false, C::pivot>{});
      return c.events ? f(Rk4KindsFor<true, C::planar>{}) : f(Rk4KindsFor<false, C::planar>{});
    }
    case S::rk4_euler_zxz:
      return c.events ? f(SampleKinds<S::rk4_euler_zxz, true>{}) : f(SampleKinds<S::rk4_euler_zxz, false>{});
    case S::splitting: return c.events ? f(SampleKinds<S::splitting, true>{}) : f(SampleKinds<S::splitting, false>{});
    case S::dopri5: break;
  }
  return c.events ? f(SampleKinds<S::dopri5, true>{}) : f(SampleKinds<S::dopri5, false>{});
}

}  // namespace rbmc

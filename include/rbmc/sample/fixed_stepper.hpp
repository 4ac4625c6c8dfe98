// The fixed-step stepper of a kind of sample (sample_kinds.hpp), chosen and made in one place for
// one sample (run_sample.hpp's integrate_sample) and for the CPU's SIMD lanes
// (simd/fixed_step_lanes.hpp), so that both run the same stepper for every kind.
#pragma once

#include <type_traits>

#include "rbmc/integrate/fixed_step.hpp"
#include "rbmc/integrate/integration_settings.hpp"
#include "rbmc/sample/sample_kinds.hpp"

namespace rbmc {

// RK4 on quaternions, RK4 on ZXZ Euler angles or the splitting (dopri5 is adaptive: dopri5.hpp).
template <StepperKind kStepper, class Scalar, class Rate>
using FixedStepperOf = std::conditional_t<
    kStepper == StepperKind::splitting, SplittingStepper<Scalar, Rate>,
    std::conditional_t<kStepper == StepperKind::rk4_euler_zxz, EulerZxzRk4Stepper<Scalar, Rate>, Rk4Stepper<Scalar, Rate>>>;

template <StepperKind kStepper, class Scalar, class Rate>
RBMC_HD_INLINE FixedStepperOf<kStepper, Scalar, Rate> make_fixed_stepper(const Rate& rate,
                                                                        const IntegrationSettings<Scalar>& how) {
  static_assert(kStepper != StepperKind::dopri5, "dopri5 is adaptive: integrate_dopri5 (dopri5.hpp)");
  if constexpr (kStepper == StepperKind::rk4_euler_zxz) return {rate, how.euler_threshold};
  else return {rate};
}

}  // namespace rbmc

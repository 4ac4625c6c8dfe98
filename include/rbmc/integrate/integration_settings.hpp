// How each sample is integrated, and where an integration loop stopped.
#pragma once

#include <cstdint>

#include "rbmc/dynamics/state.hpp"
#include "rbmc/sample/sample_status.hpp"

namespace rbmc {

enum class IntegratorKind : std::uint8_t {
  rk4 = 0,     // classical Runge–Kutta, fixed step
  dopri5 = 1,  // Dormand–Prince 5(4), adaptive step per sample
  splitting = 2,  // symplectic Lie–Poisson splitting, fixed step, for long runs (no constraints)
};

// How each sample is integrated, from t = 0 to duration.
template <class Scalar>
struct IntegrationSettings {
  IntegratorKind kind;
  Scalar duration;        // s
  Scalar step;            // rk4, splitting: the step; dopri5: the first step tried (s)
  std::int64_t n_steps;   // rk4, splitting: duration / step
  Scalar rtol, atol;      // dopri5: relative and absolute tolerance of the local error
  Scalar min_step, max_step;  // dopri5 (s)
  std::int64_t max_steps;     // dopri5: accepted plus rejected steps
  // rk4 only: carry the attitude as ZXZ Euler angles (004 eq. 52) instead of a quaternion, and
  // stop with euler_singularity when |sin θ| falls below euler_threshold.
  bool euler_zxz = false;
  Scalar euler_threshold = Scalar(0);
  // The accuracy guard, checked once at the end of a sample (never per step): a sample that
  // reaches the end time with |energy_drift| or momentum_drift beyond these ends with status
  // inaccurate. 0: not checked (the host sets 0 where the scenario does not conserve the quantity).
  Scalar max_energy_drift = Scalar(0), max_momentum_drift = Scalar(0);

  template <class Other>
  IntegrationSettings<Other> cast() const {
    return {kind,        Other(duration),  Other(step),     n_steps,   Other(rtol),
            Other(atol), Other(min_step),  Other(max_step), max_steps, euler_zxz,
            Other(euler_threshold), Other(max_energy_drift), Other(max_momentum_drift)};
  }
};

// n fixed RK4 steps of size h.
template <class Scalar>
RBMC_HD inline IntegrationSettings<Scalar> fixed_step(Scalar h, std::int64_t n) {
  return {IntegratorKind::rk4, h * Scalar(n), h, n, Scalar(0), Scalar(0), h, h, n, false, Scalar(0)};
}

// Where an integration loop stopped.
template <class Scalar>
struct IntegrationEnd {
  RigidBodyState<Scalar> state;
  Scalar time;
  SampleStatus status;
  std::int64_t steps, rejected_steps;
  int stopping_event;  // the terminal event that stopped it, or −1
};

}  // namespace rbmc

// Classical fourth-order Runge–Kutta step, generic in the right-hand side.
#pragma once

#include "rbmc/dynamics/state.hpp"

namespace rbmc {

// One step of size h; rate(x) returns ẋ. The quaternion leaves the unit sphere by O(h⁵) per
// step and is renormalised here, which changes the attitude by no more than that error.
// k1 = rate(x) is passed in: a driver that also needs the rate at the step's end (for an
// interpolant) computes it once and hands it to the next step.
template <class Scalar, class Rate>
RBMC_HD_INLINE RigidBodyState<Scalar> rk4_step(const Rate& rate, const RigidBodyState<Scalar>& x,
                                               const RigidBodyStateRate<Scalar>& k1, Scalar h) {
  const Scalar half = Scalar(0.5) * h;
  const Scalar sixth = Scalar(1) / Scalar(6), third = Scalar(1) / Scalar(3);
  // (k1 + 2 k2 + 2 k3 + k4) / 6, summed as the stages come: two stage rates live, not four.
  RigidBodyStateRate<Scalar> sum = scaled(k1, sixth);
  RigidBodyStateRate<Scalar> k = rate(advance(x, k1, half));  // k2
  accumulate(sum, k, third);
  k = rate(advance(x, k, half));  // k3
  accumulate(sum, k, third);
  k = rate(advance(x, k, h));  // k4
  accumulate(sum, k, sixth);
  RigidBodyState<Scalar> y = advance(x, sum, h);
  y.q_wb = normalized(y.q_wb);
  return y;
}

template <class Scalar, class Rate>
RBMC_HD_INLINE RigidBodyState<Scalar> rk4_step(const Rate& rate, const RigidBodyState<Scalar>& x, Scalar h) {
  return rk4_step(rate, x, rate(x), h);
}

}  // namespace rbmc

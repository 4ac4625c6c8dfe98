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
  const RigidBodyStateRate<Scalar> k2 = rate(advance(x, k1, half));
  const RigidBodyStateRate<Scalar> k3 = rate(advance(x, k2, half));
  const RigidBodyStateRate<Scalar> k4 = rate(advance(x, k3, h));
  const Scalar sixth = Scalar(1) / Scalar(6), third = Scalar(1) / Scalar(3);
  RigidBodyState<Scalar> y = advance(x, weighted_sum(k1, sixth, k2, third, k3, third, k4, sixth), h);
  y.q_wb = normalized(y.q_wb);
  return y;
}

template <class Scalar, class Rate>
RBMC_HD_INLINE RigidBodyState<Scalar> rk4_step(const Rate& rate, const RigidBodyState<Scalar>& x, Scalar h) {
  return rk4_step(rate, x, rate(x), h);
}

}  // namespace rbmc

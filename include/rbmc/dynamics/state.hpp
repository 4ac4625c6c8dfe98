// The state of one free rigid body and its time derivative.
//
// p_w, v_w: position and velocity of the body-frame origin O, world frame (m, m/s).
// q_wb: attitude, unit quaternion (w, x, y, z), body to world.
// omega_b: angular velocity of the body relative to the world, body frame (rad/s).
#pragma once

#include "rbmc/hd.hpp"
#include "rbmc/math/quaternion.hpp"

namespace rbmc {

template <class Scalar>
struct RigidBodyState {
  Vec3<Scalar> p_w;
  Quaternion<Scalar> q_wb;
  Vec3<Scalar> v_w;
  Vec3<Scalar> omega_b;
};

template <class Scalar>
struct RigidBodyStateRate {
  Vec3<Scalar> p_dot_w;
  Quaternion<Scalar> q_dot_wb;
  Vec3<Scalar> v_dot_w;
  Vec3<Scalar> omega_dot_b;
};

// x + h ẋ, the stage update of explicit Runge–Kutta methods (the quaternion is updated in R⁴
// and renormalised by the caller at the end of the step).
template <class Scalar>
RBMC_HD_INLINE RigidBodyState<Scalar> advance(const RigidBodyState<Scalar>& x, const RigidBodyStateRate<Scalar>& xd,
                                              Scalar h) {
  RigidBodyState<Scalar> y;
  y.p_w = x.p_w + h * xd.p_dot_w;
  y.q_wb = {x.q_wb.w + h * xd.q_dot_wb.w, x.q_wb.x + h * xd.q_dot_wb.x, x.q_wb.y + h * xd.q_dot_wb.y,
            x.q_wb.z + h * xd.q_dot_wb.z};
  y.v_w = x.v_w + h * xd.v_dot_w;
  y.omega_b = x.omega_b + h * xd.omega_dot_b;
  return y;
}

// a k1 + b k2 + ... : the weighted sum of stage rates, written for four stages (RK4's weights).
template <class Scalar>
RBMC_HD_INLINE RigidBodyStateRate<Scalar> weighted_sum(const RigidBodyStateRate<Scalar>& k1, Scalar w1,
                                                       const RigidBodyStateRate<Scalar>& k2, Scalar w2,
                                                       const RigidBodyStateRate<Scalar>& k3, Scalar w3,
                                                       const RigidBodyStateRate<Scalar>& k4, Scalar w4) {
  RigidBodyStateRate<Scalar> s;
  s.p_dot_w = w1 * k1.p_dot_w + w2 * k2.p_dot_w + w3 * k3.p_dot_w + w4 * k4.p_dot_w;
  const Quaternion<Scalar>&a = k1.q_dot_wb, &b = k2.q_dot_wb, &c = k3.q_dot_wb, &d = k4.q_dot_wb;
  s.q_dot_wb = {w1 * a.w + w2 * b.w + w3 * c.w + w4 * d.w, w1 * a.x + w2 * b.x + w3 * c.x + w4 * d.x,
                w1 * a.y + w2 * b.y + w3 * c.y + w4 * d.y, w1 * a.z + w2 * b.z + w3 * c.z + w4 * d.z};
  s.v_dot_w = w1 * k1.v_dot_w + w2 * k2.v_dot_w + w3 * k3.v_dot_w + w4 * k4.v_dot_w;
  s.omega_dot_b = w1 * k1.omega_dot_b + w2 * k2.omega_dot_b + w3 * k3.omega_dot_b + w4 * k4.omega_dot_b;
  return s;
}

template <class Scalar>
RBMC_HD inline bool is_finite(const RigidBodyState<Scalar>& x) {
  // A NaN or infinity anywhere makes the sum non-finite (inf - inf is NaN).
  const Scalar s = x.p_w.sum() + x.v_w.sum() + x.omega_b.sum() + x.q_wb.w + x.q_wb.x + x.q_wb.y + x.q_wb.z;
  return isfinite_hd(s);
}

}  // namespace rbmc

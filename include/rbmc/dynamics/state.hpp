// The state of one free rigid body and its time derivative.
//
// p_w, v_w: position and velocity of the body-frame origin O, world frame (m, m/s).
// q_wb: attitude, unit quaternion (w, x, y, z), body to world.
// omega_b: angular velocity of the body relative to the world, body frame (rad/s).
#pragma once

#include "rbmc/hd.hpp"
#include "rbmc/math/quaternion.hpp"

namespace rbmc {

// Where each part of the state lies in its 13 values, the one order every flat copy of a state
// uses: StateVector (state_vector.hpp), a batch's final-state and event columns
// (sample_layout.hpp) and a trajectory's row at each output time (output_times.hpp).
namespace state_offset {
enum : int {
  p_w = 0,      // 3
  q_wb = 3,     // 4: w, x, y, z
  v_w = 7,      // 3
  omega_b = 10, // 3
  count = 13
};
}  // namespace state_offset

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

// w k: a stage rate scaled, to start a weighted sum of stages.
template <class Scalar>
RBMC_HD_INLINE RigidBodyStateRate<Scalar> scaled(const RigidBodyStateRate<Scalar>& k, Scalar w) {
  return {w * k.p_dot_w, {w * k.q_dot_wb.w, w * k.q_dot_wb.x, w * k.q_dot_wb.y, w * k.q_dot_wb.z}, w * k.v_dot_w,
          w * k.omega_dot_b};
}

// sum + w k, component by component: a weighted sum of stages accumulated as each stage is
// found, so that a stage's rate need not stay live until the last one (registers on the GPU).
// Left to right, as a + b + c + d is: the same rounding as the sum written out.
template <class Scalar>
RBMC_HD_INLINE void accumulate(RigidBodyStateRate<Scalar>& sum, const RigidBodyStateRate<Scalar>& k, Scalar w) {
  sum.p_dot_w = sum.p_dot_w + w * k.p_dot_w;
  sum.q_dot_wb = {sum.q_dot_wb.w + w * k.q_dot_wb.w, sum.q_dot_wb.x + w * k.q_dot_wb.x,
                  sum.q_dot_wb.y + w * k.q_dot_wb.y, sum.q_dot_wb.z + w * k.q_dot_wb.z};
  sum.v_dot_w = sum.v_dot_w + w * k.v_dot_w;
  sum.omega_dot_b = sum.omega_dot_b + w * k.omega_dot_b;
}

// The sum of the state's 13 values: non-finite when any is (inf − inf is NaN).
template <class Scalar>
RBMC_HD inline Scalar component_sum(const RigidBodyState<Scalar>& x) {
  return x.p_w.sum() + x.v_w.sum() + x.omega_b.sum() + x.q_wb.w + x.q_wb.x + x.q_wb.y + x.q_wb.z;
}

template <class Scalar>
RBMC_HD inline bool is_finite(const RigidBodyState<Scalar>& x) {
  return isfinite_hd(component_sum(x));
}

// A state where none was measured: NaN throughout. An event that has not occurred records it
// (its time NaN too), and a sample not integrated as its final state (run_sample), as a kept
// trajectory holds NaN after its sample stopped. Both were the initial state before, which a mean
// over the samples took in, silently, from the samples where nothing happened.
template <class Scalar>
RBMC_HD inline RigidBodyState<Scalar> no_state() {
  const Scalar nan = Eigen::NumTraits<Scalar>::quiet_NaN();
  return {Vec3<Scalar>::Constant(nan), {nan, nan, nan, nan}, Vec3<Scalar>::Constant(nan), Vec3<Scalar>::Constant(nan)};
}

}  // namespace rbmc

// The state as one 13-vector [p_w (3), q_wb (w, x, y, z), v_w (3), ω_b (3)] (state_offset), for integrators
// whose stages are linear combinations of many rates (Dormand–Prince) and for interpolation.
#pragma once

#include "rbmc/dynamics/state.hpp"

namespace rbmc {

template <class Scalar>
using StateVector = Eigen::Matrix<Scalar, state_offset::count, 1>;

template <class Scalar>
RBMC_HD inline StateVector<Scalar> pack(const RigidBodyState<Scalar>& x) {
  StateVector<Scalar> y;
  y << x.p_w, x.q_wb.w, x.q_wb.x, x.q_wb.y, x.q_wb.z, x.v_w, x.omega_b;
  return y;
}

template <class Scalar>
RBMC_HD inline StateVector<Scalar> pack(const RigidBodyStateRate<Scalar>& xd) {
  StateVector<Scalar> y;
  y << xd.p_dot_w, xd.q_dot_wb.w, xd.q_dot_wb.x, xd.q_dot_wb.y, xd.q_dot_wb.z, xd.v_dot_w, xd.omega_dot_b;
  return y;
}

template <class Scalar>
RBMC_HD inline RigidBodyState<Scalar> unpack(const StateVector<Scalar>& y) {
  constexpr int q = state_offset::q_wb;
  return {y.template segment<3>(state_offset::p_w), {y(q), y(q + 1), y(q + 2), y(q + 3)},
          y.template segment<3>(state_offset::v_w), y.template segment<3>(state_offset::omega_b)};
}

}  // namespace rbmc

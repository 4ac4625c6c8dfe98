// Energies and momenta of one body: what conservation checks and diagnostics compare.
#pragma once

#include "rbmc/dynamics/newton_euler.hpp"

namespace rbmc {

// The centre of mass's position and velocity, with the attitude as the quaternion or its matrix
// (loads.hpp's Rotation). Where the centre of mass is the body origin (model.com_at_origin, a
// branch the samples of a batch usually take alike) they are the origin's: the turn of a zero
// vector is skipped, which changes no component but the sign of an exact zero (v + 0 for v = −0).
template <class Scalar, class Rotation>
RBMC_HD_INLINE Vec3<Scalar> com_position_w(const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x,
                                           const Rotation& rotation_wb) {
  if (model.com_at_origin) return x.p_w;
  return x.p_w + rotate(rotation_wb, model.com_b);  // 000 eq. 1.1
}
template <class Scalar, class Rotation>
RBMC_HD_INLINE Vec3<Scalar> com_velocity_w(const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x,
                                           const Rotation& rotation_wb) {
  if (model.com_at_origin) return x.v_w;
  return x.v_w + rotate(rotation_wb, Vec3<Scalar>(x.omega_b.cross(model.com_b)));  // 000 eq. 1.4
}
template <class Scalar>
RBMC_HD inline Vec3<Scalar> com_position_w(const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x) {
  return com_position_w(model, x, x.q_wb);
}
template <class Scalar>
RBMC_HD inline Vec3<Scalar> com_velocity_w(const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x) {
  return com_velocity_w(model, x, x.q_wb);
}

// T = ½ m |v_C|² + ½ ωᵀ I ω (001, kinetic energy with O = C). Its reductions written out
// (mat3_vec3.hpp), so that the CPU's SIMD lanes compute it bit for bit as one sample does.
template <class Scalar>
RBMC_HD inline Scalar kinetic_energy(const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x) {
  const Vec3<Scalar> v_c = com_velocity_w(model, x);
  return Scalar(0.5) * model.mass * squared_norm3(v_c) +
         Scalar(0.5) * dot3(x.omega_b, mat3_times(model.inertia_c_b, x.omega_b));
}

template <class Scalar>
RBMC_HD inline Scalar potential_energy(const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x) {
  return uniform_gravity_potential(model.mass, model.gravity_w, com_position_w(model, x));
}

// Angular momentum about the centre of mass, world frame: h_C = R I ω_b (001, h_• = I ω).
template <class Scalar>
RBMC_HD inline Vec3<Scalar> angular_momentum_c_w(const FreeBodyModel<Scalar>& model,
                                                 const RigidBodyState<Scalar>& x) {
  return rotate(x.q_wb, Vec3<Scalar>(model.inertia_c_b * x.omega_b));
}

// Angular momentum about the world origin, world frame: r_C × m v_C + h_C (002: h_O = h_C + OC × h).
template <class Scalar>
RBMC_HD inline Vec3<Scalar> angular_momentum_origin_w(const FreeBodyModel<Scalar>& model,
                                                      const RigidBodyState<Scalar>& x) {
  return com_position_w(model, x).cross(Vec3<Scalar>(model.mass * com_velocity_w(model, x))) +
         angular_momentum_c_w(model, x);
}

// Linear momentum p = m v_C.
template <class Scalar>
RBMC_HD inline Vec3<Scalar> linear_momentum_w(const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x) {
  return model.mass * com_velocity_w(model, x);
}

}  // namespace rbmc

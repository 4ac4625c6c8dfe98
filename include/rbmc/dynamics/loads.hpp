// External loads on one body, each reduced to a wrench at the centre of mass: the resultant
// force (world components) and the moment about the centre of mass (body components).
//
// A force F at a body point P does virtual work Fᵀ δr_P; with δr_P from 000 eq. 1.15 this is the
// generalized force Q = [F; Gᵀ M] of 000 eqs 1.28–1.31, M = r × F the moment about the
// reference point. With the body angular velocity as the rotational speed (G = 1) the
// generalized force is the wrench [F; M] itself; rbmc takes moments about the centre of mass.
#pragma once

#include <cstdint>

#include "rbmc/hd.hpp"
#include "rbmc/math/mat3_vec3.hpp"
#include "rbmc/math/quaternion.hpp"

namespace rbmc {

template <class Scalar>
struct Wrench {
  Vec3<Scalar> force_w;     // N, world components
  Vec3<Scalar> torque_c_b;  // N m, about the centre of mass, body components

  RBMC_HD static Wrench zero() { return {Vec3<Scalar>::Zero(), Vec3<Scalar>::Zero()}; }
  RBMC_HD Wrench& operator+=(const Wrench& o) {
    force_w += o.force_w;
    torque_c_b += o.torque_c_b;
    return *this;
  }
};

// Where a load's vector is given: fixed in the body (it turns with it) or fixed in the world.
enum class LoadFrame : std::uint8_t { body = 0, world = 1 };

// Uniform gravity acts at the centre of mass: force m g, no moment about it.
template <class Scalar>
RBMC_HD_INLINE Wrench<Scalar> uniform_gravity_wrench(Scalar mass, const NonDeduced<Vec3<Scalar>>& gravity_w) {
  return {mass * gravity_w, Vec3<Scalar>::Zero()};
}

// Its potential energy, zero at the world origin: V = −m g · r_C.
template <class Scalar>
RBMC_HD inline Scalar uniform_gravity_potential(Scalar mass, const NonDeduced<Vec3<Scalar>>& gravity_w,
                                                const NonDeduced<Vec3<Scalar>>& com_w) {
  return -mass * gravity_w.dot(com_w);
}

// The loads below take the attitude R_wb as a Rotation: the quaternion q_wb, or its matrix formed
// once for all the loads of an evaluation (RotationMatrix, quaternion.hpp; evaluate_loads says
// when). rotate and rotate_inverse turn by either.

// A force at the body point point_b (relative to the body origin, body components), given in
// `frame`: moment (r_P − r_C) × F about the centre of mass (000 eqs 1.28–1.30).
template <class Scalar, class Rotation>
RBMC_HD_INLINE Wrench<Scalar> point_force_wrench(const Rotation& rotation_wb, const Vec3<Scalar>& com_b,
                                                 const Vec3<Scalar>& point_b, const Vec3<Scalar>& force,
                                                 LoadFrame frame) {
  const Vec3<Scalar> f_b = frame == LoadFrame::body ? force : rotate_inverse(rotation_wb, force);
  const Vec3<Scalar> f_w = frame == LoadFrame::world ? force : rotate(rotation_wb, force);
  return {f_w, (point_b - com_b).cross(f_b)};
}

// A pure torque (a couple): the same moment about every point.
template <class Scalar, class Rotation>
RBMC_HD_INLINE Wrench<Scalar> pure_torque_wrench(const Rotation& rotation_wb, const Vec3<Scalar>& torque,
                                                 LoadFrame frame) {
  return {Vec3<Scalar>::Zero(), frame == LoadFrame::body ? torque : rotate_inverse(rotation_wb, torque)};
}

// Damping: translational F = −(c₁ + c₂ |v_C|) v_C at the centre of mass and rotational
// τ = −(k₁ + k₂ |ω|) ω: linear (viscous) and quadratic (drag-like) terms, each in the components
// of its velocity. The norm is taken only where the quadratic coefficient is not zero (c₁ + 0 |v|
// is c₁): a linear damping needs no square root, which on the GPU is a software sequence in
// double (on the CPU's lanes it was hidden: neutral, bench/RESULTS.md, thirty-fourth session).
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> damping_force(const Vec3<Scalar>& v_c, Scalar linear, Scalar quadratic) {
  Scalar c = linear;
  if (nonzero_hd(quadratic)) c += quadratic * norm3(v_c);
  return -c * v_c;
}
// The same law in ω.
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> damping_torque(const Vec3<Scalar>& omega_b, Scalar angular_linear,
                                           Scalar angular_quadratic) {
  return damping_force(omega_b, angular_linear, angular_quadratic);
}

// A linear spring-damper from the body point P to the world point A: stiffness k, rest length
// L₀, damping c along the line. With d = A − r_P, L = |d|, u = d / L and L̇ = −u · ṙ_P, the force on
// the body is (k (L − L₀) + c L̇) u at P. Undefined at L = 0 (no direction): no force there.
template <class Scalar, class Rotation>
RBMC_HD_INLINE Wrench<Scalar> spring_damper_wrench(const Rotation& rotation_wb, const Vec3<Scalar>& com_b,
                                                   const Vec3<Scalar>& point_b, const Vec3<Scalar>& point_w,
                                                   const Vec3<Scalar>& point_velocity_w, const Vec3<Scalar>& anchor_w,
                                                   Scalar stiffness, Scalar rest_length, Scalar damping) {
  const Vec3<Scalar> d = anchor_w - point_w;
  const Scalar length = norm3(d);
  if (not_positive_hd(length)) return Wrench<Scalar>::zero();
  // One division and three products, not three divisions: a division is the costliest vector
  // instruction of a right-hand side (on an AVX-512 Xeon the loads' lanes ran 9-11 % faster;
  // bench/RESULTS.md), and on the GPU a double division is a software sequence. u moves by an ulp.
  const Vec3<Scalar> u = d * (Scalar(1) / length);
  const Scalar length_rate = -dot3(u, point_velocity_w);
  const Vec3<Scalar> f_w = (stiffness * (length - rest_length) + damping * length_rate) * u;
  return {f_w, (point_b - com_b).cross(rotate_inverse(rotation_wb, f_w))};
}

// Its potential energy ½ k (L − L₀)².
template <class Scalar>
RBMC_HD inline Scalar spring_potential(const Vec3<Scalar>& point_w, const Vec3<Scalar>& anchor_w, Scalar stiffness,
                                       Scalar rest_length) {
  const Scalar stretch = norm3(Vec3<Scalar>(anchor_w - point_w)) - rest_length;
  return Scalar(0.5) * stiffness * stretch * stretch;
}

// A central body of gravitational parameter μ at the world point center_w, to second order in
// the body's size (MacCullagh's potential). With R = r_C − center, R_b its body components and
// R̂ = R / |R|:
//   potential  V = −μ m / |R| − μ / (2 |R|³) (tr I_C − 3 R̂_bᵀ I_C R̂_b),
//   force      −μ m R / |R|³ − 3μ / (2 |R|⁵) (tr I_C R_b + 2 I_C R_b − 5 (R̂_bᵀ I_C R̂_b) R_b)  (= −∂V/∂R),
//   torque     3 μ / |R|⁵ · R_b × (I_C R_b), the gravity-gradient torque (zero when R_b lies
//              along a principal axis).
template <class Scalar, class Rotation>
RBMC_HD_INLINE Wrench<Scalar> central_gravity_wrench(const Rotation& rotation_wb, const Mat3<Scalar>& inertia_c_b,
                                                     Scalar mass, const Vec3<Scalar>& com_w,
                                                     const Vec3<Scalar>& center_w, Scalar mu) {
  const Vec3<Scalar> r_w = com_w - center_w;
  const Scalar r2 = squared_norm3(r_w), r = sqrt_hd(r2), r5 = r2 * r2 * r;
  const Vec3<Scalar> r_b = rotate_inverse(rotation_wb, r_w);
  const Vec3<Scalar> i_r = mat3_times(inertia_c_b, r_b);
  const Vec3<Scalar> second_order_b =
      -Scalar(1.5) * mu / r5 * (trace3(inertia_c_b) * r_b + Scalar(2) * i_r - Scalar(5) * (dot3(r_b, i_r) / r2) * r_b);
  return {-mu * mass / (r2 * r) * r_w + rotate(rotation_wb, second_order_b), Scalar(3) * mu / r5 * r_b.cross(i_r)};
}

template <class Scalar>
RBMC_HD inline Scalar central_gravity_potential(const Quaternion<Scalar>& q_wb, const Mat3<Scalar>& inertia_c_b,
                                                Scalar mass, const Vec3<Scalar>& com_w, const Vec3<Scalar>& center_w,
                                                Scalar mu) {
  const Vec3<Scalar> r_w = com_w - center_w;
  const Scalar r = norm3(r_w);
  const Vec3<Scalar> u_b = rotate_inverse(q_wb, Vec3<Scalar>(r_w / r));
  return -mu * mass / r - mu / (Scalar(2) * r * r * r) * (trace3(inertia_c_b) - Scalar(3) * dot3(u_b, mat3_times(inertia_c_b, u_b)));
}

}  // namespace rbmc

// Newton–Euler equations of a free rigid body whose reference point O may be off the centre of mass.
#pragma once

#include "rbmc/body/mass_properties.hpp"
#include "rbmc/dynamics/loads.hpp"
#include "rbmc/dynamics/state.hpp"
#include "rbmc/hd.hpp"
#include "rbmc/math/mat3_vec3.hpp"

namespace rbmc {

// What the right-hand side needs of one body, with the per-step inverse hoisted out of the loop.
template <class Scalar>
struct FreeBodyModel {
  Scalar mass;
  Vec3<Scalar> com_b;            // centre of mass relative to O, body frame (m)
  Mat3<Scalar> inertia_c_b;      // about the centre of mass, body axes (kg m²)
  Mat3<Scalar> inertia_inv_c_b;  // its inverse
  Vec3<Scalar> gravity_w;        // uniform gravitational acceleration (m/s²)
  bool com_at_origin;            // com_b = 0: the reference point's acceleration is the centre of mass's
  bool inertia_diagonal;         // no product of inertia in I_C or I_C⁻¹: the body axes are principal axes
};

// Whether every off-diagonal entry of m is zero (of either sign).
template <class Scalar>
RBMC_HD inline bool off_diagonal_zero(const Mat3<Scalar>& m) {
  return m(0, 1) == Scalar(0) && m(0, 2) == Scalar(0) && m(1, 0) == Scalar(0) && m(1, 2) == Scalar(0) &&
         m(2, 0) == Scalar(0) && m(2, 1) == Scalar(0);
}

template <class Scalar>
RBMC_HD inline FreeBodyModel<Scalar> make_free_body_model(const MassProperties<Scalar>& body,
                                                          const NonDeduced<Vec3<Scalar>>& gravity_w) {
  const Mat3<Scalar> inertia_inv_c_b = body.inertia_c_b.inverse();
  return {body.mass,
          body.com_b,
          body.inertia_c_b,
          inertia_inv_c_b,
          gravity_w,
          body.com_b.x() == Scalar(0) && body.com_b.y() == Scalar(0) && body.com_b.z() == Scalar(0),
          off_diagonal_zero(body.inertia_c_b) && off_diagonal_zero(inertia_inv_c_b)};
}

// m v for the model's I_C or I_C⁻¹ (`m`). Where the body axes are principal axes
// (model.inertia_diagonal: most scenarios give the inertia so, and a dispersion of the principal
// moments keeps it so), the diagonal's three products alone: the full product's other six terms
// are products with an exact zero, so for finite v its components are the same numbers (x + 0 = x)
// but for the sign of a zero component. Euler's equations then take 18 products and sums, not 42
// (the main job's integration 1.1 × faster on one core: bench/RESULTS.md, forty-ninth session).
// A branch every sample of a batch usually takes alike (the CPU's lane groups check that theirs do).
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> inertia_matrix_times(const FreeBodyModel<Scalar>& model, const Mat3<Scalar>& m,
                                                 const Vec3<Scalar>& v) {
  if (model.inertia_diagonal)
    return Vec3<Scalar>(m.coeff(0, 0) * v.coeff(0), m.coeff(1, 1) * v.coeff(1), m.coeff(2, 2) * v.coeff(2));
  return mat3_times(m, v);
}

// Euler's equations (001, centre-of-mass form): ω̇_b = I⁻¹ (τ_C − ω × I ω), rad/s².
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> euler_angular_acceleration(const FreeBodyModel<Scalar>& model, const Vec3<Scalar>& omega_b,
                                                       const Vec3<Scalar>& torque_c_b) {
  const Vec3<Scalar> h_c_b = inertia_matrix_times(model, model.inertia_c_b, omega_b);
  return inertia_matrix_times(model, model.inertia_inv_c_b, Vec3<Scalar>(torque_c_b - omega_b.cross(h_c_b)));
}

// The centre of mass's acceleration relative to the body origin's, body components:
// ω̇ × r_C + ω × (ω × r_C) (000 eq. 1.9), so that a_O = a_C − R (this). Callers skip it where the
// centre of mass lies at the origin (model.com_at_origin), where it is zero.
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> com_relative_acceleration_b(const FreeBodyModel<Scalar>& model, const Vec3<Scalar>& omega_b,
                                                        const Vec3<Scalar>& omega_dot_b) {
  return omega_dot_b.cross(model.com_b) + omega_b.cross(omega_b.cross(model.com_b));
}

// ẋ for the state (p_w, q_wb, v_w, ω_b) under the wrench w at the centre of mass C:
//   ω̇_b = I⁻¹ (τ_C − ω × I ω)                      Euler's equations, 001 (centre-of-mass form)
//   a_C = F / m                                    001 (centre-of-mass form)
//   a_O = a_C − R (ω̇ × r_C + ω × (ω × r_C))        000 eq. 1.9, taken from O to C and solved for a_O
//   ṗ = v,  q̇ = ½ q ⊗ (0, ω_b)                     000 eq. 1.3 / 001 Poisson's equation, as a quaternion
// The centre-of-mass form decouples rotation from translation (001), so only I⁻¹ is needed.
template <class Scalar>
RBMC_HD_INLINE RigidBodyStateRate<Scalar> free_body_rate(const FreeBodyModel<Scalar>& model,
                                                         const RigidBodyState<Scalar>& x,
                                                         const Wrench<Scalar>& wrench) {
  const Vec3<Scalar>& w = x.omega_b;
  const Vec3<Scalar> omega_dot_b = euler_angular_acceleration(model, w, wrench.torque_c_b);
  const Vec3<Scalar> a_c_w = wrench.force_w / model.mass;
  RigidBodyStateRate<Scalar> xd;
  xd.p_dot_w = x.v_w;
  xd.q_dot_wb = quaternion_rate(x.q_wb, w);
  xd.omega_dot_b = omega_dot_b;
  // The reference point's acceleration relative to the centre of mass's; none when they coincide
  // (a branch every sample of a batch usually takes the same way).
  if (model.com_at_origin) {
    xd.v_dot_w = a_c_w;
  } else {
    xd.v_dot_w = a_c_w - rotate(x.q_wb, com_relative_acceleration_b(model, w, omega_dot_b));
  }
  return xd;
}

// How ẋ changes when the wrench dw is added to the one acting: free_body_rate is affine in the
// wrench, and this is its linear part (ω̇ by I⁻¹ dτ, a_C by dF / m, a_O by the same change carried
// from C to O; the positions' and attitude's rates do not change). The constraint solve builds its
// apparent inverse inertia from it (constraints.hpp).
template <class Scalar>
RBMC_HD_INLINE RigidBodyStateRate<Scalar> free_body_rate_change(const FreeBodyModel<Scalar>& model,
                                                                const RigidBodyState<Scalar>& x,
                                                                const Wrench<Scalar>& dw) {
  RigidBodyStateRate<Scalar> dxd;
  dxd.p_dot_w = Vec3<Scalar>::Zero();
  dxd.q_dot_wb = {Scalar(0), Scalar(0), Scalar(0), Scalar(0)};
  dxd.omega_dot_b = mat3_times(model.inertia_inv_c_b, dw.torque_c_b);
  dxd.v_dot_w = dw.force_w / model.mass;
  if (!model.com_at_origin) dxd.v_dot_w -= rotate(x.q_wb, Vec3<Scalar>(dxd.omega_dot_b.cross(model.com_b)));
  return dxd;
}

// Under uniform gravity alone (the other loads: load_set.hpp).
template <class Scalar>
RBMC_HD_INLINE RigidBodyStateRate<Scalar> free_body_rate(const FreeBodyModel<Scalar>& model,
                                                         const RigidBodyState<Scalar>& x) {
  return free_body_rate(model, x, uniform_gravity_wrench(model.mass, model.gravity_w));
}

}  // namespace rbmc

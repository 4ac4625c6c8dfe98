// The free body's equations of motion in the two other forms of the reference texts. The
// integrator uses the centre-of-mass form (newton_euler.hpp); these exist to cross-check it and
// for formulations that need a body point other than the centre of mass (constraints).
//
// Both work in body components with the body-frame origin O as reference point: velocity
// v = [v_O; ω] and its rate v̇ = [v̇_O; ω̇], where v̇_O is the rate of the body components of
// v_O (v̇_O = Rᵀ a_O − ω × v_O), which is also 002's spatial acceleration in body coordinates.
#pragma once

#include <Eigen/Cholesky>

#include "rbmc/body/inertia.hpp"
#include "rbmc/body/mass_properties.hpp"
#include "rbmc/spatial/spatial_inertia.hpp"

namespace rbmc {

// 004 eq. 46: M_O = [M₁ S̃ᵀ; S̃ J_O] with M₁ = m 1, S̃ = (m r_C)^×, J_O the inertia about O.
template <class Scalar>
RBMC_HD inline Eigen::Matrix<Scalar, 6, 6> mass_matrix_about_origin(const MassProperties<Scalar>& body) {
  const Mat3<Scalar> s = skew<Scalar>(first_moment<Scalar>(body.mass, body.com_b));
  Eigen::Matrix<Scalar, 6, 6> m;
  m << body.mass * Mat3<Scalar>::Identity(), s.transpose(), s,
      inertia_about_point<Scalar>(body.inertia_c_b, body.mass, body.com_b);
  return m;
}

// 004 eq. 47: Ω₁ = [ω̃ M₁, ω̃ S̃ᵀ; S̃ ω̃, ω̃ J_O].
template <class Scalar>
RBMC_HD inline Eigen::Matrix<Scalar, 6, 6> omega_matrix_about_origin(const MassProperties<Scalar>& body,
                                                                     const Vec3<Scalar>& omega_b) {
  const Mat3<Scalar> s = skew<Scalar>(first_moment<Scalar>(body.mass, body.com_b)), w = skew(omega_b);
  Eigen::Matrix<Scalar, 6, 6> o;
  o << body.mass * w, w * s.transpose(), s * w, w * inertia_about_point<Scalar>(body.inertia_c_b, body.mass, body.com_b);
  return o;
}

// 001's summary of these equations misprints two terms (−ω^× c^× v for −ω^× c^× ω, and the sign
// of c^× ω^× v); deriving them from 001's own momenta gives 004's Ω₁, used here (docs/physics.md).
//
// Form (b), 004 eq. 49: M_O v̇ = −Ω₁ v + τ, τ = [f; n_O] (force, then moment about O, body
// components; 004 orders the velocity [v_O; ω]). Returns v̇ = [v̇_O; ω̇].
template <class Scalar>
RBMC_HD inline Eigen::Matrix<Scalar, 6, 1> acceleration_about_origin(const MassProperties<Scalar>& body,
                                                                     const Vec3<Scalar>& v_o_b, const Vec3<Scalar>& omega_b,
                                                                     const Vec3<Scalar>& force_b,
                                                                     const Vec3<Scalar>& moment_o_b) {
  Eigen::Matrix<Scalar, 6, 1> v, tau;
  v << v_o_b, omega_b;
  tau << force_b, moment_o_b;
  return mass_matrix_about_origin(body).ldlt().solve(tau - omega_matrix_about_origin(body, omega_b) * v);
}

// The body's spatial inertia about O in body coordinates (002).
template <class Scalar>
RBMC_HD inline SpatialInertia<Scalar> spatial_inertia(const MassProperties<Scalar>& body) {
  return {body.mass, body.com_b, body.inertia_c_b};
}

// Form (c), 002: f = I a + v ×* I v, so a = I⁻¹ (f − v ×* I v), with v = [ω; v_O] and
// f = [n_O; f] in 002's Plücker order. Returns a = [ω̇; v̇_O].
template <class Scalar>
RBMC_HD inline Motion<Scalar> spatial_acceleration(const MassProperties<Scalar>& body, const Motion<Scalar>& v,
                                                   const Force<Scalar>& f) {
  const SpatialInertia<Scalar> inertia = spatial_inertia(body);
  const Eigen::Matrix<Scalar, 6, 1> a = inertia.matrix().ldlt().solve((f - bias_force(inertia, v)).vector());
  return {a.template head<3>(), a.template tail<3>()};
}

}  // namespace rbmc

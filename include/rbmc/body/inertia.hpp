// Moving inertia between reference points and frames (001).
//
// Notation: c_P = ∫ ρ dm is the first moment about a point P (001, "first moment of mass"), zero
// about the centre of mass; J_P = −∫ ρ^× ρ^× dm is the inertia about P; I_C = J_C.
#pragma once

#include "rbmc/hd.hpp"
#include "rbmc/math/skew.hpp"

namespace rbmc {

// c_O = m r_C, with r_C the centre of mass relative to O.
template <class Scalar>
RBMC_HD inline Vec3<Scalar> first_moment(Scalar mass, const NonDeduced<Vec3<Scalar>>& com_from_point) {
  return mass * com_from_point;
}

// 001's parallel-axis theorem in its general, first-moment form: the inertia about A from the
// inertia J_B and first moment c_B about B, where rho_ab is the position of B relative to A:
//   J_A = J_B − ρ^× c_B^× − c_B^× ρ^× − m ρ^× ρ^×.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> parallel_axis(const Mat3<Scalar>& inertia_b, const NonDeduced<Vec3<Scalar>>& first_moment_b,
                                          Scalar mass, const NonDeduced<Vec3<Scalar>>& rho_ab) {
  const Mat3<Scalar> r = skew(rho_ab), c = skew(first_moment_b);
  return inertia_b - r * c - c * r - mass * r * r;
}

// The first moment moves with the point: c_A = c_B + m ρ (from a = b + ρ under the integral).
template <class Scalar>
RBMC_HD inline Vec3<Scalar> shift_first_moment(const Vec3<Scalar>& first_moment_b, Scalar mass,
                                               const NonDeduced<Vec3<Scalar>>& rho_ab) {
  return first_moment_b + mass * rho_ab;
}

// From the centre of mass to a point O (c_C = 0, ρ = r_C − r_O = −com_from_point):
// J_O = I_C − m r_C^× r_C^×.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> inertia_about_point(const Mat3<Scalar>& inertia_c, Scalar mass,
                                                const NonDeduced<Vec3<Scalar>>& com_from_point) {
  const Mat3<Scalar> r = skew<Scalar>(com_from_point);
  return inertia_c - mass * r * r;
}

// And back: I_C = J_O + m r_C^× r_C^×.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> inertia_about_center_of_mass(const Mat3<Scalar>& inertia_o, Scalar mass,
                                                         const NonDeduced<Vec3<Scalar>>& com_from_point) {
  const Mat3<Scalar> r = skew<Scalar>(com_from_point);
  return inertia_o + mass * r * r;
}

// Rotation theorem (001): the same tensor in frame a from its components in frame b,
// J_a = C_ab J_b C_ba, with C_ab taking b-components to a-components.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> rotate_inertia(const Mat3<Scalar>& c_ab, const Mat3<Scalar>& inertia_b) {
  return c_ab * inertia_b * c_ab.transpose();
}

}  // namespace rbmc

// Mass properties of one rigid body, and the checks that say whether they are physical.
//
// The body frame's origin O is the reference point whose motion the state carries; it need not
// be the centre of mass. com_b is the centre of mass relative to O (body frame), so the first
// moment about O is c_O = m com_b (001). inertia_c_b is the inertia tensor about the centre of
// mass in body axes, the I of 001 (J_• = I), with products of inertia inside the matrix as
// I_xy = -∫ x y dm (004 eq. 25).
#pragma once

#include <cstdint>

#include "rbmc/hd.hpp"
#include "rbmc/math/symmetric_eigen.hpp"

namespace rbmc {

template <class Scalar>
struct MassProperties {
  Scalar mass;
  Vec3<Scalar> com_b;
  Mat3<Scalar> inertia_c_b;
};

enum class BodyValidity : std::uint8_t {
  valid = 0,
  non_finite,          // a NaN or infinity among the values
  non_positive_mass,   // m <= 0
  asymmetric_inertia,  // I != Iᵀ beyond rounding
  not_positive_definite,
  triangle_inequality,  // principal moments with I_a + I_b < I_c: no mass distribution has them
};

inline const char* describe(BodyValidity v) {
  switch (v) {
    case BodyValidity::valid: return "valid";
    case BodyValidity::non_finite: return "mass properties contain NaN or infinity";
    case BodyValidity::non_positive_mass: return "mass must be positive";
    case BodyValidity::asymmetric_inertia: return "inertia tensor must be symmetric";
    case BodyValidity::not_positive_definite:
      return "inertia tensor must be positive definite (every principal moment > 0)";
    case BodyValidity::triangle_inequality:
      return "principal moments violate the triangle inequality (each must be <= the sum of the other two)";
  }
  return "unknown";
}

// Relative tolerance of the checks: rounding in a user's decimal input, not a physical slack.
// A thin disk (I3 = I1 + I2) and a slender rod's limit are exactly on the boundary and pass.
template <class Scalar>
RBMC_HD inline Scalar mass_property_tolerance() {
  return Scalar(64) * Eigen::NumTraits<Scalar>::epsilon();
}

template <class Scalar>
RBMC_HD inline BodyValidity check_inertia(const Mat3<Scalar>& inertia) {
  for (int i = 0; i < 9; ++i)
    if (!isfinite_hd(inertia(i))) return BodyValidity::non_finite;
  const Scalar scale = inertia.cwiseAbs().maxCoeff();
  const Scalar tol = mass_property_tolerance<Scalar>() * scale;
  if ((inertia - inertia.transpose()).cwiseAbs().maxCoeff() > tol) return BodyValidity::asymmetric_inertia;
  const Vec3<Scalar> moments = symmetric_eigenvalues<Scalar>(inertia);  // ascending
  if (!(moments(0) > tol)) return BodyValidity::not_positive_definite;
  // Triangle inequality: I_a + I_b - I_c = 2 ∫ ρ_c² dm >= 0 (from 001's J = ∫(ρ²1 - ρρᵀ) dm).
  if (moments(0) + moments(1) < moments(2) - tol) return BodyValidity::triangle_inequality;
  return BodyValidity::valid;
}

template <class Scalar>
RBMC_HD inline BodyValidity check_mass_properties(const MassProperties<Scalar>& body) {
  if (!isfinite_hd(body.mass) || !isfinite_hd(body.com_b.x()) || !isfinite_hd(body.com_b.y()) ||
      !isfinite_hd(body.com_b.z()))
    return BodyValidity::non_finite;
  if (!(body.mass > Scalar(0))) return BodyValidity::non_positive_mass;
  return check_inertia(body.inertia_c_b);
}

}  // namespace rbmc

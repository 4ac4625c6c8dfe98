// Plücker coordinate transforms (002): ᴮX_A for motion vectors and ᴮX*_A for force vectors.
#pragma once

#include "rbmc/math/skew.hpp"
#include "rbmc/spatial/vectors.hpp"

namespace rbmc {

// From A coordinates to B coordinates, where B's origin is at r (A components) from A's origin
// and E rotates A components into B components:
//   ᴮX_A = [E 0; 0 E] [1 0; −r^× 1],   ᴮX*_A = [E 0; 0 E] [1 −r^×; 0 1]   (002).
template <class Scalar>
struct Transform {
  Mat3<Scalar> rotation;     // E
  Vec3<Scalar> translation;  // r

  RBMC_HD static Transform identity() { return {Mat3<Scalar>::Identity(), Vec3<Scalar>::Zero()}; }

  // The 6×6 matrices, for tests and host-side assembly; apply() avoids forming them.
  RBMC_HD Eigen::Matrix<Scalar, 6, 6> motion_matrix() const {
    Eigen::Matrix<Scalar, 6, 6> x;
    x << rotation, Mat3<Scalar>::Zero(), -rotation * skew(translation), rotation;
    return x;
  }
  RBMC_HD Eigen::Matrix<Scalar, 6, 6> force_matrix() const {
    Eigen::Matrix<Scalar, 6, 6> x;
    x << rotation, -rotation * skew(translation), Mat3<Scalar>::Zero(), rotation;
    return x;
  }
};

// ᴮX_A m = [E ω; E (v_O − r × ω)]: the velocity of the body point at B's origin is v_O + ω × r.
template <class Scalar>
RBMC_HD inline Motion<Scalar> apply(const Transform<Scalar>& x, const Motion<Scalar>& m) {
  return {x.rotation * m.angular, x.rotation * (m.linear - x.translation.cross(m.angular))};
}

// ᴮX*_A f = [E (n_O − r × f); E f]: the moment about B's origin.
template <class Scalar>
RBMC_HD inline Force<Scalar> apply(const Transform<Scalar>& x, const Force<Scalar>& f) {
  return {x.rotation * (f.angular - x.translation.cross(f.linear)), x.rotation * f.linear};
}

// ᴬX_B: rotation Eᵀ; A's origin seen from B is −E r in B components.
template <class Scalar>
RBMC_HD inline Transform<Scalar> inverse(const Transform<Scalar>& x) {
  return {x.rotation.transpose(), -(x.rotation * x.translation)};
}

// ᶜX_A = ᶜX_B ᴮX_A: C's origin from A's is r_AB + E_BAᵀ r_BC.
template <class Scalar>
RBMC_HD inline Transform<Scalar> operator*(const Transform<Scalar>& c_from_b, const Transform<Scalar>& b_from_a) {
  return {c_from_b.rotation * b_from_a.rotation,
          b_from_a.translation + b_from_a.rotation.transpose() * c_from_b.translation};
}

}  // namespace rbmc

// Conversions between unit quaternions, rotation matrices and rotation vectors (axis-angle).
// All rotations are active and body to world, as everywhere in rbmc (docs/physics.md).
#pragma once

#include "rbmc/hd.hpp"
#include "rbmc/math/mat3_vec3.hpp"
#include "rbmc/math/quaternion.hpp"

namespace rbmc {

// The rotation matrix's quaternion, with w >= 0 (q and -q are the same rotation).
// Shepperd's method: divide by the largest of the four candidate components, never a small one.
template <class Scalar>
RBMC_HD inline Quaternion<Scalar> quaternion_from_rotation_matrix(const Mat3<Scalar>& r) {
  const Scalar trace = r(0, 0) + r(1, 1) + r(2, 2);
  Quaternion<Scalar> q;
  if (trace >= r(0, 0) && trace >= r(1, 1) && trace >= r(2, 2)) {
    const Scalar s = sqrt_hd(Scalar(1) + trace) * Scalar(2);  // 4 w
    q = {Scalar(0.25) * s, (r(2, 1) - r(1, 2)) / s, (r(0, 2) - r(2, 0)) / s, (r(1, 0) - r(0, 1)) / s};
  } else if (r(0, 0) >= r(1, 1) && r(0, 0) >= r(2, 2)) {
    const Scalar s = sqrt_hd(Scalar(1) + r(0, 0) - r(1, 1) - r(2, 2)) * Scalar(2);  // 4 x
    q = {(r(2, 1) - r(1, 2)) / s, Scalar(0.25) * s, (r(0, 1) + r(1, 0)) / s, (r(0, 2) + r(2, 0)) / s};
  } else if (r(1, 1) >= r(2, 2)) {
    const Scalar s = sqrt_hd(Scalar(1) + r(1, 1) - r(0, 0) - r(2, 2)) * Scalar(2);  // 4 y
    q = {(r(0, 2) - r(2, 0)) / s, (r(0, 1) + r(1, 0)) / s, Scalar(0.25) * s, (r(1, 2) + r(2, 1)) / s};
  } else {
    const Scalar s = sqrt_hd(Scalar(1) + r(2, 2) - r(0, 0) - r(1, 1)) * Scalar(2);  // 4 z
    q = {(r(1, 0) - r(0, 1)) / s, (r(0, 2) + r(2, 0)) / s, (r(1, 2) + r(2, 1)) / s, Scalar(0.25) * s};
  }
  if (q.w < Scalar(0)) q = {-q.w, -q.x, -q.y, -q.z};
  return normalized(q);
}

// The rotation vector (axis × angle, angle in [0, π]) of a unit quaternion: the logarithm map,
// inverse of quaternion_from_rotation_vector. atan2 keeps full accuracy near 0 and near π.
template <class Scalar>
// Its choices are made value by value (if_less_hd), so that the CPU's SIMD lanes can take it.
RBMC_HD inline Vec3<Scalar> rotation_vector_from_quaternion(const Quaternion<Scalar>& q_in) {
  const Scalar zero(0);
  const Quaternion<Scalar> q{if_less_hd(q_in.w, zero, -q_in.w, q_in.w), if_less_hd(q_in.w, zero, -q_in.x, q_in.x),
                             if_less_hd(q_in.w, zero, -q_in.y, q_in.y), if_less_hd(q_in.w, zero, -q_in.z, q_in.z)};
  const Vec3<Scalar> u = q.vec();
  const Scalar s = norm3(u);
  const Scalar angle = Scalar(2) * atan2_hd(s, q.w);
  // angle / sin(angle/2) → 2 as s → 0 (series 2 + angle²/12 + ...).
  const Scalar scale = if_less_hd(s, Scalar(1e-6), Scalar(2) / q.w, angle / s);
  return scale * u;
}

// Angle of the rotation between two attitudes, in [0, π]: the attitude error |log(a* ⊗ b)|.
template <class Scalar>
RBMC_HD inline Scalar angle_between(const Quaternion<Scalar>& a, const Quaternion<Scalar>& b) {
  return norm3(rotation_vector_from_quaternion(a.conjugate() * b));
}

}  // namespace rbmc

// Conversions between unit quaternions, rotation matrices and rotation vectors (axis-angle).
// All rotations are active and body to world, as everywhere in rbmc (docs/physics.md).
#pragma once

#include "rbmc/hd.hpp"
#include "rbmc/math/mat3_vec3.hpp"
#include "rbmc/math/portable_math.hpp"
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

// a ⊗ b with each product rounded on its own (portable::mul): the same bits on the host, on the
// device and in the CPU's SIMD lanes, as the rotation vectors below need.
template <class Scalar>
RBMC_HD inline Quaternion<Scalar> product_rounded(const Quaternion<Scalar>& a, const Quaternion<Scalar>& b) {
  using portable::mul;
  return {((mul(a.w, b.w) - mul(a.x, b.x)) - mul(a.y, b.y)) - mul(a.z, b.z),
          ((mul(a.w, b.x) + mul(a.x, b.w)) + mul(a.y, b.z)) - mul(a.z, b.y),
          ((mul(a.w, b.y) - mul(a.x, b.z)) + mul(a.y, b.w)) + mul(a.z, b.x),
          ((mul(a.w, b.z) + mul(a.x, b.y)) - mul(a.y, b.x)) + mul(a.z, b.w)};
}

// The rotation vector (axis × angle, angle in [0, π]) of a unit quaternion: the logarithm map,
// inverse of quaternion_from_rotation_vector. atan2 keeps full accuracy near 0 and near π.
// Written with portable arithmetic (portable_math.hpp), its choices made value by value
// (if_less_hd): the same bits on the host and the device (a uniform rotation's draw is one,
// inverse_transforms.hpp), and W samples at a time in the CPU's SIMD lanes (the statistics'
// attitude angle).
template <class Scalar>
RBMC_HD inline Vec3<Scalar> rotation_vector_from_quaternion(const Quaternion<Scalar>& q_in) {
  using portable::mul;
  const Scalar zero(0);
  const Quaternion<Scalar> q{if_less_hd(q_in.w, zero, -q_in.w, q_in.w), if_less_hd(q_in.w, zero, -q_in.x, q_in.x),
                             if_less_hd(q_in.w, zero, -q_in.y, q_in.y), if_less_hd(q_in.w, zero, -q_in.z, q_in.z)};
  const Scalar s = sqrt_hd((mul(q.x, q.x) + mul(q.y, q.y)) + mul(q.z, q.z));
  const Scalar angle = Scalar(2) * portable::atan2_first_quadrant(s, q.w);
  // angle / sin(angle/2) → 2 as s → 0 (series 2 + angle²/12 + ...).
  const Scalar scale = if_less_hd(s, Scalar(1e-6), Scalar(2) / q.w, angle / s);
  return Vec3<Scalar>(mul(scale, q.x), mul(scale, q.y), mul(scale, q.z));
}

// Angle of the rotation between two attitudes, in [0, π]: the attitude error |log(a* ⊗ b)|. With
// a* ⊗ b = (w, v) it is 2 atan2(|v|, |w|), the angle rotation_vector_from_quaternion computes
// before it scales v: one square root and atan2's two divisions, where the vector's length took
// two square roots and five divisions, and fewer roundings. It serves the statistics' attitude
// angle (W samples at a time on the CPU's lanes) and the attitude-angle event.
template <class Scalar>
RBMC_HD inline Scalar angle_between(const Quaternion<Scalar>& a, const Quaternion<Scalar>& b) {
  using portable::mul;
  const Quaternion<Scalar> d = product_rounded(a.conjugate(), b);
  const Scalar s = sqrt_hd((mul(d.x, d.x) + mul(d.y, d.y)) + mul(d.z, d.z));
  return Scalar(2) * portable::atan2_first_quadrant(s, if_less_hd(d.w, Scalar(0), -d.w, d.w));
}

}  // namespace rbmc

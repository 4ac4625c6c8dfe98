// Unit quaternions for attitude, stored (w, x, y, z).
//
// Convention used everywhere in rbmc: q_wb rotates body-frame components into world-frame
// components, v_w = q_wb ⊗ (0, v_b) ⊗ q_wb* = R(q_wb) v_b, with the Hamilton product.
// Its rotation matrix is the R_{f_i}^F of 000 eq. 1.1 and the C_{ab} (a = world, b = body) of 001.
#pragma once

#include "rbmc/hd.hpp"
#include "rbmc/math/mat3_vec3.hpp"

namespace rbmc {

template <class Scalar>
struct Quaternion {
  Scalar w, x, y, z;

  RBMC_HD static Quaternion identity() { return {Scalar(1), Scalar(0), Scalar(0), Scalar(0)}; }
  RBMC_HD Vec3<Scalar> vec() const { return Vec3<Scalar>(x, y, z); }
  RBMC_HD Scalar squared_norm() const { return w * w + x * x + y * y + z * z; }
  RBMC_HD Scalar norm() const { return sqrt_hd(squared_norm()); }
  RBMC_HD Quaternion conjugate() const { return {w, -x, -y, -z}; }
};

// Hamilton product a ⊗ b.
template <class Scalar>
RBMC_HD_INLINE Quaternion<Scalar> operator*(const Quaternion<Scalar>& a, const Quaternion<Scalar>& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,  //
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,  //
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,  //
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

template <class Scalar>
RBMC_HD_INLINE Quaternion<Scalar> normalized(const Quaternion<Scalar>& q) {
  const Scalar inv = Scalar(1) / q.norm();
  return {q.w * inv, q.x * inv, q.y * inv, q.z * inv};
}

// R(q) v without forming the matrix: v + 2 w (u × v) + 2 u × (u × v), u = vec(q).
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> rotate(const Quaternion<Scalar>& q, const NonDeduced<Vec3<Scalar>>& v) {
  const Vec3<Scalar> u = q.vec();
  const Vec3<Scalar> t = Scalar(2) * u.cross(v);
  return v + q.w * t + u.cross(t);
}

// R(q)ᵀ v: world components into body components.
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> rotate_inverse(const Quaternion<Scalar>& q, const NonDeduced<Vec3<Scalar>>& v) {
  return rotate(q.conjugate(), v);
}

// R(q) formed once, for a right-hand side that turns several vectors by one attitude (the loads
// on the host, load_set.hpp). Turning a vector by it takes 9 products and 6 sums, where rotate
// takes 18 and 12; forming it takes 18 and 12, so it pays from the third vector turned (the loads'
// AVX2 lanes 1.23 x faster under spring_mounted_box's five: bench/RESULTS.md, fifty-seventh
// session). Its entries are rotate's algebra expanded, 1 − 2 (y² + z²), 2 (xy − wz), ..., not
// to_rotation_matrix's homogeneous w² + x² − y² − z²: the same map R(q) v for any q, so a q a few
// ulps off unit turns as it does under rotate, to rounding. rotate and rotate_inverse below take
// it in place of the quaternion.
template <class Scalar>
struct RotationMatrix {
  Mat3<Scalar> r_wb;  // body to world
};

template <class Scalar>
RBMC_HD_INLINE RotationMatrix<Scalar> rotation_matrix_of(const Quaternion<Scalar>& q) {
  const Scalar two(2), one(1);
  const Scalar xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const Scalar xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const Scalar wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  RotationMatrix<Scalar> r;
  r.r_wb(0, 0) = one - two * (yy + zz);
  r.r_wb(0, 1) = two * (xy - wz);
  r.r_wb(0, 2) = two * (xz + wy);
  r.r_wb(1, 0) = two * (xy + wz);
  r.r_wb(1, 1) = one - two * (xx + zz);
  r.r_wb(1, 2) = two * (yz - wx);
  r.r_wb(2, 0) = two * (xz - wy);
  r.r_wb(2, 1) = two * (yz + wx);
  r.r_wb(2, 2) = one - two * (xx + yy);
  return r;
}

template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> rotate(const RotationMatrix<Scalar>& r, const NonDeduced<Vec3<Scalar>>& v) {
  return mat3_times(r.r_wb, v);
}
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> rotate_inverse(const RotationMatrix<Scalar>& r, const NonDeduced<Vec3<Scalar>>& v) {
  return mat3_transpose_times(r.r_wb, v);
}

template <class Scalar>
RBMC_HD inline Mat3<Scalar> to_rotation_matrix(const Quaternion<Scalar>& q) {
  const Scalar ww = q.w * q.w, xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const Scalar xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const Scalar wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  Mat3<Scalar> r;
  r << ww + xx - yy - zz, Scalar(2) * (xy - wz), Scalar(2) * (xz + wy),  //
      Scalar(2) * (xy + wz), ww - xx + yy - zz, Scalar(2) * (yz - wx),   //
      Scalar(2) * (xz - wy), Scalar(2) * (yz + wx), ww - xx - yy + zz;
  return r;
}

// Exponential map: the rotation by |phi| about phi/|phi| (phi a rotation vector, rad).
// The small-angle branch keeps two Taylor terms, exact to rounding below |phi| = 1e-4 in double.
template <class Scalar>
RBMC_HD inline Quaternion<Scalar> quaternion_from_rotation_vector(const Vec3<Scalar>& phi) {
  const Scalar angle = phi.norm();
  const Scalar half = Scalar(0.5) * angle;
  Scalar c, s_over_angle;
  if (angle < Scalar(1e-4)) {
    c = Scalar(1) - half * half / Scalar(2);
    s_over_angle = Scalar(0.5) - angle * angle / Scalar(48);
  } else {
    c = Eigen::numext::cos(half);
    s_over_angle = Eigen::numext::sin(half) / angle;
  }
  return {c, s_over_angle * phi.x(), s_over_angle * phi.y(), s_over_angle * phi.z()};
}

// Quaternion kinematics with body-frame angular velocity: q̇_wb = ½ q_wb ⊗ (0, ω_b).
// The quaternion form of Poisson's equation Ċ = C ω^× (001; 000 eq. 1.3 written in the body frame).
template <class Scalar>
RBMC_HD_INLINE Quaternion<Scalar> quaternion_rate(const Quaternion<Scalar>& q_wb,
                                                 const NonDeduced<Vec3<Scalar>>& omega_b) {
  const Quaternion<Scalar> pure{Scalar(0), omega_b.x(), omega_b.y(), omega_b.z()};
  const Quaternion<Scalar> d = q_wb * pure;
  return {Scalar(0.5) * d.w, Scalar(0.5) * d.x, Scalar(0.5) * d.y, Scalar(0.5) * d.z};
}

}  // namespace rbmc

// A 3×3 matrix times a 3-vector written out. Eigen's fixed-size product is correct everywhere but
// GCC leaves it as a call in the right-hand side's hot loop (30 % of a step in bench/); written
// out, it inlines into the surrounding arithmetic on the host and the device alike.
#pragma once

#include "rbmc/hd.hpp"

namespace rbmc {

template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> mat3_times(const Mat3<Scalar>& m, const NonDeduced<Vec3<Scalar>>& v) {
  return Vec3<Scalar>(m.coeff(0, 0) * v.coeff(0) + m.coeff(0, 1) * v.coeff(1) + m.coeff(0, 2) * v.coeff(2),
                      m.coeff(1, 0) * v.coeff(0) + m.coeff(1, 1) * v.coeff(1) + m.coeff(1, 2) * v.coeff(2),
                      m.coeff(2, 0) * v.coeff(0) + m.coeff(2, 1) * v.coeff(1) + m.coeff(2, 2) * v.coeff(2));
}

// mᵀ v written out, each component a column's dot product with v from left to right: the
// transpose's product through Eigen reduces each row in another order for double (its vectorised
// path) than for the CPU's SIMD lanes (rbmc/simd/).
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> mat3_transpose_times(const Mat3<Scalar>& m, const NonDeduced<Vec3<Scalar>>& v) {
  return Vec3<Scalar>(m.coeff(0, 0) * v.coeff(0) + m.coeff(1, 0) * v.coeff(1) + m.coeff(2, 0) * v.coeff(2),
                      m.coeff(0, 1) * v.coeff(0) + m.coeff(1, 1) * v.coeff(1) + m.coeff(2, 1) * v.coeff(2),
                      m.coeff(0, 2) * v.coeff(0) + m.coeff(1, 2) * v.coeff(1) + m.coeff(2, 2) * v.coeff(2));
}

// Dot products, norms and the trace written out, left to right: Eigen's reductions may associate
// in another order for a vectorisable scalar (double, float) than for the CPU's SIMD lanes
// (rbmc/simd/), which must compute what one sample does, bit for bit.
template <class Scalar>
RBMC_HD_INLINE Scalar dot3(const Vec3<Scalar>& a, const NonDeduced<Vec3<Scalar>>& b) {
  return a.coeff(0) * b.coeff(0) + a.coeff(1) * b.coeff(1) + a.coeff(2) * b.coeff(2);
}
template <class Scalar>
RBMC_HD_INLINE Scalar squared_norm3(const Vec3<Scalar>& a) {
  return dot3(a, a);
}
template <class Scalar>
RBMC_HD_INLINE Scalar norm3(const Vec3<Scalar>& a) {
  return sqrt_hd(dot3(a, a));
}
template <class Scalar>
RBMC_HD_INLINE Scalar trace3(const Mat3<Scalar>& m) {
  return m.coeff(0, 0) + m.coeff(1, 1) + m.coeff(2, 2);
}

// diag(d). Eigen assigns d.asDiagonal() to a matrix through a host-only function
// (internal::Assignment<…, Diagonal2Dense>): in device code the call did nothing and left the
// matrix zero (an H200, 2026-11-26), so every inertia derived from a shape was invalid on the GPU.
// nvcc's warning 20011 for such a call is an error in this build (CMakeLists.txt).
template <class Scalar>
RBMC_HD_INLINE Mat3<Scalar> diagonal3(const Vec3<Scalar>& d) {
  Mat3<Scalar> m = Mat3<Scalar>::Zero();
  m(0, 0) = d.coeff(0);
  m(1, 1) = d.coeff(1);
  m(2, 2) = d.coeff(2);
  return m;
}

// The inverse of a 3 × 3 matrix by its cofactors (adj(m) / det(m)), written out. Eigen's
// inverse() sums the determinant in another order for double (its vectorised path) than for
// other scalar types, and the CPU's SIMD lanes (rbmc/simd/) must compute what one sample does,
// bit for bit. The caller ensures m is invertible (an inertia, a constraint's K).
template <class Scalar>
RBMC_HD_INLINE Mat3<Scalar> mat3_inverse(const Mat3<Scalar>& m) {
  const Scalar c00 = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1), c01 = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2),
               c02 = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
  const Scalar inv_det = Scalar(1) / (m(0, 0) * c00 + m(0, 1) * c01 + m(0, 2) * c02);
  Mat3<Scalar> r;
  r(0, 0) = c00 * inv_det;
  r(1, 0) = c01 * inv_det;
  r(2, 0) = c02 * inv_det;
  r(0, 1) = (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) * inv_det;
  r(1, 1) = (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) * inv_det;
  r(2, 1) = (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) * inv_det;
  r(0, 2) = (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) * inv_det;
  r(1, 2) = (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) * inv_det;
  r(2, 2) = (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) * inv_det;
  return r;
}

}  // namespace rbmc

// Eigenvalues of a symmetric 3×3 matrix in closed form (trigonometric method), usable on device.
// Cheap enough for the validity check of every sample; code that needs the eigenvectors too uses
// jacobi_eigen() (principal_frame()).
#pragma once

#include "rbmc/hd.hpp"

namespace rbmc {

// Ascending eigenvalues of the symmetric matrix a (only its upper triangle is read).
template <class Scalar>
RBMC_HD inline Vec3<Scalar> symmetric_eigenvalues(const Mat3<Scalar>& a) {
  const Scalar p1 = a(0, 1) * a(0, 1) + a(0, 2) * a(0, 2) + a(1, 2) * a(1, 2);
  const Scalar q = (a(0, 0) + a(1, 1) + a(2, 2)) / Scalar(3);
  const Scalar d0 = a(0, 0) - q, d1 = a(1, 1) - q, d2 = a(2, 2) - q;
  const Scalar p2 = d0 * d0 + d1 * d1 + d2 * d2 + Scalar(2) * p1;
  if (!(p2 > Scalar(0))) return Vec3<Scalar>(q, q, q);  // a multiple of the identity
  const Scalar p = sqrt_hd(p2 / Scalar(6));
  // b = (a - q 1) / p; r = det(b) / 2 in [-1, 1] up to rounding.
  const Scalar b00 = d0 / p, b11 = d1 / p, b22 = d2 / p;
  const Scalar b01 = a(0, 1) / p, b02 = a(0, 2) / p, b12 = a(1, 2) / p;
  Scalar r = (b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) + b02 * (b01 * b12 - b11 * b02)) /
             Scalar(2);
  r = r < Scalar(-1) ? Scalar(-1) : (r > Scalar(1) ? Scalar(1) : r);
  const Scalar phi = Eigen::numext::acos(r) / Scalar(3);
  const Scalar two_pi_over_3 = Scalar(2.0943951023931954923);
  const Scalar largest = q + Scalar(2) * p * Eigen::numext::cos(phi);
  const Scalar smallest = q + Scalar(2) * p * Eigen::numext::cos(phi + two_pi_over_3);
  const Scalar middle = Scalar(3) * q - largest - smallest;
  return Vec3<Scalar>(smallest, middle, largest);
}

}  // namespace rbmc

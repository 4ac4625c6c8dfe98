// Principal axes and moments of an inertia tensor (001, "principal-axis frame": I = E Λ Eᵀ with
// E a rotation), from the device-safe Jacobi eigensolver that the splitting integrator also uses.
#pragma once

#include "rbmc/hd.hpp"
#include "rbmc/math/jacobi_eigen.hpp"

namespace rbmc {

template <class Scalar>
struct PrincipalFrame {
  Mat3<Scalar> axes;     // columns: principal axes in body components; det = +1
  Vec3<Scalar> moments;  // moment about each column's axis (kg m²)
};

enum class PrincipalOrder {
  ascending,          // moments sorted I₁ ≤ I₂ ≤ I₃
  keep_body_axes,     // a diagonal tensor keeps the body axes in their order (else ascending)
};

// keep_body_axes is what a user who wrote diag(I1, I2, I3) means by "the principal moments" when
// dispersing them; ascending is the conventional principal frame.
template <class Scalar>
RBMC_HD inline PrincipalFrame<Scalar> principal_frame(const Mat3<Scalar>& inertia,
                                                      PrincipalOrder order = PrincipalOrder::ascending) {
  PrincipalFrame<Scalar> f;
  if (order == PrincipalOrder::keep_body_axes && inertia(0, 1) == Scalar(0) && inertia(0, 2) == Scalar(0) &&
      inertia(1, 2) == Scalar(0)) {
    f.axes.setIdentity();
    f.moments = inertia.diagonal();
    return f;
  }
  const SymmetricEigen<Scalar> e = jacobi_eigen(inertia);
  // Sort the eigenpairs ascending (three elements: a fixed sorting network), then restore det = +1,
  // which a swap of two columns flips.
  int order3[3] = {0, 1, 2};
  const auto swap_if = [&](int a, int b) {
    if (e.values(order3[b]) < e.values(order3[a])) {
      const int t = order3[a];
      order3[a] = order3[b];
      order3[b] = t;
    }
  };
  swap_if(0, 1);
  swap_if(1, 2);
  swap_if(0, 1);
  for (int i = 0; i < 3; ++i) {
    f.axes.col(i) = e.vectors.col(order3[i]);
    f.moments(i) = e.values(order3[i]);
  }
  if (f.axes.determinant() < Scalar(0)) f.axes.col(2) = -f.axes.col(2);
  return f;
}

// The tensor with the given moments along the given axes (rotation of inertia, 001: C I Cᵀ).
template <class Scalar>
RBMC_HD inline Mat3<Scalar> inertia_from_principal(const Mat3<Scalar>& axes, const Vec3<Scalar>& moments) {
  return axes * moments.asDiagonal() * axes.transpose();
}

}  // namespace rbmc

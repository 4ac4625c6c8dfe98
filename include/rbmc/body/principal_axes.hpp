// Principal axes and moments of an inertia tensor (001, "principal-axis frame": I = E Λ Eᵀ with
// E a rotation). Host only: it uses Eigen's iterative symmetric solver, accurate also for the
// repeated moments of symmetric bodies; device code needs only symmetric_eigenvalues().
#pragma once

#include <Eigen/Eigenvalues>

#include "rbmc/hd.hpp"

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
inline PrincipalFrame<Scalar> principal_frame(const Mat3<Scalar>& inertia,
                                              PrincipalOrder order = PrincipalOrder::ascending) {
  PrincipalFrame<Scalar> f;
  if (order == PrincipalOrder::keep_body_axes && inertia(0, 1) == Scalar(0) && inertia(0, 2) == Scalar(0) &&
      inertia(1, 2) == Scalar(0)) {
    f.axes.setIdentity();
    f.moments = inertia.diagonal();
    return f;
  }
  Eigen::SelfAdjointEigenSolver<Mat3<Scalar>> solver(inertia);
  f.axes = solver.eigenvectors();
  f.moments = solver.eigenvalues();
  if (f.axes.determinant() < Scalar(0)) f.axes.col(2) = -f.axes.col(2);
  return f;
}

// The tensor with the given moments along the given axes (rotation of inertia, 001: C I Cᵀ).
template <class Scalar>
RBMC_HD inline Mat3<Scalar> inertia_from_principal(const Mat3<Scalar>& axes, const Vec3<Scalar>& moments) {
  return axes * moments.asDiagonal() * axes.transpose();
}

}  // namespace rbmc

// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations, usable on device:
// A = V diag(λ) Vᵀ with V a proper rotation. Accurate to rounding also for repeated eigenvalues
// (symmetric bodies), which closed-form eigenvectors are not. Host code can equally use
// principal_frame() (Eigen's solver); the splitting integrator needs it per sample, on either side.
#pragma once

#include "rbmc/hd.hpp"

namespace rbmc {

template <class Scalar>
struct SymmetricEigen {
  Mat3<Scalar> vectors;  // columns; det = +1
  Vec3<Scalar> values;
};

template <class Scalar>
RBMC_HD inline SymmetricEigen<Scalar> jacobi_eigen(Mat3<Scalar> a) {
  Mat3<Scalar> v = Mat3<Scalar>::Identity();
  // Each sweep annihilates the three off-diagonal entries in turn; convergence is quadratic, and
  // 10 sweeps are far more than rounding needs for a 3×3 matrix.
  for (int sweep = 0; sweep < 10; ++sweep) {
    const Scalar off = a(0, 1) * a(0, 1) + a(0, 2) * a(0, 2) + a(1, 2) * a(1, 2);
    const Scalar diag = a(0, 0) * a(0, 0) + a(1, 1) * a(1, 1) + a(2, 2) * a(2, 2);
    if (!(off > Eigen::NumTraits<Scalar>::epsilon() * Eigen::NumTraits<Scalar>::epsilon() * diag)) break;
    for (int p = 0; p < 2; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        if (a(p, q) == Scalar(0)) continue;
        // The rotation in the (p, q) plane that zeroes a(p, q) (Golub & Van Loan, sym. Schur 2×2).
        const Scalar tau = (a(q, q) - a(p, p)) / (Scalar(2) * a(p, q));
        const Scalar t = (tau >= Scalar(0) ? Scalar(1) : Scalar(-1)) /
                         (Eigen::numext::abs(tau) + sqrt_hd(Scalar(1) + tau * tau));
        const Scalar c = Scalar(1) / sqrt_hd(Scalar(1) + t * t), s = t * c;
        Mat3<Scalar> j = Mat3<Scalar>::Identity();
        j(p, p) = c;
        j(q, q) = c;
        j(p, q) = s;
        j(q, p) = -s;
        a = j.transpose() * a * j;
        v = v * j;
      }
    }
  }
  return {v, a.diagonal()};  // v is a product of rotations: det = +1
}

}  // namespace rbmc

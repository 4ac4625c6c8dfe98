// The body every benchmark integrates, rbmc's and the peers' alike: a 2 kg box of 0.3 × 0.2 ×
// 0.1 m with its principal axes turned away from the body axes (a full inertia tensor), under
// uniform gravity, tumbling. Fixed RK4 steps of 1 ms. A few rows take it in its principal axes
// (principal_inertia) beside it.
#pragma once

#include "rbmc/math/quaternion.hpp"
#include "rbmc/sample/sample_inputs.hpp"

namespace rbmc::bench {

inline constexpr double kStep = 1e-3;  // s

// The box's principal moments about its centre of mass (kg m²).
inline Vec3<double> box_moments() {
  return Vec3<double>(2.0 / 12 * (0.04 + 0.01), 2.0 / 12 * (0.09 + 0.01), 2.0 / 12 * (0.09 + 0.04));
}

// The inertia tensor about the centre of mass, body axes (kg m²): box moments turned by a fixed
// rotation, R diag(I) Rᵀ.
inline Mat3<double> full_inertia() {
  const Quaternion<double> q = normalized(Quaternion<double>{0.9, 0.2, -0.3, 0.25});
  const Mat3<double> r = to_rotation_matrix(q);
  return r * box_moments().asDiagonal() * r.transpose();
}

// The same box with its body axes along its principal axes, as most scenarios give a body: a
// diagonal inertia tensor, whose Euler's equations take the diagonal's products alone
// (newton_euler.hpp, inertia_matrix_times).
inline Mat3<double> principal_inertia() {
  const Vec3<double> moments = box_moments();
  Mat3<double> inertia = Mat3<double>::Zero();  // entry by entry: Eigen's diagonal-to-dense is host-only in a .cu
  for (int k = 0; k < 3; ++k) inertia(k, k) = moments(k);
  return inertia;
}

template <class Scalar>
SampleInputs<Scalar> body_inputs() {
  SampleInputs<Scalar> in;
  in.body = {Scalar(2), Vec3<Scalar>::Zero(), full_inertia().cast<Scalar>()};
  in.initial = {Vec3<Scalar>::Zero(), Quaternion<Scalar>::identity(), Vec3<Scalar>(1, 0, 5),
                Vec3<Scalar>(Scalar(0.1), Scalar(4), Scalar(0.2))};
  in.gravity_w = Vec3<Scalar>(0, 0, Scalar(-9.81));
  return in;
}

}  // namespace rbmc::bench

// The body every benchmark integrates, rbmc's and the peers' alike: a 2 kg box of 0.3 × 0.2 ×
// 0.1 m with its principal axes turned away from the body axes (a full inertia tensor), under
// uniform gravity, tumbling. Fixed RK4 steps of 1 ms.
#pragma once

#include "rbmc/math/quaternion.hpp"
#include "rbmc/sample/sample_inputs.hpp"

namespace rbmc::bench {

inline constexpr double kStep = 1e-3;  // s

// The inertia tensor about the centre of mass, body axes (kg m²): box moments turned by a fixed
// rotation, R diag(I) Rᵀ.
inline Mat3<double> full_inertia() {
  const Quaternion<double> q = normalized(Quaternion<double>{0.9, 0.2, -0.3, 0.25});
  const Mat3<double> r = to_rotation_matrix(q);
  const Vec3<double> moments(2.0 / 12 * (0.04 + 0.01), 2.0 / 12 * (0.09 + 0.01), 2.0 / 12 * (0.09 + 0.04));
  return r * moments.asDiagonal() * r.transpose();
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

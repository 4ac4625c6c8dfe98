// Shared by the core tests: random bodies and states from a fixed-seed generator, and the
// scalar types every core test runs in.
#pragma once

#include <random>

#include <gtest/gtest.h>

#include "rbmc/body/mass_properties.hpp"
#include "rbmc/dynamics/state.hpp"
#include "rbmc/sample/sample_inputs.hpp"

namespace rbmc::test {

using Scalars = ::testing::Types<float, double>;

template <class Scalar>
Scalar eps() {
  return Eigen::NumTraits<Scalar>::epsilon();
}

// Adaptive DOPRI5 over n · h (h the first step tried), at relative and absolute tolerance tol,
// steps from 1e-9 up to max_step.
template <class Scalar>
IntegrationSettings<Scalar> dopri5_settings(Scalar h, std::int64_t n, Scalar tol, Scalar max_step) {
  IntegrationSettings<Scalar> how = fixed_step<Scalar>(h, n);
  how.kind = IntegratorKind::dopri5;
  how.rtol = how.atol = tol;
  how.min_step = Scalar(1e-9);
  how.max_step = max_step;
  how.max_steps = 100000;
  return how;
}

class Random {
 public:
  explicit Random(unsigned seed = 12345) : engine_(seed) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine_); }
  template <class Scalar>
  Vec3<Scalar> vec3(double lo, double hi) {
    return Vec3<Scalar>(Scalar(uniform(lo, hi)), Scalar(uniform(lo, hi)), Scalar(uniform(lo, hi)));
  }
  template <class Scalar>
  Quaternion<Scalar> quaternion() {
    Quaternion<double> q{uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
    q = normalized(q);
    return {Scalar(q.w), Scalar(q.x), Scalar(q.y), Scalar(q.z)};
  }
  // A physical body: moments drawn under the triangle inequality, rotated to random axes.
  template <class Scalar>
  MassProperties<Scalar> body() {
    const double a = uniform(0.5, 2.0), b = uniform(0.5, 2.0);
    const double c = uniform(std::abs(a - b) + 0.1, a + b - 0.1);
    const Quaternion<double> q = quaternion<double>();
    Mat3<double> r;
    const Vec3<double> ex = rotate(q, Vec3<double>::UnitX()), ey = rotate(q, Vec3<double>::UnitY()),
                       ez = rotate(q, Vec3<double>::UnitZ());
    r << ex, ey, ez;
    const Mat3<double> inertia = r * Vec3<double>(a, b, c).asDiagonal() * r.transpose();
    MassProperties<Scalar> m;
    m.mass = Scalar(uniform(0.5, 5.0));
    m.com_b = vec3<Scalar>(-0.3, 0.3);
    m.inertia_c_b = (0.5 * (inertia + inertia.transpose())).cast<Scalar>();
    return m;
  }
  template <class Scalar>
  RigidBodyState<Scalar> state() {
    return {vec3<Scalar>(-1, 1), quaternion<Scalar>(), vec3<Scalar>(-1, 1), vec3<Scalar>(-2, 2)};
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace rbmc::test

#include "rbmc/math/quaternion.hpp"

#include "rbmc/integrate/rk4.hpp"
#include "rbmc/math/skew.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class QuaternionTest : public ::testing::Test {};
TYPED_TEST_SUITE(QuaternionTest, test::Scalars);

// Two formulations of the same rotation: the quaternion sandwich and the rotation matrix.
TYPED_TEST(QuaternionTest, RotateMatchesRotationMatrix) {
  using S = TypeParam;
  test::Random rng;
  for (int k = 0; k < 200; ++k) {
    const Quaternion<S> q = rng.quaternion<S>();
    const Vec3<S> v = rng.vec3<S>(-2, 2);
    const Vec3<S> a = rotate(q, v), b = to_rotation_matrix(q) * v;
    EXPECT_LE((a - b).norm(), S(16) * test::eps<S>() * v.norm());
    // Rotations preserve length, and the inverse undoes them.
    EXPECT_NEAR(a.norm(), v.norm(), S(16) * test::eps<S>() * v.norm());
    EXPECT_LE((rotate_inverse(q, a) - v).norm(), S(32) * test::eps<S>() * v.norm());
  }
}

// R(q) formed once (rotation_matrix_of) turns as rotate does, both ways. Its entries are rotate's
// algebra expanded, so they agree for a q off unit too (|q|² = 1 ± 0.1 here, far more than a step's
// drift): each turn is a few roundings of terms of size |q|² |v|, so 16 ε of that; and for a unit
// q it is the rotation matrix of the sandwich (to_rotation_matrix).
TYPED_TEST(QuaternionTest, RotationMatrixTurnsAsRotateDoes) {
  using S = TypeParam;
  test::Random rng(7);
  for (int k = 0; k < 200; ++k) {
    const Quaternion<S> unit = rng.quaternion<S>();
    const S scale = k % 2 == 0 ? S(1) : S(rng.uniform(0.95, 1.05));
    const Quaternion<S> q{scale * unit.w, scale * unit.x, scale * unit.y, scale * unit.z};
    const S size = q.norm() * q.norm();
    const Vec3<S> v = rng.vec3<S>(-2, 2);
    const RotationMatrix<S> r = rotation_matrix_of(q);
    EXPECT_LE((rotate(r, v) - rotate(q, v)).norm(), S(16) * test::eps<S>() * size * v.norm()) << "q " << k;
    EXPECT_LE((rotate_inverse(r, v) - rotate_inverse(q, v)).norm(), S(16) * test::eps<S>() * size * v.norm())
        << "q " << k;
    if (scale == S(1)) EXPECT_LE((r.r_wb - to_rotation_matrix(q)).norm(), S(16) * test::eps<S>()) << "q " << k;
  }
}

TYPED_TEST(QuaternionTest, ProductComposesRotations) {
  using S = TypeParam;
  test::Random rng;
  for (int k = 0; k < 100; ++k) {
    const Quaternion<S> a = rng.quaternion<S>(), b = rng.quaternion<S>();
    const Mat3<S> composed = to_rotation_matrix(a * b), product = to_rotation_matrix(a) * to_rotation_matrix(b);
    EXPECT_LE((composed - product).cwiseAbs().maxCoeff(), S(32) * test::eps<S>());
  }
}

TYPED_TEST(QuaternionTest, RotationVectorKnownCases) {
  using S = TypeParam;
  const S half_pi = S(1.5707963267948966);
  // A quarter turn about z takes x to y.
  const Quaternion<S> qz = quaternion_from_rotation_vector<S>(Vec3<S>(0, 0, half_pi));
  EXPECT_LE((rotate(qz, Vec3<S>::UnitX()) - Vec3<S>::UnitY()).norm(), S(8) * test::eps<S>());
  // Zero rotation is the identity; the result is always a unit quaternion.
  const Quaternion<S> q0 = quaternion_from_rotation_vector<S>(Vec3<S>::Zero());
  EXPECT_EQ(q0.w, S(1));
  EXPECT_EQ(q0.x, S(0));
  // The small-angle branch and the trigonometric one agree where they meet (|phi| = 1e-4):
  // the Taylor remainder there is (1e-4)^4 / 3840 relative, far below rounding.
  const Vec3<S> axis = Vec3<S>(1, -2, 2).normalized();
  const Quaternion<S> below = quaternion_from_rotation_vector<S>(axis * S(0.99999e-4));
  const Quaternion<S> above = quaternion_from_rotation_vector<S>(axis * S(1.00001e-4));
  EXPECT_NEAR(below.x, above.x, S(1e-9) + S(4) * test::eps<S>() * S(1e-4));
  EXPECT_NEAR(below.norm(), S(1), S(4) * test::eps<S>());
}

// Quaternion kinematics q̇ = ½ q ⊗ (0, ω_b): for constant ω_b the exact solution is
// q(t) = q0 ⊗ exp(ω_b t). RK4 on this linear ODE has local error (|ω| h / 2)^5 / 120 per step
// (the first omitted term of the exponential series), so after n steps the error is at most
// n (|ω| h / 2)^5 / 120, plus rounding of about n · 8 eps.
TYPED_TEST(QuaternionTest, KinematicsMatchExponentialUnderRk4) {
  using S = TypeParam;
  const Vec3<S> omega_b(S(0.3), S(-1.2), S(2.0));
  const Quaternion<S> q0 = normalized(Quaternion<S>{S(0.9), S(0.1), S(-0.3), S(0.2)});
  const S h = S(0.01);
  const int n = 500;
  const auto rate = [&](const RigidBodyState<S>& x) {
    RigidBodyStateRate<S> xd{Vec3<S>::Zero(), quaternion_rate(x.q_wb, omega_b), Vec3<S>::Zero(), Vec3<S>::Zero()};
    return xd;
  };
  RigidBodyState<S> x{Vec3<S>::Zero(), q0, Vec3<S>::Zero(), omega_b};
  for (int i = 0; i < n; ++i) x = rk4_step(rate, x, h);
  const Quaternion<S> exact = q0 * quaternion_from_rotation_vector<S>(omega_b * (h * S(n)));
  const double wh = double(omega_b.norm() * h) / 2;
  const double tolerance = n * std::pow(wh, 5) / 120 + n * 8 * double(test::eps<S>());
  EXPECT_NEAR(x.q_wb.w, exact.w, tolerance);
  EXPECT_NEAR(x.q_wb.x, exact.x, tolerance);
  EXPECT_NEAR(x.q_wb.y, exact.y, tolerance);
  EXPECT_NEAR(x.q_wb.z, exact.z, tolerance);
}

// Poisson's equation Ċ = C ω^× (001) follows from the quaternion rate: a finite difference of
// R(q) along q̇ matches R ω^× to O(δ²).
// In double only: a central difference needs its resolution.
TEST(QuaternionKinematics, RateIsPoissonEquation) {
  using S = double;
  test::Random rng;
  const Quaternion<S> q = rng.quaternion<S>();
  const Vec3<S> w = rng.vec3<S>(-2, 2);
  const Quaternion<S> qd = quaternion_rate(q, w);
  const S d = 1e-6;
  const Quaternion<S> plus{q.w + d * qd.w, q.x + d * qd.x, q.y + d * qd.y, q.z + d * qd.z};
  const Quaternion<S> minus{q.w - d * qd.w, q.x - d * qd.x, q.y - d * qd.y, q.z - d * qd.z};
  const Mat3<S> r_dot = (to_rotation_matrix(plus) - to_rotation_matrix(minus)) / (2 * d);
  EXPECT_LE((r_dot - to_rotation_matrix(q) * skew(w)).cwiseAbs().maxCoeff(), 1e-8);
}

}  // namespace
}  // namespace rbmc

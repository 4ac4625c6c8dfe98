#include "rbmc/dynamics/newton_euler.hpp"

#include "rbmc/dynamics/invariants.hpp"
#include "rbmc/math/skew.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class NewtonEulerTest : public ::testing::Test {};
TYPED_TEST_SUITE(NewtonEulerTest, test::Scalars);

// Euler's equations by hand: I = diag(1, 2, 3), ω = (1, 2, 3): Iω = (1, 4, 9),
// ω × Iω = (2·9 − 3·4, 3·1 − 1·9, 1·4 − 2·1) = (6, −6, 2), so ω̇ = −I⁻¹(6, −6, 2) = (−6, 3, −2/3).
TYPED_TEST(NewtonEulerTest, EulerEquationsHandComputed) {
  using S = TypeParam;
  const MassProperties<S> body{S(2), Vec3<S>::Zero(), Vec3<S>(1, 2, 3).asDiagonal()};
  const FreeBodyModel<S> model = make_free_body_model(body, Vec3<S>(0, 0, S(-9.81)));
  const RigidBodyState<S> x{Vec3<S>(1, 2, 3), Quaternion<S>::identity(), Vec3<S>(4, 5, 6), Vec3<S>(1, 2, 3)};
  const RigidBodyStateRate<S> xd = free_body_rate(model, x);
  const S tol = S(8) * test::eps<S>() * S(6);
  EXPECT_NEAR(xd.omega_dot_b.x(), S(-6), tol);
  EXPECT_NEAR(xd.omega_dot_b.y(), S(3), tol);
  EXPECT_NEAR(xd.omega_dot_b.z(), S(-2) / S(3), tol);
  // With the centre of mass at the origin, gravity is the whole translational acceleration.
  EXPECT_LE((xd.v_dot_w - Vec3<S>(0, 0, S(-9.81))).norm(), tol);
  EXPECT_EQ(xd.p_dot_w, x.v_w);
}

// Agreement with the other two forms of the equations (004 eqs 46–49 and 002's spatial form) is
// tested in equations_of_motion_test.cpp.

// Invariants against their definitions: T = ½ [v_O; ω]ᵀ M_O [v_O; ω] (001's matrix form).
TYPED_TEST(NewtonEulerTest, KineticEnergyMatchesMassMatrixForm) {
  using S = TypeParam;
  test::Random rng(7);
  const MassProperties<S> body = rng.body<S>();
  const FreeBodyModel<S> model = make_free_body_model<S>(body, Vec3<S>::Zero());
  const RigidBodyState<S> x = rng.state<S>();
  const Vec3<S> v = rotate_inverse(x.q_wb, x.v_w), w = x.omega_b;
  const Mat3<S> cx = skew<S>(body.mass * body.com_b);
  const Mat3<S> j_o = body.inertia_c_b - body.mass * skew<S>(body.com_b) * skew<S>(body.com_b);
  const S t = S(0.5) * body.mass * v.dot(v) - v.dot(cx * w) + S(0.5) * w.dot(j_o * w);  // 001, kinetic energy
  EXPECT_NEAR(kinetic_energy(model, x), t, S(256) * test::eps<S>() * (1 + std::abs(t)));
}

}  // namespace
}  // namespace rbmc

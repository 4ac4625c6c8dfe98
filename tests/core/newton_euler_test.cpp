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

// A second formulation: the general equations about the body point O in body components,
// 004 eqs 46–49: M_O v̇ = −Ω v + τ, with v = [v_O; ω],
//   M_O = [m 1, S̃ᵀ; S̃, J_O],  Ω = [ω̃ m, ω̃ S̃ᵀ; S̃ ω̃, ω̃ J_O],  S̃ = (m r_C)^×,  J_O = I_C − m r_C^× r_C^×,
// and τ = [f; r_C × f] for gravity at the centre of mass. (001's summary of the same equations
// misprints two terms; deriving them from 001's own p and h_O gives 004's form, see
// docs/physics.md.) Here v̇ is the rate of the body components of v_O, which relates to the
// core's world-frame acceleration by v̇_b = Rᵀ a_O − ω × v_b.
TYPED_TEST(NewtonEulerTest, AgreesWithGeneralFormAboutBodyPoint) {
  using S = TypeParam;
  test::Random rng;
  for (int k = 0; k < 100; ++k) {
    const MassProperties<S> body = rng.body<S>();
    const Vec3<S> g = rng.vec3<S>(-10, 10);
    const FreeBodyModel<S> model = make_free_body_model(body, g);
    const RigidBodyState<S> x = rng.state<S>();
    const RigidBodyStateRate<S> xd = free_body_rate(model, x);

    using Vec6 = Eigen::Matrix<double, 6, 1>;
    const double m = body.mass;
    const Vec3<double> r_c = body.com_b.template cast<double>();
    const Vec3<double> w = x.omega_b.template cast<double>();
    const Vec3<double> v = rotate_inverse(x.q_wb, x.v_w).template cast<double>();
    const Mat3<double> cx = skew<double>(m * r_c), wx = skew<double>(w);
    const Mat3<double> j_o = body.inertia_c_b.template cast<double>() - m * skew<double>(r_c) * skew<double>(r_c);
    Eigen::Matrix<double, 6, 6> mass_matrix;
    mass_matrix << m * Mat3<double>::Identity(), -cx, cx, j_o;
    const Vec3<double> f_b = rotate_inverse(x.q_wb, Vec3<S>(model.mass * g)).template cast<double>();
    Vec6 rhs;
    Eigen::Matrix<double, 6, 6> omega_matrix;
    omega_matrix << m * wx, wx * cx.transpose(), cx * wx, wx * j_o;
    Vec6 velocity, tau;
    velocity << v, w;
    tau << f_b, r_c.cross(f_b);
    rhs = tau - omega_matrix * velocity;
    const Vec6 acc = mass_matrix.ldlt().solve(rhs);

    const Vec3<double> v_dot_b = (rotate_inverse(x.q_wb, xd.v_dot_w).template cast<double>() - w.cross(v));
    // Both sides are O(10) with O(100) operations: agreement to ~1e3 eps relative.
    const double tol = 1e3 * double(test::eps<S>()) * (1 + acc.cwiseAbs().maxCoeff());
    EXPECT_LE((v_dot_b - acc.head<3>()).cwiseAbs().maxCoeff(), tol) << "sample " << k;
    EXPECT_LE((xd.omega_dot_b.template cast<double>() - acc.tail<3>()).cwiseAbs().maxCoeff(), tol) << "sample " << k;
  }
}

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

#include "rbmc/dynamics/newton_euler.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "rbmc/dynamics/constraints.hpp"
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

// Whether the body axes are principal: a diagonal inertia, whatever the signs of its zeros, and
// not a product of inertia however small (the smallest normal number), a turned inertia or a
// singular one (whose inverse is not finite).
TYPED_TEST(NewtonEulerTest, PrincipalBodyAxesAreNoticed) {
  using S = TypeParam;
  const auto diagonal_of = [](const Mat3<S>& inertia) {
    return make_free_body_model<S>({S(2), Vec3<S>(S(0.01), 0, 0), inertia}, Vec3<S>::Zero()).inertia_diagonal;
  };
  const Mat3<S> diagonal = Vec3<S>(S(0.1), S(0.2), S(0.25)).asDiagonal();
  EXPECT_TRUE(diagonal_of(diagonal));
  Mat3<S> signed_zeros = diagonal;
  signed_zeros(0, 1) = signed_zeros(1, 0) = signed_zeros(1, 2) = signed_zeros(2, 1) = S(-0.0);
  EXPECT_TRUE(diagonal_of(signed_zeros));
  for (int r = 0; r < 3; ++r)
    for (int c = r + 1; c < 3; ++c) {
      Mat3<S> product = diagonal;
      product(r, c) = product(c, r) = std::numeric_limits<S>::min();
      EXPECT_FALSE(diagonal_of(product)) << "a product of inertia at (" << r << ", " << c << ")";
    }
  test::Random rng(11);
  EXPECT_FALSE(diagonal_of(rng.body<S>().inertia_c_b));
  EXPECT_FALSE(diagonal_of(Vec3<S>(S(0.1), S(0.2), S(0)).asDiagonal()));
}

// The same numbers as the full products' where a component is not zero; where it is, its sign
// may differ (x + 0 = x, but −0 + 0 = +0).
template <class S>
void expect_same_numbers(const Vec3<S>& got, const Vec3<S>& full, const char* what) {
  for (int c = 0; c < 3; ++c) {
    if (full(c) == S(0)) EXPECT_EQ(got(c), S(0)) << what << ", component " << c;
    else
      EXPECT_EQ(std::memcmp(&got(c), &full(c), sizeof(S)), 0)
          << what << ", component " << c << ": " << got(c) << " against " << full(c);
  }
}

// With principal body axes Euler's equations take the diagonal's products alone
// (inertia_matrix_times), and so do the pivot's and the plane's reactions: the same numbers as the
// full products of I and I⁻¹, whose other terms are products with an exact zero. Bodies from
// 1e-6 to 1e2 kg m², spins from 1e-3 to 1e3 rad/s, torques and states of every sign, some
// components zero; each against the same model with the flag cleared (the full products).
TYPED_TEST(NewtonEulerTest, PrincipalAxesGiveTheFullProductsNumbers) {
  using S = TypeParam;
  test::Random rng(13);
  const auto log_uniform = [&](double lo, double hi) { return std::exp(rng.uniform(std::log(lo), std::log(hi))); };
  const auto signed_value = [&](double lo, double hi) {
    const double u = rng.uniform(0, 1);
    return u < 0.1 ? 0.0 : (u < 0.55 ? -1.0 : 1.0) * log_uniform(lo, hi);
  };
  for (int trial = 0; trial < 20000; ++trial) {
    const double scale = log_uniform(1e-6, 1e2);
    const double a = rng.uniform(0.5, 2.0), b = rng.uniform(0.5, 2.0);
    const double c = rng.uniform(std::abs(a - b) + 0.1, a + b - 0.1);
    const MassProperties<S> body{S(rng.uniform(0.5, 5)), rng.vec3<S>(-0.3, 0.3),
                                 Vec3<S>(S(scale * a), S(scale * b), S(scale * c)).asDiagonal()};
    FreeBodyModel<S> model = make_free_body_model<S>(body, Vec3<S>(0, 0, S(-9.81)));
    ASSERT_TRUE(model.inertia_diagonal);
    FreeBodyModel<S> full = model;
    full.inertia_diagonal = false;
    const Vec3<S> w(S(signed_value(1e-3, 1e3)), S(signed_value(1e-3, 1e3)), S(signed_value(1e-3, 1e3)));
    const Vec3<S> tau(S(signed_value(1e-8, 1e2)), S(signed_value(1e-8, 1e2)), S(signed_value(1e-8, 1e2)));
    const Mat3<S> inverse = body.inertia_c_b.inverse();
    const Vec3<S> by_hand = mat3_times(inverse, Vec3<S>(tau - w.cross(mat3_times(body.inertia_c_b, w))));
    expect_same_numbers(euler_angular_acceleration(model, w, tau), by_hand, "Euler's equations");
    expect_same_numbers(euler_angular_acceleration(full, w, tau), by_hand, "Euler's equations, full products");
    if (trial % 10 != 0) continue;
    RigidBodyState<S> x = rng.state<S>();
    x.omega_b = w;
    const Wrench<S> applied{rng.vec3<S>(-5, 5), tau};
    const Constraint<S> pivot{ConstraintKind::pivot, rng.vec3<S>(-0.5, 0.5), rng.vec3<S>(-1, 1), S(0), S(20)};
    const Constraint<S> plane{ConstraintKind::planar, Vec3<S>::Zero(), Vec3<S>::Zero(), S(0.1), S(20)};
    for (const Constraint<S>* constraint : {&pivot, &plane}) {
      const ConstrainedRate<S> mine = constrained_rate(*constraint, model, x, applied);
      const ConstrainedRate<S> theirs = constrained_rate(*constraint, full, x, applied);
      const char* what = constraint == &pivot ? "the pivot's rate" : "the plane's rate";
      expect_same_numbers(mine.rate.omega_dot_b, theirs.rate.omega_dot_b, what);
      expect_same_numbers(mine.rate.v_dot_w, theirs.rate.v_dot_w, what);
      expect_same_numbers(mine.lambda, theirs.lambda, what);
    }
  }
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

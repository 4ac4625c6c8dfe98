#include "rbmc/dynamics/equations_of_motion.hpp"

#include "rbmc/dynamics/newton_euler.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class EquationsOfMotionTest : public ::testing::Test {};
TYPED_TEST_SUITE(EquationsOfMotionTest, test::Scalars);

// The three forms of the free body's equations agree on random bodies (origin off the centre
// of mass), states and loads: (a) Newton–Euler about the centre of mass (the integrator's),
// (b) about the body origin with M_O and Ω (004 eqs 46–49), (c) the spatial form f = I a + v ×* I v
// (002). Each is O(10) operations deep on O(10) values: agreement to 1e3 eps relative.
TYPED_TEST(EquationsOfMotionTest, ThreeFormsAgree) {
  using S = TypeParam;
  test::Random rng(11);
  for (int k = 0; k < 100; ++k) {
    const MassProperties<S> body = rng.body<S>();
    const Vec3<S> g = rng.vec3<S>(-10, 10);
    const RigidBodyState<S> x = rng.state<S>();
    // A general wrench: gravity plus a force at the centre of mass and a pure torque.
    const Vec3<S> extra_force_w = rng.vec3<S>(-5, 5), torque_b = rng.vec3<S>(-3, 3);
    const FreeBodyModel<S> model = make_free_body_model<S>(body, g);
    const Wrench<S> wrench{body.mass * g + extra_force_w, torque_b};
    const RigidBodyStateRate<S> a = free_body_rate(model, x, wrench);
    const Vec3<S> omega_dot_a = a.omega_dot_b;
    const Vec3<S> v_b = rotate_inverse(x.q_wb, x.v_w);
    const Vec3<S> v_dot_a = rotate_inverse(x.q_wb, a.v_dot_w) - x.omega_b.cross(v_b);

    // The same loads about O, body components: the force acts at C, so n_O = τ_C + r_C × f.
    const Vec3<S> f_b = rotate_inverse(x.q_wb, wrench.force_w);
    const Vec3<S> n_o = torque_b + body.com_b.cross(f_b);
    const Eigen::Matrix<S, 6, 1> b = acceleration_about_origin<S>(body, v_b, x.omega_b, f_b, n_o);
    const Motion<S> c = spatial_acceleration<S>(body, {x.omega_b, v_b}, {n_o, f_b});

    const S tol = S(1e3) * test::eps<S>() * (S(1) + omega_dot_a.norm() + v_dot_a.norm());
    EXPECT_LE((b.template head<3>() - v_dot_a).norm(), tol) << "form (b), body " << k;
    EXPECT_LE((b.template tail<3>() - omega_dot_a).norm(), tol) << "form (b), body " << k;
    EXPECT_LE((c.linear - v_dot_a).norm(), tol) << "form (c), body " << k;
    EXPECT_LE((c.angular - omega_dot_a).norm(), tol) << "form (c), body " << k;
  }
}

// 004's mass matrix is 002's spatial inertia with the blocks swapped (velocity [v; ω] against
// [ω; v]): the same physics, two orderings.
TYPED_TEST(EquationsOfMotionTest, MassMatrixIsSpatialInertiaReordered) {
  using S = TypeParam;
  test::Random rng(12);
  const MassProperties<S> body = rng.body<S>();
  const Eigen::Matrix<S, 6, 6> m = mass_matrix_about_origin(body), i = spatial_inertia(body).matrix();
  const S tol = S(64) * test::eps<S>() * i.cwiseAbs().maxCoeff();
  EXPECT_LE((m.template block<3, 3>(0, 0) - i.template block<3, 3>(3, 3)).cwiseAbs().maxCoeff(), tol);
  EXPECT_LE((m.template block<3, 3>(3, 3) - i.template block<3, 3>(0, 0)).cwiseAbs().maxCoeff(), tol);
  EXPECT_LE((m.template block<3, 3>(0, 3) - i.template block<3, 3>(3, 0)).cwiseAbs().maxCoeff(), tol);
}

}  // namespace
}  // namespace rbmc

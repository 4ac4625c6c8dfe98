#include "rbmc/dynamics/loads.hpp"

#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class LoadsTest : public ::testing::Test {};
TYPED_TEST_SUITE(LoadsTest, test::Scalars);

TYPED_TEST(LoadsTest, ForceThroughTheCentreOfMassHasNoMoment) {
  using S = TypeParam;
  test::Random rng;
  const Quaternion<S> q = rng.quaternion<S>();
  const Vec3<S> com(S(0.1), S(-0.2), S(0.05)), force(1, 2, 3);
  for (LoadFrame frame : {LoadFrame::body, LoadFrame::world}) {
    const Wrench<S> w = point_force_wrench<S>(q, com, com, force, frame);
    EXPECT_LE(w.torque_c_b.norm(), S(16) * test::eps<S>() * force.norm());
  }
}

// By hand: F = (0, 0, 2) N in the body frame at P = (1, 0, 0) m with C at the origin gives
// M = P × F = (0·2 − 0·0, 0·0 − 1·2, 0) = (0, −2, 0) N m; the same force given in the world frame
// as R F produces the same wrench.
TYPED_TEST(LoadsTest, OffCentreForceHasItsMoment) {
  using S = TypeParam;
  const Quaternion<S> q = normalized(Quaternion<S>{S(0.9), S(0.2), S(-0.1), S(0.3)});
  const Vec3<S> p(1, 0, 0), f_b(0, 0, 2);
  const Wrench<S> body = point_force_wrench<S>(q, Vec3<S>::Zero(), p, f_b, LoadFrame::body);
  EXPECT_LE((body.torque_c_b - Vec3<S>(0, -2, 0)).norm(), S(16) * test::eps<S>());
  EXPECT_LE((body.force_w - rotate(q, f_b)).norm(), S(16) * test::eps<S>());
  const Wrench<S> world = point_force_wrench<S>(q, Vec3<S>::Zero(), p, rotate(q, f_b), LoadFrame::world);
  EXPECT_LE((world.torque_c_b - body.torque_c_b).norm(), S(32) * test::eps<S>());
  // A couple given in the world frame is the same couple in body components.
  const Vec3<S> tau_w(S(0.3), S(-1), S(2));
  EXPECT_LE((pure_torque_wrench<S>(q, tau_w, LoadFrame::world).torque_c_b - rotate_inverse(q, tau_w)).norm(),
            S(32) * test::eps<S>());
}

// The gravity-gradient torque 3μ/R⁵ R_b × I R_b vanishes when R lies along a principal axis and
// not otherwise.
TYPED_TEST(LoadsTest, GravityGradientVanishesOnPrincipalAxes) {
  using S = TypeParam;
  const Mat3<S> inertia = Vec3<S>(1, 2, 3).asDiagonal();
  const S mu = S(3.986e14), mass = S(100);
  const Vec3<S> center = Vec3<S>::Zero();
  for (int axis = 0; axis < 3; ++axis) {
    const Vec3<S> com = Vec3<S>::Unit(axis) * S(7e6);
    const Wrench<S> w = central_gravity_wrench<S>(Quaternion<S>::identity(), inertia, mass, com, center, mu);
    EXPECT_EQ(w.torque_c_b.norm(), S(0)) << "axis " << axis;
  }
  const Vec3<S> oblique = Vec3<S>(1, 1, 0).normalized() * S(7e6);
  const Wrench<S> w = central_gravity_wrench<S>(Quaternion<S>::identity(), inertia, mass, oblique, center, mu);
  // τ = 3μ/R³ R̂ × I R̂ with R̂ = (1, 1, 0)/√2: (1, 1, 0) × (1, 2, 0) / 2 = (0, 0, ½), so 1.5 μ / R³
  // about +z, turning the axis of least inertia (x) toward R̂.
  const S expected = S(1.5) * mu / S(std::pow(7e6, 3));
  EXPECT_NEAR(w.torque_c_b.z(), expected, S(64) * test::eps<S>() * expected);
}

// Every conservative load's force and moment are the negative gradient of its potential:
// F = −∂V/∂r_C and τ_i = −∂V/∂θ_i for a body-frame rotation q ⊗ exp(θ e_i). Central differences
// with δ = 1e-5 have error O(δ²) relative; in double only (the derivative needs its resolution).
TEST(LoadPotentials, ForcesAndMomentsAreMinusTheGradient) {
  using S = double;
  test::Random rng(21);
  const MassProperties<S> body = rng.body<S>();
  LoadSet<S> loads{};
  loads.n_springs = 1;
  loads.springs[0] = {Vec3<S>(0.3, -0.1, 0.2), Vec3<S>(1.0, 2.0, -0.5), 40.0, 0.5, 0.0};
  loads.n_point_forces = 1;
  loads.point_forces[0] = {Vec3<S>(-0.2, 0.4, 0.1), Vec3<S>(3.0, -1.0, 2.0), LoadFrame::world};
  loads.has_central_body = true;
  loads.central_mu = 50.0;
  loads.central_center_w = Vec3<S>(-3.0, 1.0, 2.0);
  ASSERT_TRUE(loads.is_conservative());
  const FreeBodyModel<S> model = make_free_body_model<S>(body, Vec3<S>(0, 0, -9.81));
  const RigidBodyState<S> x = rng.state<S>();
  const Wrench<S> w = evaluate_loads(loads, model, x);
  const S d = 1e-5;
  Vec3<S> grad_r, grad_theta;
  for (int i = 0; i < 3; ++i) {
    RigidBodyState<S> plus = x, minus = x;
    plus.p_w(i) += d;  // moving the origin moves the centre of mass by the same amount
    minus.p_w(i) -= d;
    grad_r(i) = (potential_energy(loads, model, plus) - potential_energy(loads, model, minus)) / (2 * d);
    plus = x;
    minus = x;
    plus.q_wb = x.q_wb * quaternion_from_rotation_vector<S>(Vec3<S>::Unit(i) * d);
    minus.q_wb = x.q_wb * quaternion_from_rotation_vector<S>(Vec3<S>::Unit(i) * -d);
    // A rotation about the body origin also moves the centre of mass: the moment about C plus
    // (R r_C) × F is the moment about the origin, which is what this derivative measures.
    grad_theta(i) = (potential_energy(loads, model, plus) - potential_energy(loads, model, minus)) / (2 * d);
  }
  const Vec3<S> moment_about_origin = w.torque_c_b + model.com_b.cross(rotate_inverse(x.q_wb, w.force_w));
  const S scale = w.force_w.norm() + moment_about_origin.norm();
  EXPECT_LE((w.force_w + grad_r).norm(), 1e-7 * scale);
  EXPECT_LE((moment_about_origin + grad_theta).norm(), 1e-7 * scale);
}

// Damping only removes energy: its power F · v_C + τ · ω is never positive.
TYPED_TEST(LoadsTest, DampingDissipates) {
  using S = TypeParam;
  test::Random rng(4);
  for (int k = 0; k < 50; ++k) {
    const Vec3<S> v = rng.vec3<S>(-3, 3), w = rng.vec3<S>(-3, 3);
    EXPECT_LE(damping_force<S>(v, S(0.5), S(0.1)).dot(v) + damping_torque<S>(w, S(0.02), S(0.01)).dot(w), S(0));
  }
}

// evaluate_loads against every load written out here, in world components with a rotation
// matrix (000 eqs 1.1, 1.4, 1.28–1.30), not with the library's functions of each: point forces
// fixed in the body and in the world, couples of both kinds, linear and quadratic damping (the
// quadratic terms zero on every other state, where evaluate_loads skips their norms), and two
// spring-dampers. Every other pair of states has the damping alone, and every other four a centre
// of mass at the body origin: the damping alone about the centre of mass turns nothing, and
// evaluate_loads then forms no rotation matrix (its early return). The loads are also summed as
// the device sums them, turned by the quaternion (add_loads). Each agrees with the
// reference to rounding: a few hundred operations on terms of the size of `scale`, so 1e3 ε of it.
TYPED_TEST(LoadsTest, EvaluateLoadsEqualsEachLoadTurnedOnItsOwn) {
  using S = TypeParam;
  test::Random rng(33);
  for (int k = 0; k < 40; ++k) {
    MassProperties<S> body = rng.body<S>();
    if (k % 8 >= 4) body.com_b = Vec3<S>::Zero();
    const FreeBodyModel<S> model = make_free_body_model<S>(body, rng.vec3<S>(-10, 10));
    const RigidBodyState<S> x = rng.state<S>();
    const bool quadratic = k % 2 == 1, damping_alone = k % 4 >= 2;
    LoadSet<S> loads{};
    loads.n_point_forces = 2;
    loads.point_forces[0] = {rng.vec3<S>(-0.5, 0.5), rng.vec3<S>(-5, 5), LoadFrame::body};
    loads.point_forces[1] = {rng.vec3<S>(-0.5, 0.5), rng.vec3<S>(-5, 5), LoadFrame::world};
    loads.n_torques = 2;
    loads.torques[0] = {rng.vec3<S>(-2, 2), LoadFrame::body};
    loads.torques[1] = {rng.vec3<S>(-2, 2), LoadFrame::world};
    loads.linear_damping = S(rng.uniform(0.1, 1));
    loads.quadratic_damping = quadratic ? S(rng.uniform(0.1, 1)) : S(0);
    loads.angular_linear_damping = S(rng.uniform(0.01, 0.1));
    loads.angular_quadratic_damping = quadratic ? S(rng.uniform(0.01, 0.1)) : S(0);
    loads.n_springs = 2;
    for (int i = 0; i < 2; ++i)
      loads.springs[i] = {rng.vec3<S>(-0.5, 0.5), rng.vec3<S>(-3, 3), S(rng.uniform(10, 100)), S(rng.uniform(0.1, 1)),
                          S(rng.uniform(0, 2))};
    if (damping_alone) loads.n_point_forces = loads.n_torques = loads.n_springs = 0;
    const Wrench<S> w = evaluate_loads(loads, model, x);

    const Mat3<S> r = to_rotation_matrix(x.q_wb);
    const Vec3<S>& c = model.com_b;
    Vec3<S> force_w = model.mass * model.gravity_w, torque_b = Vec3<S>::Zero();
    S scale = force_w.norm();
    const auto add = [&](const Vec3<S>& f_w, const Vec3<S>& tau_b) {
      force_w += f_w;
      torque_b += tau_b;
      scale += f_w.norm() + tau_b.norm();
    };
    const auto& f0 = loads.point_forces[0];
    const auto& f1 = loads.point_forces[1];
    if (!damping_alone) {
      add(r * f0.force, (f0.point_b - c).cross(f0.force));
      add(f1.force, (f1.point_b - c).cross(Vec3<S>(r.transpose() * f1.force)));
      add(Vec3<S>::Zero(), loads.torques[0].torque);
      add(Vec3<S>::Zero(), r.transpose() * loads.torques[1].torque);
    }
    const Vec3<S> v_c_w = x.v_w + r * x.omega_b.cross(c);
    add(-(loads.linear_damping + loads.quadratic_damping * v_c_w.norm()) * v_c_w,
        -(loads.angular_linear_damping + loads.angular_quadratic_damping * x.omega_b.norm()) * x.omega_b);
    for (int i = 0; i < loads.n_springs; ++i) {
      const auto& sp = loads.springs[i];
      const Vec3<S> r_p_w = x.p_w + r * sp.point_b;
      const Vec3<S> v_p_w = x.v_w + r * x.omega_b.cross(sp.point_b);
      const Vec3<S> d = sp.anchor_w - r_p_w;
      const S length = d.norm();
      const Vec3<S> u = d / length;
      const Vec3<S> f_w = (sp.stiffness * (length - sp.rest_length) - sp.damping * u.dot(v_p_w)) * u;
      add(f_w, (sp.point_b - c).cross(Vec3<S>(r.transpose() * f_w)));
    }
    const S tol = S(1000) * test::eps<S>() * scale;
    EXPECT_LE((w.force_w - force_w).norm(), tol) << "state " << k;
    EXPECT_LE((w.torque_c_b - torque_b).norm(), tol) << "state " << k;
    // The device's way: every load turned by the quaternion, where the host forms its matrix.
    const Wrench<S> by_quaternion =
        add_loads(uniform_gravity_wrench(model.mass, model.gravity_w), loads, SharedValuesOnly{}, model, x, x.q_wb);
    EXPECT_LE((by_quaternion.force_w - force_w).norm(), tol) << "state " << k;
    EXPECT_LE((by_quaternion.torque_c_b - torque_b).norm(), tol) << "state " << k;
  }
}

// Integrated with RK4, a body on a spring under central and uniform gravity conserves T + V to
// the integrator's error: at most T_end Λ (Λ h)⁴ / 120 of the energy scale, with Λ the fastest
// rate in the problem (spin or spring frequency), as for the torque-free body.
TEST(LoadPotentials, ConservativeLoadsConserveEnergyUnderIntegration) {
  using S = double;
  const MassProperties<S> body{2.0, Vec3<S>(0.05, 0.0, -0.02), Vec3<S>(0.1, 0.2, 0.25).asDiagonal()};
  LoadSet<S> loads{};
  loads.n_springs = 1;
  loads.springs[0] = {Vec3<S>(0.1, 0.0, 0.0), Vec3<S>(0.0, 0.0, 1.0), 50.0, 0.3, 0.0};
  loads.has_central_body = true;
  loads.central_mu = 5.0;
  loads.central_center_w = Vec3<S>(0.0, 0.0, -3.0);
  const SharedModel<S> shared{loads, {}};
  const BodyRate<S> rate{make_free_body_model<S>(body, Vec3<S>(0, 0, -9.81)), &shared.loads, &shared.constraint};
  RigidBodyState<S> x{Vec3<S>(0.2, 0.1, 0.4), Quaternion<S>::identity(), Vec3<S>(0.3, 0, 0), Vec3<S>(0.5, 2.0, 0.3)};
  const auto energy = [&](const RigidBodyState<S>& s) {
    return kinetic_energy(rate.model, s) + potential_energy(loads, rate.model, s);
  };
  const S e0 = energy(x), h = 0.002, duration = 5.0;
  const S lambda = std::max(x.omega_b.norm(), std::sqrt(50.0 / 2.0)) * 2;  // spin, spring ω, with margin
  S worst = 0;
  for (int i = 0; i < int(duration / h); ++i) {
    x = rk4_step(rate, x, h);
    worst = std::max(worst, std::abs(energy(x) - e0));
  }
  const S scale = kinetic_energy(rate.model, x) + 50.0 * 0.3 * 0.3 + 2.0 * 9.81;  // J
  EXPECT_LE(worst, duration * lambda * std::pow(lambda * h, 4) / 120 * scale);
  EXPECT_GT(worst, 0.0);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// A central body at the world origin: its potential is invariant under rotations about the
// origin, so the total angular momentum about the origin, r_C × m v_C + h_C, is conserved while
// the gravity-gradient torque trades it between the orbit and the spin. To RK4's error over the
// fastest rate (the spin).
TEST(LoadPotentials, CentralBodyConservesAngularMomentumAboutItsCentre) {
  using S = double;
  const MassProperties<S> body{1.0, Vec3<S>::Zero(), Vec3<S>(0.5, 1.0, 1.4).asDiagonal()};
  LoadSet<S> loads{};
  loads.has_central_body = true;
  loads.central_mu = 1000.0;
  const SharedModel<S> shared{loads, {}};
  const BodyRate<S> rate{make_free_body_model<S>(body, Vec3<S>::Zero()), &shared.loads, &shared.constraint};
  // Orbital rate √(μ/R³) = 1 at R = 10, body size ~1/10 of R (where the second-order potential
  // holds), gravity-gradient torque ~3μ/R³ ΔI ≈ 1.5 N m: strong against a spin of ~1 rad/s.
  RigidBodyState<S> x{Vec3<S>(10, 0, 0), normalized(Quaternion<S>{0.9, 0.1, 0.3, 0.2}), Vec3<S>(0, 10, 0.5),
                      Vec3<S>(0.4, -0.3, 1.2)};
  const Vec3<S> l0 = angular_momentum_origin_w(rate.model, x);
  const Vec3<S> spin0 = angular_momentum_c_w(rate.model, x);
  const S h = 1e-3, duration = 10;
  for (int i = 0; i < int(duration / h); ++i) x = rk4_step(rate, x, h);
  const S lambda = 3.0;  // above every rate in the problem
  EXPECT_LE((angular_momentum_origin_w(rate.model, x) - l0).norm() / l0.norm(),
            2 * duration * lambda * std::pow(lambda * h, 4) / 120 + 1e-12);
  // The spin alone is not conserved: the torque did act.
  EXPECT_GT((angular_momentum_c_w(rate.model, x) - spin0).norm(), 1e-3 * spin0.norm());
}

}  // namespace
}  // namespace rbmc

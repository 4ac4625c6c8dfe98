#include "rbmc/dynamics/constraints.hpp"

#include <cmath>

#include "rbmc/integrate/rk4.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

// 004's physical pendulum (eqs 91–115): a slender rod, m = 10 kg, l = 1 m, pivoted at one end
// (J = m l²/3 about the pivot, centre of mass at ξ = l/2), g = 9.81, released from rest at
// φ₀ = π/2 (horizontal). The body origin is the centre of mass, the rod lies along body x, the
// pivot is the body point (−l/2, 0, 0) at the world origin, and it swings in the xz plane.
struct Pendulum {
  static constexpr double m = 10, l = 1, g = 9.81, xi = 0.5, radius = 0.01;
  static constexpr double j_pivot = m * l * l / 3;
  // Complete elliptic integral of the first kind at k = sin(π/4): Γ(1/4)² / (4 √π).
  static constexpr double elliptic_k = 1.8540746773013719;
  static double period() { return 4 * std::sqrt(j_pivot / (m * g * xi)) * elliptic_k; }

  FreeBodyModel<double> model = make_free_body_model<double>(
      {m, Vec3<double>::Zero(), Vec3<double>(m * radius * radius / 2, m * l * l / 12, m * l * l / 12).asDiagonal()},
      Vec3<double>(0, 0, -g));
  Constraint<double> pivot{ConstraintKind::pivot, Vec3<double>(-l / 2, 0, 0), Vec3<double>::Zero(), 0, 0};
  RigidBodyState<double> released() const {
    return project_onto_constraint(pivot, RigidBodyState<double>{Vec3<double>::Zero(), Quaternion<double>::identity(),
                                                                 Vec3<double>::Zero(), Vec3<double>::Zero()});
  }
  auto rate() const {
    return [this](const RigidBodyState<double>& x) {
      return constrained_rate(pivot, model, x, uniform_gravity_wrench(model.mass, model.gravity_w)).rate;
    };
  }
};

// At release the rod's angular acceleration is m g ξ / J = 3g/(2l), its centre of mass falls
// at ξ α = 3g/4, so the pivot carries m g − m (3g/4) = m g / 4, upward.
TEST(PhysicalPendulum, ReactionAtReleaseIsAQuarterOfTheWeight) {
  const Pendulum p;
  const RigidBodyState<double> x0 = p.released();
  EXPECT_LE((x0.p_w - Vec3<double>(0.5, 0, 0)).norm(), 1e-16);
  const ConstrainedRate<double> r = constrained_rate(p.pivot, p.model, x0, uniform_gravity_wrench(p.m, p.model.gravity_w));
  EXPECT_NEAR(r.lambda.z(), p.m * p.g / 4, 1e-12 * p.m * p.g);
  EXPECT_NEAR(r.lambda.x(), 0.0, 1e-12 * p.m * p.g);
  // About +y, which turns body x (the rod, pointing along world x) toward −z: the rod swings down.
  EXPECT_NEAR(r.rate.omega_dot_b.y(), 3 * p.g / (2 * p.l), 1e-12 * p.g);
}

// The period matches the elliptic-integral formula to 1e-6 relative. With h = T / (4N) the rod
// is vertical (centre of mass at x = 0) after N, 3N and 5N steps; the time error there is
// x_C / |ẋ_C|. RK4's phase error at ω h ≈ 0.004 is ~1e-11, far inside the bound.
TEST(PhysicalPendulum, PeriodMatchesTheEllipticIntegral) {
  Pendulum p;
  p.pivot.stabilization = 0;  // the exact constraint forces alone; drift is checked below
  const double period = Pendulum::period();
  EXPECT_NEAR(period, 1.9333, 1e-4);  // 4 · sqrt(1/(3 · 9.81 · 0.5)) · K(1/√2)
  const int n = 400;
  const double h = period / (4 * n);
  RigidBodyState<double> x = p.released();
  const auto rate = p.rate();
  for (int step = 1; step <= 5 * n; ++step) {
    x = rk4_step(rate, x, h);
    if (step % (2 * n) == n) {
      const double x_c = x.p_w.x(), speed = std::abs(x.v_w.x());
      EXPECT_LE(std::abs(x_c) / speed / (period / 4), 1e-6) << "crossing at step " << step;
      EXPECT_NEAR(x.p_w.z(), -p.xi, 1e-9);
    }
  }
  // The pivot stayed put (RK4 drift only) and the energy is conserved.
  Vec3<double> e, e_rate;
  constraint_errors(p.pivot, x, e, e_rate);
  EXPECT_LE(e.norm(), 1e-9);
  EXPECT_LE(e_rate.norm(), 1e-9);
  const double energy0 = kinetic_energy(p.model, p.released()) + potential_energy(p.model, p.released());
  EXPECT_NEAR(kinetic_energy(p.model, x) + potential_energy(p.model, x), energy0, 1e-9 * p.m * p.g);
}

// With the default stabilisation the reaction force converges at RK4's order. After a quarter
// period the rod hangs vertical and moves at ω² = 2 m g ξ / J (energy), so the pivot carries
// m g + m ξ ω² upward and nothing sideways (the angular acceleration is zero there). From h to
// h/8 the error must fall by 8⁴ = 4096 for fourth order; 1024 allows for the approach to the
// asymptotic rate (order 3.3 at least). A step-proportional rate (α h fixed) fails this: its
// stabilisation term α² c scales as c / h², and the error stalls.
TEST(PhysicalPendulum, DefaultStabilizationConvergesAtTheIntegratorsOrder) {
  const double quarter = Pendulum::period() / 4;
  const double omega2 = 2 * Pendulum::m * Pendulum::g * Pendulum::xi / Pendulum::j_pivot;
  const double exact = Pendulum::m * Pendulum::g + Pendulum::m * Pendulum::xi * omega2;
  const double duration = 7.0;  // the example config's run: α = 10/7 s⁻¹ at every step below
  std::vector<double> errors;
  for (int n : {25, 50, 100, 200}) {
    Pendulum p;
    const double h = quarter / n;
    p.pivot.stabilization = default_stabilization(duration, h);
    EXPECT_EQ(p.pivot.stabilization, 10 / duration);
    RigidBodyState<double> x = p.released();
    const auto rate = p.rate();
    double drift = 0;
    for (int step = 0; step < n; ++step) {
      x = rk4_step(rate, x, h);
      Vec3<double> e, e_rate;
      constraint_errors(p.pivot, x, e, e_rate);
      drift = std::max(drift, e.norm());
    }
    const Vec3<double> lambda =
        constrained_rate(p.pivot, p.model, x, uniform_gravity_wrench(p.m, p.model.gravity_w)).lambda;
    errors.push_back((lambda - Vec3<double>(0, 0, exact)).norm());
    EXPECT_LE(drift, 1e-6 * Pendulum::l) << "h = " << h;  // bounded: RK4's position error at ω h <= 0.1
  }
  for (std::size_t k = 1; k < errors.size(); ++k) EXPECT_GE(errors[k - 1] / errors[k], 10.0) << "halving " << k;
  EXPECT_GE(errors.front() / errors.back(), 1024.0);
}

// Stabilisation pulls a state that starts off the constraint back onto it, critically damped:
// after 10/α the error is below e^{−10} (1 + 10) ≈ 5e-4 of the initial one.
TEST(PhysicalPendulum, StabilizationRemovesDrift) {
  Pendulum p;
  p.pivot.stabilization = 20;  // 1/s
  RigidBodyState<double> x = p.released();
  x.p_w += Vec3<double>(0.01, -0.005, 0.002);  // 1 cm off the pivot
  const auto rate = p.rate();
  for (int i = 0; i < 500; ++i) x = rk4_step(rate, x, 1e-3);  // 0.5 s = 10/α
  Vec3<double> e, e_rate;
  constraint_errors(p.pivot, x, e, e_rate);
  EXPECT_LE(e.norm(), 5e-4 * 0.0114);
}

// Plane motion (004 §5): a puck on a table. Its weight is carried by the reaction force, and a
// spin ω about z with products of inertia I_xz, I_yz needs the couple ω × I ω = (−I_yz ω², I_xz ω², 0)
// to stay upright; the puck slides in a straight line at constant spin.
TEST(PlanarConstraint, PuckOnATable) {
  const double m = 2, w = 5, g = 9.81;
  Mat3<double> inertia;
  inertia << 0.2, 0.0, 0.01, 0.0, 0.2, -0.02, 0.01, -0.02, 0.35;
  const FreeBodyModel<double> model = make_free_body_model<double>({m, Vec3<double>::Zero(), inertia}, Vec3<double>(0, 0, -g));
  const Constraint<double> plane{ConstraintKind::planar, Vec3<double>::Zero(), Vec3<double>::Zero(), 0.0, 10.0};
  RigidBodyState<double> x{Vec3<double>::Zero(), quaternion_from_rotation_vector<double>(Vec3<double>(0, 0, 0.3)),
                           Vec3<double>(1.0, 0.5, 0), Vec3<double>(0, 0, w)};
  x = project_onto_constraint(plane, x);
  const ConstrainedRate<double> r0 = constrained_rate(plane, model, x, uniform_gravity_wrench(m, model.gravity_w));
  EXPECT_NEAR(r0.lambda(0), m * g, 1e-12 * m * g);
  EXPECT_NEAR(r0.lambda(1), 0.02 * w * w, 1e-12);  // −I_yz ω² with I_yz = −0.02
  EXPECT_NEAR(r0.lambda(2), 0.01 * w * w, 1e-12);  // I_xz ω²
  const auto rate = [&](const RigidBodyState<double>& s) {
    return constrained_rate(plane, model, s, uniform_gravity_wrench(m, model.gravity_w)).rate;
  };
  for (int i = 0; i < 1000; ++i) x = rk4_step(rate, x, 1e-3);
  EXPECT_LE((x.p_w - Vec3<double>(1.0, 0.5, 0)).norm(), 1e-10);
  EXPECT_NEAR(x.omega_b.z(), w, 1e-10);
  EXPECT_LE(Vec3<double>(x.omega_b.x(), x.omega_b.y(), 0).norm(), 1e-10);
}

// A constraint kind's own rate (pivot_rate, planar_rate) against the multipliers' solution by
// superposition (multiplier_rate): 200 random bodies with full inertia and an offset centre of
// mass, every fourth with its centre of mass at the origin (the own rates' other branch), random
// applied wrenches, and states on and off the constraint, with and without stabilisation. Both
// solve a 3 × 3 system whose condition number stays below about 1e3 here, so the rates and λ agree
// to 1e3 ε relative. And the constrained accelerations are the stabilised target, to the rounding
// of the terms the target sums (target_terms(c, x)): they cancel where the state is on the
// constraint, the target near 0 but not its rounding.
// draw_constraint(rng): the kind's geometry, drawn; own_rate(c, model, x, applied).
template <class S, class DrawConstraint, class OwnRate, class TargetTerms>
void expect_the_multipliers_solution(unsigned seed, DrawConstraint draw_constraint, OwnRate own_rate,
                                     TargetTerms target_terms) {
  test::Random rng(seed);
  const double tolerance = 1e3 * double(test::eps<S>());
  for (int trial = 0; trial < 200; ++trial) {
    MassProperties<S> body = rng.body<S>();
    if (trial % 4 == 1) body.com_b.setZero();
    const FreeBodyModel<S> model = make_free_body_model<S>(body, rng.vec3<S>(-10, 10));
    Constraint<S> c = draw_constraint(rng);
    c.stabilization = trial % 2 == 0 ? S(0) : S(rng.uniform(1, 30));
    RigidBodyState<S> x = rng.state<S>();
    if (trial % 3 == 0) x = project_onto_constraint(c, x);
    const Wrench<S> applied{rng.vec3<S>(-20, 20), rng.vec3<S>(-3, 3)};
    const ConstrainedRate<S> a = own_rate(c, model, x, applied), b = multiplier_rate(c, model, x, applied);
    const auto close = [&](const Vec3<S>& u, const Vec3<S>& v) {
      return double((u - v).norm()) <= tolerance * (1 + double(v.norm()));
    };
    EXPECT_TRUE(close(a.rate.omega_dot_b, b.rate.omega_dot_b)) << trial << ": " << a.rate.omega_dot_b.transpose()
                                                              << " against " << b.rate.omega_dot_b.transpose();
    EXPECT_TRUE(close(a.rate.v_dot_w, b.rate.v_dot_w)) << trial;
    EXPECT_TRUE(close(a.lambda, b.lambda)) << trial << ": " << a.lambda.transpose() << " against " << b.lambda.transpose();
    EXPECT_EQ(a.rate.p_dot_w, b.rate.p_dot_w);
    EXPECT_EQ(a.rate.q_dot_wb.w, b.rate.q_dot_wb.w);
    const double terms = 1 + double(stabilised_target(c, x).norm()) + target_terms(c, x);
    EXPECT_LE(double((constraint_acceleration(c, x, a.rate) - stabilised_target(c, x)).norm()), tolerance * terms)
        << trial;
  }
}

template <class Scalar>
class PivotRate : public ::testing::Test {};
TYPED_TEST_SUITE(PivotRate, test::Scalars);

// The pivot's target sums α² c and 2α ċ, vectors as large as α² (|r_O| + |A| + |p|) and
// 2α (|v_O| + |ω| |p|); its constrained acceleration is a_P = a_O + R (ω̇ × p + ω × (ω × p)).
TYPED_TEST(PivotRate, EqualsTheMultipliersSolution) {
  using S = TypeParam;
  expect_the_multipliers_solution<S>(
      31,
      [](test::Random& rng) {
        return Constraint<S>{ConstraintKind::pivot, rng.vec3<S>(-0.5, 0.5), rng.vec3<S>(-1, 1), S(0), S(0)};
      },
      [](const auto&... args) { return pivot_rate(args...); },
      [](const Constraint<S>& c, const RigidBodyState<S>& x) {
        const double alpha = double(c.stabilization), p = double(c.point_b.norm());
        return alpha * alpha * (double(x.p_w.norm()) + double(c.anchor_w.norm()) + p) +
               2 * alpha * (double(x.v_w.norm()) + double(x.omega_b.norm()) * p);
      });
}

template <class Scalar>
class PlanarRate : public ::testing::Test {};
TYPED_TEST_SUITE(PlanarRate, test::Scalars);

// The plane's K has entries 1/m (0.2–2 kg⁻¹) and I⁻¹'s (0.25–10 kg⁻¹ m⁻² here); its target sums
// α² (|z| + |height| + |e|), |e| = 1, and 2α (|v_z| + |ω|); its constrained quantities are
// (a_O,z, ω̇_x, ω̇_y).
TYPED_TEST(PlanarRate, EqualsTheMultipliersSolution) {
  using S = TypeParam;
  expect_the_multipliers_solution<S>(
      37,
      [](test::Random& rng) {
        return Constraint<S>{ConstraintKind::planar, Vec3<S>::Zero(), Vec3<S>::Zero(), S(rng.uniform(-1, 1)), S(0)};
      },
      [](const auto&... args) { return planar_rate(args...); },
      [](const Constraint<S>& c, const RigidBodyState<S>& x) {
        const double alpha = double(c.stabilization);
        return alpha * alpha * (double(x.p_w.norm()) + double(std::abs(c.plane_height)) + 1) +
               2 * alpha * (double(x.v_w.norm()) + double(x.omega_b.norm()));
      });
}

// K_b⁻¹ computed once (the host's way, pivot_k_inverse) gives the rate computing it at each
// evaluation gives (the GPU's), bit for bit, and inverts K_b.
TYPED_TEST(PivotRate, KInverseOnceIsKInverseEachTime) {
  using S = TypeParam;
  test::Random rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    const FreeBodyModel<S> model = make_free_body_model<S>(rng.body<S>(), rng.vec3<S>(-10, 10));
    const Constraint<S> c{ConstraintKind::pivot, rng.vec3<S>(-0.5, 0.5), rng.vec3<S>(-1, 1), S(0), S(rng.uniform(1, 30))};
    const RigidBodyState<S> x = rng.state<S>();
    const Wrench<S> applied{rng.vec3<S>(-20, 20), rng.vec3<S>(-3, 3)};
    const Mat3<S> k_inv = pivot_k_inverse(c, model);
    const ConstrainedRate<S> once = constrained_rate(c, model, x, applied, &k_inv), each = constrained_rate(c, model, x, applied);
    EXPECT_TRUE(pack(once.rate) == pack(each.rate)) << trial;
    EXPECT_TRUE(once.lambda == each.lambda) << trial;
    const Mat3<S> product = pivot_apparent_inverse_inertia(c, model) * k_inv;
    EXPECT_LE(double((product - Mat3<S>::Identity()).norm()), 1e4 * double(test::eps<S>())) << trial;
  }
}

// The projection puts any state on the constraint.
TEST(Constraints, ProjectionSatisfiesTheConstraint) {
  test::Random rng(9);
  for (ConstraintKind kind : {ConstraintKind::pivot, ConstraintKind::planar}) {
    const Constraint<double> c{kind, Vec3<double>(0.1, -0.3, 0.2), Vec3<double>(1, 2, 3), 0.7, 0};
    const RigidBodyState<double> y = project_onto_constraint(c, rng.state<double>());
    Vec3<double> e, e_rate;
    constraint_errors(c, y, e, e_rate);
    EXPECT_LE(e.norm(), 1e-14);
    EXPECT_LE(e_rate.norm(), 1e-14);
  }
}

}  // namespace
}  // namespace rbmc

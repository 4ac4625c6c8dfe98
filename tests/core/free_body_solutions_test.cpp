// The integrator against closed-form motions of a rigid body, in double.
#include <cmath>

#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/integrate/rk4.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

// RK4's global error on a rotation at rate Λ over time T: T Λ (Λ h)⁴ / 120 relative (the local
// error is the first omitted term of the exponential series); twice that as the tolerance.
double rk4_bound(double duration, double rate, double h) { return 2 * duration * rate * std::pow(rate * h, 4) / 120; }

// Jacobi elliptic functions sn, cn, dn of u with parameter m = k², by the arithmetic–geometric
// mean and descending Landen transformation (Abramowitz & Stegun 16.4). Written here, apart from
// the core, as the independent reference.
void jacobi_sn_cn_dn(double u, double m, double& sn, double& cn, double& dn) {
  double a[16], c[16];
  a[0] = 1;
  double b = std::sqrt(1 - m);
  c[0] = std::sqrt(m);
  int n = 0;
  while (std::abs(c[n]) > 1e-16 && n < 15) {
    a[n + 1] = (a[n] + b) / 2;
    c[n + 1] = (a[n] - b) / 2;
    b = std::sqrt(a[n] * b);
    ++n;
  }
  double phi = std::ldexp(a[n] * u, n);
  for (int j = n; j > 0; --j) phi = (std::asin(c[j] * std::sin(phi) / a[j]) + phi) / 2;
  sn = std::sin(phi);
  cn = std::cos(phi);
  dn = std::sqrt(1 - m * sn * sn);
}

RigidBodyState<double> integrate(const MassProperties<double>& body, RigidBodyState<double> x, double h, int steps,
                                 const SharedModel<double>& shared, const Vec3<double>& g = Vec3<double>::Zero()) {
  const BodyRate<double> rate{make_free_body_model<double>(body, g), &shared.loads, &shared.constraint};
  for (int i = 0; i < steps; ++i) x = rk4_step(rate, x, h);
  return x;
}

// The torque-free asymmetric body, I₁ < I₂ < I₃, started at ω = (ω₁₀, 0, ω₃₀) with M² > 2 E I₂
// (Landau & Lifshitz, Mechanics §37):
//   ω₁ = √((2E I₃ − M²) / (I₁ (I₃ − I₁))) cn τ,  ω₂ = √((2E I₃ − M²) / (I₂ (I₃ − I₂))) sn τ,
//   ω₃ = √((M² − 2E I₁) / (I₃ (I₃ − I₁))) dn τ,  τ = t √((I₃ − I₂)(M² − 2E I₁) / (I₁ I₂ I₃)),
//   k² = (I₂ − I₁)(2E I₃ − M²) / ((I₃ − I₂)(M² − 2E I₁)).
TEST(FreeBodySolutions, AsymmetricBodyFollowsTheJacobiSolution) {
  const double i1 = 1, i2 = 2, i3 = 3;
  const MassProperties<double> body{1, Vec3<double>::Zero(), Vec3<double>(i1, i2, i3).asDiagonal()};
  const Vec3<double> w0(0.8, 0.0, 1.5);
  const double e2 = i1 * w0(0) * w0(0) + i3 * w0(2) * w0(2);                    // 2E
  const double m2 = std::pow(i1 * w0(0), 2) + std::pow(i3 * w0(2), 2);           // M²
  ASSERT_GT(m2, e2 * i2);
  const double k2 = (i2 - i1) * (e2 * i3 - m2) / ((i3 - i2) * (m2 - e2 * i1));
  const double rate = std::sqrt((i3 - i2) * (m2 - e2 * i1) / (i1 * i2 * i3));
  const double a1 = std::sqrt((e2 * i3 - m2) / (i1 * (i3 - i1))), a2 = std::sqrt((e2 * i3 - m2) / (i2 * (i3 - i2)));
  const double a3 = std::sqrt((m2 - e2 * i1) / (i3 * (i3 - i1)));
  ASSERT_NEAR(a1, w0(0), 1e-14);  // the solution starts where the body does
  ASSERT_NEAR(a3, w0(2), 1e-14);

  const double h = 0.002, duration = 20;
  RigidBodyState<double> x{Vec3<double>::Zero(), Quaternion<double>::identity(), Vec3<double>::Zero(), w0};
  const SharedModel<double> none{};
  const int per_check = 500;
  for (int check = 1; check <= int(duration / (h * per_check)); ++check) {
    x = integrate(body, x, h, per_check, none);
    double sn, cn, dn;
    jacobi_sn_cn_dn(rate * h * per_check * check, k2, sn, cn, dn);
    const Vec3<double> exact(a1 * cn, a2 * sn, a3 * dn);
    EXPECT_LE((x.omega_b - exact).norm() / w0.norm(), rk4_bound(h * per_check * check, w0.norm(), h) + 1e-13)
        << "t = " << h * per_check * check;
  }
}

// A torque-free axisymmetric body (I₁ = I₂): ω turns about the symmetry axis in the body frame at
// λ = (I₃ − I₁) / I₁ ω₃, ω₁ + i ω₂ = (ω₁₀ + i ω₂₀) e^{iλt}, ω₃ constant.
TEST(FreeBodySolutions, AxisymmetricBodyPrecessesInTheBodyFrame) {
  const double i1 = 1.0, i3 = 1.8, w3 = 4.0;
  const MassProperties<double> body{1, Vec3<double>(0.1, 0.0, 0.2), Vec3<double>(i1, i1, i3).asDiagonal()};
  const Vec3<double> w0(0.3, 0.0, w3);
  const double lambda = (i3 - i1) / i1 * w3, h = 0.002;
  const int steps = 5000;
  const RigidBodyState<double> x = integrate(
      body, {Vec3<double>::Zero(), Quaternion<double>::identity(), Vec3<double>::Zero(), w0}, h, steps, SharedModel<double>{});
  const double t = h * steps;
  const Vec3<double> exact(0.3 * std::cos(lambda * t), 0.3 * std::sin(lambda * t), w3);
  EXPECT_LE((x.omega_b - exact).norm() / w0.norm(), rk4_bound(t, std::max(lambda, w0.norm()), h) + 1e-13);
}

// A symmetric top on a pivot at its tip, centre of mass at l along its axis, spin s about the
// axis, axis tilted θ from the vertical. Steady precession at rate Ω about the vertical needs
// m g l = Ω I₃ ω₃ − Ω² I₁' cos θ (Goldstein), with ω₃ = s + Ω cos θ the whole axial component and
// I₁' the transverse inertia about the tip, i.e. m g l = Ω I₃ s + Ω² cos θ (I₃ − I₁'). A fast top
// (I₃ s ≫ I₁' Ω) precesses at Ω ≈ m g l / (I₃ s), with relative error ≈ |I₃ − I₁'| Ω / (I₃ s).
// Started on the exact steady precession, the axis's azimuth must advance at that rate.
TEST(FreeBodySolutions, FastTopPrecessesAtMglOverSpin) {
  const double m = 1.0, l = 0.05, g = 9.81, i1c = 0.002, i3 = 0.004, w3 = 200, theta = 0.5;
  const double i1 = i1c + m * l * l;  // about the tip
  // a Ω² + b Ω − m g l = 0, the slow root in its cancellation-free form.
  const double a = std::cos(theta) * (i3 - i1), b = i3 * w3, c = -m * g * l;
  const double precession = -2 * c / (b + std::sqrt(b * b - 4 * a * c));
  const double fast_top = m * g * l / (i3 * w3);
  const double approximation = std::abs(i3 - i1) * fast_top / (i3 * w3);  // relative
  EXPECT_NEAR(precession / fast_top, 1.0, 2 * approximation);

  const MassProperties<double> body{m, Vec3<double>::Zero(), Vec3<double>(i1c, i1c, i3).asDiagonal()};
  SharedModel<double> shared{};
  shared.constraint = {ConstraintKind::pivot, Vec3<double>(0, 0, -l), Vec3<double>::Zero(), 0, 100.0};
  // Tilt the axis by θ about world x; ω = ω₃ e₃ + Ω e_Z (the vertical, in body components).
  const Quaternion<double> q = quaternion_from_rotation_vector<double>(Vec3<double>(theta, 0, 0));
  const Vec3<double> omega_b = Vec3<double>(0, 0, w3) + precession * rotate_inverse(q, Vec3<double>::UnitZ());
  RigidBodyState<double> x = project_onto_constraint(shared.constraint, {Vec3<double>::Zero(), q, Vec3<double>::Zero(), omega_b});
  const double h = 2e-4, duration = 0.5;
  const int steps = int(duration / h);
  const auto azimuth = [](const RigidBodyState<double>& s) {
    const Vec3<double> axis = rotate(s.q_wb, Vec3<double>::UnitZ());
    return std::atan2(axis.y(), axis.x());
  };
  const double start = azimuth(x);
  x = integrate(body, x, h, steps, shared, Vec3<double>(0, 0, -g));
  const double turned = std::remainder(azimuth(x) - start, 2 * M_PI);
  // Exact steady precession: the only errors are RK4's (Λ = ω₃) and the tilt's nutation from them.
  EXPECT_NEAR(turned / duration, precession, 1e-6 * precession + rk4_bound(duration, w3, h) * w3);
  EXPECT_NEAR(turned / duration, fast_top, 2 * approximation * fast_top);
}

}  // namespace
}  // namespace rbmc

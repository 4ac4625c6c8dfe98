#include "rbmc/integrate/splitting.hpp"

#include <cmath>
#include <cstdio>

#include "rbmc/math/jacobi_eigen.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class JacobiTest : public ::testing::Test {};
TYPED_TEST_SUITE(JacobiTest, test::Scalars);

TYPED_TEST(JacobiTest, DecomposesSymmetricMatricesIncludingRepeatedEigenvalues) {
  using S = TypeParam;
  test::Random rng;
  std::vector<Mat3<S>> cases;
  for (int k = 0; k < 50; ++k) cases.push_back(rng.body<S>().inertia_c_b);
  const Mat3<S> r = to_rotation_matrix(rng.quaternion<S>());
  cases.push_back(r * Vec3<S>(1, 1, 2).asDiagonal() * r.transpose());  // a symmetric body
  cases.push_back(Vec3<S>(3, 1, 2).asDiagonal());
  for (const Mat3<S>& a : cases) {
    const SymmetricEigen<S> e = jacobi_eigen(a);
    const S scale = a.cwiseAbs().maxCoeff();
    EXPECT_LE((e.vectors * e.values.asDiagonal() * e.vectors.transpose() - a).cwiseAbs().maxCoeff(),
              S(64) * test::eps<S>() * scale);
    EXPECT_LE((e.vectors.transpose() * e.vectors - Mat3<S>::Identity()).cwiseAbs().maxCoeff(), S(64) * test::eps<S>());
    EXPECT_NEAR(e.vectors.determinant(), S(1), S(64) * test::eps<S>());
  }
}

struct Drifts {
  double early_energy = 0, late_energy = 0, momentum = 0;
};

// A long torque-free run of an asymmetric body (I = diag(1, 2, 3) in axes turned from the body's,
// ω near the intermediate axis, so the body tumbles), compared side by side with RK4 at the same
// step. Returns the largest relative energy error over the first and last tenths of the run and
// the largest |L| error.
Drifts long_run(IntegratorKind kind, double h, double duration) {
  test::Random rng(5);
  const Mat3<double> axes = to_rotation_matrix(rng.quaternion<double>());
  SampleInputs<double> in;
  in.body = {2.0, Vec3<double>(0.1, -0.05, 0.02), axes * Vec3<double>(1, 2, 3).asDiagonal() * axes.transpose()};
  in.initial = {Vec3<double>::Zero(), Quaternion<double>::identity(), Vec3<double>(0.3, 0, 0),
                axes * Vec3<double>(0.2, 1.0, 0.2)};
  in.gravity_w = Vec3<double>::Zero();
  const SharedModel<double> shared{};
  const BodyRate<double> rate{make_free_body_model<double>(in.body, in.gravity_w), &shared.loads, &shared.constraint};
  const double e0 = kinetic_energy(rate.model, in.initial);
  const double l0 = angular_momentum_c_w(rate.model, in.initial).norm();
  const SplittingFrame<double> frame = splitting_frame(rate.model);
  const auto no_wrench = [&](const RigidBodyState<double>&) { return Wrench<double>::zero(); };
  RigidBodyState<double> x = in.initial;
  Drifts d;
  const long n = std::lround(duration / h);
  for (long i = 0; i < n; ++i) {
    x = kind == IntegratorKind::splitting ? splitting_step(rate.model, frame, no_wrench, x, h) : rk4_step(rate, x, h);
    const double de = std::abs(kinetic_energy(rate.model, x) - e0) / e0;
    if (i < n / 10) d.early_energy = std::max(d.early_energy, de);
    if (i >= n - n / 10) d.late_energy = std::max(d.late_energy, de);
    d.momentum = std::max(d.momentum, std::abs(angular_momentum_c_w(rate.model, x).norm() - l0) / l0);
  }
  return d;
}

// The geometric integrator keeps |L| to rounding and its energy error bounded: no larger at the
// end of a 2000 s run than at its start. RK4 at the same step drifts secularly. (Figures in
// docs/physics.md.)
TEST(Splitting, LongRunEnergyStaysBoundedWhereRk4Drifts) {
  const double h = 0.05, duration = 2000;
  const Drifts split = long_run(IntegratorKind::splitting, h, duration);
  const Drifts rk4 = long_run(IntegratorKind::rk4, h, duration);
  const auto sci = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", v);
    return std::string(buf);
  };
  RecordProperty("splitting_energy_early", sci(split.early_energy));
  RecordProperty("splitting_energy_late", sci(split.late_energy));
  RecordProperty("splitting_momentum", sci(split.momentum));
  RecordProperty("rk4_energy_early", sci(rk4.early_energy));
  RecordProperty("rk4_energy_late", sci(rk4.late_energy));
  RecordProperty("rk4_momentum", sci(rk4.momentum));
  // |L| is exact in each sub-flow; what remains is rounding in the per-step conversions between
  // ω and Π, a few eps a step: 8 n eps over n = 40000 steps.
  EXPECT_LE(split.momentum, 8 * (duration / h) * 2.2e-16);
  EXPECT_LE(split.late_energy, 2 * split.early_energy);
  EXPECT_GT(rk4.late_energy, 5 * rk4.early_energy);
  EXPECT_GT(rk4.momentum, 100 * split.momentum);
}

// Second order: halving the step divides the (bounded) energy error by about 4.
TEST(Splitting, EnergyErrorIsSecondOrder) {
  const Drifts coarse = long_run(IntegratorKind::splitting, 0.02, 40), fine = long_run(IntegratorKind::splitting, 0.01, 40);
  EXPECT_NEAR(std::max(coarse.early_energy, coarse.late_energy) / std::max(fine.early_energy, fine.late_energy), 4.0, 1.0);
}

// Under conservative loads (a spring and uniform gravity) the splitting, a kick–drift–kick map,
// keeps T + V bounded as well, at second order in h.
TEST(Splitting, ConservativeLoadsKeepTheEnergyBounded) {
  SampleInputs<double> in;
  in.body = {1.0, Vec3<double>(0, 0, -0.05), Vec3<double>(0.01, 0.012, 0.008).asDiagonal()};
  in.initial = {Vec3<double>(0, 0, -1.0), Quaternion<double>::identity(), Vec3<double>(0.2, 0, 0),
                Vec3<double>(0.3, 0.1, 2.0)};
  in.gravity_w = Vec3<double>(0, 0, -9.81);
  SharedModel<double> shared{};
  shared.loads.n_springs = 1;
  shared.loads.springs[0] = {Vec3<double>(0.02, 0, 0), Vec3<double>::Zero(), 200.0, 0.95, 0.0};
  IntegrationSettings<double> how = fixed_step(0.002, 50000);  // 100 s
  how.kind = IntegratorKind::splitting;
  const SampleResult<double> r = run_sample(in, shared, how);
  ASSERT_EQ(r.status, SampleStatus::ok);
  // Spring frequency √(k/m) ≈ 14 rad/s: (ω h)² ≈ 8e-4 sets the bounded error's size.
  EXPECT_LE(std::abs(r.energy_drift), 8e-4);
}

// A circular orbit (μ = 1, a = 1, n = 1) for one period, at 2π/N a step. The kick–drift–kick is
// the Störmer–Verlet map on the orbit, whose lag a turn is a closed form at leading order: the
// discrete map's own circle of radius a turns by 2 arcsin(nh/2) ≈ nh (1 + (nh)²/24) a step and
// starts at the speed a sin(θ)/h ≈ a n (1 − (nh)²/8), so the true speed a n puts the sample on an
// orbit with δa/a = 2 δv/v = (nh)²/4 and a period longer by 3/2 of that. Mean motion
// n (1 + (nh)²/24 − 3(nh)²/8) = n (1 − (nh)²/3): after the period 2π/n the body is 2π (nh)²/3 a
// behind where it started, along the track (the example satellite_gravity_gradient's 4.3 m).
// Tolerance: the next term of the series, (nh)² of the lag again (10 × for its constant), and
// each step's rounding of the position (8 eps a step).
template <class Scalar>
class SplittingOrbit : public ::testing::Test {};
TYPED_TEST_SUITE(SplittingOrbit, test::Scalars);

TYPED_TEST(SplittingOrbit, LagsATurnByTwoPiAThirdOfNhSquared) {
  using S = TypeParam;
  for (const int steps : {128, 256}) {
    SampleInputs<S> in;
    // A point: the inertia's share of the force, I/(m a²), is 1e-12 (at 1e-6 it moves the lag 4 %).
    in.body = {S(1), Vec3<S>::Zero(), Vec3<S>(S(1e-12), S(2e-12), S(3e-12)).asDiagonal()};
    in.initial = {Vec3<S>(1, 0, 0), Quaternion<S>::identity(), Vec3<S>(0, 1, 0), Vec3<S>::Zero()};
    in.gravity_w = Vec3<S>::Zero();
    SharedModel<S> shared{};
    shared.loads.has_central_body = true;
    shared.loads.central_mu = S(1);
    IntegrationSettings<S> how = fixed_step(S(2 * M_PI / steps), steps);
    how.kind = IntegratorKind::splitting;
    const SampleResult<S> r = run_sample(in, shared, how);
    ASSERT_EQ(r.status, SampleStatus::ok);
    const double nh = 2 * M_PI / steps, lag = 2 * M_PI * nh * nh / 3;
    const double tolerance = 10 * nh * nh * lag + 8 * steps * double(test::eps<S>());
    const Vec3<S>& p = r.final_state.p_w;
    EXPECT_NEAR(double(p.y()), -std::sin(lag), tolerance) << steps << " steps";
    EXPECT_NEAR(double(p.x()), std::cos(lag), tolerance) << steps << " steps";
    EXPECT_NEAR(double(p.z()), 0.0, tolerance) << steps << " steps";
  }
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// A spin about a principal axis is a steady rotation (the exact flow: ω_b constant, q_wb(t) =
// q_wb(0) ⊗ (cos ωt/2, sin ωt/2 ê)), and the splitting reproduces it: the sub-flows about the
// other two axes turn by 0, the one about ê by exactly h ω a step. Each axis, spun either way, of
// a body whose principal axes are turned from its frame. Tolerance: each of a step's five
// sub-flows rounds the quaternion by a few eps (its sine and cosine, the product, the
// normalization), so 32 eps a step; over 200 steps the intermediate axis's instability amplifies
// rounding off the axis by at most e^{λt} ≈ 5 (λ = ω √((I₂ − I₁)(I₃ − I₂) / (I₁ I₃))). The
// reference is evaluated in double.
template <class Scalar>
class SplittingSpin : public ::testing::Test {};
TYPED_TEST_SUITE(SplittingSpin, test::Scalars);

TYPED_TEST(SplittingSpin, AboutAPrincipalAxisIsTheExactSteadyRotation) {
  using S = TypeParam;
  test::Random rng(11);
  const Mat3<double> axes = to_rotation_matrix(rng.quaternion<double>());
  SampleInputs<S> in;
  in.body = {S(2), Vec3<S>::Zero(), (axes * Vec3<double>(1, 2, 3).asDiagonal() * axes.transpose()).cast<S>()};
  in.gravity_w = Vec3<S>::Zero();
  const SharedModel<S> shared{};
  const BodyRate<S> rate{make_free_body_model<S>(in.body, in.gravity_w), &shared.loads, &shared.constraint};
  const SplittingFrame<S> frame = splitting_frame(rate.model);
  const auto no_wrench = [&](const RigidBodyState<S>&) { return Wrench<S>::zero(); };
  const Quaternion<double> q0 = rng.quaternion<double>();
  const double h = 0.01, rates[3] = {1.3, -0.7, 2.1};
  const int n = 200;
  for (int i = 0; i < 3; ++i) {
    const Vec3<double> omega_b = axes.col(i) * rates[i];
    RigidBodyState<S> x{Vec3<S>::Zero(), {S(q0.w), S(q0.x), S(q0.y), S(q0.z)}, Vec3<S>::Zero(), omega_b.cast<S>()};
    for (int step = 0; step < n; ++step) x = splitting_step(rate.model, frame, no_wrench, x, S(h));
    const Quaternion<double> exact = q0 * quaternion_from_rotation_vector<double>(omega_b * (n * h));
    const double tolerance = 5 * 32 * n * double(test::eps<S>());
    // q and −q are one attitude.
    const double sign = exact.w * double(x.q_wb.w) + exact.vec().dot(x.q_wb.vec().template cast<double>()) < 0 ? -1 : 1;
    EXPECT_LE((sign * x.q_wb.vec().template cast<double>() - exact.vec()).cwiseAbs().maxCoeff(), tolerance) << "axis " << i;
    EXPECT_NEAR(sign * double(x.q_wb.w), exact.w, tolerance) << "axis " << i;
    EXPECT_LE((x.omega_b.template cast<double>() - omega_b).cwiseAbs().maxCoeff(), tolerance * std::abs(rates[i]))
        << "axis " << i;
  }
}

// In float the splitting still keeps |L| to float's rounding, a few eps a step.
TEST(Splitting, FloatKeepsTheMomentumToRounding) {
  SampleInputs<float> in;
  in.body = {1.0f, Vec3<float>::Zero(), Vec3<float>(1, 2, 3).asDiagonal()};
  in.initial = {Vec3<float>::Zero(), Quaternion<float>::identity(), Vec3<float>::Zero(), Vec3<float>(0.2f, 1.0f, 0.2f)};
  in.gravity_w = Vec3<float>::Zero();
  IntegrationSettings<float> how = fixed_step<float>(0.05f, 2000);
  how.kind = IntegratorKind::splitting;
  const SampleResult<float> r = run_sample(in, SharedModel<float>{}, how);
  ASSERT_EQ(r.status, SampleStatus::ok);
  EXPECT_LE(std::abs(r.momentum_drift), 8 * 2000 * 1.2e-7);
}

}  // namespace
}  // namespace rbmc

// Integrator accuracy: observed orders, tolerance met, steps saved, limits reported.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "rbmc/sample/run_sample.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

// Least-squares slope of log(error) against log(step).
double fitted_order(const std::vector<double>& steps, const std::vector<double>& errors) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = double(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double x = std::log(steps[i]), y = std::log(errors[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// The torque-free body of FreeBodySolutions, I = diag(1, 2, 3), integrated to t = 4 with a high-
// accuracy reference: DOPRI5 at rtol 1e-13 (whose own error is ~1e-12, below every error fitted).
struct Problem {
  MassProperties<double> body{1, Vec3<double>::Zero(), Vec3<double>(1, 2, 3).asDiagonal()};
  SharedModel<double> shared{};
  RigidBodyState<double> x0{Vec3<double>::Zero(), Quaternion<double>::identity(), Vec3<double>::Zero(),
                            Vec3<double>(0.8, 0.3, 1.5)};
  SampleInputs<double> inputs() const { return {body, x0, Vec3<double>::Zero()}; }
};

IntegrationSettings<double> adaptive(double duration, double rtol, double atol) {
  return {IntegratorKind::dopri5, duration, 0.01, 0, rtol, atol, 1e-12, duration, 10000000, false, 0};
}

double omega_error(const SampleResult<double>& r, const SampleResult<double>& reference) {
  return (r.final_state.omega_b - reference.final_state.omega_b).norm();
}

TEST(Integrators, ObservedOrdersAreFourAndFive) {
  const Problem p;
  const double duration = 4;
  const SampleResult<double> reference = run_sample(p.inputs(), p.shared, adaptive(duration, 1e-13, 1e-15));
  std::vector<double> steps, rk4_errors, dopri_errors;
  for (int n : {40, 80, 160, 320}) {
    const double h = duration / n;
    steps.push_back(h);
    rk4_errors.push_back(omega_error(run_sample(p.inputs(), p.shared, fixed_step(h, n)), reference));
    // DOPRI5 at a fixed step: a huge tolerance accepts every step, and the step never grows.
    IntegrationSettings<double> fixed{IntegratorKind::dopri5, duration, h, 0, 1e30, 1e30, h, h, 10 * n, false, 0};
    dopri_errors.push_back(omega_error(run_sample(p.inputs(), p.shared, fixed), reference));
  }
  EXPECT_NEAR(fitted_order(steps, rk4_errors), 4.0, 0.3);
  EXPECT_NEAR(fitted_order(steps, dopri_errors), 5.0, 0.3);
}

// Kepler orbit of eccentricity 0.9 about a central body (μ = 1, a = 1): fast at periapsis, slow at
// apoapsis, the problem adaptive steps are for. The reference position is Kepler's equation,
// E − e sin E = n t. The body's inertia is 1e-12 so that the second-order gravity terms (relative
// size I/(m R²)) are far below the errors compared.
struct Kepler {
  static constexpr double e = 0.9, mu = 1.0, a = 1.0;
  MassProperties<double> body{1, Vec3<double>::Zero(), Mat3<double>::Identity() * 1e-12};
  SharedModel<double> shared = [] {
    SharedModel<double> s{};
    s.loads.has_central_body = true;
    s.loads.central_mu = mu;
    return s;
  }();
  SampleInputs<double> inputs() const {
    const double rp = a * (1 - e), vp = std::sqrt(mu / a * (1 + e) / (1 - e));
    return {body, {Vec3<double>(rp, 0, 0), Quaternion<double>::identity(), Vec3<double>(0, vp, 0), Vec3<double>::Zero()},
            Vec3<double>::Zero()};
  }
  static Vec3<double> position(double t) {
    const double m = std::sqrt(mu / (a * a * a)) * t;
    double big_e = m + e * std::sin(m);
    for (int i = 0; i < 50; ++i) big_e -= (big_e - e * std::sin(big_e) - m) / (1 - e * std::cos(big_e));
    return Vec3<double>(a * (std::cos(big_e) - e), a * std::sqrt(1 - e * e) * std::sin(big_e), 0);
  }
};

// The adaptive solver meets its tolerance: each accepted step's local error is at most rtol |y|,
// so on a problem that does not amplify errors much the global error is at most their sum,
// N rtol |ω| for N accepted steps.
TEST(Integrators, AdaptiveMeetsItsTolerance) {
  const Problem p;
  const SampleResult<double> reference = run_sample(p.inputs(), p.shared, adaptive(4, 1e-13, 1e-15));
  for (double rtol : {1e-6, 1e-8, 1e-10}) {
    const SampleResult<double> r = run_sample(p.inputs(), p.shared, adaptive(4, rtol, rtol * 1e-3));
    ASSERT_EQ(r.status, SampleStatus::ok);
    EXPECT_EQ(r.time, 4.0);
    EXPECT_LE(omega_error(r, reference), double(r.steps) * rtol * p.x0.omega_b.norm()) << "rtol " << rtol;
  }
}

// On the eccentric orbit DOPRI5 needs fewer rate evaluations than RK4 for the same error. (The
// orbit amplifies timing errors near periapsis, so it is the wrong problem for the tolerance test.)
TEST(Integrators, AdaptiveTakesFewerStepsThanRk4OnFastAndSlowPhases) {
  const Kepler k;
  const double duration = 2 * M_PI;  // one orbit
  const SampleResult<double> adaptive_result = run_sample(k.inputs(), k.shared, adaptive(duration, 1e-8, 1e-10));
  ASSERT_EQ(adaptive_result.status, SampleStatus::ok);
  const double adaptive_error = (adaptive_result.final_state.p_w - Kepler::position(duration)).norm();
  // RK4 steps needed for the same error: double N until it gets there.
  std::int64_t n = 64;
  double rk4_error = 1;
  while (rk4_error > adaptive_error && n < (1 << 22)) {
    n *= 2;
    rk4_error = (run_sample(k.inputs(), k.shared, fixed_step(duration / double(n), n)).final_state.p_w -
                 Kepler::position(duration))
                    .norm();
  }
  const std::int64_t adaptive_work = adaptive_result.steps + adaptive_result.rejected_steps;
  EXPECT_LT(adaptive_work * 6, n * 4) << "rate evaluations: DOPRI5 " << adaptive_work * 6 << ", RK4 " << n * 4;
  RecordProperty("dopri5_steps", int(adaptive_result.steps));
  RecordProperty("rk4_steps_for_same_error", int(n));
}

TEST(Integrators, DenseOutputIsFourthOrderBetweenSteps) {
  const Problem p;
  const BodyRate<double> rate{make_free_body_model<double>(p.body, Vec3<double>::Zero()), &p.shared.loads, &p.shared.constraint};
  const StateVector<double> y = pack(p.x0);
  std::vector<double> steps, errors;
  for (double h : {0.2, 0.1, 0.05}) {
    const StateVector<double> k1 = pack(rate(p.x0));
    const Dopri5Trial<double> trial = dopri5_trial(rate, y, k1, h);
    // The reference at mid-step: many small RK4 steps.
    RigidBodyState<double> x = p.x0;
    for (int i = 0; i < 1000; ++i) x = rk4_step(rate, x, h / 2000);
    steps.push_back(h);
    errors.push_back((Dopri5Dense<double>{y, k1, trial.y, trial.k7, trial.r5, 0.0, h}.at(h / 2) - pack(x)).norm());
  }
  // Local interpolation error O(h⁵) for a fourth-order continuous extension.
  EXPECT_NEAR(fitted_order(steps, errors), 5.0, 0.5);
}

// The continuous extension meets the step's ends: at θ = 0 it is y0 itself (every term carries a
// factor θ), and at θ = 1 it is y0 + (y1 − y0), y1 to one rounding of each component.
TEST(Integrators, Dopri5InterpolantMeetsTheStepsEnds) {
  const Problem p;
  const BodyRate<double> rate{make_free_body_model<double>(p.body, Vec3<double>::Zero()), &p.shared.loads, &p.shared.constraint};
  const StateVector<double> y = pack(p.x0), k1 = pack(rate(p.x0));
  const double t0 = 0.5, h = 0.25;  // binary fractions: θ = (t − t0)/h is exactly 0 and 1 at the ends
  const Dopri5Trial<double> trial = dopri5_trial(rate, y, k1, h);
  const Dopri5Dense<double> dense{y, k1, trial.y, trial.k7, trial.r5, t0, h};
  const StateVector<double> start = dense.at(t0), end = dense.at(t0 + h);
  for (int i = 0; i < state_offset::count; ++i) {
    EXPECT_EQ(start(i), y(i)) << i;
    // One rounding of y0 + (y1 − y0), where y1 − y0 is itself rounded: 2 ulp of the larger term.
    const double ulp = std::numeric_limits<double>::epsilon() * std::max(std::abs(y(i)), std::abs(trial.y(i)));
    EXPECT_NEAR(end(i), trial.y(i), 2 * ulp) << i;
  }
}

// The limits are reported per sample and the sample stops where it got to.
TEST(Integrators, StepBudgetAndUnderflowAreStatuses) {
  const Kepler k;
  IntegrationSettings<double> budget = adaptive(2 * M_PI, 1e-10, 1e-12);
  budget.max_steps = 50;
  const SampleResult<double> a = run_sample(k.inputs(), k.shared, budget);
  EXPECT_EQ(a.status, SampleStatus::max_steps_reached);
  EXPECT_LT(a.time, 2 * M_PI);
  EXPECT_EQ(a.steps + a.rejected_steps, 50);
  IntegrationSettings<double> floor = adaptive(2 * M_PI, 1e-10, 1e-12);
  floor.min_step = 0.05;  // too coarse for periapsis at this tolerance
  const SampleResult<double> b = run_sample(k.inputs(), k.shared, floor);
  EXPECT_EQ(b.status, SampleStatus::step_size_underflow);
  EXPECT_LT(b.time, 2 * M_PI);
}

// In float the tolerance must stay above float's rounding (~1e-7 relative); at rtol 1e-5 the
// adaptive run matches the double one to that tolerance.
TEST(Integrators, AdaptiveInFloat) {
  const Problem p;
  const SampleResult<double> d = run_sample(p.inputs(), p.shared, adaptive(4, 1e-10, 1e-12));
  SampleInputs<float> in{{1.0f, Vec3<float>::Zero(), Vec3<float>(1, 2, 3).asDiagonal()},
                         {Vec3<float>::Zero(), Quaternion<float>::identity(), Vec3<float>::Zero(), Vec3<float>(0.8f, 0.3f, 1.5f)},
                         Vec3<float>::Zero()};
  const SampleResult<float> f = run_sample(in, SharedModel<float>{}, adaptive(4, 1e-5, 1e-7).cast<float>());
  ASSERT_EQ(f.status, SampleStatus::ok);
  EXPECT_EQ(f.time, 4.0f);
  EXPECT_LE((f.final_state.omega_b.cast<double>() - d.final_state.omega_b).norm(), 100 * 1e-5);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

SampleInputs<double> tilted_spinner() {
  SampleInputs<double> in;
  in.body = {2.0, Vec3<double>(0.05, -0.02, 0.01), Vec3<double>(1, 2, 2.5).asDiagonal()};
  in.initial = {Vec3<double>::Zero(), quaternion_from_euler_zxz<double>(EulerAngles<double>(0.3, 1.2, 0.5)),
                Vec3<double>(0.1, 0, 0.5), Vec3<double>(0.2, 0.1, 1.5)};
  in.gravity_w = Vec3<double>(0, 0, -9.81);
  return in;
}

// Carried as ZXZ Euler angles (004 eq. 52 with T of eq. 60), RK4 reproduces the quaternion
// formulation to both integrations' error: each is within T Λ (Λ h)⁴/120 of the exact motion,
// Λ the fastest rate, here the angle rates' |ω| / sin θ with θ ≥ 0.9 over this run.
TEST(EulerAttitude, ReproducesTheQuaternionFormulation) {
  const SampleInputs<double> in = tilted_spinner();
  const SharedModel<double> shared{};
  IntegrationSettings<double> how = fixed_step(0.002, 500);
  const SampleResult<double> quaternion = run_sample(in, shared, how);
  how.euler_zxz = true;
  how.euler_threshold = 1e-3;
  const SampleResult<double> euler = run_sample(in, shared, how);
  ASSERT_EQ(euler.status, SampleStatus::ok);
  const double lambda = in.initial.omega_b.norm() / std::sin(0.9), bound = 2 * 1.0 * lambda * std::pow(lambda * 0.002, 4) / 120;
  EXPECT_LE(angle_between(euler.final_state.q_wb, quaternion.final_state.q_wb), 2 * bound + 1e-13);
  EXPECT_LE((euler.final_state.omega_b - quaternion.final_state.omega_b).norm(), 2 * bound * 2 + 1e-13);
  EXPECT_LE((euler.final_state.p_w - quaternion.final_state.p_w).norm(), 2 * bound + 1e-13);
}

// Approaching θ = 0 stops the sample with euler_singularity; starting there stops it at once.
TEST(EulerAttitude, SingularityIsAStatus) {
  SampleInputs<double> in = tilted_spinner();
  in.initial.q_wb = quaternion_from_euler_zxz<double>(EulerAngles<double>(0.0, 0.3, 0.0));
  in.initial.omega_b = Vec3<double>(-1.0, 0, 0);  // turning about the line of nodes: θ falls at 1 rad/s
  in.gravity_w = Vec3<double>::Zero();
  in.body.com_b = Vec3<double>::Zero();
  IntegrationSettings<double> how = fixed_step(0.001, 1000);
  how.euler_zxz = true;
  how.euler_threshold = 1e-2;
  const SampleResult<double> r = run_sample(in, SharedModel<double>{}, how);
  EXPECT_EQ(r.status, SampleStatus::euler_singularity);
  EXPECT_NEAR(r.time, 0.3 - std::asin(1e-2), 2e-3);  // sin θ = 0.01 after 0.29 s, to a step
  in.initial.q_wb = Quaternion<double>::identity();  // θ = 0
  EXPECT_EQ(run_sample(in, SharedModel<double>{}, how).status, SampleStatus::euler_singularity);
  // The quaternion formulation has no such singularity.
  how.euler_zxz = false;
  EXPECT_EQ(run_sample(in, SharedModel<double>{}, how).status, SampleStatus::ok);
}

}  // namespace
}  // namespace rbmc

#include "rbmc/integrate/output_times.hpp"

#include <cmath>
#include <vector>

#include "rbmc/sample/run_sample.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

// States at output times from a single sample (n = 1 in the batch layout).
struct Recorded {
  std::vector<double> data;
  RigidBodyState<double> at(int k) const {
    const auto c = [&](int component) { return data[std::size_t(k) * kTrajectoryColumns + component]; };
    return {Vec3<double>(c(0), c(1), c(2)), {c(3), c(4), c(5), c(6)}, Vec3<double>(c(7), c(8), c(9)),
            Vec3<double>(c(10), c(11), c(12))};
  }
};

Recorded record(const SampleInputs<double>& in, SharedModel<double> shared, const IntegrationSettings<double>& how,
                const OutputTimes<double>& times, SampleResult<double>* result = nullptr) {
  shared.output_times = times;
  Recorded r;
  r.data.assign(std::size_t(times.n) * kTrajectoryColumns, -1.0);
  TrajectorySink<double, double> sink{&times, r.data.data(), 1, 0, 0};
  const SampleResult<double> out = run_sample(in, shared, how, sink);
  if (result != nullptr) *result = out;
  return r;
}

SampleInputs<double> falling_box() {
  SampleInputs<double> in;
  in.body = {1, Vec3<double>::Zero(), Vec3<double>(0.1, 0.2, 0.25).asDiagonal()};
  in.initial = {Vec3<double>(0, 0, 5), Quaternion<double>::identity(), Vec3<double>(1, 0, 2), Vec3<double>(0.1, 2, 0.1)};
  in.gravity_w = Vec3<double>(0, 0, -9.81);
  return in;
}

// The centre of mass (here the origin) flies a parabola; RK4 integrates it exactly and both
// interpolants reproduce a quadratic exactly, so every output time's position is the parabola's
// to rounding, whether or not it falls on a step (interval 0.07 against steps of 0.01 and
// DOPRI5's own).
TEST(OutputTimes, ValuesAtOutputTimesFollowTheParabola) {
  OutputTimes<double> times;
  times.interval = 0.07;
  times.n = 15;  // 0 … 0.98
  const IntegrationSettings<double> adaptive{IntegratorKind::dopri5, 1.0, 0.01, 0, 1e-9, 1e-12, 1e-9, 1.0, 100000, false, 0};
  for (const IntegrationSettings<double>& how : {fixed_step(0.01, 100), adaptive}) {
    const Recorded r = record(falling_box(), SharedModel<double>{}, how, times);
    for (int k = 0; k < times.n; ++k) {
      const double t = times.at(k);
      const Vec3<double> exact(t, 0, 5 + 2 * t - 0.5 * 9.81 * t * t);
      EXPECT_LE((r.at(k).p_w - exact).norm(), 1e-12) << "t = " << t;
      EXPECT_NEAR(r.at(k).q_wb.norm(), 1.0, 1e-15);
    }
  }
}

// Away from the step ends the dense output of DOPRI5 is as accurate as the steps: against a
// reference run at rtol 1e-13, the angular velocity at each listed time is within the same bound
// as the final state's (the sum of local errors, N rtol |ω|).
TEST(OutputTimes, DenseOutputBetweenAdaptiveSteps) {
  SampleInputs<double> in = falling_box();
  in.gravity_w = Vec3<double>::Zero();
  OutputTimes<double> times;
  times.listed = true;
  for (double t : {0.0, 0.123, 0.5, 1.77, 2.9, 3.0}) times.list[times.n++] = t;
  const IntegrationSettings<double> tight{IntegratorKind::dopri5, 3.0, 0.01, 0, 1e-13, 1e-15, 1e-9, 3.0, 1000000, false, 0};
  IntegrationSettings<double> loose = tight;
  loose.rtol = 1e-7;
  loose.atol = 1e-10;
  SampleResult<double> result;
  const Recorded reference = record(in, SharedModel<double>{}, tight, times);
  const Recorded r = record(in, SharedModel<double>{}, loose, times, &result);
  for (int k = 0; k < times.n; ++k)
    EXPECT_LE((r.at(k).omega_b - reference.at(k).omega_b).norm(), double(result.steps) * 1e-7 * 2.0) << k;
  EXPECT_EQ(r.at(times.n - 1).omega_b, result.final_state.omega_b);  // the last time is the end
}

// After a terminal event there is no state: the remaining output times are NaN.
TEST(OutputTimes, TimesAfterAStopAreNan) {
  SharedModel<double> shared{};
  shared.events.n = 1;
  shared.events.events[0] = {EventKind::time_limit, true, CrossingDirection::rising, 0, 0.45};
  OutputTimes<double> times;
  times.interval = 0.1;
  times.n = 11;
  SampleResult<double> result;
  const Recorded r = record(falling_box(), shared, fixed_step(0.01, 100), times, &result);
  EXPECT_EQ(result.status, SampleStatus::terminal_event);
  for (int k = 0; k < times.n; ++k) EXPECT_EQ(std::isnan(r.at(k).p_w.x()), times.at(k) > 0.45) << k;
}

// An output time an ulp past the last step's end (3 × 0.1 > 30 × 0.01) gets the final state.
TEST(OutputTimes, TheLastTimeIsTheEndEvenAfterRounding) {
  OutputTimes<double> times;
  times.interval = 0.1;
  times.n = 4;  // 0, 0.1, 0.2, 0.30000000000000004
  ASSERT_GT(times.at(3), 30 * 0.01);
  SampleResult<double> result;
  const Recorded r = record(falling_box(), SharedModel<double>{}, fixed_step(0.01, 30), times, &result);
  EXPECT_EQ(r.at(3).p_w, result.final_state.p_w);
}

// A fixed step builds its interpolant only when it needs one (fixed_step.hpp): the rates at its
// ends are then the right-hand side's at the step's two states, whichever the stepper, though the
// splitting and Euler-angle RK4 evaluate no rates on the other steps and RK4 without events does
// not hold its first stage's for it. Reference: the two states
// from runs stopped at those steps, the rates evaluated here, and events.hpp's interpolant, bit
// for bit; an output time on a step's end takes the end state itself.
TEST(OutputTimes, AFixedStepInterpolatesWithTheRatesAtItsOwnEnds) {
  SampleInputs<double> in = falling_box();
  in.initial.q_wb = normalized(Quaternion<double>{0.9, 0.3, 0.2, 0.24});  // Euler angles away from θ = 0
  const SharedModel<double> shared{};
  const double h = 0.01;
  const int j = 37;  // the step [j h, (j + 1) h] holds the first output time
  OutputTimes<double> times;
  times.listed = true;
  for (const double t : {(j + 0.37) * h, (j + 1) * h, (j + 1.9) * h}) times.list[times.n++] = t;
  const FreeBodyModel<double> model = make_free_body_model(in.body, in.gravity_w);
  const Constraint<double> none{};
  const BodyRate<double> rate{model, &shared.loads, &none, {}, nullptr};
  for (const int stepper : {0, 1, 2}) {
    IntegrationSettings<double> how = fixed_step(h, 50);
    if (stepper == 1) how.kind = IntegratorKind::splitting;
    if (stepper == 2) {
      how.euler_zxz = true;
      how.euler_threshold = 1e-3;
    }
    const auto state_after = [&](std::int64_t steps) {
      IntegrationSettings<double> to = how;
      to.n_steps = steps;
      to.duration = double(steps) * h;
      return run_sample(in, shared, to).final_state;
    };
    const Recorded r = record(in, shared, how, times);
    const RigidBodyState<double> x0 = state_after(j), x1 = state_after(j + 1), x2 = state_after(j + 2);
    const StateVector<double> y0 = pack(x0), y1 = pack(x1), y2 = pack(x2);
    const auto interpolated = [&](const StateVector<double>& a, const StateVector<double>& b, double t0, double t) {
      return interpolated_state<double>(PackedHermiteInterpolant<double>{a, pack(rate(unpack(a))), b, pack(rate(unpack(b))), t0, h}, t);
    };
    EXPECT_EQ(pack(r.at(0)), pack(interpolated(y0, y1, j * h, times.at(0)))) << "stepper " << stepper;
    EXPECT_EQ(pack(r.at(1)), y1) << "stepper " << stepper;
    EXPECT_EQ(pack(r.at(2)), pack(interpolated(y1, y2, (j + 1) * h, times.at(2)))) << "stepper " << stepper;
  }
}

}  // namespace
}  // namespace rbmc

#include "rbmc/sample/run_sample.hpp"

#include <vector>

#include "rbmc/sample/sample_layout.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class RunSampleTest : public ::testing::Test {};
TYPED_TEST_SUITE(RunSampleTest, test::Scalars);

template <class S>
SampleInputs<S> box_inputs() {
  SampleInputs<S> in;
  in.body = {S(2), Vec3<S>(S(0.01), 0, 0), Vec3<S>(S(0.1), S(0.2), S(0.25)).asDiagonal()};
  in.initial = {Vec3<S>::Zero(), Quaternion<S>::identity(), Vec3<S>(1, 0, 2), Vec3<S>(S(0.1), 3, S(0.1))};
  in.gravity_w = Vec3<S>(0, 0, S(-9.81));
  return in;
}

TYPED_TEST(RunSampleTest, IntegratesToTheEndTime) {
  using S = TypeParam;
  const IntegrationSettings<S> how = fixed_step<S>(S(0.01), 100);
  const SampleResult<S> r = run_sample(box_inputs<S>(), SharedModel<S>{}, how);
  EXPECT_EQ(r.status, SampleStatus::ok);
  EXPECT_EQ(r.time, S(100) * S(0.01));
  EXPECT_NEAR(r.final_state.q_wb.norm(), S(1), S(4) * test::eps<S>());
  // It is the same as stepping by hand with the same right-hand side.
  const SharedModel<S> none{};
  const BodyRate<S> rate{make_free_body_model(box_inputs<S>().body, box_inputs<S>().gravity_w), &none.loads, &none.constraint};
  RigidBodyState<S> x = box_inputs<S>().initial;
  for (int i = 0; i < 100; ++i) x = rk4_step(rate, x, S(0.01));
  EXPECT_EQ(r.final_state.p_w, x.p_w);
  EXPECT_EQ(r.final_state.omega_b, x.omega_b);
}

TYPED_TEST(RunSampleTest, InvalidBodyIsFlaggedNotIntegrated) {
  using S = TypeParam;
  SampleInputs<S> in = box_inputs<S>();
  in.body.inertia_c_b = Vec3<S>(1, 1, 3).asDiagonal();  // breaks the triangle inequality
  const SampleResult<S> r = run_sample(in, SharedModel<S>{}, fixed_step<S>(S(0.01), 100));
  EXPECT_EQ(r.status, SampleStatus::invalid_body);
  EXPECT_EQ(r.time, S(0));
  EXPECT_EQ(r.final_state.p_w, in.initial.p_w);
}

TYPED_TEST(RunSampleTest, NonFiniteStateStopsTheSampleAtTheLastFiniteStep) {
  using S = TypeParam;
  SampleInputs<S> in = box_inputs<S>();
  // ω × Iω overflows at |ω| ~ sqrt(max) / |I|: the first step is already non-finite.
  in.initial.omega_b = Vec3<S>(std::sqrt(std::numeric_limits<S>::max()), S(1), S(1));
  const SampleResult<S> r = run_sample(in, SharedModel<S>{}, fixed_step<S>(S(0.01), 100));
  EXPECT_EQ(r.status, SampleStatus::non_finite_state);
  EXPECT_EQ(r.time, S(0));
  EXPECT_TRUE(is_finite(r.final_state));
}

// The structure-of-arrays round trip loses nothing: storing and loading inputs, then running
// the batch path, gives exactly what run_sample gives, whatever the batch size and position.
TYPED_TEST(RunSampleTest, BatchPathEqualsDirectCallBitForBit) {
  using S = TypeParam;
  const IntegrationSettings<S> how = fixed_step<S>(S(0.01), 50);
  const SampleInputs<S> in = box_inputs<S>();
  const SampleResult<S> direct = run_sample(in, SharedModel<S>{}, how);
  for (std::size_t n : {std::size_t(1), std::size_t(7)}) {
    std::vector<double> inputs(n * input_column::count), outputs(n * output_column_count(0));
    std::vector<std::uint8_t> status(n);
    const std::size_t i = n - 1;
    store_sample_inputs(inputs.data(), n, i, in, 0);
    run_sample_in_batch<S>(inputs.data(), outputs.data(), static_cast<double*>(nullptr), status.data(), n, i,
                           SharedModel<S>{}, how);
    EXPECT_EQ(outputs[output_column::p_w * n + i], double(direct.final_state.p_w.x()));
    EXPECT_EQ(outputs[(output_column::q_wb + 2) * n + i], double(direct.final_state.q_wb.y));
    EXPECT_EQ(outputs[(output_column::omega_b + 1) * n + i], double(direct.final_state.omega_b.y()));
    EXPECT_EQ(outputs[output_column::time * n + i], double(direct.time));
    EXPECT_EQ(status[i], 0);
  }
}

// The free-body variant computes the general path's numbers, bit for bit, output times included;
// is_free_body_rk4 admits only the runs it can take.
TYPED_TEST(RunSampleTest, FreeBodyVariantEqualsTheGeneralPath) {
  using S = TypeParam;
  SharedModel<S> shared{};
  shared.output_times.n = 5;
  shared.output_times.interval = S(0.2);
  const IntegrationSettings<S> how = fixed_step<S>(S(0.01), 100);
  ASSERT_TRUE(is_free_body_rk4(shared, how));
  std::vector<S> a(kTrajectoryColumns * 5), b(kTrajectoryColumns * 5);
  TrajectorySink<S, S> sink_a{shared.output_times, a.data(), 1, 0, 0}, sink_b{shared.output_times, b.data(), 1, 0, 0};
  const SampleResult<S> general = run_sample<S, GeneralVariant>(box_inputs<S>(), shared, how, sink_a);
  const SampleResult<S> free = run_sample<S, FreeBodyRk4Variant>(box_inputs<S>(), shared, how, sink_b);
  EXPECT_EQ(free.final_state.p_w, general.final_state.p_w);
  EXPECT_EQ(free.final_state.omega_b, general.final_state.omega_b);
  EXPECT_EQ(free.final_state.q_wb.w, general.final_state.q_wb.w);
  EXPECT_EQ(free.energy_drift, general.energy_drift);
  EXPECT_EQ(a, b);
  // What the variant cannot take.
  SharedModel<S> with_event = shared;
  with_event.events.n = 1;
  EXPECT_FALSE(is_free_body_rk4(with_event, how));
  SharedModel<S> spring = shared;
  spring.loads.n_springs = 1;
  EXPECT_FALSE(is_free_body_rk4(spring, how));
  SharedModel<S> damped = shared;
  damped.loads.angular_linear_damping = S(0.1);
  EXPECT_FALSE(is_free_body_rk4(damped, how));
  SharedModel<S> pivot = shared;
  pivot.constraint.kind = ConstraintKind::pivot;
  EXPECT_FALSE(is_free_body_rk4(pivot, how));
  SharedModel<S> dispersed = shared;
  dispersed.parameters.n = 1;
  EXPECT_FALSE(is_free_body_rk4(dispersed, how));
  IntegrationSettings<S> adaptive = how;
  adaptive.kind = IntegratorKind::dopri5;
  EXPECT_FALSE(is_free_body_rk4(shared, adaptive));
  IntegrationSettings<S> euler = how;
  euler.euler_zxz = true;
  EXPECT_FALSE(is_free_body_rk4(shared, euler));
}

}  // namespace
}  // namespace rbmc

#include "rbmc/sample/run_sample.hpp"

#include <cmath>
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
  // Nothing measured: the final state, the drifts and the reaction are NaN, not the initial state
  // and zeros that read as where it ended, an exact conservation and no force.
  for (int c = 0; c < 3; ++c) {
    EXPECT_TRUE(std::isnan(r.final_state.p_w(c)));
    EXPECT_TRUE(std::isnan(r.final_state.v_w(c)));
    EXPECT_TRUE(std::isnan(r.final_state.omega_b(c)));
  }
  EXPECT_TRUE(std::isnan(r.final_state.q_wb.w) && std::isnan(r.final_state.q_wb.x) && std::isnan(r.final_state.q_wb.y) &&
              std::isnan(r.final_state.q_wb.z));
  EXPECT_TRUE(std::isnan(r.energy_drift));
  EXPECT_TRUE(std::isnan(r.momentum_drift));
  for (int c = 0; c < 3; ++c) {
    EXPECT_TRUE(std::isnan(r.reaction_force_w(c)));
    EXPECT_TRUE(std::isnan(r.reaction_torque_b(c)));
  }
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

// The batch path writes each event's record into its output columns as it happens
// (StoredEventRecords); the direct call keeps them in its result. Both must hold the same numbers
// bit for bit, on every stepper: an event that occurs several times (its first occurrence and its
// count), a terminal one, and one that never occurs (count 0, time NaN, the initial state).
TYPED_TEST(RunSampleTest, BatchPathWritesTheEventRecordsOfTheDirectCall) {
  using S = TypeParam;
  SampleInputs<S> in = box_inputs<S>();
  in.initial.p_w = Vec3<S>(0, 0, 40);
  SharedModel<S> shared{};
  shared.events.n = 3;
  // The attitude passes 1 rad from the start twice (at 1 and 2π + 1 rad of turning at ω ≈ 3 rad/s) ...
  shared.events.events[0] = {EventKind::attitude_angle, false, CrossingDirection::rising, 0, S(1)};
  // ... before the origin, thrown up at 2 m/s from 40 m, reaches the ground at t = 3.07 s.
  shared.events.events[1] = {EventKind::point_crossing, true, CrossingDirection::falling, 2, S(0)};
  shared.events.events[2] = {EventKind::angular_rate_below, false, CrossingDirection::rising, 0, S(0.01)};
  const IntegrationSettings<S> adaptive = test::dopri5_settings<S>(S(0.01), 400, S(1e-6), S(0.1));
  IntegrationSettings<S> splitting = fixed_step<S>(S(0.01), 400), euler = splitting;
  splitting.kind = IntegratorKind::splitting;
  euler.euler_zxz = true;
  euler.euler_threshold = S(1e-3);
  in.initial.q_wb = normalized(Quaternion<S>{S(0.9), S(0.3), S(0.3), S(0.1)});  // ZXZ away from sin θ = 0
  for (const IntegrationSettings<S>& how : {fixed_step<S>(S(0.01), 400), adaptive, splitting, euler}) {
    const SampleResult<S> direct = run_sample(in, shared, how);
    ASSERT_EQ(direct.status, SampleStatus::terminal_event);
    ASSERT_EQ(direct.stopping_event, 1);
    ASSERT_GT(direct.events[0].count, 1);
    const std::size_t n = 5, i = 3;
    std::vector<double> inputs(n * input_column::count), outputs(n * output_column_count(3), -7.0);
    std::vector<std::uint8_t> status(n);
    store_sample_inputs(inputs.data(), n, i, in, 0);
    run_sample_in_batch<S>(inputs.data(), outputs.data(), static_cast<double*>(nullptr), status.data(), n, i, shared,
                           how);
    EXPECT_EQ(outputs[output_column::stopping_event * n + i], 1.0);
    for (int e = 0; e < 3; ++e) {
      const EventRecord<S>& r = direct.events[e];
      const S* p = r.state.p_w.data();
      const S* v = r.state.v_w.data();
      const S* w = r.state.omega_b.data();
      const double expected[kEventColumns] = {double(r.count), double(r.time), p[0], p[1], p[2], r.state.q_wb.w,
                                              r.state.q_wb.x, r.state.q_wb.y, r.state.q_wb.z, v[0], v[1], v[2],
                                              w[0], w[1], w[2]};
      for (int c = 0; c < kEventColumns; ++c) {
        const double stored = outputs[std::size_t(output_column::count + kEventColumns * e + c) * n + i];
        if (std::isnan(expected[c]))
          EXPECT_TRUE(std::isnan(stored)) << "event " << e << ", column " << c;
        else
          EXPECT_EQ(stored, expected[c]) << "event " << e << ", column " << c;
      }
    }
    EXPECT_EQ(direct.events[2].count, 0);
    EXPECT_TRUE(std::isnan(direct.events[2].time));
    // An event that never occurred has no state, as it has no time: NaN throughout (it was the
    // initial state, which a mean of the event's state over samples took in).
    const RigidBodyState<S>& never = direct.events[2].state;
    for (const S x : {never.p_w.x(), never.p_w.y(), never.p_w.z(), never.q_wb.w, never.q_wb.x, never.q_wb.y,
                      never.q_wb.z, never.v_w.x(), never.v_w.y(), never.v_w.z(), never.omega_b.x(), never.omega_b.y(),
                      never.omega_b.z()})
      EXPECT_TRUE(std::isnan(x));
    // The other samples' columns are untouched.
    EXPECT_EQ(outputs[std::size_t(output_column::count) * n + i - 1], -7.0);
  }
}

// The free-body kinds compute the general path's numbers, bit for bit, output times included,
// and so do the kinds without events on a run without events; choose_sample_kinds gives the
// free body only to the runs it can take.
TYPED_TEST(RunSampleTest, FreeBodyKindsEqualTheGeneralPath) {
  using S = TypeParam;
  SharedModel<S> shared{};
  shared.output_times.n = 5;
  shared.output_times.interval = S(0.2);
  const IntegrationSettings<S> how = fixed_step<S>(S(0.01), 100);
  const SampleKindsChoice chosen = choose_sample_kinds(shared, how);
  ASSERT_TRUE(chosen.free_body);
  std::vector<S> a(kTrajectoryColumns * 5), b(a.size()), c(a.size());
  TrajectorySink<S, S> sink_a{&shared.output_times, a.data(), 1, 0, 0}, sink_b{&shared.output_times, b.data(), 1, 0, 0},
      sink_c{&shared.output_times, c.data(), 1, 0, 0};
  using General = SampleKinds<StepperKind::rk4, true>;
  const SampleResult<S> general = run_sample<S, General>(box_inputs<S>(), shared, how, sink_a);
  const SampleResult<S> free = run_sample<S, FreeBodyRk4Kinds>(box_inputs<S>(), shared, how, sink_b);
  const SampleResult<S> no_events = run_sample<S, SampleKinds<StepperKind::rk4, false>>(box_inputs<S>(), shared, how, sink_c);
  for (const SampleResult<S>* r : {&free, &no_events}) {
    EXPECT_EQ(r->final_state.p_w, general.final_state.p_w);
    EXPECT_EQ(r->final_state.omega_b, general.final_state.omega_b);
    EXPECT_EQ(r->final_state.q_wb.w, general.final_state.q_wb.w);
    EXPECT_EQ(r->energy_drift, general.energy_drift);
  }
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  // What the free body cannot take, and the stepper each run gets.
  SharedModel<S> with_event = shared;
  with_event.events.n = 1;
  EXPECT_FALSE(choose_sample_kinds(with_event, how).free_body);
  EXPECT_TRUE(choose_sample_kinds(with_event, how).events);
  EXPECT_FALSE(chosen.events);
  SharedModel<S> spring = shared;
  spring.loads.n_springs = 1;
  EXPECT_FALSE(choose_sample_kinds(spring, how).free_body);
  SharedModel<S> damped = shared;
  damped.loads.angular_linear_damping = S(0.1);
  EXPECT_FALSE(choose_sample_kinds(damped, how).free_body);
  SharedModel<S> pivot = shared;
  pivot.constraint.kind = ConstraintKind::pivot;
  EXPECT_FALSE(choose_sample_kinds(pivot, how).free_body);
  SharedModel<S> dispersed = shared;
  dispersed.parameters.n = 1;
  EXPECT_FALSE(choose_sample_kinds(dispersed, how).free_body);
  EXPECT_EQ(chosen.stepper, StepperKind::rk4);
  IntegrationSettings<S> adaptive = how;
  adaptive.kind = IntegratorKind::dopri5;
  EXPECT_FALSE(choose_sample_kinds(shared, adaptive).free_body);
  EXPECT_EQ(choose_sample_kinds(shared, adaptive).stepper, StepperKind::dopri5);
  IntegrationSettings<S> euler = how;
  euler.euler_zxz = true;
  EXPECT_FALSE(choose_sample_kinds(shared, euler).free_body);
  EXPECT_EQ(choose_sample_kinds(shared, euler).stepper, StepperKind::rk4_euler_zxz);
  IntegrationSettings<S> splitting = how;
  splitting.kind = IntegratorKind::splitting;
  EXPECT_EQ(choose_sample_kinds(shared, splitting).stepper, StepperKind::splitting);
}

// For every stepper, the kinds compiled with the event machinery give the same numbers, bit for
// bit, as those without it on a run without events (with loads, output times and a trajectory).
TYPED_TEST(RunSampleTest, KindsWithAndWithoutEventsAgreeForEveryStepper) {
  using S = TypeParam;
  SharedModel<S> shared{};
  shared.output_times.n = 4;
  shared.output_times.interval = S(0.1);
  shared.loads.n_springs = 1;
  shared.loads.springs[0] = {Vec3<S>(S(0.05), 0, 0), Vec3<S>(0, 0, 1), S(20), S(0.5), S(0.3)};
  shared.loads.angular_linear_damping = S(0.01);
  IntegrationSettings<S> how = fixed_step<S>(S(0.005), 60);
  SampleInputs<S> in = box_inputs<S>();
  in.initial.q_wb = {std::cos(S(0.25)), std::sin(S(0.25)), 0, 0};  // tilted: away from ZXZ's θ = 0
  const auto check = [&](auto with, auto without) {
    std::vector<S> a(kTrajectoryColumns * 4), b(a.size());
    TrajectorySink<S, S> sink_a{&shared.output_times, a.data(), 1, 0, 0}, sink_b{&shared.output_times, b.data(), 1, 0, 0};
    const SampleResult<S> r = run_sample<S, decltype(with)>(in, shared, how, sink_a);
    const SampleResult<S> q = run_sample<S, decltype(without)>(in, shared, how, sink_b);
    EXPECT_EQ(r.status, SampleStatus::ok);
    EXPECT_EQ(r.final_state.p_w, q.final_state.p_w);
    EXPECT_EQ(r.final_state.omega_b, q.final_state.omega_b);
    EXPECT_EQ(r.steps, q.steps);
    EXPECT_EQ(a, b);
  };
  using K = StepperKind;
  check(SampleKinds<K::rk4, true>{}, SampleKinds<K::rk4, false>{});
  check(SampleKinds<K::splitting, true>{}, SampleKinds<K::splitting, false>{});
  how.euler_zxz = true;
  how.euler_threshold = S(1e-3);
  check(SampleKinds<K::rk4_euler_zxz, true>{}, SampleKinds<K::rk4_euler_zxz, false>{});
  how = test::dopri5_settings<S>(S(0.005), 60, S(1e-5), S(0.1));
  check(SampleKinds<K::dopri5, true>{}, SampleKinds<K::dopri5, false>{});
}

// RK4 is compiled for the run's constraint kind (Rk4KindsFor: none, the pivot or the plane), without
// the dispatch on it: the same numbers, bit for bit, as the general kinds' (any constraint), under
// loads, with and without events, output times inside steps included; choose_sample_kinds gives
// each RK4 run its own kind and no other stepper one. A right-hand side that dropped a load, or
// the reaction of a constraint it was wrongly given or not given, fails.
TYPED_TEST(RunSampleTest, EachConstraintKindCompiledInEqualsTheGeneralPath) {
  using S = TypeParam;
  using C = CompiledConstraint;
  SharedModel<S> shared{};
  shared.output_times.n = 4;
  shared.output_times.interval = S(0.0725);  // inside steps of 0.005
  shared.loads.n_springs = 1;
  shared.loads.springs[0] = {Vec3<S>(S(0.05), 0, 0), Vec3<S>(0, 0, 1), S(20), S(0.5), S(0.3)};
  shared.loads.n_point_forces = 1;
  shared.loads.point_forces[0] = {Vec3<S>(0, S(0.1), 0), Vec3<S>(S(0.3), 0, S(-0.2)), LoadFrame::body};
  shared.loads.quadratic_damping = S(0.02);
  shared.events.n = 1;
  shared.events.events[0] = {EventKind::time_limit, false, CrossingDirection::rising, 0, S(0.12)};
  const IntegrationSettings<S> how = fixed_step<S>(S(0.005), 60);
  SampleInputs<S> box = box_inputs<S>();
  box.initial.q_wb = {std::cos(S(0.25)), std::sin(S(0.25)), 0, 0};
  const auto check = [&](const SharedModel<S>& model, auto compiled, auto general) {
    SampleInputs<S> in = box;
    if (model.constraint.kind != ConstraintKind::none) in.initial = project_onto_constraint(model.constraint, in.initial);
    std::vector<S> a(kTrajectoryColumns * 4), b(a.size());
    TrajectorySink<S, S> sink_a{&model.output_times, a.data(), 1, 0, 0}, sink_b{&model.output_times, b.data(), 1, 0, 0};
    const SampleResult<S> r = run_sample<S, decltype(compiled)>(in, model, how, sink_a);
    const SampleResult<S> q = run_sample<S, decltype(general)>(in, model, how, sink_b);
    const int kind = int(model.constraint.kind);
    EXPECT_EQ(r.status, SampleStatus::ok) << "constraint " << kind;
    EXPECT_EQ(pack(r.final_state), pack(q.final_state)) << "constraint " << kind;
    EXPECT_EQ(r.energy_drift, q.energy_drift) << "constraint " << kind;
    EXPECT_EQ(r.momentum_drift, q.momentum_drift) << "constraint " << kind;
    EXPECT_EQ(r.reaction_force_w, q.reaction_force_w) << "constraint " << kind;
    if constexpr (decltype(compiled)::events) {
      EXPECT_EQ(r.events[0].count, 1);
      EXPECT_EQ(r.events[0].count, q.events[0].count);
      EXPECT_EQ(r.events[0].time, q.events[0].time);
      EXPECT_EQ(pack(r.events[0].state), pack(q.events[0].state)) << "constraint " << kind;
    }
    EXPECT_EQ(a, b) << "constraint " << kind;
  };
  // The kind each run is dispatched to.
  const auto dispatched = [&](const SharedModel<S>& model, const IntegrationSettings<S>& settings) {
    return with_sample_kinds(choose_sample_kinds(model, settings), [](auto kinds) { return decltype(kinds)::constraint; });
  };
  SharedModel<S> pivot = shared, planar = shared;
  pivot.constraint.kind = ConstraintKind::pivot;
  pivot.constraint.point_b = Vec3<S>(S(0.02), S(-0.01), S(0.06));
  pivot.constraint.anchor_w = Vec3<S>(0, 0, S(0.3));
  pivot.constraint.stabilization = S(20);
  planar.constraint.kind = ConstraintKind::planar;
  planar.constraint.plane_height = S(0.1);
  planar.constraint.stabilization = S(20);
  for (const SharedModel<S>* model : {&shared, &pivot, &planar}) {
    SharedModel<S> no_events = *model;
    no_events.events.n = 0;
    switch (model->constraint.kind) {
      case ConstraintKind::none:
        check(*model, Rk4KindsFor<true, C::none>{}, SampleKinds<StepperKind::rk4, true>{});
        check(no_events, Rk4KindsFor<false, C::none>{}, SampleKinds<StepperKind::rk4, false>{});
        break;
      case ConstraintKind::pivot:
        check(*model, Rk4KindsFor<true, C::pivot>{}, SampleKinds<StepperKind::rk4, true>{});
        check(no_events, Rk4KindsFor<false, C::pivot>{}, SampleKinds<StepperKind::rk4, false>{});
        break;
      case ConstraintKind::planar:
        check(*model, Rk4KindsFor<true, C::planar>{}, SampleKinds<StepperKind::rk4, true>{});
        check(no_events, Rk4KindsFor<false, C::planar>{}, SampleKinds<StepperKind::rk4, false>{});
        break;
    }
    const C expected = model->constraint.kind == ConstraintKind::none    ? C::none
                       : model->constraint.kind == ConstraintKind::pivot ? C::pivot
                                                                         : C::planar;
    EXPECT_EQ(choose_sample_kinds(*model, how).constraint, model->constraint.kind);
    EXPECT_EQ(dispatched(*model, how), expected);
    EXPECT_EQ(dispatched(no_events, how), expected);
    IntegrationSettings<S> splitting = how;
    splitting.kind = IntegratorKind::splitting;
    EXPECT_EQ(dispatched(*model, splitting), C::any);  // only RK4 is compiled so
  }
}

// Every flat copy of a state puts each part where state_offset says: StateVector (pack, and so a
// trajectory's row at each output time), the batch's final-state columns and an event's columns.
// A copy that reorders the parts without its offsets (or the offsets without the copies) fails.
TYPED_TEST(RunSampleTest, FlatCopiesPutEachPartOfTheStateAtItsOffset) {
  using S = TypeParam;
  const RigidBodyState<S> x{Vec3<S>(1, 2, 3), {S(4), S(5), S(6), S(7)}, Vec3<S>(8, 9, 10), Vec3<S>(11, 12, 13)};
  const auto expect_parts_at_offsets = [&](const auto& value_at, const char* copy) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(value_at(state_offset::p_w + c), x.p_w(c)) << copy << ": p_w(" << c << ")";
      EXPECT_EQ(value_at(state_offset::v_w + c), x.v_w(c)) << copy << ": v_w(" << c << ")";
      EXPECT_EQ(value_at(state_offset::omega_b + c), x.omega_b(c)) << copy << ": omega_b(" << c << ")";
    }
    EXPECT_EQ(value_at(state_offset::q_wb + 0), x.q_wb.w) << copy << ": q_wb.w";
    EXPECT_EQ(value_at(state_offset::q_wb + 1), x.q_wb.x) << copy << ": q_wb.x";
    EXPECT_EQ(value_at(state_offset::q_wb + 2), x.q_wb.y) << copy << ": q_wb.y";
    EXPECT_EQ(value_at(state_offset::q_wb + 3), x.q_wb.z) << copy << ": q_wb.z";
  };
  const StateVector<S> y = pack(x);
  expect_parts_at_offsets([&](int c) { return y(c); }, "pack");
  EXPECT_EQ(pack(unpack(y)), y);

  constexpr std::size_t n = 3, i = 1;
  std::vector<double> outputs(n * std::size_t(output_column_count(1)), 0.0);
  store_sample_result(outputs.data(), n, i, started_result(x));
  expect_parts_at_offsets([&](int c) { return S(outputs[std::size_t(output_column::p_w + c) * n + i]); },
                          "final-state columns");
  const StoredEventRecords<S, double> records{outputs.data(), n, i};
  records.count(0, 2);
  records.first(0, S(0.5), x);
  const int event = output_column::count;
  EXPECT_EQ(outputs[std::size_t(event + event_column::count) * n + i], 2.0);
  EXPECT_EQ(outputs[std::size_t(event + event_column::time) * n + i], 0.5);
  expect_parts_at_offsets([&](int c) { return S(outputs[std::size_t(event + event_column::state + c) * n + i]); },
                          "event columns");
}

}  // namespace
}  // namespace rbmc

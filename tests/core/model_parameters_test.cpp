// Per-sample load and constraint parameters: each table entry sets exactly its field, and a run
// with per-sample spring stiffnesses reproduces each sample's closed-form oscillation.
#include "rbmc/sample/model_parameters.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "rbmc/sample/sample_layout.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class ModelParametersTest : public ::testing::Test {};
TYPED_TEST_SUITE(ModelParametersTest, test::Scalars);

template <class S>
LoadSet<S> two_of_each() {
  LoadSet<S> l;
  l.n_point_forces = l.n_torques = l.n_springs = 2;
  for (int i = 0; i < 2; ++i) {
    l.point_forces[i] = {Vec3<S>(1, 2, 3), Vec3<S>(4, 5, 6), LoadFrame::world};
    l.torques[i] = {Vec3<S>(7, 8, 9), LoadFrame::body};
    l.springs[i] = {Vec3<S>(1, 1, 1), Vec3<S>(2, 2, 2), S(10), S(0.5), S(0.1)};
  }
  l.linear_damping = S(0.3);
  l.has_central_body = true;
  l.central_mu = S(4);
  return l;
}

// A table of one entry, applied to copies of the loads and constraint: the same per-member
// lookups (point_force_of, spring_of, ..., constraint_of) that the loads' evaluation makes.
template <class S>
void apply_one(ModelField field, int index, int component, S offset, S value, LoadSet<S>& loads,
               Constraint<S>& constraint) {
  ModelParameters<S> table;
  table.add({field, std::uint8_t(index), std::uint8_t(component), offset});
  apply_model_parameters(table, &value, loads, constraint);
}

// Every field is set to value + offset, at its index and component, and nothing else changes.
TYPED_TEST(ModelParametersTest, EachFieldSetsOnlyItself) {
  using S = TypeParam;
  struct Case {
    ModelField field;
    int index, component;
    S offset;
  };
  const Case cases[] = {
      {ModelField::point_force_point, 1, 2, S(0)}, {ModelField::point_force_force, 0, 1, S(0)},
      {ModelField::torque, 1, 0, S(0)},           {ModelField::spring_point, 1, 1, S(0)},
      {ModelField::spring_anchor, 0, 2, S(0)},    {ModelField::spring_stiffness, 1, 0, S(0)},
      {ModelField::spring_rest_length, 0, 0, S(0)}, {ModelField::spring_damping, 1, 0, S(0)},
      {ModelField::linear_damping, 0, 0, S(0.25)}, {ModelField::quadratic_damping, 0, 0, S(0)},
      {ModelField::angular_linear_damping, 0, 0, S(0)}, {ModelField::angular_quadratic_damping, 0, 0, S(0)},
      {ModelField::central_mu, 0, 0, S(0)},       {ModelField::central_center, 0, 1, S(0)},
      {ModelField::pivot_point, 0, 2, S(0)},      {ModelField::pivot_anchor, 0, 0, S(0)},
      {ModelField::plane_height, 0, 0, S(0)},
  };
  for (const Case& c : cases) {
    LoadSet<S> loads = two_of_each<S>();
    Constraint<S> constraint;
    const LoadSet<S> before = loads;
    const Constraint<S> constraint_before = constraint;
    const S value = S(-42.5);
    apply_one(c.field, c.index, c.component, c.offset, value, loads, constraint);
    // Find the one scalar that changed by comparing every field.
    std::vector<S> a, b;
    const auto flatten = [](const LoadSet<S>& l, const Constraint<S>& k, std::vector<S>& out) {
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) out.push_back(l.point_forces[i].point_b(j));
        for (int j = 0; j < 3; ++j) out.push_back(l.point_forces[i].force(j));
        for (int j = 0; j < 3; ++j) out.push_back(l.torques[i].torque(j));
        for (int j = 0; j < 3; ++j) out.push_back(l.springs[i].point_b(j));
        for (int j = 0; j < 3; ++j) out.push_back(l.springs[i].anchor_w(j));
        out.push_back(l.springs[i].stiffness);
        out.push_back(l.springs[i].rest_length);
        out.push_back(l.springs[i].damping);
      }
      out.insert(out.end(), {l.linear_damping, l.quadratic_damping, l.angular_linear_damping,
                             l.angular_quadratic_damping, l.central_mu});
      for (int j = 0; j < 3; ++j) out.push_back(l.central_center_w(j));
      for (int j = 0; j < 3; ++j) out.push_back(k.point_b(j));
      for (int j = 0; j < 3; ++j) out.push_back(k.anchor_w(j));
      out.push_back(k.plane_height);
    };
    flatten(before, constraint_before, a);
    flatten(loads, constraint, b);
    int changed = 0;
    S new_value = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) ++changed, new_value = b[i];
    EXPECT_EQ(changed, 1) << int(c.field);
    EXPECT_EQ(new_value, value + c.offset) << int(c.field);
  }
  // The specific destinations of a few, by name.
  LoadSet<S> loads = two_of_each<S>();
  Constraint<S> constraint;
  apply_one<S>(ModelField::spring_anchor, 1, 2, S(0), S(9), loads, constraint);
  EXPECT_EQ(loads.springs[1].anchor_w.z(), S(9));
  apply_one<S>(ModelField::pivot_anchor, 0, 1, S(0), S(3), loads, constraint);
  EXPECT_EQ(constraint.anchor_w.y(), S(3));
}

// The table's index of which loads' fields it sets (ModelParameters::indices) reaches the last
// load of each kind, and a field set for one load leaves its neighbours to the shared model.
TYPED_TEST(ModelParametersTest, TheLastLoadOfEachKindTakesItsValues) {
  using S = TypeParam;
  LoadSet<S> loads;
  loads.n_point_forces = LoadSet<S>::kMaxPointForces;
  loads.n_torques = LoadSet<S>::kMaxTorques;
  loads.n_springs = LoadSet<S>::kMaxSprings;
  for (int i = 0; i < LoadSet<S>::kMaxSprings; ++i) loads.springs[i].stiffness = S(5);
  ModelParameters<S> table;
  table.add({ModelField::spring_stiffness, std::uint8_t(LoadSet<S>::kMaxSprings - 1), 0, S(0)});
  table.add({ModelField::point_force_force, std::uint8_t(LoadSet<S>::kMaxPointForces - 1), 2, S(0)});
  table.add({ModelField::torque, std::uint8_t(LoadSet<S>::kMaxTorques - 1), 1, S(0)});
  const S values[] = {S(11), S(12), S(13)};
  Constraint<S> constraint;
  apply_model_parameters(table, values, loads, constraint);
  EXPECT_EQ(loads.springs[LoadSet<S>::kMaxSprings - 1].stiffness, S(11));
  EXPECT_EQ(loads.point_forces[LoadSet<S>::kMaxPointForces - 1].force.z(), S(12));
  EXPECT_EQ(loads.torques[LoadSet<S>::kMaxTorques - 1].torque.y(), S(13));
  EXPECT_EQ(loads.springs[LoadSet<S>::kMaxSprings - 2].stiffness, S(5));
  EXPECT_TRUE(table.sets(ModelField::spring_stiffness, LoadSet<S>::kMaxSprings - 1));
  EXPECT_FALSE(table.sets(ModelField::spring_stiffness, LoadSet<S>::kMaxSprings - 2));
  EXPECT_FALSE(table.sets(ModelField::spring_anchor, LoadSet<S>::kMaxSprings - 1));
}

// A mass on a spring to the origin (rest length 0), released from x0 at rest, oscillates as
// x0 cos(√(k/m) t). Each sample carries its own stiffness; RK4's phase error per step on the
// oscillator is (ωh)^5/120, so after T the position error is below |x0| T ω (ωh)^4 / 120, plus
// rounding (a few ε per step).
TYPED_TEST(ModelParametersTest, PerSampleStiffnessGivesEachSamplesOscillation) {
  using S = TypeParam;
  SharedModel<S> shared;
  shared.loads.n_springs = 1;
  shared.loads.springs[0] = {Vec3<S>::Zero(), Vec3<S>::Zero(), S(1), S(0), S(0)};
  shared.parameters.add({ModelField::spring_stiffness, 0, 0, S(0)});
  const S h = S(0.005);
  const std::int64_t steps = 400;
  const IntegrationSettings<S> how = fixed_step<S>(h, steps);
  const std::vector<double> stiffness = {1.0, 4.0, 25.0, 100.0};
  const std::size_t n = stiffness.size();
  const double mass = 2.0, x0 = 0.3, T = double(h) * double(steps);
  std::vector<double> inputs(n * std::size_t(input_column_count(1))), outputs(n * std::size_t(output_column_count(0)));
  std::vector<std::uint8_t> status(n);
  for (std::size_t i = 0; i < n; ++i) {
    SampleInputs<S> in;
    in.body = {S(mass), Vec3<S>::Zero(), Mat3<S>::Identity() * S(0.1)};
    in.initial = {Vec3<S>(S(x0), 0, 0), Quaternion<S>::identity(), Vec3<S>::Zero(), Vec3<S>::Zero()};
    in.gravity_w = Vec3<S>::Zero();
    in.model_values[0] = S(stiffness[i]);
    store_sample_inputs(inputs.data(), n, i, in, 1);
  }
  for (std::size_t i = 0; i < n; ++i)
    run_sample_in_batch<S>(inputs.data(), outputs.data(), static_cast<double*>(nullptr), status.data(), n, i, shared,
                           how);
  for (std::size_t i = 0; i < n; ++i) {
    const double omega = std::sqrt(stiffness[i] / mass), wh = omega * double(h);
    const double tolerance = x0 * (T * omega * std::pow(wh, 4) / 120 + 8 * double(steps) * double(test::eps<S>()));
    EXPECT_EQ(status[i], std::uint8_t(SampleStatus::ok));
    EXPECT_NEAR(outputs[output_column::p_w * n + i], x0 * std::cos(omega * T), tolerance) << "k = " << stiffness[i];
  }
}

// A drawn load value outside what its nominal may be (a negative stiffness, rest length or damping
// coefficient, a μ not positive, or NaN) is flagged invalid_load, not integrated, by both ways a
// batch reaches its values (read in place, the GPU's, and copied, the CPU's); the boundary values
// and any value of a field without such a rule integrate. The sample's final state is its initial
// one at time 0, as an invalid body's.
TYPED_TEST(ModelParametersTest, LoadValuesThatAreNotPhysicalAreFlaggedNotIntegrated) {
  using S = TypeParam;
  SharedModel<S> shared;
  shared.loads.n_springs = 1;
  shared.loads.springs[0] = {Vec3<S>::Zero(), Vec3<S>(0, 0, 1), S(10), S(0.1), S(0.1)};
  shared.loads.linear_damping = S(0.5);
  shared.loads.has_central_body = true;
  shared.loads.central_mu = S(1);
  shared.loads.central_center_w = Vec3<S>(0, 0, -10);
  struct Value {
    ModelField field;
    S value;
    bool physical;
  };
  const S nan = std::numeric_limits<S>::quiet_NaN();
  const std::vector<Value> values = {
      {ModelField::spring_stiffness, S(-1e-3), false},   {ModelField::spring_stiffness, S(0), true},
      {ModelField::spring_stiffness, nan, false},        {ModelField::spring_rest_length, S(-0.1), false},
      {ModelField::spring_damping, S(-0.2), false},      {ModelField::linear_damping, S(-0.1), false},
      {ModelField::linear_damping, S(0), true},          {ModelField::quadratic_damping, S(-1), false},
      {ModelField::angular_linear_damping, S(-1), false}, {ModelField::angular_quadratic_damping, S(-1), false},
      {ModelField::central_mu, S(0), false},             {ModelField::central_mu, S(-2), false},
      {ModelField::central_mu, S(1e-3), true},           {ModelField::central_center, S(-3), true},
      {ModelField::spring_anchor, S(-2), true},          {ModelField::spring_point, S(-0.05), true},
  };
  for (const Value& v : values) {
    SCOPED_TRACE("field " + std::to_string(int(v.field)) + " = " + std::to_string(double(v.value)));
    EXPECT_EQ(model_value_physical(v.field, v.value), v.physical);
    SharedModel<S> one = shared;
    // The damping entry's offset (another entry's 0.5) does not make a negative entry physical.
    one.parameters.add({v.field, 0, 0, v.field == ModelField::linear_damping ? S(0.5) : S(0)});
    SampleInputs<S> in;
    in.body = {S(1.5), Vec3<S>::Zero(), Vec3<S>(S(0.1), S(0.2), S(0.25)).asDiagonal()};
    in.initial = {Vec3<S>(0, 0, S(0.2)), Quaternion<S>::identity(), Vec3<S>(S(0.1), 0, 0), Vec3<S>(1, 2, S(0.5))};
    in.gravity_w = Vec3<S>::Zero();
    in.model_values[0] = v.value;
    std::vector<double> inputs(std::size_t(input_column_count(1))), outputs(std::size_t(output_column_count(0)));
    store_sample_inputs(inputs.data(), 1, 0, in, 1);
    const IntegrationSettings<S> how = fixed_step<S>(S(0.01), 10);
    for (const bool copied : {false, true}) {
      std::uint8_t status = 255;
      if (copied)
        run_sample_in_batch<S, RuntimeKinds, TrajectoryLayout::by_column, ModelValuesAccess::copied>(
            inputs.data(), outputs.data(), static_cast<double*>(nullptr), &status, 1, 0, one, how);
      else
        run_sample_in_batch<S>(inputs.data(), outputs.data(), static_cast<double*>(nullptr), &status, 1, 0, one, how);
      EXPECT_EQ(status, std::uint8_t(v.physical ? SampleStatus::ok : SampleStatus::invalid_load)) << "copied " << copied;
      if (v.physical) EXPECT_GT(outputs[output_column::time], 0.0);
      else EXPECT_EQ(outputs[output_column::time], 0.0);
      // The final state, drifts measured only where integrated; NaN where not: no initial state
      // that reads as where the sample ended, no zero that reads as exact.
      for (int c = output_column::p_w; c < output_column::time; ++c)
        EXPECT_EQ(std::isnan(outputs[std::size_t(c)]), !v.physical) << "column " << c;
      EXPECT_EQ(std::isnan(outputs[output_column::energy_drift]), !v.physical);
      EXPECT_EQ(std::isnan(outputs[output_column::momentum_drift]), !v.physical);
    }
  }
  // An invalid body is named as such whatever its loads.
  SampleInputs<S> in;
  in.body = {S(-1), Vec3<S>::Zero(), Mat3<S>::Identity()};
  in.model_values[0] = S(-1);
  SharedModel<S> one = shared;
  one.parameters.add({ModelField::spring_stiffness, 0, 0, S(0)});
  EXPECT_EQ(run_sample(in, one, fixed_step<S>(S(0.01), 10)).status, SampleStatus::invalid_body);
}

// A per-sample value equal to the shared one changes nothing, bit for bit: the copy the sample
// integrates is faithful.
TYPED_TEST(ModelParametersTest, NominalValuesReproduceTheSharedModel) {
  using S = TypeParam;
  SharedModel<S> shared;
  shared.loads.n_springs = 1;
  shared.loads.springs[0] = {Vec3<S>(S(0.1), 0, 0), Vec3<S>(0, 0, 1), S(30), S(0.2), S(0.4)};
  shared.constraint.kind = ConstraintKind::pivot;
  shared.constraint.point_b = Vec3<S>(0, 0, S(0.5));
  shared.constraint.anchor_w = Vec3<S>(0, 0, S(0.5));
  shared.constraint.stabilization = S(5);
  SampleInputs<S> in;
  in.body = {S(1.5), Vec3<S>::Zero(), Vec3<S>(S(0.1), S(0.2), S(0.25)).asDiagonal()};
  in.initial = {Vec3<S>::Zero(), Quaternion<S>::identity(), Vec3<S>::Zero(), Vec3<S>(1, 2, 0)};
  in.gravity_w = Vec3<S>(0, 0, S(-9.81));
  const IntegrationSettings<S> how = fixed_step<S>(S(0.002), 200);
  const SampleResult<S> plain = run_sample(in, shared, how);
  SharedModel<S> dispersed = shared;
  dispersed.parameters.add({ModelField::spring_stiffness, 0, 0, S(0)});
  for (int c = 0; c < 3; ++c) dispersed.parameters.add({ModelField::pivot_anchor, 0, std::uint8_t(c), S(0)});
  in.model_values[0] = S(30);
  for (int c = 0; c < 3; ++c) in.model_values[1 + c] = shared.constraint.anchor_w(c);
  const SampleResult<S> own = run_sample(in, dispersed, how);
  EXPECT_EQ(own.final_state.p_w, plain.final_state.p_w);
  EXPECT_EQ(own.final_state.omega_b, plain.final_state.omega_b);
  EXPECT_EQ(own.reaction_force_w, plain.reaction_force_w);
  // And a different anchor moves the answer (the values are used).
  in.model_values[3] = S(0.6);
  EXPECT_NE(run_sample(in, dispersed, how).final_state.p_w, plain.final_state.p_w);
}

// Each sample's values read where the loads use them, from its input columns (the GPU's way),
// give the numbers of integrating a copy of the model with the values set (the CPU's way, and
// apply_model_parameters by hand), bit for bit: every kind of load, each stepper.
TYPED_TEST(ModelParametersTest, ValuesReadInPlaceEqualACopiedModel) {
  using S = TypeParam;
  SharedModel<S> shared;
  LoadSet<S>& l = shared.loads;
  l.n_point_forces = l.n_torques = l.n_springs = 2;
  for (int i = 0; i < 2; ++i) {
    l.point_forces[i] = {Vec3<S>(S(0.1), 0, S(0.05)), Vec3<S>(S(0.5), 0, S(0.2)), i == 0 ? LoadFrame::world : LoadFrame::body};
    l.torques[i] = {Vec3<S>(0, S(0.01), S(0.02)), i == 0 ? LoadFrame::body : LoadFrame::world};
    l.springs[i] = {Vec3<S>(S(0.05), 0, 0), Vec3<S>(0, S(0.2), 1), S(10), S(0.5), S(0.1)};
  }
  l.linear_damping = S(0.3);
  l.has_central_body = true;
  l.central_mu = S(4);
  l.central_center_w = Vec3<S>(0, 0, -10);
  struct Entry {
    ModelField field;
    int index, component;
    S offset, value;
  };
  const Entry entries[] = {
      {ModelField::point_force_point, 1, 2, S(0), S(0.07)},  {ModelField::point_force_force, 0, 1, S(0), S(-0.3)},
      {ModelField::torque, 1, 0, S(0), S(0.015)},            {ModelField::spring_point, 1, 1, S(0), S(0.02)},
      {ModelField::spring_anchor, 0, 2, S(0), S(1.1)},       {ModelField::spring_stiffness, 1, 0, S(0), S(13)},
      {ModelField::spring_rest_length, 0, 0, S(0), S(0.45)}, {ModelField::spring_damping, 1, 0, S(0), S(0.2)},
      {ModelField::linear_damping, 0, 0, S(0.25), S(0.1)},   {ModelField::angular_quadratic_damping, 0, 0, S(0), S(0.01)},
      {ModelField::central_mu, 0, 0, S(0), S(5)},            {ModelField::central_center, 0, 1, S(0), S(0.5)},
  };
  SampleInputs<S> in;
  in.body = {S(1.5), Vec3<S>(S(0.01), 0, 0), Vec3<S>(S(0.1), S(0.2), S(0.25)).asDiagonal()};
  in.initial = {Vec3<S>(0, 0, S(0.2)), Quaternion<S>{std::cos(S(0.3)), 0, std::sin(S(0.3)), 0}, Vec3<S>(S(0.1), 0, 0),
                Vec3<S>(1, 2, S(0.5))};
  in.gravity_w = Vec3<S>(0, 0, S(-9.81));
  SharedModel<S> copied = shared;
  for (const Entry& e : entries) {
    in.model_values[shared.parameters.n] = e.value;
    shared.parameters.add({e.field, std::uint8_t(e.index), std::uint8_t(e.component), e.offset});
  }
  apply_model_parameters(shared.parameters, in.model_values, copied.loads, copied.constraint);
  const int n_values = shared.parameters.n;
  std::vector<double> inputs(std::size_t(input_column_count(n_values))), outputs(std::size_t(output_column_count(0)));
  std::vector<std::uint8_t> status(1);
  store_sample_inputs(inputs.data(), 1, 0, in, n_values);
  std::vector<double> copied_outputs(outputs.size());
  const auto check = [&](const IntegrationSettings<S>& how) {
    run_sample_in_batch<S>(inputs.data(), outputs.data(), static_cast<double*>(nullptr), status.data(), 1, 0, shared, how);
    // The CPU backend's way: a copy per sample, made in the batch path.
    run_sample_in_batch<S, RuntimeKinds, TrajectoryLayout::by_column, ModelValuesAccess::copied>(
        inputs.data(), copied_outputs.data(), static_cast<double*>(nullptr), status.data(), 1, 0, shared, how);
    EXPECT_EQ(copied_outputs, outputs);
    const SampleResult<S> r = run_sample(in, copied, how);
    EXPECT_EQ(status[0], std::uint8_t(r.status));
    EXPECT_EQ(r.status, SampleStatus::ok);
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(outputs[std::size_t(output_column::p_w + c)], double(r.final_state.p_w(c)));
      EXPECT_EQ(outputs[std::size_t(output_column::omega_b + c)], double(r.final_state.omega_b(c)));
    }
    EXPECT_EQ(outputs[output_column::energy_drift], double(r.energy_drift));
  };
  IntegrationSettings<S> how = fixed_step<S>(S(0.002), 200);
  check(how);
  how.kind = IntegratorKind::splitting;
  check(how);
  how = fixed_step<S>(S(0.002), 200);
  how.euler_zxz = true;
  how.euler_threshold = S(1e-3);
  check(how);
  check(test::dopri5_settings<S>(S(0.002), 200, S(1e-6), S(0.05)));
  // The values are used: the copy without them differs.
  const SampleResult<S> nominal = run_sample(in, [&] {
    SharedModel<S> m = shared;
    m.parameters.n = 0;
    return m;
  }(), fixed_step<S>(S(0.002), 200));
  EXPECT_NE(outputs[output_column::p_w], double(nominal.final_state.p_w.x()));
}

}  // namespace
}  // namespace rbmc

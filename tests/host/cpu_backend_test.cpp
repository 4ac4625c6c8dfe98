#include <gtest/gtest.h>

#include <cstring>

#include "host/backend/backend.hpp"
#include "host/backend/cpu_lanes.hpp"
#include "host/io/results_reader.hpp"
#include "host/run/run_driver.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "rbmc/dynamics/invariants.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

// A torque-free body (no gravity) integrated by the CPU backend conserves kinetic energy and
// angular momentum about its centre of mass within RK4's error: at most T |ω| (|ω| h)⁴ / 120
// relative (n steps of the local error of a rotation at rate |ω|), plus rounding.
struct States {
  std::vector<double> p, q, v, w;  // (N, 3), (N, 4), (N, 3), (N, 3)
  RigidBodyState<double> at(std::size_t k) const {
    return {Vec3<double>(p[3 * k], p[3 * k + 1], p[3 * k + 2]),
            {q[4 * k], q[4 * k + 1], q[4 * k + 2], q[4 * k + 3]},
            Vec3<double>(v[3 * k], v[3 * k + 1], v[3 * k + 2]),
            Vec3<double>(w[3 * k], w[3 * k + 1], w[3 * k + 2])};
  }
};

States read_states(const ResultsReader& r, const std::string& stage) {
  const std::string g = "samples/" + stage + "/";
  return {r.doubles(g + "position").data, r.doubles(g + "orientation").data, r.doubles(g + "velocity").data,
          r.doubles(g + "angular_velocity").data};
}

class CpuBackendConservation : public ::testing::TestWithParam<Precision> {};

TEST_P(CpuBackendConservation, TorqueFreeBodyConservesEnergyAndMomentum) {
  const Precision precision = GetParam();
  test::TempDir dir;
  std::string text = test::valid_scenario_text(200, 5.0, 0.005);
  text.replace(text.find("[0.0, 0.0, -9.81]"), 17, "[0.0, 0.0, 0.0]");
  const Scenario s = parse_scenario(text, "free.toml");
  RunOptions o;
  o.output = dir.file("free.h5");
  o.backend = BackendChoice::cpu;
  o.precision = precision;
  o.progress = false;
  run_scenario(s, o);

  const ResultsReader r(o.output);
  const auto mass = r.doubles("samples/body/mass").data, com = r.doubles("samples/body/center_of_mass").data,
             inertia = r.doubles("samples/body/inertia").data;
  const States initial = read_states(r, "initial"), final = read_states(r, "final");
  const double eps = precision == Precision::float32 ? 1.2e-7 : 2.2e-16;
  const double n_steps = double(s.run.n_steps), h = s.step_used(), duration = s.run.duration;
  for (std::size_t k = 0; k < 200; k += 13) {
    MassProperties<double> body{mass[k], Vec3<double>(com[3 * k], com[3 * k + 1], com[3 * k + 2]),
                                Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(&inertia[9 * k])};
    const FreeBodyModel<double> model = make_free_body_model<double>(body, Vec3<double>::Zero());
    const RigidBodyState<double> x0 = initial.at(k), x1 = final.at(k);
    const double w = x0.omega_b.norm();
    const double tolerance = duration * w * std::pow(w * h, 4) / 120 + 8 * n_steps * eps;
    const double e0 = kinetic_energy(model, x0);
    EXPECT_NEAR(kinetic_energy(model, x1) / e0, 1.0, tolerance) << "sample " << k;
    const Vec3<double> l0 = angular_momentum_c_w(model, x0), l1 = angular_momentum_c_w(model, x1);
    EXPECT_LE((l1 - l0).norm() / l0.norm(), tolerance) << "sample " << k;
    // Linear momentum m v_C: v_C = v_O + R (ω × r_C), so the attitude's truncation error enters
    // scaled by m |ω| |r_C|.
    const double p_scale = model.mass * (w * model.com_b.norm() + x0.v_w.norm());
    EXPECT_LE((linear_momentum_w(model, x1) - linear_momentum_w(model, x0)).norm(), tolerance * p_scale);
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, CpuBackendConservation, ::testing::Values(Precision::float64, Precision::float32),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

TEST(CpuBackend, DescribesItself) {
  const auto b = make_cpu_backend(Precision::float64, 3);
  EXPECT_EQ(b->name(), "cpu");
  EXPECT_NE(b->device().find("3 threads"), std::string::npos);
  BatchIntegration how;
  EXPECT_EQ(b->max_batch_size(how), 3u * 2048);  // 2,048 samples a thread
  // The states and quantities a batch keeps at the output times: near 512 MiB at most.
  how.shared.output_times.n = 1510;
  EXPECT_EQ(b->max_batch_size(how), (std::size_t(512) << 20) / (8 * 25 * 1510));
}

// A request to stop abandons the batch in flight (the driver keeps the batches before it): the
// backend throws BatchAbandoned instead of integrating the rest, in both precisions.
TEST(CpuBackend, AStopRequestAbandonsTheBatch) {
  const Scenario s = parse_scenario(test::valid_scenario_text(64), "box.toml");
  for (const Precision precision : {Precision::float64, Precision::float32}) {
    const std::unique_ptr<Backend> backend = make_backend(BackendChoice::cpu, precision, 2);
    std::atomic<bool> stop{true};
    BatchIntegration how(s.integration(), s.shared_model());
    how.stop = &stop;
    std::vector<double> inputs(64 * std::size_t(input_column_count(0))), outputs(64 * std::size_t(output_column_count(0)));
    std::vector<std::uint8_t> status(64);
    StageTimings timings;
    EXPECT_THROW(backend->integrate(inputs.data(), outputs.data(), status.data(), 64, how, {}, timings), BatchAbandoned);
    stop = false;
    const SamplingPlan plan(s);
    for (std::size_t i = 0; i < 64; ++i) {
      SampleInputs<double> in;
      std::vector<double> params(std::size_t(plan.n_parameter_values()) + 1);
      plan.sample(i, in, params.data());
      store_sample_inputs(inputs.data(), 64, i, in, 0);
    }
    backend->integrate(inputs.data(), outputs.data(), status.data(), 64, how, {}, timings);
    EXPECT_GT(timings[Stage::integrate], 0.0);
    for (std::uint8_t code : status) EXPECT_EQ(code, std::uint8_t(SampleStatus::ok));
  }
}

// Where the rows whose trajectories the file keeps are named before integration
// (BatchNeeds::state_rows: the rules by index), the backend keeps only their states, and
// every group's pass through a buffer of its thread's own while their quantities are computed:
// the gathered states and the quantities are those of a run that keeps every row's sample by
// sample (no lanes), bit for bit, in lanes or not, in both precisions. A row not named is refused.
TEST(CpuBackend, StatesOfRowsNamedInAdvanceAreThoseOfEveryRow) {
  // Not a whole number of lane groups (the last samples go one by one), and on one thread and on
  // three, so that the groups whose quantities are computed together are several and whole
  // (kQuantityBlock) or cut short by the threads' chunks.
  constexpr std::size_t n = 1001;
  const Scenario s =
      parse_scenario(test::valid_scenario_text(int(n), 1.0, 0.01) + "\n[output]\ninterval = 0.1\n", "box.toml");
  ASSERT_EQ(s.output_times.n, 11);
  const SamplingPlan plan(s);
  std::vector<double> inputs(n * std::size_t(input_column_count(0)));
  for (std::size_t i = 0; i < n; ++i) {
    SampleInputs<double> in;
    std::vector<double> params(std::size_t(plan.n_parameter_values()) + 1);
    plan.sample(i, in, params.data());
    store_sample_inputs(inputs.data(), n, i, in, 0);
  }
  const std::vector<std::uint32_t> named = {0, 5, 37, 38, 96, 99, 517, 1000};
  for (const Precision precision : {Precision::float64, Precision::float32}) {
    // Integrates the batch keeping the named rows' states, or every row's (null), with or
    // without statistics: the named rows' states, and the quantities.
    const auto run = [&](Backend* backend, const std::vector<std::uint32_t>* state_rows, bool statistics,
                         std::vector<double>& states, QuantityValues& quantities) {
      BatchIntegration how(s.integration(), s.shared_model());
      how.statistics = statistics;
      how.keep_states = true;
      how.nominal_attitudes.assign(std::size_t(s.output_times.n), Quaternion<double>::identity());
      std::vector<double> outputs(n * std::size_t(output_column_count(0)));
      std::vector<std::uint8_t> status(n);
      StageTimings timings;
      backend->integrate(inputs.data(), outputs.data(), status.data(), n, how, BatchNeeds{state_rows}, timings);
      backend->gather_trajectories(named, states, timings);
      if (!statistics) return;
      std::vector<std::uint32_t> every_row(n);
      for (std::size_t i = 0; i < n; ++i) every_row[i] = std::uint32_t(i);
      std::vector<Moments> moments;
      backend->reduce_statistics(how, every_row, moments, quantities, timings);
    };
    std::vector<double> every_states;
    QuantityValues every_quantities;
    run(make_cpu_backend(precision, 1, LaneIsa::off).get(), nullptr, true, every_states, every_quantities);
    for (const LaneIsa isa : {chosen_lane_isa(), LaneIsa::off})
      for (const unsigned threads : {1u, 3u}) {
        SCOPED_TRACE(std::string(precision_name(precision)) + ", " + lane_isa_name(isa) + " lanes, " +
                     std::to_string(threads) + " threads");
        const std::unique_ptr<Backend> backend = make_cpu_backend(precision, threads, isa);
        std::vector<double> named_states, kept_only_states;
        QuantityValues named_quantities, none;
        run(backend.get(), &named, true, named_states, named_quantities);
        ASSERT_EQ(every_states.size(), named.size() * 11 * kTrajectoryColumns);
        ASSERT_EQ(named_states.size(), every_states.size());
        EXPECT_EQ(std::memcmp(named_states.data(), every_states.data(), every_states.size() * sizeof(double)), 0);
        ASSERT_EQ(named_quantities.size(), n * 11 * std::size_t(quantity::count));
        ASSERT_EQ(every_quantities.size(), named_quantities.size());
        EXPECT_EQ(
            std::memcmp(named_quantities.data(), every_quantities.data(), every_quantities.size() * sizeof(double)), 0);
        // Without statistics the groups pass their states through the thread's buffer all the same.
        run(backend.get(), &named, false, kept_only_states, none);
        ASSERT_EQ(kept_only_states.size(), every_states.size());
        EXPECT_EQ(std::memcmp(kept_only_states.data(), every_states.data(), every_states.size() * sizeof(double)), 0);
        // The states differ from row to row: a copy from the wrong row would show.
        EXPECT_NE(std::memcmp(every_states.data(), every_states.data() + 11 * kTrajectoryColumns,
                              11 * kTrajectoryColumns * sizeof(double)),
                  0);
        std::vector<double> unused;
        StageTimings timings;
        EXPECT_THROW(backend->gather_trajectories({0, 6}, unused, timings), std::logic_error);
      }
  }
}

// A quantity buffer given back (recycle_quantities) serves the next batch: its values arrive in
// the same memory, and they are that batch's, every one of them, bit for bit as a fresh backend
// computes them (the buffer still held the batch before's).
TEST(CpuBackend, AQuantityBufferGivenBackServesTheNextBatch) {
  constexpr std::size_t n = 203;  // lane groups and samples one by one
  const Scenario s =
      parse_scenario(test::valid_scenario_text(int(2 * n), 1.0, 0.01) + "\n[output]\ninterval = 0.1\n", "box.toml");
  const SamplingPlan plan(s);
  // Two batches: samples [0, n) and [n, 2n).
  std::vector<double> inputs[2];
  for (std::size_t b = 0; b < 2; ++b) {
    inputs[b].resize(n * std::size_t(input_column_count(0)));
    for (std::size_t i = 0; i < n; ++i) {
      SampleInputs<double> in;
      std::vector<double> params(std::size_t(plan.n_parameter_values()) + 1);
      plan.sample(b * n + i, in, params.data());
      store_sample_inputs(inputs[b].data(), n, i, in, 0);
    }
  }
  BatchIntegration how(s.integration(), s.shared_model());
  how.statistics = true;
  how.nominal_attitudes.assign(std::size_t(s.output_times.n), Quaternion<double>::identity());
  std::vector<std::uint32_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = std::uint32_t(i);
  const auto quantities_of = [&](Backend& backend, std::size_t b, QuantityValues& values) {
    std::vector<double> outputs(n * std::size_t(output_column_count(0)));
    std::vector<std::uint8_t> status(n);
    std::vector<Moments> moments;
    StageTimings timings;
    backend.integrate(inputs[b].data(), outputs.data(), status.data(), n, how, {}, timings);
    backend.reduce_statistics(how, rows, moments, values, timings);
  };
  const std::unique_ptr<Backend> backend = make_cpu_backend(Precision::float64, 2);
  QuantityValues values;
  quantities_of(*backend, 0, values);
  const double* const first = values.data();
  ASSERT_EQ(values.size(), n * std::size_t(s.output_times.n) * std::size_t(quantity::count));
  backend->recycle_quantities(values);
  EXPECT_TRUE(values.empty());  // the backend's own, in exchange
  quantities_of(*backend, 1, values);
  EXPECT_EQ(values.data(), first);
  QuantityValues fresh;
  quantities_of(*make_cpu_backend(Precision::float64, 2), 1, fresh);
  ASSERT_EQ(values.size(), fresh.size());
  EXPECT_EQ(std::memcmp(values.data(), fresh.data(), fresh.size() * sizeof(double)), 0);
}

}  // namespace
}  // namespace rbmc

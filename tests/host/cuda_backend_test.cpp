// The CUDA backend against the CPU backend, sample by sample. Skipped (not passed) where no
// CUDA device is present, including CPU-only builds.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/backend/backend.hpp"
#include "host/stats/column_moments.hpp"
#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/run/run_driver.hpp"
#include "host/analysis/compare_results.hpp"
#include "host/analysis/validate_run.hpp"
#include "compaction_reference.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "host/stats/run_statistics.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/sample/sample_status.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

// A run without a progress line, on `backend` in `precision`, into `output`.
RunOptions quiet_run(Precision precision, BackendChoice backend, const std::string& output) {
  RunOptions o;
  o.progress = false;
  o.precision = precision;
  o.backend = backend;
  o.output = output;
  return o;
}

// Runs the scenario on the CPU into cpu.h5 and on CUDA into cuda.h5 (cuda_batch samples per batch,
// 0 for the backend's choice).
void run_on_both_backends(const Scenario& s, Precision precision, const test::TempDir& dir, std::size_t cuda_batch) {
  RunOptions o = quiet_run(precision, BackendChoice::cpu, dir.file("cpu.h5"));
  run_scenario(s, o);
  o.backend = BackendChoice::cuda;
  o.output = dir.file("cuda.h5");
  o.batch_size = cuda_batch;
  run_scenario(s, o);
}

class GpuTest : public ::testing::TestWithParam<Precision> {
 protected:
  void SetUp() override {
    if (!cuda_device_available()) GTEST_SKIP() << "no CUDA device (or a build without CUDA)";
  }
};

// Both backends run the same per-sample function on the same inputs (the same double-to-float
// rounding); they differ only where nvcc contracts a·b + c into a fused multiply-add. Each such
// difference is one rounding (eps) per operation, about 100 operations a step, growing at most
// linearly over n steps of this short, non-chaotic run: tolerance n · 100 · eps, relative.
TEST_P(GpuTest, CudaMatchesCpuSampleBySample) {
  const Precision precision = GetParam();
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(5000, 0.5, 0.01), "box.toml");
  run_on_both_backends(s, precision, dir, 1000);  // several CUDA batches
  const ResultsReader cpu(dir.file("cpu.h5")), gpu(dir.file("cuda.h5"));
  EXPECT_EQ(gpu.string_attribute("", "backend"), "cuda");
  EXPECT_EQ(cpu.uint8s("samples/status").data, gpu.uint8s("samples/status").data);
  const double eps = precision == Precision::float32 ? 1.2e-7 : 2.2e-16;
  const double tolerance = double(s.run.n_steps) * 100 * eps;
  for (const char* d : {"samples/final/position", "samples/final/orientation", "samples/final/velocity",
                        "samples/final/angular_velocity"}) {
    const auto a = cpu.doubles(d).data, b = gpu.doubles(d).data;
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      ASSERT_NEAR(a[i], b[i], tolerance * (1 + std::abs(a[i]))) << d << " element " << i;
  }
  // Inputs are sampled on the host: identical.
  EXPECT_EQ(cpu.doubles("samples/initial/orientation").data, gpu.doubles("samples/initial/orientation").data);
}

// Every integrator with events and output times: the same statuses, event times and trajectories
// as the CPU. Fixed steps take the same steps, so the values differ by rounding alone: 100
// operations a step, one rounding each, over 100 steps, 100 · 100 ε relative. An adaptive step is
// accepted when its error norm is at most 1, and the two builds' norms differ by rounding; in
// float (rtol 1e-5, ε/rtol ~ 1 %) many samples see a decision flip somewhere and take another
// step sequence. Such a sample is another valid integration: both lie within the global error of
// the exact solution, a small multiple of rtol, so they are held to 100 rtol (relative), as
// rbmc compare holds them (docs/compare.md). How many differ is not a property of the code.
TEST_P(GpuTest, EveryIntegratorWithEventsMatchesTheCpu) {
  const Precision precision = GetParam();
  const double eps = precision == Precision::float32 ? 1.2e-7 : 2.2e-16;
  for (const char* integrator : {"rk4", "dopri5", "splitting"}) {
    test::TempDir dir;
    std::string text = test::valid_scenario_text(2000, 1.0, 0.01);
    std::string run = std::string("integrator = \"") + integrator + "\"\n";
    const double rtol = precision == Precision::float32 ? 1e-5 : 1e-8;
    const bool adaptive = std::string(integrator) == "dopri5";
    if (adaptive) run += precision == Precision::float32 ? "rtol = 1e-5\n" : "rtol = 1e-8\n";
    text.replace(text.find("step = "), 0, run);
    text += "[output]\ninterval = 0.25\n[[events]]\nname = \"turned\"\ntype = \"attitude_angle\"\nangle = 1.0\n";
    run_on_both_backends(parse_scenario(text, "gpu.toml"), precision, dir, 0);
    const ResultsReader cpu(dir.file("cpu.h5")), gpu(dir.file("cuda.h5"));
    EXPECT_EQ(cpu.uint8s("samples/status").data, gpu.uint8s("samples/status").data) << integrator;
    const auto steps_cpu = cpu.doubles("samples/final/steps").data, steps_gpu = gpu.doubles("samples/final/steps").data;
    const auto rejected_cpu = cpu.doubles("samples/final/rejected_steps").data,
               rejected_gpu = gpu.doubles("samples/final/rejected_steps").data;
    std::size_t differing = 0;
    const auto tolerance_of = [&](std::uint64_t sample) {
      const bool same_steps = steps_cpu[sample] == steps_gpu[sample] && rejected_cpu[sample] == rejected_gpu[sample];
      return same_steps ? 100 * 100 * eps : 100 * rtol;
    };
    for (std::size_t i = 0; i < steps_cpu.size(); ++i) {
      if (!adaptive) EXPECT_EQ(steps_cpu[i], steps_gpu[i]) << integrator << " sample " << i;
      differing += steps_cpu[i] != steps_gpu[i];
    }
    RecordProperty(std::string(integrator) + "_samples_with_other_steps", int(differing));
    const auto sample_of_trajectory = cpu.uint64s("trajectories/sample_index").data;
    EXPECT_EQ(sample_of_trajectory, gpu.uint64s("trajectories/sample_index").data);
    for (const char* d : {"samples/events/turned/time", "trajectories/angular_velocity", "samples/final/orientation"}) {
      const Array<double> a = cpu.doubles(d), b = gpu.doubles(d);
      const std::size_t per_row = a.data.size() / std::size_t(a.shape[0]);
      const bool trajectory = std::string(d).rfind("trajectories/", 0) == 0;
      for (std::size_t e = 0; e < a.data.size(); ++e) {
        const std::uint64_t row = e / per_row, sample = trajectory ? sample_of_trajectory[row] : row;
        if (std::isnan(a.data[e])) {
          EXPECT_TRUE(std::isnan(b.data[e])) << integrator << " " << d << " " << e;
          continue;
        }
        ASSERT_NEAR(a.data[e], b.data[e], tolerance_of(sample) * (1 + std::abs(a.data[e])))
            << integrator << " " << d << " sample " << sample << (steps_cpu[sample] != steps_gpu[sample] ? " (other steps)" : "");
      }
    }
  }
}

// Per-sample load and constraint parameters travel as input columns: the kernel reads them and
// integrates each sample's own spring and pivot as the CPU does, and flags the samples whose drawn
// stiffness is negative (a ninth of them, kept under "reject") invalid_load, as the CPU does.
TEST_P(GpuTest, DispersedLoadAndConstraintParametersMatchTheCpu) {
  const Precision precision = GetParam();
  const double eps = precision == Precision::float32 ? 1.2e-7 : 2.2e-16;
  test::TempDir dir;
  const std::string text = R"([run]
samples = 2000
seed = 8
duration = 1.0
step = 0.01
[body]
mass = 2.0
shape = { type = "box", size = [0.3, 0.2, 0.1] }
[initial]
angular_velocity = [0.5, 1.0, 0.2]
[gravity]
acceleration = [0.0, 0.0, -9.81]
[[loads]]
type = "spring"
point = [0.1, 0.0, 0.0]
anchor = [0.3, 0.0, 0.2]
stiffness = 50.0
[constraint]
type = "pivot"
point = [0.0, 0.0, 0.05]
[dispersions]
body.shape.size = { distribution = "normal", sigma = 0.005 }
loads.0.stiffness = { distribution = "uniform", min = -10.0, max = 80.0 }
loads.0.anchor = { distribution = "normal", sigma = 0.01 }
constraint.point = { distribution = "normal", sigma = 0.01 }
[design]
invalid_bodies = "reject"
)";
  run_on_both_backends(parse_scenario(text, "gpu.toml"), precision, dir, 0);
  const ResultsReader cpu(dir.file("cpu.h5")), gpu(dir.file("cuda.h5"));
  const std::vector<std::uint8_t> status = cpu.uint8s("samples/status").data;
  EXPECT_EQ(status, gpu.uint8s("samples/status").data);
  EXPECT_GT(std::count(status.begin(), status.end(), std::uint8_t(SampleStatus::invalid_load)), 100);
  const double tolerance = 100 * 100 * eps;  // 100 steps of 100 operations
  for (const char* d : {"samples/final/position", "samples/final/angular_velocity", "samples/final/reaction_force"}) {
    const auto a = cpu.doubles(d).data, b = gpu.doubles(d).data;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(a[i])) {  // the reaction of a sample not integrated: none measured, on either backend
        ASSERT_TRUE(std::isnan(b[i])) << d << " " << i;
        continue;
      }
      ASSERT_NEAR(a[i], b[i], tolerance * (1 + std::abs(a[i]))) << d << " " << i;
    }
  }
}

// Statistics reduced on the device (Thrust) agree with the CPU's to rounding, the same samples'
// trajectories are retained, and rbmc compare passes CUDA against CPU.
TEST_P(GpuTest, StatisticsAndRetainedTrajectoriesMatchTheCpu) {
  const Precision precision = GetParam();
  const double eps = precision == Precision::float32 ? 1.2e-7 : 2.2e-16;
  test::TempDir dir;
  std::string text = test::valid_scenario_text(3000, 1.0, 0.01);
  text += "[output]\ninterval = 0.1\ntrajectories = { every = 10 }\n";
  run_on_both_backends(parse_scenario(text, "gpu.toml"), precision, dir, 1000);
  const ResultsReader cpu(dir.file("cpu.h5")), gpu(dir.file("cuda.h5"));
  EXPECT_EQ(cpu.uint64s("trajectories/sample_index").data, gpu.uint64s("trajectories/sample_index").data);
  const double tolerance = 100 * 100 * eps;  // 100 steps of 100 operations, then the reduction
  std::vector<const char*> compared = {"statistics/angular_velocity/mean", "statistics/angular_velocity/sd",
                                       "statistics/kinetic_energy/mean", "statistics/attitude_angle/max",
                                       "trajectories/angular_velocity"};
  // Order statistics can swap places between values closer than float's rounding; in double
  // they do not (a gap below 1e-13 between two of 3000 samples' values is unlikely).
  if (precision == Precision::float64) compared.push_back("statistics/position/quantiles");
  for (const char* d : compared) {
    const auto a = cpu.doubles(d).data, b = gpu.doubles(d).data;
    ASSERT_EQ(a.size(), b.size()) << d;
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tolerance * (1 + std::abs(a[i]))) << d << " " << i;
  }
  CompareOptions options;
  options.rtol = precision == Precision::float32 ? 1e-3 : 1e-9;
  options.atol = precision == Precision::float32 ? 1e-5 : 1e-12;
  EXPECT_TRUE(compare_results(dir.file("cpu.h5"), dir.file("cuda.h5"), options).pass);
}

// Sketched statistics: the device classifies each (time, quantity) column of a batch against its
// brackets, sorts and compacts the kept values (kernels/statistics.cu), and sends a few thousand
// values a column. They equal, bit for bit, the CPU's reference (tally_value one value at a time,
// std::stable_sort and the core's positions) of the values the same backend sends uncompacted for
// the same batch, and so do the tallies; the moments are the same either way. Twice: with open
// brackets (a run's first batch), then with those the first batch's merge leaves. 26 times × 12
// quantities: more columns than the block that places them has threads, and every value of the
// batch (12.5 million) crosses in three parts of the backend's staging.
TEST_P(GpuTest, ColumnsCompactedOnTheDeviceEqualTheCpusReference) {
  const Precision precision = GetParam();
  constexpr std::size_t kSamples = 40000;
  const Scenario s = parse_scenario(test::valid_scenario_text(int(kSamples), 0.5, 0.01) +
                                        "[output]\ninterval = 0.02\nquantile_memory_mb = 2\n",
                                    "gpu.toml");
  RunStatistics statistics(s, kSamples);
  ASSERT_FALSE(statistics.exact());
  const BatchCompactionRequest request = statistics.compaction_request(12345);
  ASSERT_GT(batch_compaction_levels(kSamples - 100, request.keep), 1);
  const SamplingPlan plan(s);
  const int n_model_values = s.shared_model().parameters.n;
  std::vector<double> inputs(kSamples * std::size_t(input_column_count(n_model_values)));
  std::vector<double> params(std::size_t(plan.n_parameter_values()) + 1);
  for (std::size_t i = 0; i < kSamples; ++i) {
    SampleInputs<double> in;
    plan.sample(i, in, params.data());
    if (i % 997 == 5) in.initial.omega_b.x() = std::numeric_limits<double>::infinity();  // non-finite quantities
    store_sample_inputs(inputs.data(), kSamples, i, in, n_model_values);
  }
  const std::unique_ptr<Backend> backend = make_cuda_backend(precision);
  BatchIntegration how(s.integration(), s.shared_model());
  how.statistics = true;
  for (int k = 0; k < s.output_times.n; ++k) how.nominal_attitudes.push_back({1.0, 0.0, 0.0, 0.0});
  std::vector<double> outputs(kSamples * std::size_t(output_column_count(0)));
  std::vector<std::uint8_t> status(kSamples);
  StageTimings timings;
  backend->integrate(inputs.data(), outputs.data(), status.data(), kSamples, how, {}, timings);
  std::vector<Moments> moments, all_moments;
  QuantityValues every_value;
  CompactedColumns sent;
  std::vector<ColumnBrackets> brackets;
  statistics.compaction_brackets(brackets);
  ASSERT_TRUE(backend->reduce_statistics_compacted(how, request, brackets, moments, sent, timings));
  backend->reduce_statistics(how, statistics.quantile_rows(kSamples), all_moments, every_value, timings);
  const std::size_t columns = moments.size();
  std::vector<double> reference;
  std::vector<ColumnTally> tallies;
  std::vector<std::uint64_t> offsets;
  test::compact_columns_for_reference(every_value, kSamples, columns, request, brackets, tallies, offsets, reference);
  // The device's moments (a block per column, Welford's update in each thread) against the host's
  // corrected two-pass ones over the same values: counts and extremes exactly; the mean and the
  // sum of squares to the rounding of 4·10⁴ updates (n ε ≈ 1e-11, within 1e-10 of their scale).
  std::vector<const double*> starts(columns);
  for (std::size_t c = 0; c < columns; ++c) starts[c] = every_value.data() + c * kSamples;
  std::vector<Moments> host_moments(columns);
  column_moments(starts.data(), columns, kSamples, host_moments.data());
  for (std::size_t c = 0; c < columns; ++c) {
    const Moments &d = moments[c], &h = host_moments[c];
    ASSERT_EQ(d.count, h.count) << c;
    ASSERT_EQ(d.non_finite, h.non_finite) << c;
    ASSERT_EQ(d.min, h.min) << c;
    ASSERT_EQ(d.max, h.max) << c;
    const double scale = std::abs(h.mean) + std::sqrt(h.variance());
    ASSERT_NEAR(d.mean, h.mean, 1e-10 * scale) << c;
    ASSERT_NEAR(d.m2, h.m2, 1e-10 * h.m2) << c;
  }
  for (std::size_t c = 0; c < columns; ++c) {
    ASSERT_EQ(moments[c].count, all_moments[c].count) << c;
    ASSERT_EQ(moments[c].non_finite, all_moments[c].non_finite) << c;
  }
  const auto expect_reference = [&](const char* brackets_name) {
    SCOPED_TRACE(brackets_name);
    ASSERT_EQ(sent.offsets, offsets);
    ASSERT_EQ(sent.values.size(), reference.size());
    for (std::size_t c = 0; c < columns; ++c) {
      ASSERT_EQ(sent.tallies[c].kept, tallies[c].kept) << c;
      for (int j = 0; j < kColumnBrackets; ++j)
        ASSERT_EQ(sent.tallies[c].below[j], tallies[c].below[j]) << c << " " << j;
    }
    for (std::size_t i = 0; i < reference.size(); ++i)  // bit for bit: the sign of a zero too
      ASSERT_EQ(std::signbit(sent.values[i]), std::signbit(reference[i])) << i << ": " << sent.values[i];
    for (std::size_t i = 0; i < reference.size(); ++i) ASSERT_EQ(sent.values[i], reference[i]) << i;
  };
  expect_reference("open brackets");
  for (std::size_t c = 0; c < columns; ++c) ASSERT_EQ(sent.tallies[c].kept, std::uint64_t(moments[c].count)) << c;
  // The same batch against the brackets its own merge leaves (40,000 values offered: narrowed).
  statistics.add_compacted(moments, sent.tallies, sent.offsets, sent.values, kSamples);
  statistics.compaction_brackets(brackets);
  ASSERT_TRUE(backend->reduce_statistics_compacted(how, request, brackets, moments, sent, timings));
  test::compact_columns_for_reference(every_value, kSamples, columns, request, brackets, tallies, offsets, reference);
  expect_reference("narrowed brackets");
  std::uint64_t kept = 0, finite = 0;
  for (std::size_t c = 0; c < columns; ++c) {
    kept += sent.tallies[c].kept;
    finite += std::uint64_t(moments[c].count);
  }
  EXPECT_LT(2 * kept, finite);  // most values counted, not sent
  // A batch too small to compact is left to reduce_statistics.
  BatchCompactionRequest large = request;
  large.keep = kSamples;
  EXPECT_FALSE(backend->reduce_statistics_compacted(how, large, brackets, moments, sent, timings));
}

// The device draws a batch (Backend::draw_inputs: kernels/draw_inputs.cu over the plan's tables
// copied to the device) as the host's draw_batch_row does: every distribution, each design, the
// validity policy's redraws, rows out of order and with gaps as --only gives them, in double
// whatever the run's precision. Each dispersion's values are portable arithmetic
// (rbmc/math/portable_math.hpp): the same bits. The inputs assembled from them round as the
// host's (the kernel is compiled without multiply-add contraction) but for the device's sin and
// cos (within 2 ulp; glibc's within 1) in the exponential map and the Euler angles, which reach
// an inertia entry through the sums of E diag(λ) Eᵀ and an attitude through one quaternion
// product: within 64 ulp of the column's largest value.
TEST_P(GpuTest, TheDeviceDrawsEveryDesignAsTheHostDoes) {
  const char* const cases[][2] = {{"monte_carlo", "uniform_rotation"}, {"monte_carlo", "random_axis"},
                                  {"latin_hypercube", "uniform_rotation"}, {"sobol", "random_axis"},
                                  {"grid", "uniform_rotation"}};
  const std::unique_ptr<Backend> backend = make_cuda_backend(GetParam());
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c[0]) + ", " + c[1]);
    const SamplingPlan plan(parse_scenario(test::every_draw_scenario_text(c[0], c[1]), "every_draw.toml"));
    std::vector<std::uint64_t> index;
    for (std::uint64_t k = plan.scenario().run.n_samples; k-- > 0;)
      if (k % 3 != 1) index.push_back(k);
    const std::size_t n = index.size();
    const int n_model = plan.scenario().model_parameters.n;
    const std::size_t n_in = n * std::size_t(input_column_count(n_model)), n_params = n * std::size_t(plan.n_parameter_values());
    std::vector<double> host_inputs(n_in), host_params(n_params), inputs(n_in, -1.0), params(n_params, -1.0);
    std::uint64_t host_redrawn = 0, redrawn = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (draw_batch_row(plan.model(), index[i], i, n, host_inputs.data(), host_params.data()) > 0) ++host_redrawn;
    StageTimings timings{};
    ASSERT_TRUE(backend->draw_inputs(plan, index.data(), n, inputs.data(), params.data(), {}, redrawn, timings));
    for (std::size_t column = 0; column < n_in / n; ++column) {
      double scale = 0;
      for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(host_inputs[column * n + i]));
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_LE(std::abs(inputs[column * n + i] - host_inputs[column * n + i]), 64 * 2.2e-16 * scale)
            << "input column " << column << ", row " << i << ": " << inputs[column * n + i] << " on the device, "
            << host_inputs[column * n + i] << " on the host";
    }
    for (std::size_t j = 0; j < n_params; ++j)
      ASSERT_EQ(std::memcmp(&params[j], &host_params[j], sizeof(double)), 0)
          << "param " << j / n << ", row " << j % n << ": " << params[j] << " on the device, " << host_params[j];
    EXPECT_EQ(redrawn, host_redrawn);
    EXPECT_GT(redrawn, 0u);
  }
}

// Only the drawn columns the file keeps cross back to the host (DrawnColumnsWanted), and the
// device integrates its own draws all the same: the outputs are the same bits whichever columns
// were sent, those not asked for are left untouched, and a run whose file keeps only final
// positions gets the same positions as one that keeps everything.
TEST_P(GpuTest, OnlyTheDrawnColumnsTheFileKeepsCrossBack) {
  const Precision precision = GetParam();
  constexpr std::size_t n = 3000;
  const Scenario s = parse_scenario(test::valid_scenario_text(int(n), 0.5, 0.01), "gpu.toml");
  const SamplingPlan plan(s);
  std::vector<std::uint64_t> index(n);
  for (std::size_t i = 0; i < n; ++i) index[i] = i;
  const std::size_t n_in = n * std::size_t(input_column_count(s.model_parameters.n)),
                    n_params = n * std::size_t(plan.n_parameter_values());
  ASSERT_GT(n_params, 0u);
  const std::unique_ptr<Backend> backend = make_cuda_backend(precision);
  const BatchIntegration how(s.integration(), s.shared_model());
  const auto draw_and_integrate = [&](const DrawnColumnsWanted& wanted, std::vector<double>& inputs,
                                      std::vector<double>& params, std::vector<double>& outputs) {
    inputs.assign(n_in, NAN);
    params.assign(n_params, NAN);
    outputs.assign(n * std::size_t(output_column_count(0)), NAN);
    std::vector<std::uint8_t> status(n);
    std::uint64_t redrawn = 0;
    StageTimings timings{};
    ASSERT_TRUE(backend->draw_inputs(plan, index.data(), n, inputs.data(), params.data(), wanted, redrawn, timings));
    backend->integrate(inputs.data(), outputs.data(), status.data(), n, how, {}, timings);
  };
  const auto untouched = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
  };
  const auto same_bits = [](const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  };
  std::vector<double> all_inputs, all_params, all_outputs, inputs, params, outputs;
  draw_and_integrate({}, all_inputs, all_params, all_outputs);
  EXPECT_FALSE(untouched(all_inputs));
  EXPECT_FALSE(untouched(all_params));
  draw_and_integrate({false, false}, inputs, params, outputs);
  EXPECT_TRUE(untouched(inputs));
  EXPECT_TRUE(untouched(params));
  EXPECT_TRUE(same_bits(outputs, all_outputs));
  draw_and_integrate({true, false}, inputs, params, outputs);
  EXPECT_TRUE(same_bits(inputs, all_inputs));
  EXPECT_TRUE(untouched(params));
  draw_and_integrate({false, true}, inputs, params, outputs);
  EXPECT_TRUE(untouched(inputs));
  EXPECT_TRUE(same_bits(params, all_params));
  EXPECT_TRUE(same_bits(outputs, all_outputs));

  // Through the run's driver: the file that keeps only final positions has the same ones.
  test::TempDir dir;
  run_scenario(s, quiet_run(precision, BackendChoice::cuda, dir.file("all.h5")));
  run_scenario(parse_scenario(test::valid_scenario_text(int(n), 0.5, 0.01) + "[output]\nsamples = [\"final/position\"]\n",
                              "gpu.toml"),
               quiet_run(precision, BackendChoice::cuda, dir.file("positions.h5")));
  const ResultsReader all(dir.file("all.h5")), positions(dir.file("positions.h5"));
  EXPECT_TRUE(same_bits(positions.doubles("samples/final/position").data, all.doubles("samples/final/position").data));
}

// Issue 12's overlap on the device: every batch after the first is drawn and integrated in the
// backend's second slot while the driver reduces the one before it (Backend::begin_batch). The
// file is the same bits in batches of 700 as in one batch (/samples does not depend on the batch
// size or the overlap), its statistics and trajectories included, and a run stopped with a batch
// begun ahead resumes to the same file.
TEST_P(GpuTest, BatchesBegunAheadGiveTheSameFileAsOneBatch) {
  const Precision precision = GetParam();
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(3000, 0.5, 0.01) +
                                        "[output]\ninterval = 0.05\ntrajectories = { every = 7 }\n",
                                    "gpu.toml");
  RunOptions o = quiet_run(precision, BackendChoice::cuda, dir.file("one.h5"));
  o.batch_size = 3000;
  run_scenario(s, o);
  o.output = dir.file("many.h5");
  o.batch_size = 700;
  const RunSummary many = run_scenario(s, o);
  EXPECT_GT(many.totals.integrate_ahead_seconds, 0.0);
  o.output = dir.file("resumed.h5");
  o.after_batch = [](std::uint64_t rows) {
    if (rows == 1400) interrupt_requested() = true;  // the third batch begun by then
  };
  EXPECT_THROW(run_scenario(s, o), Interrupted);
  interrupt_requested() = false;
  o.after_batch = nullptr;
  o.resume = true;
  run_scenario(s, o);
  const ResultsReader one(dir.file("one.h5")), many_file(dir.file("many.h5"));
  for (const char* file : {"many.h5", "resumed.h5"}) {
    const ResultsReader other(dir.file(file));
    for (const char* d : {"samples/final/position", "samples/final/angular_velocity", "samples/initial/angular_velocity",
                          "samples/body/inertia", "trajectories/position"})
      EXPECT_EQ(one.doubles(d).data, other.doubles(d).data) << file << " " << d;
    EXPECT_EQ(one.uint8s("samples/status").data, other.uint8s("samples/status").data) << file;
    EXPECT_EQ(one.uint64s("trajectories/sample_index").data, other.uint64s("trajectories/sample_index").data) << file;
    // The moments merge batch by batch, so their rounding depends on the batches: the same
    // batches, the same bits.
    for (const char* d : {"statistics/angular_velocity/mean", "statistics/attitude_angle/quantiles"})
      EXPECT_EQ(many_file.doubles(d).data, other.doubles(d).data) << file << " " << d;
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuTest, ::testing::Values(Precision::float64, Precision::float32),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

// Without a device, asking for CUDA is a clear error, not a silent CPU run.
TEST(CudaBackend, AbsentDeviceIsAClearError) {
  if (cuda_device_available()) GTEST_SKIP() << "a CUDA device is present";
#if defined(RBMC_HAVE_CUDA)
  EXPECT_THROW(make_cuda_backend(Precision::float64), CudaError);
#else
  EXPECT_THROW(make_cuda_backend(Precision::float64), NotBuiltWithCuda);
#endif
  EXPECT_EQ(make_backend(BackendChoice::automatic, Precision::float64, 1)->name(), "cpu");
}

// The issue's acceptance on a GPU: `rbmc validate` on every example config. CUDA double against
// CPU double passes; CUDA float passes or names what float cannot resolve (as the CPU float test
// in compare_results_test.cpp, where tumbling_box's and spin_sweep's flips are such cases).
TEST_P(GpuTest, ValidateEveryConfig) {
  for (const std::string name : {"pendulum_sobol", "physical_pendulum", "puck_on_table", "satellite_gravity_gradient",
                                  "spin_sweep", "spring_mounted_box", "tossed_box", "tossed_cylinder_lhs",
                                  "tumbling_box"}) {
    ValidateOptions o;
    o.scenario = std::string(RBMC_SOURCE_DIR) + "/configs/" + name + ".toml";
    o.precision = GetParam();
    o.samples = name == "spin_sweep" ? 1800 : 2000;  // the grid's 18 points × 100
    o.progress = false;
    const Comparison c = validate_scenario(o).comparison;
    if (GetParam() == Precision::float64) {
      EXPECT_TRUE(c.pass) << name << ": " << (c.reasons.empty() ? "" : c.reasons.front());
    } else if (!c.pass) {
      ASSERT_FALSE(c.reasons.empty()) << name;
      EXPECT_EQ(c.reasons.front().rfind("float cannot resolve", 0), 0u) << name << ": " << c.reasons.front();
    }
  }
}

// A batch larger than the first part (65,536 samples) is launched in parts, each sized from the
// last: every sample of it is integrated, as on the CPU (the parts once skipped samples).
TEST_P(GpuTest, ALargeBatchLaunchedInPartsIntegratesEverySample) {
  const Precision precision = GetParam();
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(300000, 0.05, 0.01), "box.toml");
  run_on_both_backends(s, precision, dir, 300000);
  const ResultsReader cpu(dir.file("cpu.h5")), gpu(dir.file("cuda.h5"));
  EXPECT_EQ(cpu.uint8s("samples/status").data, gpu.uint8s("samples/status").data);
  const double eps = precision == Precision::float32 ? 1.2e-7 : 2.2e-16;
  const double tolerance = double(s.run.n_steps) * 100 * eps;  // as CudaMatchesCpuSampleBySample
  const auto a = cpu.doubles("samples/final/angular_velocity").data, b = gpu.doubles("samples/final/angular_velocity").data;
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tolerance * (1 + std::abs(a[i]))) << "element " << i;
}

}  // namespace
}  // namespace rbmc

// The CUDA backend against the CPU backend, sample by sample. Skipped (not passed) where no
// CUDA device is present, including CPU-only builds.
#include <cmath>

#include <gtest/gtest.h>

#include "host/backend/backend.hpp"
#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/run/run_driver.hpp"
#include "host/analysis/compare_results.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

// Runs the scenario on the CPU into cpu.h5 and on CUDA into cuda.h5 (cuda_batch samples per batch,
// 0 for the backend's choice).
void run_on_both_backends(const Scenario& s, Precision precision, const test::TempDir& dir, std::size_t cuda_batch) {
  RunOptions o;
  o.progress = false;
  o.precision = precision;
  o.backend = BackendChoice::cpu;
  o.output = dir.file("cpu.h5");
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

// Every integrator with events and output times: the same statuses, step counts (adaptive ones
// included), event times and trajectories as the CPU, within the same arithmetic tolerance.
TEST_P(GpuTest, EveryIntegratorWithEventsMatchesTheCpu) {
  const Precision precision = GetParam();
  const double eps = precision == Precision::float32 ? 1.2e-7 : 2.2e-16;
  for (const char* integrator : {"rk4", "dopri5", "splitting"}) {
    test::TempDir dir;
    std::string text = test::valid_scenario_text(2000, 1.0, 0.01);
    std::string run = std::string("integrator = \"") + integrator + "\"\n";
    if (std::string(integrator) == "dopri5") run += precision == Precision::float32 ? "rtol = 1e-5\n" : "rtol = 1e-8\n";
    text.replace(text.find("step = "), 0, run);
    text += "[output]\ninterval = 0.25\n[[events]]\nname = \"turned\"\ntype = \"attitude_angle\"\nangle = 1.0\n";
    run_on_both_backends(parse_scenario(text, "gpu.toml"), precision, dir, 0);
    const ResultsReader cpu(dir.file("cpu.h5")), gpu(dir.file("cuda.h5"));
    EXPECT_EQ(cpu.uint8s("samples/status").data, gpu.uint8s("samples/status").data) << integrator;
    // Adaptive step counts can differ only where an error norm sits within rounding of 1.
    const auto steps_cpu = cpu.doubles("samples/final/steps").data, steps_gpu = gpu.doubles("samples/final/steps").data;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < steps_cpu.size(); ++i) differing += steps_cpu[i] != steps_gpu[i];
    EXPECT_LE(differing, steps_cpu.size() / 100) << integrator;
    const double tolerance = 100 * 100 * eps;  // 100 steps of 100 operations, as above
    for (const char* d : {"samples/events/turned/time", "trajectories/angular_velocity", "samples/final/orientation"}) {
      const auto a = cpu.doubles(d).data, b = gpu.doubles(d).data;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i])) {
          EXPECT_TRUE(std::isnan(b[i])) << integrator << " " << d << " " << i;
          continue;
        }
        ASSERT_NEAR(a[i], b[i], tolerance * (1 + std::abs(a[i]))) << integrator << " " << d << " " << i;
      }
    }
  }
}

// Per-sample load and constraint parameters travel as input columns: the kernel reads them and
// integrates each sample's own spring and pivot as the CPU does.
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
loads.0.stiffness = { distribution = "uniform", min = 20.0, max = 80.0 }
loads.0.anchor = { distribution = "normal", sigma = 0.01 }
constraint.point = { distribution = "normal", sigma = 0.01 }
)";
  run_on_both_backends(parse_scenario(text, "gpu.toml"), precision, dir, 0);
  const ResultsReader cpu(dir.file("cpu.h5")), gpu(dir.file("cuda.h5"));
  EXPECT_EQ(cpu.uint8s("samples/status").data, gpu.uint8s("samples/status").data);
  const double tolerance = 100 * 100 * eps;  // 100 steps of 100 operations
  for (const char* d : {"samples/final/position", "samples/final/angular_velocity", "samples/final/reaction_force"}) {
    const auto a = cpu.doubles(d).data, b = gpu.doubles(d).data;
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tolerance * (1 + std::abs(a[i]))) << d << " " << i;
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

}  // namespace
}  // namespace rbmc

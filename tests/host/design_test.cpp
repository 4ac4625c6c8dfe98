#include <cmath>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/run/run_driver.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

const char* kBase = R"([run]
duration = 0.2
step = 0.01
seed = 3
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
angular_velocity = [0.0, 3.0, 0.0]
)";

const char* kGrid = R"([dispersions]
initial.attitude = { distribution = "random_axis", angle_sigma = 0.01 }
[design]
type = "grid"
replicates = 4
[design.axes]
body.mass = { linspace = [1.0, 3.0, 3] }
initial.angular_velocity = { values = [[0.0, 2.0, 0.0], [0.0, 5.0, 0.0]] }
)";

TEST(GridDesign, SamplesCoverEveryPointTimesTheReplicates) {
  const Scenario s = parse_scenario(std::string(kBase) + kGrid, "g.toml");
  ASSERT_EQ(s.design.kind, Design::Kind::grid);
  EXPECT_EQ(s.design.n_points(), 6u);
  EXPECT_EQ(s.run.n_samples, 24u);
  const SamplingPlan plan(s);
  SampleInputs<double> in;
  double params[3];
  // Sample 13: point 13 / 4 = 3, replicate 1; the first axis varies slowest, so point 3 is
  // (mass index 1, spin index 1): mass 2.0, ω = (0, 5, 0).
  plan.sample(13, in, params);
  EXPECT_EQ(in.body.mass, 2.0);
  EXPECT_EQ(in.initial.omega_b, Vec3<double>(0, 5, 0));
  EXPECT_EQ(s.design.coordinates(13), (std::vector<std::uint64_t>{1, 1}));
  // The replicates of a point share its values and differ in their dispersed attitude.
  SampleInputs<double> other;
  plan.sample(12, other, params);
  EXPECT_EQ(other.body.mass, 2.0);
  EXPECT_NE(other.initial.q_wb.x, in.initial.q_wb.x);
  plan.sample(0, other, params);
  EXPECT_EQ(other.body.mass, 1.0);
  EXPECT_EQ(other.initial.omega_b, Vec3<double>(0, 2, 0));
}

TEST(GridDesign, LogspaceIsGeometric) {
  const Scenario s = parse_scenario(std::string(kBase) + "[design]\ntype = \"grid\"\n[design.axes]\nbody.mass = { logspace = [0.1, 10.0, 3] }\n", "g.toml");
  ASSERT_EQ(s.design.axes[0].values.size(), 3u);
  EXPECT_NEAR(s.design.axes[0].values[1][0], 1.0, 1e-15);
  EXPECT_NEAR(s.design.axes[0].values[2][0], 10.0, 1e-14);
}

TEST(GridDesign, BadDesignsNameTheKey) {
  const auto key_of = [](const std::string& text) {
    try {
      parse_scenario(std::string(kBase) + text, "g.toml");
    } catch (const ScenarioError& e) {
      return e.key_path();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(key_of("[design]\ntype = \"sobolev\"\n"), "design.type");
  EXPECT_EQ(key_of("[design]\ntype = \"grid\"\n"), "design.axes");
  EXPECT_EQ(key_of("[design]\ntype = \"grid\"\n[design.axes]\nbody.density = { values = [1.0] }\n"), "design.axes.body.density");
  EXPECT_EQ(key_of("[design]\ntype = \"grid\"\n[design.axes]\nbody.mass = { linspace = [1.0, 2.0, 1] }\n"),
            "design.axes.body.mass.linspace");
  EXPECT_EQ(key_of("[design]\ntype = \"grid\"\n[design.axes]\nbody.mass = { logspace = [0.0, 2.0, 3] }\n"),
            "design.axes.body.mass.logspace");
  EXPECT_EQ(key_of("[dispersions]\nbody.mass = { distribution = \"normal\", sigma = 0.1 }\n[design]\ntype = \"grid\"\n"
                   "[design.axes]\nbody.mass = { values = [1.0, 2.0] }\n"),
            "design.axes.body.mass");
  // run.samples, when given, must be the grid's count.
  try {
    parse_scenario(std::string("[run]\nsamples = 5\n") + std::string(kBase).substr(6) + kGrid, "g.toml");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("6 points x 4 replicates = 24"), std::string::npos) << e.what();
  }
}

TEST(GridDesign, TheFileRecordsEachSamplesGridCoordinates) {
  test::TempDir dir;
  RunOptions o;
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.output = dir.file("g.h5");
  run_scenario(parse_scenario(std::string(kBase) + kGrid, "g.toml"), o);
  const ResultsReader r(o.output);
  EXPECT_EQ(r.string_attribute("", "design"), "grid");
  EXPECT_EQ(r.number_attribute("", "grid_points"), 6);
  const auto index = r.doubles("samples/grid_index");
  ASSERT_EQ(index.shape, (std::vector<std::uint64_t>{24, 2}));
  EXPECT_EQ(index.data[13 * 2 + 0], 1);
  EXPECT_EQ(index.data[13 * 2 + 1], 1);
  EXPECT_EQ(r.doubles("samples/grid/body.mass").data[13], 2.0);
  EXPECT_EQ(r.doubles("samples/body/mass").data[13], 2.0);
  EXPECT_EQ(r.doubles("samples/grid/initial.angular_velocity").data[13 * 3 + 1], 5.0);
}

}  // namespace
}  // namespace rbmc

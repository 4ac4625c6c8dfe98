// Statistics at the output times (host/stats/run_statistics.cpp, written by the run) against the
// same numbers computed directly from every sample's trajectory in the file; retained subsets of
// trajectories by each rule.
#include "host/stats/run_statistics.hpp"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/run/run_driver.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

const std::string kThrown = R"([run]
samples = 1500
seed = 5
duration = 2.0
step = 0.01
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
angular_velocity = [0.1, 3.0, 0.1]
velocity = [1.0, 0.0, 3.0]
[gravity]
acceleration = [0.0, 0.0, -9.81]
[dispersions]
initial.angular_velocity = { distribution = "normal", sigma = 0.1 }
initial.velocity = { distribution = "normal", sigma = 0.2 }
body.mass = { distribution = "uniform", half_width = 0.2 }
[[events]]
name = "high"
type = "point_crossing"
axis = "z"
value = 0.5
direction = "rising"
)";

std::string run(const test::TempDir& dir, const std::string& name, const std::string& output, std::size_t batch = 0) {
  RunOptions o;
  o.output = dir.file(name);
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.batch_size = batch;
  o.overwrite = true;
  run_scenario(parse_scenario(kThrown + output, name + ".toml"), o);
  return o.output;
}

// Column j of a (N, T, dim) array at time k.
std::vector<double> slice(const Array<double>& a, std::size_t k, std::size_t j) {
  const std::size_t n = a.shape[0], t = a.shape[1], dim = a.shape[2];
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(a.data[(i * t + k) * dim + j]);
  return out;
}

TEST(QuantileOfSorted, IsNumpysLinearInterpolation) {
  const std::vector<double> x = {1, 2, 3, 4};
  EXPECT_EQ(quantile_of_sorted(x, 0.5), 2.5);
  EXPECT_NEAR(quantile_of_sorted(x, 0.01), 1.03, 1e-15);  // numpy.quantile([1,2,3,4], 0.01)
  EXPECT_EQ(quantile_of_sorted(x, 1.0), 4);
  EXPECT_EQ(quantile_of_sorted({7.0}, 0.3), 7);
  EXPECT_TRUE(std::isnan(quantile_of_sorted({}, 0.5)));
}

// Mean, sd, min, max and quantiles of position and velocity at every output time equal the
// values computed from all trajectories: moments to rounding (a few ε of the spread), order
// statistics exactly. Batch size changes moments only at rounding and order statistics not at all.
TEST(RunStatistics, EqualTheValuesComputedFromEveryTrajectory) {
  test::TempDir dir;
  const std::string path = run(dir, "a.h5", "[output]\ninterval = 0.25\n", 400);
  const ResultsReader r(path);
  for (const char* q : {"position", "velocity"}) {
    const Array<double> x = r.doubles(std::string("trajectories/") + q);
    const Array<double> mean = r.doubles(std::string("statistics/") + q + "/mean"),
                        sd = r.doubles(std::string("statistics/") + q + "/sd"),
                        lo = r.doubles(std::string("statistics/") + q + "/min"),
                        quantiles = r.doubles(std::string("statistics/") + q + "/quantiles");
    ASSERT_EQ(quantiles.shape, (std::vector<std::uint64_t>{9, 5, 3}));
    for (std::size_t k = 0; k < 9; ++k)
      for (std::size_t j = 0; j < 3; ++j) {
        std::vector<double> v = slice(x, k, j);
        double m = 0, s = 0;
        for (double e : v) m += e / double(v.size());
        for (double e : v) s += (e - m) * (e - m) / double(v.size() - 1);
        const double spread = std::sqrt(s) + std::abs(m);
        EXPECT_NEAR(mean.data[k * 3 + j], m, 1e-13 * spread) << q << k << j;
        EXPECT_NEAR(sd.data[k * 3 + j], std::sqrt(s), 1e-12 * spread) << q << k << j;
        std::sort(v.begin(), v.end());
        EXPECT_EQ(lo.data[k * 3 + j], v.front());
        for (std::size_t p = 0; p < 5; ++p)
          EXPECT_EQ(quantiles.data[(k * 5 + p) * 3 + j], quantile_of_sorted(v, kQuantileProbabilities[p]));
      }
  }
  EXPECT_EQ(r.doubles("statistics/kinetic_energy/count").data.front(), 1500);
  // The nominal sample's attitude angle from itself is zero at t = 0 for every sample (no attitude dispersion).
  EXPECT_EQ(r.doubles("statistics/attitude_angle/max").data.front(), 0.0);
  const std::string other = run(dir, "b.h5", "[output]\ninterval = 0.25\n", 1500);
  const ResultsReader b(other);
  const auto m1 = r.doubles("statistics/angular_velocity/sd").data, m2 = b.doubles("statistics/angular_velocity/sd").data;
  for (std::size_t i = 0; i < m1.size(); ++i) EXPECT_NEAR(m1[i], m2[i], 1e-13 * m1[i]);
  EXPECT_EQ(r.doubles("statistics/position/quantiles").data, b.doubles("statistics/position/quantiles").data);
}

// Over the memory budget, quantiles come from a sketch per column, fed every sample; each
// estimate's rank in the full set lies within the recorded 95 % bound. Checked with the same
// Hoeffding bound at 99.99 % (√(ln(2/1e-4) / ln 40) times the 95 % one), which every one of the
// 135 estimates meets unless something is wrong (a 1e-4 chance each).
TEST(RunStatistics, SketchedQuantilesStayWithinTheirRankBound) {
  test::TempDir dir;
  // 1500 samples × 9 times × 12 quantities × 8 bytes = 1.3 MB against a 1 MiB budget.
  const std::string path = run(dir, "q.h5", "[output]\ninterval = 0.25\nquantile_memory_mb = 1\n");
  const ResultsReader r(path);
  EXPECT_EQ(r.number_attribute("statistics", "quantile_samples"), 1500);
  EXPECT_NE(r.string_attribute("statistics", "quantile_method").find("sketch"), std::string::npos);
  const Array<double> x = r.doubles("trajectories/position"), est = r.doubles("statistics/position/quantiles");
  const std::vector<double> recorded = r.doubles("statistics/position/quantile_rank_error_95").data;
  ASSERT_EQ(recorded.size(), 27u);
  // The bound depends on the compactions alone, so on the count: the same for every column here.
  for (double b : recorded) EXPECT_EQ(b, recorded[0]);
  for (std::size_t k = 0; k < 9; ++k)
    for (std::size_t j = 0; j < 3; ++j) {
      const std::vector<double> v = slice(x, k, j);
      const double bound = recorded[k * 3 + j] * std::sqrt(std::log(2 / 1e-4) / std::log(40.0));
      EXPECT_LT(recorded[k * 3 + j], 0.1);
      for (std::size_t p = 0; p < 5; ++p) {
        const double q = est.data[(k * 5 + p) * 3 + j];
        // The rank of q is the interval [F(q−), F(q)] (ties); the sketch aims at p (n − 1) / n.
        const double n = double(v.size()), target = kQuantileProbabilities[p] * (n - 1) / n;
        const double below = double(std::count_if(v.begin(), v.end(), [&](double e) { return e < q; })) / n;
        const double at_or_below = double(std::count_if(v.begin(), v.end(), [&](double e) { return e <= q; })) / n;
        EXPECT_GE(target, below - bound - 1 / n) << k << j << p;
        EXPECT_LE(target, at_or_below + bound) << k << j << p;
      }
    }
}

// Each retention rule keeps the samples it names, in index order, and statistics still cover all.
TEST(TrajectoryRetention, EachRuleKeepsItsSamples) {
  test::TempDir dir;
  const auto kept = [&](const std::string& rule) {
    const std::string path = run(dir, "r.h5", "[output]\ninterval = 0.5\ntrajectories = " + rule + "\n", 256);
    const ResultsReader r(path);
    EXPECT_EQ(r.doubles("statistics/position/count").data.front(), 1500) << rule;
    const auto index = r.uint64s("trajectories/sample_index").data;
    EXPECT_EQ(r.number_attribute("", "n_trajectories"), double(index.size()));
    EXPECT_EQ(r.doubles("trajectories/position").shape.front(), index.size());
    return index;
  };
  EXPECT_EQ(kept("{ every = 500 }"), (std::vector<std::uint64_t>{0, 500, 1000}));
  EXPECT_EQ(kept("{ samples = [1499, 3, 700] }"), (std::vector<std::uint64_t>{3, 700, 1499}));
  EXPECT_EQ(kept("{ limit = 4 }"), (std::vector<std::uint64_t>{0, 1, 2, 3}));
  // The event "high" (z rising through 0.5 m): samples launched fast enough, which the file says.
  const std::string all = run(dir, "all.h5", "[output]\ninterval = 0.5\n", 256);
  const ResultsReader a(all);
  const auto count = a.doubles("samples/events/high/count").data;
  const auto vz = a.doubles("samples/initial/velocity").data, pz = a.doubles("samples/final/position").data;
  std::vector<std::uint64_t> with_event, low_final;
  for (std::size_t i = 0; i < count.size(); ++i) {
    if (count[i] > 0) with_event.push_back(i);
    if (pz[3 * i + 2] >= -1.0 && pz[3 * i + 2] <= 0.0) low_final.push_back(i);
  }
  ASSERT_FALSE(with_event.empty());
  EXPECT_EQ(kept("{ event = \"high\" }"), with_event);
  EXPECT_EQ(kept("{ final = \"position.z\", min = -1.0, max = 0.0 }"), low_final);
  EXPECT_EQ(kept("{ event = \"high\", limit = 2 }"), (std::vector<std::uint64_t>{with_event[0], with_event[1]}));
  EXPECT_TRUE(kept("{ status = \"terminal_event\" }").empty());
  EXPECT_EQ(kept("{ status = \"ok\" }").size(), 1500u);
  (void)vz;
  // "none": no trajectories at all, statistics still there.
  const std::string none = run(dir, "n.h5", "[output]\ninterval = 0.5\ntrajectories = \"none\"\n");
  const ResultsReader n(none);
  EXPECT_FALSE(n.has("trajectories/position"));
  EXPECT_TRUE(n.has("statistics/position/mean"));
  const std::string off = run(dir, "o.h5", "[output]\ninterval = 0.5\nstatistics = false\n");
  EXPECT_FALSE(ResultsReader(off).has("statistics"));
}

TEST(TrajectoryRetention, BadRulesNameTheKey) {
  const auto key_of = [](const std::string& output) {
    try {
      parse_scenario(kThrown + "[output]\ninterval = 0.5\n" + output, "bad.toml");
    } catch (const ScenarioError& e) {
      return e.key_path();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(key_of("trajectories = \"some\"\n"), "output.trajectories");
  EXPECT_EQ(key_of("trajectories = { every = 0 }\n"), "output.trajectories.every");
  EXPECT_EQ(key_of("trajectories = { event = \"low\" }\n"), "output.trajectories.event");
  EXPECT_EQ(key_of("trajectories = { status = \"fine\" }\n"), "output.trajectories.status");
  EXPECT_EQ(key_of("trajectories = { final = \"position.w\", min = 0.0, max = 1.0 }\n"), "output.trajectories.final");
  EXPECT_EQ(key_of("trajectories = { final = \"position.z\", min = 0.0 }\n"), "output.trajectories.max");
  EXPECT_EQ(key_of("trajectories = { every = 2, limit = 3, colour = 1 }\n"), "output.trajectories.colour");
  EXPECT_EQ(key_of("trajectories = { every = 2, samples = [1] }\n"), "output.trajectories.every");
  EXPECT_EQ(key_of("statistics = 1\n"), "output.statistics");
  EXPECT_EQ(key_of("quantile_memory_mb = 0\n"), "output.quantile_memory_mb");
  EXPECT_EQ(key_of("trajectories = { every = 2, limit = 3 }\nstatistics = false\n"), "(accepted)");
}

}  // namespace
}  // namespace rbmc

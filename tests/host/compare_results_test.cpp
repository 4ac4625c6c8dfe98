// rbmc compare's tests and verdicts (host/analysis): the two-sample tests against hand-computed
// values and their calibration, and the verdicts the issue asks for on real runs.
#include "host/analysis/compare_results.hpp"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "host/analysis/two_sample_tests.hpp"
#include "host/run/run_driver.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

TEST(TwoSampleTests, KolmogorovSmirnovStatisticByHand) {
  EXPECT_NEAR(ks_two_sample({1, 2, 3}, {2.5, 4}).statistic, 2.0 / 3.0, 1e-15);  // at x = 2: 2/3 − 0
  EXPECT_EQ(ks_two_sample({1, 1, 2}, {1, 1, 2}).statistic, 0);                  // ties step together
  EXPECT_EQ(ks_two_sample({1, 2}, {3, 4}).statistic, 1);
  EXPECT_EQ(ks_two_sample({1, NAN, 2}, {1, 2}).statistic, 0);                   // NaN dropped
}

TEST(TwoSampleTests, HolmAdjustment) {
  const auto p = holm_adjusted({0.01, 0.04, 0.03, 0.005, NAN});
  EXPECT_NEAR(p[0], 0.03, 1e-15);  // 3 × 0.01
  EXPECT_NEAR(p[1], 0.06, 1e-15);  // max(2 × 0.03, 1 × 0.04)
  EXPECT_NEAR(p[2], 0.06, 1e-15);
  EXPECT_NEAR(p[3], 0.02, 1e-15);  // 4 × 0.005
  EXPECT_TRUE(std::isnan(p[4]));
}

// Under the null hypothesis p-values are uniform: of 400 pairs of same-distribution samples about
// 5 % fall below 0.05 (binomial sd 4.4: [6, 38] holds with probability above 1 − 1e-4); a shift of
// 0.3 σ (8 standard errors for 1500 + 1500) is found every time.
TEST(TwoSampleTests, CalibratedUnderTheNullAndPowerfulAgainstAShift) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0, 1);
  std::exponential_distribution<double> heavy(1.0);
  int ks = 0, mean = 0, spread = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<double> a(1500), b(1500);
    for (double& x : a) x = heavy(rng);
    for (double& x : b) x = heavy(rng);
    ks += ks_two_sample(a, b).p_value < 0.05;
    mean += welch_means(a, b).p_value < 0.05;
    spread += brown_forsythe_spread(a, b).p_value < 0.05;
  }
  for (int count : {ks, mean, spread}) {
    EXPECT_GE(count, 6);
    EXPECT_LE(count, 38);
  }
  std::vector<double> a(1500), b(1500), c(1500);
  for (double& x : a) x = normal(rng);
  for (double& x : b) x = normal(rng) + 0.3;
  for (double& x : c) x = 1.5 * normal(rng);
  EXPECT_LT(ks_two_sample(a, b).p_value, 1e-8);
  EXPECT_LT(welch_means(a, b).p_value, 1e-8);
  EXPECT_LT(brown_forsythe_spread(a, c).p_value, 1e-8);
  EXPECT_GT(brown_forsythe_spread(a, b).p_value, 1e-3);  // a shift is not a change of spread
}

const std::string kScenario = R"([run]
samples = 2000
duration = 1.0
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
initial.velocity = { distribution = "normal", mean = [1.0, 0.0, VZ], sigma = 0.2 }
)";

std::string run(const test::TempDir& dir, const std::string& name, std::uint64_t seed, unsigned threads,
                std::size_t batch, const std::string& vz = "3.0") {
  std::string text = kScenario;
  text.replace(text.find("VZ"), 2, vz);
  RunOptions o;
  o.output = dir.file(name);
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.threads = threads;
  o.batch_size = batch;
  o.seed = seed;
  run_scenario(parse_scenario(text, "c.toml"), o);
  return o.output;
}

TEST(CompareResults, VerdictsOnRealRuns) {
  test::TempDir dir;
  const std::string a = run(dir, "a.h5", 1, 1, 2000), b = run(dir, "b.h5", 1, 2, 77);
  const CompareOptions strict, statistical{true};
  // Thread count and batch size change nothing: identical, sample by sample.
  const Comparison same = compare_results(a, b, strict);
  EXPECT_TRUE(same.pass);
  EXPECT_EQ(same.n_common, 2000u);
  for (const ComponentComparison& r : same.components) EXPECT_EQ(r.max_abs, 0) << r.name;
  // Another seed: other samples, the same distributions.
  const std::string c = run(dir, "c.h5", 2, 2, 0);
  const Comparison seeds = compare_results(a, c, strict);
  EXPECT_FALSE(seeds.pass);
  EXPECT_TRUE(seeds.distribution_pass);
  EXPECT_TRUE(compare_results(a, c, statistical).pass);
  // A mean shifted by 0.04 m/s: 6 standard errors of the difference of means (0.2 √(2/2000)).
  const std::string d = run(dir, "d.h5", 2, 2, 0, "3.04");
  const Comparison biased = compare_results(a, d, statistical);
  EXPECT_FALSE(biased.pass);
  bool velocity_flagged = false;
  for (const ComponentComparison& r : biased.components)
    if (r.name == "final/velocity[z]") velocity_flagged = r.mean_adjusted < statistical.alpha;
  EXPECT_TRUE(velocity_flagged);
}

}  // namespace
}  // namespace rbmc

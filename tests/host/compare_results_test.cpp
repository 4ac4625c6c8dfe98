// rbmc compare's statistics and verdicts (host/analysis): the equivalence tests against
// hand-computed cases, and the verdicts on real runs: rounding never fails, chaos is recognised,
// and planted faults (a biased input, a wrong load sign on 1 % of the samples, another seed,
// float where float loses the answer) fail.
#include "host/analysis/compare_results.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <cstring>
#include <random>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include "host/analysis/results_info.hpp"
#include "host/analysis/rounding_sensitivity.hpp"
#include "host/analysis/two_sample_tests.hpp"
#include "host/analysis/validate_run.hpp"
#include "host/errors.hpp"
#include "host/io/h5_write.hpp"
#include "host/run/run_driver.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "rbmc/sample/run_sample.hpp"
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

// Two one-sided tests. Two samples of 4000 standard normals: the mean difference has se
// √(2/4000) = 0.022, the median's about 1.25 × that, the 5 % quantile's about 2.1 × that. With
// a margin of 0.25, a shift of 0.05 leaves every bound below 0.05 + 1.645 × 0.047 = 0.13 < 0.25
// (equivalent); a shift of 0.5 is beyond the margin whatever the noise (not equivalent).
TEST(TwoSampleTests, EquivalenceWithinAndBeyondTheMargin) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0, 1);
  std::vector<double> a(4000), b(4000), c(4000);
  for (double& x : a) x = normal(rng);
  for (double& x : b) x = normal(rng) + 0.05;
  for (double& x : c) x = normal(rng) + 0.5;
  EXPECT_TRUE(mean_equivalence(a, b, 0.25, 0.05).equivalent);
  EXPECT_FALSE(mean_equivalence(a, c, 0.25, 0.05).equivalent);
  EXPECT_NEAR(mean_equivalence(a, c, 0.25, 0.05).difference, 0.5, 5 * 0.022);
  for (double p : {0.05, 0.5, 0.95}) {
    EXPECT_TRUE(quantile_equivalence(a, b, p, 0.25, 0.0, 0.05).equivalent) << p;
    EXPECT_FALSE(quantile_equivalence(a, c, p, 0.25, 0.0, 0.05).equivalent) << p;
  }
  // Paired differences of rounding size: equivalent within a margin a million times larger.
  std::vector<double> d(1000);
  for (double& x : d) x = 1e-15 * normal(rng);
  EXPECT_TRUE(paired_mean_equivalence(d, 1e-9, 0.05).equivalent);
  EXPECT_FALSE(paired_mean_equivalence(std::vector<double>(1000, 1e-8), 1e-9, 0.05).equivalent);
}

// The tests on values sorted once (rbmc compare sorts each component's finite values once) give
// the bits the tests on the raw values give, NaN and infinities dropped by both.
TEST(TwoSampleTests, TheSortedFormsGiveTheSameBits) {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal(0, 1);
  std::vector<double> a(3001), b(2500);
  for (double& x : a) x = normal(rng);
  for (double& x : b) x = 1.1 * normal(rng) + 0.03;
  a[17] = NAN;
  b[3] = INFINITY;
  b[4] = a[5];  // a tie across the samples
  std::vector<double> sa, sb;
  for (double x : a)
    if (std::isfinite(x)) sa.push_back(x);
  for (double x : b)
    if (std::isfinite(x)) sb.push_back(x);
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  const auto bits = [](double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  };
  const TestResult ks = ks_two_sample(a, b), ks_sorted = ks_two_sample_sorted(sa, sb);
  EXPECT_EQ(bits(ks.statistic), bits(ks_sorted.statistic));
  EXPECT_EQ(bits(ks.p_value), bits(ks_sorted.p_value));
  EXPECT_GT(ks.statistic, 0.0);
  for (double p : {0.05, 0.5, 0.95}) {
    const QuantileEquivalence q = quantile_equivalence(a, b, p, 0.1, 0.02, 0.05),
                              s = quantile_equivalence_sorted(sa, sb, p, 0.1, 0.02, 0.05);
    EXPECT_EQ(bits(q.difference), bits(s.difference)) << p;
    EXPECT_EQ(bits(q.bound), bits(s.bound)) << p;
    EXPECT_EQ(bits(q.rank_shift), bits(s.rank_shift)) << p;
    EXPECT_EQ(bits(q.rank_bound), bits(s.rank_bound)) << p;
    EXPECT_EQ(q.equivalent, s.equivalent) << p;
  }
}

// A separation that starts at 1e-12 and grows as e^{2t} until it saturates near 1 after about
// 13.8 s: the rate comes back as 2/s.
TEST(RoundingSensitivity, GrowthRateOfASaturatingSeparation) {
  std::vector<double> t, d;
  for (int k = 0; k <= 200; ++k) {
    t.push_back(0.1 * k);
    d.push_back(std::min(1.0, 1e-12 * std::exp(2 * t.back())));
  }
  EXPECT_NEAR(separation_growth_rate(t, d), 2.0, 0.02);
  EXPECT_EQ(separation_growth_rate(t, std::vector<double>(t.size(), 0.0)), 0.0);
}

std::string read_config(const std::string& name) {
  std::ifstream in(std::string(RBMC_SOURCE_DIR) + "/configs/" + name + ".toml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text up to (not including) its [output] table: no statistics or trajectories.
std::string without_output(std::string text) {
  const std::size_t at = text.find("\n[output]");
  return at == std::string::npos ? text : text.substr(0, at + 1);
}

std::string run_file(const test::TempDir& dir, const std::string& name, const std::string& text, std::uint64_t samples,
                     Precision precision = Precision::float64, unsigned threads = 2, std::size_t batch = 0) {
  RunOptions o;
  o.output = dir.file(name);
  o.backend = BackendChoice::cpu;
  o.precision = precision;
  o.progress = false;
  o.threads = threads;
  o.batch_size = batch;
  o.samples = samples;
  run_scenario(parse_scenario(text, name + ".toml"), o);
  return o.output;
}

// What rbmc info prints of a file, as text.
std::string printed_info(const test::TempDir& dir, const ResultsInfo& info) {
  const std::string path = dir.file("info.txt");
  std::FILE* f = std::fopen(path.c_str(), "w");
  print_results_info(info, f);
  std::fclose(f);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Adds delta to one value of a dataset (its flat index), as a fault in one sample would.
void plant_difference(const std::string& path, const char* dataset, std::size_t index, double delta) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t ds = H5Dopen2(file, dataset, H5P_DEFAULT);
  const hid_t space = H5Dget_space(ds);
  std::vector<double> data(std::size_t(H5Sget_simple_extent_npoints(space)));
  H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  ASSERT_LT(index, data.size());
  data[index] += delta;
  H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  H5Sclose(space);
  H5Dclose(ds);
  H5Fclose(file);
}

// Overwrites some rows of a results file's dataset, as a faulty or an older build would have
// written them: component c of row rows[r] from value_of(finals[r], c).
template <class ValueOf>
void plant_rows(const std::string& path, const char* dataset, const std::vector<std::size_t>& rows,
                const std::vector<SampleResult<double>>& finals, ValueOf value_of, std::size_t dim) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t ds = H5Dopen2(file, dataset, H5P_DEFAULT);
  const hid_t space = H5Dget_space(ds);
  std::vector<double> data(std::size_t(H5Sget_simple_extent_npoints(space)));
  H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < dim; ++c) data[rows[r] * dim + c] = value_of(finals[r], c);
  H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  H5Sclose(space);
  H5Dclose(ds);
  H5Fclose(file);
}

// Overwrites the final state of some rows of a results file: p, q, v, ω and time of each row
// from `finals`.
void plant_final_states(const std::string& path, const std::vector<std::size_t>& rows,
                        const std::vector<SampleResult<double>>& finals) {
  using F = const SampleResult<double>&;
  plant_rows(path, "samples/final/position", rows, finals, [](F f, std::size_t c) { return f.final_state.p_w(c); }, 3);
  plant_rows(path, "samples/final/orientation", rows, finals, [](F f, std::size_t c) {
    const Quaternion<double>& q = f.final_state.q_wb;
    return c == 0 ? q.w : c == 1 ? q.x : c == 2 ? q.y : q.z;
  }, 4);
  plant_rows(path, "samples/final/velocity", rows, finals, [](F f, std::size_t c) { return f.final_state.v_w(c); }, 3);
  plant_rows(path, "samples/final/angular_velocity", rows, finals,
             [](F f, std::size_t c) { return f.final_state.omega_b(c); }, 3);
  plant_rows(path, "samples/final/time", rows, finals, [](F f, std::size_t) { return f.time; }, 1);
}

// Sample k of a scenario integrated on the CPU in double, its initial state optionally scaled.
SampleResult<double> integrate_sample(const Scenario& s, std::uint64_t k, double relative_nudge = 0) {
  const SamplingPlan plan(s);
  std::vector<double> params(std::size_t(plan.n_parameter_values()) + 1);
  SampleInputs<double> in;
  plan.sample(k, in, params.data());
  in.initial.omega_b *= 1 + relative_nudge;
  return run_sample(in, s.shared_model(), s.integration());
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
body.mass = { distribution = "normal", mean = MASS, sigma = 0.02 }
initial.angular_velocity = { distribution = "normal", sigma = 0.1 }
initial.velocity = { distribution = "normal", sigma = 0.2 }
)";

std::string scenario_with_mass(const std::string& mass) {
  std::string text = kScenario;
  text.replace(text.find("MASS"), 4, mass);
  return text;
}

TEST(CompareResults, SameSamplesAnyThreadsOrBatchesAreIdentical) {
  test::TempDir dir;
  const std::string text = scenario_with_mass("2.0");
  const std::string a = run_file(dir, "a.h5", text, 2000, Precision::float64, 1, 2000);
  const std::string b = run_file(dir, "b.h5", text, 2000, Precision::float64, 2, 77);
  const Comparison same = compare_results(a, b, {});
  EXPECT_TRUE(same.pass);
  EXPECT_TRUE(same.per_sample_pass);
  EXPECT_EQ(same.n_common, 2000u);
  for (const ComponentComparison& r : same.components) EXPECT_EQ(r.max_abs, 0) << r.name;
  // The derived tolerance: 100 ε √n for n = 100 steps of double.
  EXPECT_DOUBLE_EQ(same.tolerance.rtol, 100 * 0x1p-53 * 10);
}

// Adaptive steps: the tolerance is 100 × dopri5's rtol, and the report says why in full (a
// 64-byte buffer once cut it to "(two step sequences, each within )").
TEST(CompareResults, AdaptiveStepsToleranceIsDerivedInFull) {
  test::TempDir dir;
  std::string text = scenario_with_mass("2.0");
  text.replace(text.find("step = 0.01\n"), 12, "step = 0.01\nintegrator = \"dopri5\"\nrtol = 1e-8\natol = 1e-9\n");
  const std::string a = run_file(dir, "a.h5", text, 200, Precision::float64, 1);
  const std::string b = run_file(dir, "b.h5", text, 200, Precision::float64, 2, 33);
  const Comparison same = compare_results(a, b, {});
  EXPECT_TRUE(same.pass);
  EXPECT_DOUBLE_EQ(same.tolerance.rtol, 1e-6);
  EXPECT_EQ(same.tolerance.derivation,
            "100 x the adaptive rtol 1e-08 (two step sequences, each within its global error)");
}

// A file drawn by a build whose draws differ (another draw revision: a newer build redraws what
// an older one kept, bench/RESULTS.md 2026-12-07) holds other inputs for some samples of the same
// scenario and seed: the reason names the revisions, not another seed. (The older file is
// emulated: a sample's drawn mass moved, the revision attribute taken away, as before revision 2.)
TEST(CompareResults, FilesOfBuildsWhoseDrawsDifferAreToldSo) {
  test::TempDir dir;
  const std::string text = scenario_with_mass("2.0");
  const std::string a = run_file(dir, "a.h5", text, 200), b = run_file(dir, "b.h5", text, 200);
  plant_difference(b, "samples/params/body.mass", 3, 0.01);
  plant_difference(b, "samples/body/mass", 3, 0.01);
  const Comparison same_build = compare_results(a, b, {});
  ASSERT_FALSE(same_build.reasons.empty());
  EXPECT_NE(same_build.reasons.front().find("not hold the same samples"), std::string::npos) << same_build.reasons.front();
  test::remove_attribute(b, "draw_revision");
  const Comparison builds = compare_results(a, b, {});
  EXPECT_FALSE(builds.pass);
  EXPECT_EQ(builds.input_mismatches, 1u);
  ASSERT_FALSE(builds.reasons.empty());
  EXPECT_NE(builds.reasons.front().find("1 common samples have other inputs: the files were drawn by builds whose draws "
                                        "differ (draw revision " + std::to_string(kDrawRevision) + " against 1"),
            std::string::npos)
      << builds.reasons.front();
}

// Another seed: other samples. Per sample it fails, and says why (the inputs differ); as
// distributions the runs agree.
TEST(CompareResults, AnotherSeedFailsPerSampleAndPassesAsDistributions) {
  test::TempDir dir;
  const std::string text = scenario_with_mass("2.0");
  const std::string a = run_file(dir, "a.h5", text, 2000);
  std::string other = text;
  other.replace(other.find("[run]\n"), 6, "[run]\nseed = 99\n");
  const std::string c = run_file(dir, "c.h5", other, 2000);
  const Comparison seeds = compare_results(a, c, {});
  EXPECT_FALSE(seeds.pass);
  EXPECT_GT(seeds.input_mismatches, 1900u);
  ASSERT_FALSE(seeds.reasons.empty());
  EXPECT_NE(seeds.reasons.front().find("not hold the same samples"), std::string::npos) << seeds.reasons.front();
  CompareOptions statistical;
  statistical.statistical = true;
  const Comparison distributions = compare_results(a, c, statistical);
  EXPECT_TRUE(distributions.pass);
  if (!distributions.pass) print_comparison(distributions, statistical, stdout);
}

// One run stored in float64 and in float32 ([output] storage): the same samples, whose stored
// inputs differ by float32's rounding alone (within 2⁻²⁴ of each value). Per sample it passes
// either way round, the inputs judged at that rounding and the results at float32's ε; another
// seed stored in float32 still holds other samples.
TEST(CompareResults, AFloat32StoredRunHoldsTheSameSamplesAsItsFloat64Run) {
  test::TempDir dir;
  const std::string text = scenario_with_mass("2.0"), stored_float32 = text + "\n[output]\nstorage = \"float32\"\n";
  const std::string a = run_file(dir, "a.h5", text, 2000), b = run_file(dir, "b.h5", stored_float32, 2000);
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    const Comparison c = compare_results(x, y, {});
    if (!c.pass) print_comparison(c, {}, stdout);
    EXPECT_TRUE(c.pass);
    EXPECT_EQ(c.input_mismatches, 0u);
    EXPECT_EQ(c.tolerance.input_rtol, 0x1p-24);
    EXPECT_EQ(c.tolerance.epsilon, 0x1p-24);  // the results' rounding too, though both ran in double
    bool mass_seen = false;
    for (const ComponentComparison& r : c.components)
      if (r.name == "body/mass") {
        mass_seen = true;
        EXPECT_GT(r.max_abs, 0);  // rounded: the inputs were judged at float32's rounding, not equal
        EXPECT_LE(r.max_abs, 0x1p-24 * 2.2);  // |m| < 2.2 in all 2,000 samples (sd 0.02 about 2.0)
      }
    EXPECT_TRUE(mass_seen);
  }
  std::string other = stored_float32;
  other.replace(other.find("[run]\n"), 6, "[run]\nseed = 99\n");
  const Comparison seeds = compare_results(a, run_file(dir, "c.h5", other, 2000), {});
  EXPECT_FALSE(seeds.pass);
  EXPECT_GT(seeds.input_mismatches, 1900u);
  // Two float64 files judge their inputs at 1e-12, as before.
  EXPECT_EQ(compare_results(a, a, {}).tolerance.input_rtol, 1e-12);
}

// A 0.5 % bias in a dispersed input (the mass's mean 2.0 → 2.01, half its 1 % sd): per sample
// the inputs differ; as distributions the mass is half a standard deviation off, twice the margin.
TEST(CompareResults, ABiasedInputFails) {
  test::TempDir dir;
  const std::string a = run_file(dir, "a.h5", scenario_with_mass("2.0"), 2000);
  const std::string d = run_file(dir, "d.h5", scenario_with_mass("2.01"), 2000);
  const Comparison per_sample = compare_results(a, d, {});
  EXPECT_FALSE(per_sample.pass);
  EXPECT_EQ(per_sample.input_mismatches, 2000u);
  CompareOptions statistical;
  statistical.statistical = true;
  const Comparison biased = compare_results(a, d, statistical);
  EXPECT_FALSE(biased.pass);
  for (const ComponentComparison& r : biased.components)
    if (r.name == "body/mass") {
      EXPECT_FALSE(r.equivalent);
      EXPECT_NEAR(r.mean.difference, 0.01, 5 * 0.02 * std::sqrt(2.0 / 2000));
    }
}

// A wrong sign in one load term on 1 % of the samples: the body torque's sign flipped on 20 of
// 2000 samples of a body spinning about its major axis (not chaotic). Their finals are far off,
// and a rounding-size nudge does not move them: a real difference.
TEST(CompareResults, AWrongLoadSignOnOnePercentOfTheSamplesFails) {
  test::TempDir dir;
  const std::string base = scenario_with_mass("2.0") + "\n[[loads]]\ntype = \"torque\"\ntorque = [0.0, 0.0, TZ]\nframe = \"body\"\n";
  std::string right = base, wrong = base;
  right.replace(right.find("TZ"), 2, "0.05");
  wrong.replace(wrong.find("TZ"), 2, "-0.05");
  const std::string a = run_file(dir, "a.h5", right, 2000), b = dir.file("b.h5");
  std::filesystem::copy_file(a, b);
  const Scenario faulty = parse_scenario(wrong, "wrong.toml");
  std::vector<std::size_t> rows;
  std::vector<SampleResult<double>> finals;
  for (std::size_t k = 0; k < 2000; k += 100) {
    rows.push_back(k);
    finals.push_back(integrate_sample(faulty, k));
  }
  plant_final_states(b, rows, finals);
  const Comparison c = compare_results(a, b, {});
  EXPECT_FALSE(c.pass);
  EXPECT_FALSE(c.chaotic);
  EXPECT_EQ(c.mismatched_samples.size(), 20u);
  EXPECT_EQ(c.sensitivity.checked, 20u);
  EXPECT_EQ(c.sensitivity.sensitive, 0u);
  ASSERT_FALSE(c.reasons.empty());
  EXPECT_NE(c.reasons.back().find("a real difference"), std::string::npos) << c.reasons.back();
  // As distributions the fault is below the practical margin: those samples' ω_z is 0.4 rad/s
  // off (0.05 N m × 1 s / 0.25 kg m², twice), 4 sd of the 0.1 rad/s spread, so the mean moves by
  // 0.04 sd and the quantiles by at most 1 % in probability. --statistical passes; the per-sample
  // verdict above is the one that finds it (docs/compare.md says so).
  CompareOptions statistical;
  statistical.statistical = true;
  EXPECT_TRUE(compare_results(a, b, statistical).pass);
}

// Chaos: the default scenario's box tumbles about its intermediate axis. Samples whose rerun from
// a state nudged by 1e-14 ends beyond the tolerance stand in for what another build's rounding
// does; planted into a copy of the file (1 %), the comparison recognises them as sensitive,
// gives their growth rate, and passes on the distributions.
TEST(CompareResults, ChaosIsRecognisedNotReportedAsFailure) {
  test::TempDir dir;
  const std::string text = without_output(read_config("tumbling_box"));
  const std::uint64_t n = 400;
  const std::string a = run_file(dir, "a.h5", text, n), b = dir.file("b.h5");
  std::filesystem::copy_file(a, b);
  Scenario s = parse_scenario(text, "tumbling_box.toml");
  s.run.n_samples = n;
  const NumericalTolerance tolerance = numerical_tolerance(a, a);
  std::vector<std::size_t> rows;
  std::vector<SampleResult<double>> finals;
  // The nudge: 1e-14, about the rounding a build accumulates over 3000 steps (ε √n = 6e-15).
  for (std::uint64_t k = 0; k < n && rows.size() < 4; ++k) {
    const SampleResult<double> exact = integrate_sample(s, k), nudged = integrate_sample(s, k, 1e-14);
    if ((exact.final_state.omega_b - nudged.final_state.omega_b).norm() > 10 * tolerance.rtol * 4.0) {
      rows.push_back(k);
      finals.push_back(nudged);
    }
  }
  ASSERT_EQ(rows.size(), 4u) << "the scenario has too few sensitive samples for this test";
  plant_final_states(b, rows, finals);
  const Comparison c = compare_results(a, b, {});
  if (!c.pass) print_comparison(c, {}, stdout);
  EXPECT_TRUE(c.pass) << (c.reasons.empty() ? "" : c.reasons.front());
  EXPECT_TRUE(c.chaotic);
  EXPECT_EQ(c.mismatched_samples.size(), 4u);
  EXPECT_EQ(c.sensitivity.sensitive, 4u);
  EXPECT_GT(c.sensitivity.median_growth_rate, 0.1);  // 1/s: e-folds within the 15 s run
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes.front().find("chaos"), std::string::npos) << c.notes.front();
}

// Float where float really loses the answer: a body 1000 km from the origin moving at 1 m/s
// (sd 0.1). Each RK4 step adds v h = 0.01 m to x = 1e6 m, below half a float ulp there
// (0.03125 m): float's body never moves, double's moves 10 m. Each sample is within the per-sample
// tolerance (float's 100 ε √n relative to 1e6 m is 190 m), but the error is ten times the 1 m
// spread, which double resolves: the verdict names final/position[x] and fails.
TEST(CompareResults, FloatThatLosesTheAnswerFailsNamingTheQuantity) {
  test::TempDir dir;
  const std::string text = R"([run]
samples = 500
duration = 10.0
step = 0.01
[body]
mass = 1.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.3]]
[initial]
position = [1.0e6, 0.0, 0.0]
velocity = [1.0, 0.0, 0.0]
[dispersions]
initial.velocity = { distribution = "normal", sigma = [0.1, 0.0, 0.0] }
)";
  const std::string a = run_file(dir, "a.h5", text, 500), b = run_file(dir, "b.h5", text, 500, Precision::float32);
  const Comparison c = compare_results(a, b, {});
  EXPECT_FALSE(c.pass);
  ASSERT_FALSE(c.reasons.empty());
  EXPECT_EQ(c.reasons.front().rfind("float cannot resolve final/position[x]", 0), 0u) << c.reasons.front();
  // Two double runs of it agree.
  EXPECT_TRUE(compare_results(a, a, {}).pass);
}

// Float's rounding that grows: the default scenario's box flips about its intermediate axis, and
// float's rounding moves most samples' flips (a rerun in float against double reproduces the
// difference). Float cannot resolve single samples, and says so; the verdict rests on the
// distributions, which agree.
TEST(CompareResults, FloatRoundingThatGrowsIsNamedAndJudgedOnTheDistributions) {
  test::TempDir dir;
  const std::string text = without_output(read_config("tumbling_box"));
  const std::string a = run_file(dir, "a.h5", text, 2000), b = run_file(dir, "b.h5", text, 2000, Precision::float32);
  const Comparison c = compare_results(a, b, {});
  EXPECT_TRUE(c.pass) << (c.reasons.empty() ? "" : c.reasons.front());
  EXPECT_FALSE(c.per_sample_pass);
  EXPECT_TRUE(c.float_unresolved);
  EXPECT_GT(c.mismatched_samples.size(), 200u);
  EXPECT_EQ(c.sensitivity.sensitive, c.sensitivity.checked);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_EQ(c.notes.front().rfind("float cannot resolve final/angular_velocity", 0), 0u) << c.notes.front();
}

// Rounding never fails: the satellite's final position varies over the samples by 1e-8 m on
// 7e6 m, less than one rounding. Noise of 1e-13 relative (below the derived tolerance 100 ε √n
// = 1.2e-12) on every final value once made KS reject; now per sample and as distributions pass.
TEST(CompareResults, DifferencesOfRoundingSizeNeverFail) {
  test::TempDir dir;
  const std::string a = run_file(dir, "a.h5", without_output(read_config("satellite_gravity_gradient")), 100);
  const std::string b = dir.file("b.h5");
  std::filesystem::copy_file(a, b);
  std::vector<std::size_t> rows;
  std::vector<SampleResult<double>> finals;
  const ResultsReader r(a);
  const auto p = r.doubles("samples/final/position").data, q = r.doubles("samples/final/orientation").data,
             v = r.doubles("samples/final/velocity").data, w = r.doubles("samples/final/angular_velocity").data,
             t = r.doubles("samples/final/time").data;
  for (std::size_t i = 0; i < 100; ++i) {
    const double e = 1 + (i % 2 ? 1e-13 : -1e-13);
    SampleResult<double> f{};
    f.final_state = {e * Vec3<double>(p[3 * i], p[3 * i + 1], p[3 * i + 2]),
                     {q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]},
                     e * Vec3<double>(v[3 * i], v[3 * i + 1], v[3 * i + 2]),
                     e * Vec3<double>(w[3 * i], w[3 * i + 1], w[3 * i + 2])};
    f.time = t[i];
    rows.push_back(i);
    finals.push_back(f);
  }
  plant_final_states(b, rows, finals);
  const Comparison c = compare_results(a, b, {});
  EXPECT_TRUE(c.pass) << (c.reasons.empty() ? "" : c.reasons.front());
  EXPECT_TRUE(c.per_sample_pass);
  CompareOptions statistical;
  statistical.statistical = true;
  const Comparison s = compare_results(a, b, statistical);
  EXPECT_TRUE(s.pass) << (s.reasons.empty() ? "" : s.reasons.front());
  bool resolution = false;
  for (const ComponentComparison& x : s.components)
    if (x.name == "final/position[x]") resolution = x.resolution_limited && x.ks.statistic > 0.1;
  EXPECT_TRUE(resolution) << "KS alone would have rejected";
}

// The retained trajectories are compared when both files keep them: a change at one output time
// of one kept sample fails.
TEST(CompareResults, KeptTrajectoriesAreCompared) {
  test::TempDir dir;
  std::string text = read_config("tumbling_box");
  const std::string a = run_file(dir, "a.h5", text, 50), b = dir.file("b.h5");
  std::filesystem::copy_file(a, b);
  plant_difference(b, "trajectories/angular_velocity", 3 * 70, 0.1);  // sample row 0, output time 70, ω_x
  EXPECT_TRUE(compare_results(a, a, {}).pass);
  const Comparison c = compare_results(a, b, {});
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatched_samples.size(), 1u);
  bool flagged = false;
  for (const ComponentComparison& r : c.components)
    if (r.name.rfind("trajectories/angular_velocity", 0) == 0) flagged = r.mismatched == 1;
  EXPECT_TRUE(flagged);
  // The report's table in line: every row's numbers in the header's columns, the trajectories'
  // long names included ("trajectories/angular_velocity (20 kept in both)").
  std::FILE* report = std::tmpfile();
  ASSERT_NE(report, nullptr);
  print_comparison(c, {}, report);
  std::rewind(report);
  std::string printed;
  for (int ch; (ch = std::fgetc(report)) != EOF;) printed += char(ch);
  std::fclose(report);
  std::istringstream lines(printed);
  std::size_t bar = std::string::npos, rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" | ") == std::string::npos) continue;
    if (bar == std::string::npos) bar = line.find(" | ");
    EXPECT_EQ(line.find(" | "), bar) << line << "\n" << printed;
    ++rows;
  }
  EXPECT_GT(rows, 20u) << printed;
  EXPECT_NE(printed.find("trajectories/angular_velocity ("), std::string::npos) << printed;
  // Judged sample by sample only: no spread, margin, bound or KS distance, which printed as zeros.
  const std::size_t row = printed.find("trajectories/angular_velocity (");
  const std::string trajectory_row = printed.substr(row, printed.find('\n', row) - row);
  EXPECT_NE(trajectory_row.find("|          -          -          -       -  "), std::string::npos) << trajectory_row;
}

// Runs of one scenario at another [output] interval hold their trajectories at other times: each
// file's rows are read on its own grid (b's were read on a's, a wrong FAIL, and past b's end where
// b holds fewer times), compared at the times both hold, with a note; no time in common, none.
TEST(CompareResults, TrajectoriesAtOtherOutputTimesAreComparedAtTheTimesBothHold) {
  test::TempDir dir;
  const std::string text = read_config("tumbling_box"), interval = "interval = 0.1";
  ASSERT_NE(text.find(interval), std::string::npos);
  std::string finer = text, apart = text;
  finer.replace(finer.find(interval), interval.size(), "interval = 0.05");
  apart.replace(apart.find(interval), interval.size(), "times = [0.01, 1.03]");
  const std::string a = run_file(dir, "a.h5", text, 50), b = run_file(dir, "b.h5", finer, 50);
  const Comparison none = compare_results(a, run_file(dir, "apart.h5", apart, 50), {});
  EXPECT_TRUE(none.pass);  // the final states agree
  for (const ComponentComparison& r : none.components) EXPECT_EQ(r.name.rfind("trajectories/", 0), std::string::npos);
  EXPECT_TRUE(std::any_of(none.notes.begin(), none.notes.end(), [](const std::string& n) {
    return n.find("no output time in common (151 and 2 times): not compared") != std::string::npos;
  }));
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    const Comparison c = compare_results(x, y, {});
    EXPECT_TRUE(c.pass) << x << " against " << y;
    std::size_t compared = 0;
    for (const ComponentComparison& r : c.components)
      if (r.name.rfind("trajectories/", 0) == 0) compared += r.mismatched == 0 ? 1 : 0;
    EXPECT_EQ(compared, 4u);
    const std::string note = "trajectories: compared at the 151 output times both files hold";
    EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [&](const std::string& n) { return n.rfind(note, 0) == 0; }));
  }
  // --statistical judges distributions: the kept trajectories, other samples under the same
  // indices in files of other seeds, get no row (a row said "same" with nothing judged), and a
  // note says why.
  {
    std::string seeded = text;
    ASSERT_NE(seeded.find("seed = 20261122"), std::string::npos);
    seeded.replace(seeded.find("seed = 20261122"), 15, "seed = 99");
    CompareOptions statistical;
    statistical.statistical = true;
    const Comparison s = compare_results(a, run_file(dir, "seeded.h5", seeded, 50), statistical);
    for (const ComponentComparison& r : s.components) EXPECT_EQ(r.name.rfind("trajectories/", 0), std::string::npos);
    EXPECT_TRUE(std::any_of(s.notes.begin(), s.notes.end(), [](const std::string& n) {
      return n.rfind("trajectories: not compared with --statistical", 0) == 0;
    }));
    EXPECT_EQ(s.trajectories_compared, 0u);
  }
  // A planted difference at a time both hold is still found.
  // Sample row 0, b's output time 140 (7 s, a's 70), ω_x.
  plant_difference(b, "trajectories/angular_velocity", 3 * 140, 0.1);
  EXPECT_FALSE(compare_results(a, b, {}).pass);
}

// The kept trajectories are read a block of samples at a time: blocks of three samples, of seven, and
// the default (every row at once here) give the same report, against a file keeping every sample
// and one keeping every third (rows paired across gaps), and a planted difference is found in
// each. With the typical size taken from a few of a's rows rather than all, the tolerance moves
// but the difference is still found.
TEST(CompareResults, TrajectoriesReadInBlocksGiveTheWholeReadsReport) {
  test::TempDir dir;
  std::string text = read_config("tumbling_box");
  const std::string limit = "trajectories = { limit = 20 }";
  ASSERT_NE(text.find(limit), std::string::npos);
  text.replace(text.find(limit), limit.size(), "trajectories = \"all\"");  // every sample's
  const std::string interval = "interval = 0.1";
  ASSERT_NE(text.find(interval), std::string::npos);
  text.replace(text.find(interval), interval.size(), "interval = 0.5");  // 31 times: one chunk's
  const std::string a = run_file(dir, "a.h5", text, 60), b = dir.file("b.h5");
  std::filesystem::copy_file(a, b);
  plant_difference(b, "trajectories/velocity", (std::size_t(42) * 31 + 20) * 3 + 1, 1e-3);  // sample 42 at 10 s, v_y
  RunOptions thirds;
  thirds.output = dir.file("thirds.h5");
  thirds.backend = BackendChoice::cpu;
  thirds.progress = false;
  thirds.samples = 60;
  for (std::uint64_t k = 0; k < 60; k += 3) thirds.only.push_back(k);
  run_scenario(parse_scenario(text, "thirds.toml"), thirds);
  const auto trajectory_rows = [](const Comparison& c) {
    std::vector<ComponentComparison> rows;
    for (const ComponentComparison& r : c.components)
      if (r.name.rfind("trajectories/", 0) == 0) rows.push_back(r);
    return rows;
  };
  for (const auto& [x, y, planted] : {std::tuple{a, b, true}, std::tuple{b, thirds.output, true},
                                      std::tuple{thirds.output, a, false}}) {
    const Comparison whole = compare_results(x, y, {});
    const auto expected = trajectory_rows(whole);
    ASSERT_EQ(expected.size(), 4u);
    EXPECT_EQ(expected[2].mismatched, planted ? 1u : 0u) << x << " against " << y;  // velocity
    EXPECT_EQ(whole.mismatched_samples, planted ? std::vector<std::uint64_t>{42} : std::vector<std::uint64_t>{});
    for (const std::size_t samples_a_block : {std::size_t(3), std::size_t(7)}) {
      CompareOptions blocks;
      blocks.trajectory_block_values = samples_a_block * 31 * 4;  // 31 times of 4 (3) values
      const Comparison c = compare_results(x, y, blocks);
      const auto got = trajectory_rows(c);
      ASSERT_EQ(got.size(), 4u);
      for (std::size_t q = 0; q < 4; ++q) {
        EXPECT_EQ(got[q].mismatched, expected[q].mismatched) << got[q].name << ", blocks of " << samples_a_block;
        EXPECT_EQ(got[q].max_abs, expected[q].max_abs) << got[q].name << ", blocks of " << samples_a_block;
        EXPECT_EQ(got[q].max_ratio, expected[q].max_ratio) << got[q].name << ", blocks of " << samples_a_block;
        EXPECT_EQ(got[q].tolerance, expected[q].tolerance) << got[q].name << ", blocks of " << samples_a_block;
      }
      EXPECT_EQ(c.mismatched_samples, whole.mismatched_samples);
    }
    CompareOptions few_norms;
    few_norms.trajectory_block_values = 2 * 31 * 4;
    few_norms.trajectory_norm_rows = 31;  // the first block of two samples alone
    const auto sampled = trajectory_rows(compare_results(x, y, few_norms));
    ASSERT_EQ(sampled.size(), 4u);
    EXPECT_EQ(sampled[2].mismatched, planted ? 1u : 0u);
    // |ω|, nearly conserved and dispersed by about 1 %: the median of two samples' rows is
    // another number, and within a few % of every row's.
    EXPECT_NE(sampled[3].tolerance, expected[3].tolerance);
    EXPECT_NEAR(sampled[3].tolerance, expected[3].tolerance, 0.1 * expected[3].tolerance);
  }
}

// The separation's growth rate in the kept trajectories is measured at the output times both files
// hold: against a float run at a finer [output] interval it is the rate against the same run at a's
// interval (the same steps, so the same values at the times both hold). It read b's rows with a's
// count of times before, off b's rows and beyond its data.
TEST(CompareResults, TrajectoryGrowthIsMeasuredAtTheTimesBothFilesHold) {
  test::TempDir dir;
  const std::string text = read_config("tumbling_box"), interval = "interval = 0.1";
  ASSERT_NE(text.find(interval), std::string::npos);
  std::string finer = text;
  finer.replace(finer.find(interval), interval.size(), "interval = 0.05");
  const std::string a = run_file(dir, "a.h5", text, 40), b = run_file(dir, "b.h5", text, 40, Precision::float32),
                    b_finer = run_file(dir, "b_finer.h5", finer, 40, Precision::float32);
  std::vector<std::uint64_t> samples;
  for (std::uint64_t k = 0; k < 20; ++k) samples.push_back(k);  // the 20 kept
  double rate = 0, rate_finer = 0;
  std::uint64_t compared = 0, compared_finer = 0;
  trajectory_growth(ResultsReader(a), ResultsReader(b), samples, rate, compared);
  trajectory_growth(ResultsReader(a), ResultsReader(b_finer), samples, rate_finer, compared_finer);
  EXPECT_EQ(compared, 20u);
  EXPECT_EQ(compared_finer, 20u);
  EXPECT_GT(rate, 0.1);  // 1/s: float's rounding e-folds within the 15 s run (a rate of 0 would match anything)
  EXPECT_EQ(rate_finer, rate);
}

// An interrupted run's partial file: info says INCOMPLETE and summarises the rows done (not the
// not-run rows as zeros, nor "nan steps"); compare says incomplete and compares the rows done.
TEST(CompareResults, PartialFilesSayIncompleteAndUseTheRowsDone) {
  test::TempDir dir;
  const std::string text = scenario_with_mass("2.0");
  const std::string whole = run_file(dir, "whole.h5", text, 200);
  RunOptions o;
  o.output = dir.file("cut.h5");
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.batch_size = 50;
  o.samples = 200;
  o.after_batch = [](std::uint64_t rows) {
    if (rows == 100) interrupt_requested() = true;
  };
  EXPECT_THROW(run_scenario(parse_scenario(text, "c.toml"), o), Interrupted);
  interrupt_requested() = false;
  const std::string partial = dir.file("cut.h5.partial");
  const Comparison c = compare_results(whole, partial, {});
  EXPECT_TRUE(c.pass);
  EXPECT_FALSE(c.complete_b);
  EXPECT_EQ(c.n_b, 100u);
  EXPECT_EQ(c.n_common, 100u);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes.front().find("incomplete"), std::string::npos);
  const std::string s = printed_info(dir, read_results_info(partial));
  EXPECT_NE(s.find("INCOMPLETE"), std::string::npos) << s;
  EXPECT_NE(s.find("100 of 200 samples done"), std::string::npos) << s;
  EXPECT_EQ(s.find("nan"), std::string::npos) << s;
  EXPECT_NE(s.find(" ok 100\n"), std::string::npos) << s;
  // Each row's minimum and quantiles over the rows done, not zeros from the rows not run (the
  // final time's standard deviation is 0: every sample ran to the end).
  for (const ResultsInfo::Row& row : read_results_info(partial).final_state) {
    EXPECT_EQ(row.count, 100u) << row.quantity;
    for (double x : {row.min, row.p05, row.median, row.p95, row.max}) EXPECT_NE(x, 0.0) << row.quantity;
  }
}

// Samples not integrated (invalid_body, invalid_load) have inputs but no results: a run now writes
// their final state and reaction NaN (at time 0), and builds before 2026-12-07 wrote their initial
// state and a zero reaction. Compare judges results over the samples integrated only, so files of
// either kind agree sample by sample, and their distributions are the same. A spring's stiffness
// or a damping coefficient drawn negative in more than half the samples, kept and flagged under
// "reject", on a pivot.
TEST(CompareResults, TheSamplesNotIntegratedHaveNoResultsToCompare) {
  test::TempDir dir;
  const std::string text = test::unphysical_loads_scenario_text(
      300, "[constraint]\ntype = \"pivot\"\npoint = [0.0, 0.0, 0.05]\nanchor = [0.0, 0.0, 0.0]\n"
           "[design]\ninvalid_bodies = \"reject\"\n");
  const std::string run = run_file(dir, "run.h5", text, 300);
  const ResultsReader r(run);
  const std::vector<std::uint8_t> status = r.uint8s("samples/status").data;
  std::vector<std::size_t> flagged;
  for (std::size_t i = 0; i < status.size(); ++i)
    if (status[i] == std::uint8_t(SampleStatus::invalid_load)) flagged.push_back(i);
  ASSERT_GT(flagged.size(), 20u);
  ASSERT_LT(flagged.size(), 280u);
  // The run's file: no final state and no reaction where not integrated, both where integrated.
  const std::vector<double> position = r.doubles("samples/final/position").data,
                            reaction = r.doubles("samples/final/reaction_force").data;
  for (std::size_t i = 0; i < status.size(); ++i) {
    const bool measured = status[i] != std::uint8_t(SampleStatus::invalid_load);
    EXPECT_EQ(std::isnan(position[3 * i + 2]), !measured) << i;
    EXPECT_EQ(std::isnan(reaction[3 * i + 2]), !measured) << i;
  }
  // Each way of writing them, planted into copies of the file.
  const std::vector<double> p0 = r.doubles("samples/initial/position").data, q0 = r.doubles("samples/initial/orientation").data,
                            v0 = r.doubles("samples/initial/velocity").data,
                            w0 = r.doubles("samples/initial/angular_velocity").data;
  std::vector<SampleResult<double>> initial(flagged.size()), none(flagged.size());
  for (std::size_t k = 0; k < flagged.size(); ++k) {
    const std::size_t i = flagged[k];
    initial[k].final_state = {Vec3<double>(p0[3 * i], p0[3 * i + 1], p0[3 * i + 2]),
                              {q0[4 * i], q0[4 * i + 1], q0[4 * i + 2], q0[4 * i + 3]},
                              Vec3<double>(v0[3 * i], v0[3 * i + 1], v0[3 * i + 2]),
                              Vec3<double>(w0[3 * i], w0[3 * i + 1], w0[3 * i + 2])};
    none[k].final_state = no_state<double>();
    initial[k].time = none[k].time = 0;
  }
  const auto planted = [&](const char* name, const std::vector<SampleResult<double>>& finals, double force) {
    const std::string path = dir.file(name);
    std::filesystem::copy_file(run, path);
    plant_final_states(path, flagged, finals);
    const std::vector<SampleResult<double>> reactions(flagged.size(), [&] {
      SampleResult<double> f;
      f.reaction_force_w = Vec3<double>::Constant(force);
      return f;
    }());
    plant_rows(path, "samples/final/reaction_force", flagged, reactions,
               [](const SampleResult<double>& f, std::size_t c) { return f.reaction_force_w(c); }, 3);
    return path;
  };
  const std::string older = planted("older.h5", initial, 0.0), newer = planted("newer.h5", none, NAN);
  for (const auto& [a, b] : {std::pair{older, newer}, std::pair{newer, older}, std::pair{older, run}}) {
    SCOPED_TRACE(a + " against " + b);
    const Comparison c = compare_results(a, b, {});
    EXPECT_TRUE(c.pass) << (c.reasons.empty() ? "" : c.reasons.front());
    EXPECT_TRUE(c.mismatched_samples.empty());
    // The distributions are those of the same samples integrated, to the last bit: the older
    // file's initial states and zero reactions do not enter them.
    for (const ComponentComparison& k : c.components)
      if (!k.input) {
        EXPECT_EQ(k.mean.difference, 0.0) << k.name;
        EXPECT_EQ(k.max_abs, 0.0) << k.name;
      }
  }
}

// rbmc info on the partial file of a run of 2^40 samples interrupted after its first batch reads
// only the rows done (it once read every declared row and died of bad_alloc).
TEST(ResultsInfo, AHugePartialFileIsSummarisedFromItsRowsDone) {
  test::TempDir dir;
  RunOptions o;
  o.output = dir.file("huge.h5");
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.batch_size = 1000;
  o.samples = kMaxSamples;
  o.space_check = false;  // started to be stopped: no disk holds the whole run
  o.after_batch = [](std::uint64_t) { interrupt_requested() = true; };
  EXPECT_THROW(run_scenario(parse_scenario(scenario_with_mass("2.0"), "c.toml"), o), Interrupted);
  interrupt_requested() = false;
  const std::string text = printed_info(dir, read_results_info(dir.file("huge.h5.partial")));
  EXPECT_NE(text.find("1000 of 1099511627776 samples done"), std::string::npos) << text;
  EXPECT_NE(text.find(" ok 1000\n"), std::string::npos) << text;
}

// An HDF5 file rbmc did not write is refused by info and compare, naming it and saying what it is
// not; they once stopped at its first missing attribute ("opening attribute n_samples of /").
TEST(ResultsInfo, AnHdf5FileRbmcDidNotWriteIsRefusedNamingIt) {
  test::TempDir dir;
  const std::string results = run_file(dir, "results.h5", scenario_with_mass("2.0"), 20);
  const std::string other = dir.file("other.h5");
  {
    h5::Handle file(H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "creating " + other);
    h5::write_array(file.get(), "x", std::vector<double>{1, 2}, std::vector<hsize_t>{2});
  }
  const auto expect_refused = [&](const char* what, const std::function<void()>& read) {
    try {
      read();
      ADD_FAILURE() << what << " read " << other;
    } catch (const Hdf5Error& e) {
      EXPECT_NE(std::string(e.what()).find(other + " is not an rbmc results file"), std::string::npos)
          << what << ": " << e.what();
    }
  };
  expect_refused("info", [&] { read_results_info(other); });
  expect_refused("compare (second)", [&] { compare_results(results, other, {}); });
  expect_refused("compare (first)", [&] { compare_results(other, results, {}); });
  EXPECT_EQ(read_results_info(results).n_samples, 20);
}

// Samples not integrated (invalid_body, invalid_load) have no final state (NaN at time 0; their
// initial state in older files): the final-state table leaves them out by their status and says
// how many, as the statistics do.
// Loads drawn negative in more than half the samples, flagged (invalid_load) under "reject": the
// table's final time is then the duration for every sample it holds.
TEST(ResultsInfo, LeavesTheSamplesNotIntegratedOutOfTheFinalStates) {
  test::TempDir dir;
  const std::string text =
      test::unphysical_loads_scenario_text(200, "[design]\ninvalid_bodies = \"reject\"\n[output]\ninterval = 0.25\n");
  const std::string path = run_file(dir, "rejected.h5", text, 200);
  const std::vector<std::uint8_t> status = ResultsReader(path).uint8s("samples/status").data;
  const auto flagged = std::uint64_t(std::count(status.begin(), status.end(), std::uint8_t(SampleStatus::invalid_load)));
  ASSERT_GT(flagged, 0u);
  const ResultsInfo info = read_results_info(path);
  EXPECT_EQ(info.not_integrated, flagged);
  const auto time = std::find_if(info.final_state.begin(), info.final_state.end(),
                                 [](const ResultsInfo::Row& row) { return row.quantity == "time"; });
  ASSERT_NE(time, info.final_state.end());
  EXPECT_EQ(time->count, 200 - flagged);
  EXPECT_EQ(time->min, 0.5);
  const std::string printed = printed_info(dir, info);
  EXPECT_NE(printed.find("max (" + std::to_string(flagged) + " samples not integrated, invalid_body or invalid_load, left out)\n"),
            std::string::npos)
      << printed;
  // Nor have they a state at any output time: the statistics are over the others, and say so.
  EXPECT_EQ(info.statistics_counts, std::vector<std::uint64_t>(3, 200 - flagged));
  EXPECT_NE(printed.find("over the samples integrated: " + std::to_string(200 - flagged) +
                         " of 200 (the others invalid_body or invalid_load)\n"),
            std::string::npos)
      << printed;
}

// Where samples stop early, the statistics at the later times are over the samples still running:
// info says from when. The tossed box's samples stop as they land (a terminal event), between
// 1.2 and 1.3 s for its dispersions, and none runs at its last output times (2 s).
TEST(ResultsInfo, SaysWhenTheStatisticsLoseTheSamplesThatStopped) {
  const std::vector<double> t{0, 0.5, 1, 1.5};
  EXPECT_EQ(running_samples_note(t, {8, 8, 8, 8}), "");
  EXPECT_EQ(running_samples_note(t, {8, 8, 3, 0}), "all 8 up to 0.5 s, 3 at 1 s, none after 1 s");
  EXPECT_EQ(running_samples_note(t, {8, 8, 0, 0}), "all 8 up to 0.5 s, none after 0.5 s");
  EXPECT_EQ(running_samples_note(t, {8, 7, 6, 5}), "8 at 0 s, 5 at 1.5 s");
  EXPECT_EQ(running_samples_note(t, {8, 0, 0, 0}), "8 at 0 s, none after 0 s");
  test::TempDir dir;
  const std::string path = run_file(dir, "tossed.h5", read_config("tossed_box"), 64);
  const ResultsInfo info = read_results_info(path);
  ASSERT_EQ(info.statistics_times.size(), 41u);
  ASSERT_EQ(info.statistics_counts.size(), 41u);
  const std::string note = running_samples_note(info.statistics_times, info.statistics_counts);
  EXPECT_EQ(note.rfind("all 64 up to 1.", 0), 0u) << note;
  EXPECT_NE(note.find(", none after 1."), std::string::npos) << note;
  const std::string printed = printed_info(dir, info);
  EXPECT_NE(printed.find("over the samples still running: " + note + "\n"), std::string::npos) << printed;
}

// rbmc info lists the events in the scenario's order (the file's groups are alphabetical): in how
// many samples each occurred, how many the terminal one stopped, and when it first occurred. A body
// moving uniformly up at v (no gravity, its centre of mass at the origin) rises 0.3 m at 0.3 / v:
// the samples faster than 0.3 m/s stop there, and those faster than 0.6 m/s before the time limit
// of 0.5 s. The locator finds the crossing to 1e-12 of the duration on an interpolant exact for
// uniform motion: within 1e-10 s.
TEST(ResultsInfo, ListsTheEventsWithTheSamplesTheyStopped) {
  test::TempDir dir;
  const std::string text = R"([scenario]
name = "events"
[run]
samples = 200
seed = 3
duration = 1.0
step = 0.01
[body]
mass = 1.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.3]]
[initial]
angular_velocity = [0.1, 3.0, 0.1]
[dispersions]
initial.velocity = { distribution = "normal", sigma = [0.0, 0.0, 0.5] }
[[events]]
name = "risen"
type = "point_crossing"
axis = "z"
value = 0.3
terminal = true
[[events]]
name = "halfway"
type = "time_limit"
time = 0.5
)";
  const std::string path = run_file(dir, "events.h5", text, 200);
  const std::vector<double> velocity = ResultsReader(path).doubles("samples/initial/velocity").data;  // (N, 3)
  std::vector<double> rise_times;
  std::uint64_t before_the_limit = 0;
  for (std::size_t i = 0; i < 200; ++i) {
    const double v = velocity[3 * i + 2];
    if (v > 0.3) rise_times.push_back(0.3 / v);
    if (v > 0.6) ++before_the_limit;
  }
  std::sort(rise_times.begin(), rise_times.end());
  ASSERT_GT(rise_times.size(), 20u);
  ASSERT_GT(before_the_limit, 5u);
  const ResultsInfo info = read_results_info(path);
  ASSERT_EQ(info.events.size(), 2u);
  const ResultsInfo::Event &risen = info.events[0], &halfway = info.events[1];
  EXPECT_EQ(risen.name, "risen");
  EXPECT_TRUE(risen.terminal);
  EXPECT_EQ(risen.occurred, rise_times.size());
  EXPECT_EQ(risen.stopped, rise_times.size());
  EXPECT_NEAR(risen.first_min, rise_times.front(), 1e-10);
  EXPECT_NEAR(risen.first_max, rise_times.back(), 1e-10);
  const std::size_t middle = (rise_times.size() - 1) / 2;
  EXPECT_GE(risen.first_median, rise_times[middle] - 1e-10);
  EXPECT_LE(risen.first_median, rise_times[rise_times.size() / 2] + 1e-10);
  EXPECT_EQ(halfway.name, "halfway");
  EXPECT_FALSE(halfway.terminal);
  EXPECT_EQ(halfway.occurred, 200 - before_the_limit);
  EXPECT_EQ(halfway.stopped, 0u);
  EXPECT_NEAR(halfway.first_min, 0.5, 1e-10);
  EXPECT_NEAR(halfway.first_max, 0.5, 1e-10);
  const std::string printed = printed_info(dir, info);
  const std::string first = "  events       risen (terminal): in " + std::to_string(rise_times.size()) +
                            " of 200 samples, stopping " + std::to_string(rise_times.size()) + "; first at ";
  EXPECT_NE(printed.find(first), std::string::npos) << printed;
  EXPECT_NE(printed.find("\n               halfway: in " + std::to_string(200 - before_the_limit) +
                         " of 200 samples; first at 0.5 to 0.5 s, median 0.5 s\n"),
            std::string::npos)
      << printed;
}

// The issue's acceptance without a GPU: CPU float against CPU double on every example config
// passes, or fails naming what float cannot resolve, never for want of samples or for rounding.
TEST(ValidateScenario, EveryConfigInFloatAgainstDoubleOnTheCpu) {
  for (const std::string name : {"pendulum_sobol", "physical_pendulum", "puck_on_table", "satellite_gravity_gradient",
                                  "spin_sweep", "spring_mounted_box", "tossed_box", "tossed_cylinder_lhs",
                                  "tumbling_box"}) {
    ValidateOptions o;
    o.scenario = std::string(RBMC_SOURCE_DIR) + "/configs/" + name + ".toml";
    o.candidate = BackendChoice::cpu;
    o.precision = Precision::float32;
    // spin_sweep's grid: 18 points × 20 replicates.
    o.samples = name == "satellite_gravity_gradient" ? 2000 : name == "physical_pendulum" ? 200
              : name == "spin_sweep"                 ? 360
                                                     : 400;
    o.threads = 2;
    o.progress = false;
    const Validation v = validate_scenario(o);
    const Comparison& c = v.comparison;
    if (!c.pass) {
      ASSERT_FALSE(c.reasons.empty()) << name;
      EXPECT_EQ(c.reasons.front().rfind("float cannot resolve", 0), 0u) << name << ": " << c.reasons.front();
    }
    // The two that tumble about an intermediate axis for many flips lose single samples' flip
    // times in float, as above, and at these sizes too few samples show the distributions'
    // agreement; the satellite's slow tumble loses single samples too, and its 2000 samples show
    // that the distributions agree. spring_mounted_box's body-fixed thruster spins some boxes up
    // until differences grow at about 10/s: a few of its samples end at float's resolution (1.1
    // tolerances off double after the core's reductions were written out, where they had been
    // just inside), each found sensitive to rounding, and it passes on the distributions or
    // sample by sample depending on rounding. Every other config passes sample by sample.
    const bool tumbles = name == "tumbling_box" || name == "spin_sweep";
    if (name != "spring_mounted_box")
      EXPECT_EQ(tumbles || name == "satellite_gravity_gradient", c.float_unresolved) << name;
    EXPECT_EQ(tumbles, !c.pass) << name;
  }
}

// Interrupted (SIGINT or SIGTERM's flag), validate says what is left, not how to resume the run
// (it resumes nothing): nothing in its own directory, which goes, or with keep the partial file.
TEST(ValidateScenario, AnInterruptionSaysWhatIsLeft) {
  test::TempDir dir;
  ValidateOptions o;
  o.scenario = std::string(RBMC_SOURCE_DIR) + "/configs/tossed_box.toml";
  o.candidate = BackendChoice::cpu;
  o.precision = Precision::float32;
  o.samples = 200;
  o.progress = false;
  for (const std::string keep : {std::string(), dir.file("kept")}) {
    o.keep = keep;
    interrupt_requested() = true;
    try {
      validate_scenario(o);
      ADD_FAILURE() << "not interrupted";
    } catch (const Interrupted& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("--resume"), std::string::npos) << what;
      EXPECT_EQ(what.rfind("validate: interrupted during the reference (cpu double) run; ", 0), 0u) << what;
      const std::string partial = dir.file("kept") + "/tossed_box-cpu-double.h5.partial";
      EXPECT_NE(what.find(keep.empty() ? "nothing is kept" : "its partial file is left in " + partial), std::string::npos)
          << what;
      EXPECT_EQ(std::filesystem::exists(partial), !keep.empty());
    }
    interrupt_requested() = false;
  }
}

// Without a GPU, validate says so before any work (CudaError or NotBuiltWithCuda: exit 4 or 3).
TEST(ValidateScenario, WithoutAGpuSaysSo) {
  ValidateOptions o;
  o.scenario = std::string(RBMC_SOURCE_DIR) + "/configs/tossed_box.toml";
  o.progress = false;
  try {
    make_backend(BackendChoice::cuda, Precision::float64, 1);
    GTEST_SKIP() << "a CUDA device is present";
  } catch (const std::exception&) {
  }
  EXPECT_ANY_THROW(validate_scenario(o));
}

}  // namespace
}  // namespace rbmc

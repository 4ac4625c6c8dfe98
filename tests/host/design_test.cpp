// Sampling designs (host/sampling/designs.cpp and the [design] table): grids, Latin hypercubes
// and scrambled Sobol points, checked by their defining properties.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include <boost/random/sobol.hpp>
#include <gtest/gtest.h>

#include "host/sampling/designs.hpp"
#include "rbmc/random/inverse_transforms.hpp"

#include "host/errors.hpp"
#include "host/io/h5_write.hpp"
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
  // A value given outright that no sample can have, as the nominal could not: a grid's, a fixed
  // distribution's, a discrete choice (a spring's stiffness or a damping coefficient negative, a
  // central body's μ not positive, a body's mass not positive).
  const std::string spring = "[[loads]]\ntype = \"spring\"\nanchor = [0.0, 0.0, 1.0]\nstiffness = 5.0\n"
                             "[[loads]]\ntype = \"central_gravity\"\nmu = 1.0\ncenter = [0.0, 0.0, -10.0]\n";
  EXPECT_EQ(key_of(spring + "[design]\ntype = \"grid\"\n[design.axes]\nloads.0.stiffness = { linspace = [-1.0, 1.0, 3] }\n"),
            "design.axes.loads.0.stiffness.linspace");
  EXPECT_EQ(key_of(spring + "[design]\ntype = \"grid\"\n[design.axes]\nbody.mass = { values = [1.0, 0.0] }\n"),
            "design.axes.body.mass.values");
  EXPECT_EQ(key_of(spring + "[dispersions]\nloads.0.rest_length = { distribution = \"fixed\", value = -0.1 }\n"),
            "dispersions.loads.0.rest_length.value");
  EXPECT_EQ(key_of(spring + "[dispersions]\nloads.1.mu = { distribution = \"discrete\", values = [1.0, 0.0] }\n"),
            "dispersions.loads.1.mu.values");
  EXPECT_EQ(key_of(spring + "[dispersions]\nloads.0.stiffness = { distribution = \"discrete\", values = [0.0, 2.0] }\n"),
            "accepted");
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

// ---- The primitives ---------------------------------------------------------------------------

// A keyed permutation is a bijection of [0, n) for any n and key, and different keys differ.
TEST(KeyedPermutation, IsABijectionForAnySizeAndKey) {
  for (std::uint64_t n : {1u, 2u, 3u, 5u, 64u, 1000u, 4097u}) {
    for (std::uint32_t component : {0u, 7u}) {
      std::vector<std::uint64_t> image(n);
      for (std::uint64_t i = 0; i < n; ++i) image[i] = keyed_permutation(i, n, 42, 0xabcdu, component);
      std::vector<std::uint64_t> sorted = image;
      std::sort(sorted.begin(), sorted.end());
      std::vector<std::uint64_t> identity(n);
      std::iota(identity.begin(), identity.end(), 0);
      EXPECT_EQ(sorted, identity) << "n = " << n;
    }
  }
  int same = 0;
  for (std::uint64_t i = 0; i < 1000; ++i)
    same += keyed_permutation(i, 1000, 42, 1, 0) == keyed_permutation(i, 1000, 42, 1, 1);
  EXPECT_LT(same, 20);  // independent permutations agree at about 1 of 1000 points
}

// Our Sobol points are Boost.Random's (Joe–Kuo), with the origin first: point k is Boost's
// sequence element k − 1. Dimension 0 is van der Corput in Gray-code order.
TEST(SobolPoints, MatchBoostsSequenceWithTheOriginFirst) {
  const int d = 6;
  const SobolPoints ours(d);
  boost::random::sobol_engine<std::uint32_t, 32> boost_engine(d);
  for (int j = 0; j < d; ++j) EXPECT_EQ(ours.coordinate(0, j), 0u);
  for (std::uint64_t k = 1; k < 2000; ++k)
    for (int j = 0; j < d; ++j) ASSERT_EQ(ours.coordinate(k, j), boost_engine()) << k << " " << j;
  EXPECT_EQ(ours.coordinate(1, 0), 0x80000000u);
  EXPECT_EQ(ours.coordinate(2, 0), 0xc0000000u);
  EXPECT_EQ(ours.coordinate(3, 0), 0x40000000u);
}

// Owen scrambling keeps every dyadic stratification: the first 2^m Sobol points hold one point
// in each interval [i/2^m, (i+1)/2^m) of every coordinate, before and after scrambling, and in
// two dimensions one in every elementary box of area 2^-m (a (0, m, 2)-net).
TEST(OwenScramble, KeepsTheNetProperty) {
  const int m = 10;
  const std::uint32_t n = 1u << m;
  const SobolPoints sobol(2);
  for (std::uint32_t seed : {0u, 1u, 0xdeadbeefu}) {
    std::vector<std::uint32_t> x(n), y(n);
    for (std::uint32_t k = 0; k < n; ++k) {
      x[k] = owen_scramble(sobol.coordinate(k, 0), seed);
      y[k] = owen_scramble(sobol.coordinate(k, 1), seed * 31 + 7);
    }
    for (int a = 0; a <= m; ++a) {  // boxes of 2^a × 2^(m−a)
      std::set<std::uint64_t> boxes;
      for (std::uint32_t k = 0; k < n; ++k)
        boxes.insert((std::uint64_t(x[k] >> (32 - a)) << 32) | (a == m ? 0u : (y[k] >> (32 - (m - a)))));
      EXPECT_EQ(boxes.size(), n) << "seed " << seed << ", a = " << a;
    }
  }
  EXPECT_NE(owen_scramble(0x12345678u, 1), owen_scramble(0x12345678u, 2));
}

// ---- Designs through the sampling plan ---------------------------------------------------------

const char* kDesignDispersions = R"([dispersions]
body.mass = { distribution = "uniform", min = 1.5, max = 2.5 }
initial.angular_velocity = { distribution = "normal", sigma = [0.1, 0.2, 0.3] }
initial.velocity = { distribution = "lognormal", median = [1.0, 2.0, 3.0], log_sigma = 0.5 }
)";

// Each sample's uniforms, recovered from its drawn values through each distribution's CDF:
// (N, 7) for the dispersions above.
std::vector<std::array<double, 7>> recovered_uniforms(const Scenario& s) {
  const SamplingPlan plan(s);
  std::vector<std::array<double, 7>> u(s.run.n_samples);
  SampleInputs<double> in;
  double v[7];
  const double sigma[3] = {0.1, 0.2, 0.3};
  for (std::uint64_t k = 0; k < s.run.n_samples; ++k) {
    plan.sample(k, in, v);  // key-path order: mass, angular velocity, velocity
    u[k][0] = v[0] - 1.5;
    for (int c = 0; c < 3; ++c) u[k][1 + c] = normal_cdf((v[1 + c] - s.initial.omega_b(c)) / sigma[c]);
    for (int c = 0; c < 3; ++c) u[k][4 + c] = normal_cdf(std::log(v[4 + c] / double(c + 1)) / 0.5);
  }
  return u;
}

Scenario design_scenario(const char* type, std::uint64_t n) {
  Scenario s = parse_scenario(std::string(kBase) + kDesignDispersions + "[design]\ntype = \"" + type + "\"\n", "d.toml");
  s.run.n_samples = n;
  return s;
}

// Latin hypercube: for every component, the N samples fall one in each of the N strata.
TEST(LatinHypercube, EachStratumHoldsExactlyOnePointPerComponent) {
  for (std::uint64_t n : {1u, 7u, 1000u}) {
    const auto u = recovered_uniforms(design_scenario("latin_hypercube", n));
    for (int c = 0; c < 7; ++c) {
      std::set<std::uint64_t> strata;
      // Recovery through the CDFs is accurate to ~1e-12, far inside a stratum of width 1/N,
      // unless a point lies within that of a boundary (probability ~1e-9 per point).
      for (std::uint64_t k = 0; k < n; ++k) strata.insert(std::uint64_t(std::floor(u[k][c] * double(n))));
      EXPECT_EQ(strata.size(), n) << "component " << c << ", N = " << n;
      EXPECT_LT(*strata.rbegin(), n);
    }
  }
}

// A plain Monte Carlo run leaves strata empty (as it should): about N/e of them.
TEST(LatinHypercube, MonteCarloDoesNot) {
  const std::uint64_t n = 1000;
  const auto u = recovered_uniforms(design_scenario("monte_carlo", n));
  std::set<std::uint64_t> strata;
  for (std::uint64_t k = 0; k < n; ++k) strata.insert(std::uint64_t(std::floor(u[k][0] * double(n))));
  EXPECT_LT(strata.size(), n * 3 / 4);
}

// L2-star discrepancy (Warnock's formula) of points in [0, 1)^d.
double l2_star_discrepancy(const std::vector<std::vector<double>>& x) {
  const double n = double(x.size());
  const std::size_t d = x[0].size();
  double sum1 = 0, sum2 = 0;
  for (const auto& p : x) {
    double prod = 1;
    for (double v : p) prod *= (1 - v * v) / 2;
    sum1 += prod;
  }
  for (const auto& p : x)
    for (const auto& q : x) {
      double prod = 1;
      for (std::size_t j = 0; j < d; ++j) prod *= 1 - std::max(p[j], q[j]);
      sum2 += prod;
    }
  return std::sqrt(std::pow(3.0, -double(d)) - 2 / n * sum1 + sum2 / (n * n));
}

// Scrambled Sobol points have lower discrepancy than random ones for the same N. The expected
// squared L2-star discrepancy of N random points in d dimensions is (2^-d − 3^-d) / N. In 7-D at
// N = 1024 the anchored boxes near the origin dominate and Sobol's advantage is modest (about
// half); in every 2-D projection, where 1024 points form a (0, 10, 2)-net or close to one, it is
// about ten times. Both are checked, with margins of 1.5 and 2.5 on those ratios.
TEST(SobolDesign, HasLowerDiscrepancyThanRandomPoints) {
  const std::uint64_t n = 1024;
  const auto sobol_u = recovered_uniforms(design_scenario("sobol", n));
  const auto random_u = recovered_uniforms(design_scenario("monte_carlo", n));
  const auto project = [](const std::vector<std::array<double, 7>>& u, std::vector<int> components) {
    std::vector<std::vector<double>> x;
    for (const auto& p : u) {
      std::vector<double> row;
      for (int c : components) row.push_back(p[std::size_t(c)]);
      x.push_back(row);
    }
    return x;
  };
  const auto expected_random = [&](int d) { return std::sqrt((std::pow(2.0, -d) - std::pow(3.0, -d)) / double(n)); };
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6};
  EXPECT_LT(l2_star_discrepancy(project(sobol_u, all)), 0.75 * expected_random(7));
  EXPECT_NEAR(l2_star_discrepancy(project(random_u, all)), expected_random(7), 0.5 * expected_random(7));
  for (int i = 0; i < 7; ++i)
    for (int j = i + 1; j < 7; ++j)
      EXPECT_LT(l2_star_discrepancy(project(sobol_u, {i, j})), 0.25 * expected_random(2)) << i << ", " << j;
  // And each coordinate of 2^10 scrambled Sobol points is stratified exactly, as for the net.
  for (int c = 0; c < 7; ++c) {
    std::set<std::uint64_t> strata;
    for (std::uint64_t k = 0; k < n; ++k) strata.insert(std::uint64_t(std::floor(sobol_u[k][c] * double(n))));
    EXPECT_EQ(strata.size(), n) << "component " << c;
  }
}

// Sample k's Sobol point is point k whatever N; a Latin hypercube's depends on N (documented).
TEST(SobolDesign, SampleKDoesNotDependOnTheSampleCount) {
  double a[7], b[7];
  SampleInputs<double> in;
  const SamplingPlan small(design_scenario("sobol", 64)), large(design_scenario("sobol", 4096));
  small.sample(37, in, a);
  large.sample(37, in, b);
  EXPECT_TRUE(std::equal(a, a + 7, b));
  const SamplingPlan lhs_small(design_scenario("latin_hypercube", 64)), lhs_large(design_scenario("latin_hypercube", 4096));
  lhs_small.sample(37, in, a);
  lhs_large.sample(37, in, b);
  EXPECT_FALSE(std::equal(a, a + 7, b));
}

TEST(Designs, FileRecordsTheDesign) {
  test::TempDir dir;
  RunOptions o;
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.output = dir.file("s.h5");
  Scenario s = design_scenario("sobol", 32);
  run_scenario(s, o);
  const ResultsReader r(o.output);
  EXPECT_EQ(r.string_attribute("", "design"), "sobol");
  EXPECT_EQ(r.string_attribute("design", "type"), "sobol");
  EXPECT_EQ(r.string_attribute("design", "invalid_bodies"), "redraw");
  EXPECT_EQ(r.number_attribute("design", "seed"), 3);
}

TEST(Designs, BadDesignKeysAreNamed) {
  const auto key_of = [](const std::string& design) {
    try {
      parse_scenario(std::string(kBase) + kDesignDispersions + design, "bad.toml");
    } catch (const ScenarioError& e) {
      return e.key_path();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(key_of("[design]\ntype = \"sobol\"\nreplicates = 3\n"), "design.replicates");
  EXPECT_EQ(key_of("[design]\ntype = \"latin_hypercube\"\n[design.axes]\nbody.mass = { values = [1.0] }\n"),
            "design.axes");
  EXPECT_EQ(key_of("[design]\ntype = \"halton\"\n"), "design.type");
  EXPECT_EQ(key_of("[design]\ninvalid_bodies = \"ignore\"\n"), "design.invalid_bodies");
  EXPECT_EQ(key_of("[design]\ntype = \"latin_hypercube\"\ninvalid_bodies = \"reject\"\n"), "(accepted)");
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

std::string table_scenario(const std::string& table_file) {
  std::string text = test::valid_scenario_text(64);
  text = text.substr(0, text.find("samples = 64")) + text.substr(text.find("samples = 64") + 12);  // the table's count
  return text + "[design]\ntype = \"table\"\nfile = \"" + table_file + "\"\n";
}

// [design] type = "table": sample k takes row k's values, the other dispersions drawn as usual;
// the file keeps the table's values in /samples/table and names the table in /design.
TEST(TableDesign, EachSampleTakesItsRow) {
  test::TempDir dir;
  dir.write("rows.csv",
            "# masses and spins from elsewhere\nbody.mass, initial.velocity.x, initial.velocity.y, initial.velocity.z\n"
            "1.5, 0, 0, 1\n2.5, 0, 0, 2\n\n3.5, 1e-3, 0, 3\n");
  std::string text = test::valid_scenario_text(64);
  // The table replaces body.mass's dispersion.
  text.replace(text.find("body.mass = { distribution = \"normal\", sigma = 0.05 }"),
               std::string("body.mass = { distribution = \"normal\", sigma = 0.05 }").size(), "");
  text.replace(text.find("samples = 64"), 12, "");
  text += "[design]\ntype = \"table\"\nfile = \"rows.csv\"\n";
  const Scenario s = parse_scenario(text, dir.file("box.toml"));
  ASSERT_EQ(s.run.n_samples, 3u);
  RunOptions o;
  o.output = dir.file("t.h5");
  o.backend = BackendChoice::cpu;
  o.progress = false;
  run_scenario(s, o);
  const ResultsReader r(o.output);
  EXPECT_EQ(r.doubles("samples/body/mass").data, (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(r.doubles("samples/initial/velocity").data, (std::vector<double>{0, 0, 1, 0, 0, 2, 1e-3, 0, 3}));
  EXPECT_EQ(r.doubles("samples/table/body.mass").data, (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(r.string_attribute("design", "type"), "table");
  EXPECT_EQ(r.string_attribute("design", "file"), "rows.csv");
  // The other dispersions still vary.
  const std::vector<double> w = r.doubles("samples/initial/angular_velocity").data;
  EXPECT_NE(w[0], w[3]);
  // --samples takes the first rows, never more than the table has.
  o.samples = 2;
  o.output = dir.file("two.h5");
  run_scenario(s, o);
  EXPECT_EQ(ResultsReader(o.output).doubles("samples/body/mass").data, (std::vector<double>{1.5, 2.5}));
  o.samples = 4;
  o.output = dir.file("four.h5");
  EXPECT_THROW(run_scenario(s, o), UsageError);
}

// Errors name the table's file, line and column, and the key.
TEST(TableDesign, ErrorsNameTheFileLineAndColumn) {
  test::TempDir dir;
  const auto error = [&](const std::string& csv) -> ScenarioError {
    dir.write("t.csv", csv);
    try {
      parse_scenario(table_scenario("t.csv"), dir.file("box.toml"));
    } catch (const ScenarioError& e) {
      return e;
    }
    ADD_FAILURE() << "accepted:\n" << csv;
    return ScenarioError("", 0, 0, "", "");
  };
  ScenarioError e = error("initial.position.x, initial.position.y, initial.position.z\n0, 0, 0\n1, nope, 2\n");
  EXPECT_EQ(e.file(), dir.file("t.csv"));
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.column(), 4u);
  EXPECT_EQ(e.key_path(), "initial.position.y");
  e = error("initial.position.x, initial.position.y\n0, 0\n");
  EXPECT_NE(std::string(e.what()).find("not all of .x, .y and .z"), std::string::npos) << e.what();
  e = error("gravity.acceleration.x, gravity.acceleration.y, gravity.acceleration.z, initial.velocity.x, "
            "initial.velocity.y, initial.velocity.z\n0, 0, -9.8, 1, 1, 1\n\n0, 0, -9.8, 1, 1\n");
  EXPECT_EQ(e.line(), 4u);
  EXPECT_NE(std::string(e.what()).find("5 values, the header 6"), std::string::npos) << e.what();
  e = error("gravity.acceleration.x, gravity.acceleration.y, gravity.acceleration.z\n");
  EXPECT_NE(std::string(e.what()).find("no rows"), std::string::npos) << e.what();
  e = error("body.massive\n1\n");
  EXPECT_EQ(e.key_path(), "body.massive");
  EXPECT_NE(std::string(e.what()).find("known:"), std::string::npos);
  e = error("body.mass, initial.angular_velocity.x, initial.angular_velocity.y, initial.angular_velocity.z\n1, 0, 0, 0\n");
  EXPECT_NE(std::string(e.what()).find("already dispersed"), std::string::npos) << e.what();  // the scenario disperses both
  try {
    parse_scenario(table_scenario("missing.csv"), dir.file("box.toml"));
    ADD_FAILURE();
  } catch (const ScenarioError& x) {
    EXPECT_EQ(x.key_path(), "design.file");
  }
}

// An HDF5 table: a previous run's /samples/params (one dataset per key path) gives a new run
// without dispersions every input the old one drew, and the new run is the old one, bit for bit.
TEST(TableDesign, APreviousRunsParamsRunItAgain) {
  test::TempDir dir;
  const std::string text = test::valid_scenario_text(40);
  RunOptions o;
  o.output = dir.file("a.h5");
  o.backend = BackendChoice::cpu;
  o.progress = false;
  run_scenario(parse_scenario(text, dir.file("a.toml")), o);
  std::string again = text.substr(0, text.find("[dispersions]"));
  again.erase(again.find("samples = 40"), 12);
  const Scenario rerun =
      parse_scenario(again + "[design]\ntype = \"table\"\nfile = \"a.h5\"\ngroup = \"samples/params\"\n", dir.file("b.toml"));
  EXPECT_EQ(rerun.run.n_samples, 40u);
  EXPECT_EQ(rerun.design.axes.size(), 5u);  // mass, principal moments, centre of mass, spin, attitude
  o.output = dir.file("b.h5");
  run_scenario(rerun, o);
  const ResultsReader a(dir.file("a.h5")), b(dir.file("b.h5"));
  for (const char* d : {"samples/body/mass", "samples/body/inertia", "samples/initial/orientation",
                        "samples/initial/angular_velocity", "samples/final/position", "samples/final/angular_velocity"})
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
}

// An HDF5 table's errors name its file and dataset, and the row.
TEST(TableDesign, HDF5TableErrorsNameTheDatasetAndRow) {
  test::TempDir dir;
  const auto write = [&](const std::vector<std::pair<std::string, Array<double>>>& datasets) {
    h5::Handle file(H5Fcreate(dir.file("t.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "creating t.h5");
    for (const auto& [name, a] : datasets) h5::write_array(file.get(), name, a.data, std::vector<hsize_t>(a.shape.begin(), a.shape.end()));
  };
  const auto error = [&]() -> ScenarioError {
    try {
      parse_scenario(table_scenario("t.h5"), dir.file("box.toml"));
    } catch (const ScenarioError& e) {
      return e;
    }
    ADD_FAILURE() << "accepted";
    return ScenarioError("", 0, 0, "", "");
  };
  write({{"gravity.acceleration", {{2, 3}, {0, 0, -9.8, 0, 0, -1.6}}}, {"initial.position", {{2, 3}, {0, 0, 0, 0, 0, NAN}}}});
  ScenarioError e = error();
  EXPECT_EQ(e.file(), dir.file("t.h5"));
  EXPECT_EQ(e.key_path(), "initial.position");
  EXPECT_NE(std::string(e.what()).find("row 1 is not a finite number"), std::string::npos) << e.what();
  write({{"gravity.acceleration", {{2}, {-9.8, -1.6}}}});
  EXPECT_NE(std::string(error().what()).find("must be (rows, 3)"), std::string::npos);
  write({{"gravity.acceleration", {{2, 3}, {0, 0, -9.8, 0, 0, -1.6}}}, {"initial.position", {{3, 3}, std::vector<double>(9, 0.0)}}});
  EXPECT_NE(std::string(error().what()).find("has 3 rows, the table's first dataset 2"), std::string::npos);
  write({{"body.massive", {{2}, {1, 2}}}});
  EXPECT_EQ(error().key_path(), "body.massive");
  // The table's values, when they are good.
  write({{"gravity.acceleration", {{2, 3}, {0, 0, -9.8, 0, 0, -1.6}}}});
  const Scenario s = parse_scenario(table_scenario("t.h5"), dir.file("box.toml"));
  EXPECT_EQ(s.run.n_samples, 2u);
  ASSERT_EQ(s.design.axes.size(), 1u);
  EXPECT_EQ(s.design.axes[0].values[1][2], -1.6);
}

}  // namespace
}  // namespace rbmc

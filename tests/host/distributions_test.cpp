// The distributions a scenario can name, checked against theory through the sampling plan:
// Kolmogorov–Smirnov statistics below their 1 % critical value 1.63/√n, and moments within five
// standard errors for the sample size (false-failure rates below 1e-2 and 1e-6).
#include "rbmc/random/inverse_transforms.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "rbmc/math/rotation.hpp"

namespace rbmc {
namespace {

constexpr int kSamples = 20000;

double ks_statistic(std::vector<double> x, const std::function<double(double)>& cdf) {
  std::sort(x.begin(), x.end());
  double d = 0;
  const double n = double(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, std::abs(f - double(i) / n), std::abs(double(i + 1) / n - f)});
  }
  return d;
}
const double kKsCritical = 1.63 / std::sqrt(double(kSamples));

Scenario with_dispersion(const std::string& dispersion) {
  return parse_scenario(R"([run]
duration = 1.0
step = 0.1
seed = 5
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
angular_velocity = [0.1, 3.0, 0.1]
attitude_euler_zyx = [0.3, 0.2, 0.1]
[dispersions]
)" + dispersion,
                        "d.toml");
}

// Draws of the first value of the scenario's only dispersion (a rotation vector for the attitude).
std::vector<Vec3<double>> draws(const Scenario& s) {
  const SamplingPlan plan(s);
  std::vector<Vec3<double>> out;
  SampleInputs<double> in;
  double v[3];
  for (std::uint64_t k = 0; k < kSamples; ++k) {
    plan.sample(k, in, v);
    out.emplace_back(v[0], v[1], v[2]);
  }
  return out;
}

TEST(Distributions, NormalQuantileInvertsTheCdf) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-14);
  for (double p : {1e-12, 1e-6, 0.01, 0.3, 0.5, 0.77, 0.999, 1 - 1e-9}) EXPECT_NEAR(normal_cdf(normal_quantile(p)), p, 1e-15 + 1e-13 * p);
}

TEST(Distributions, TruncatedNormal) {
  const std::vector<Vec3<double>> v =
      draws(with_dispersion(R"(body.mass = { distribution = "truncated_normal", sigma = 0.5, min = 1.5, max = 3.0 })"));
  std::vector<double> x;
  for (const auto& d : v) x.push_back(d(0));
  for (double m : x) {
    ASSERT_GE(m, 1.5);
    ASSERT_LE(m, 3.0);
  }
  const double alpha = (1.5 - 2.0) / 0.5, beta = (3.0 - 2.0) / 0.5, z = normal_cdf(beta) - normal_cdf(alpha);
  const auto cdf = [&](double m) { return (normal_cdf((m - 2.0) / 0.5) - normal_cdf(alpha)) / z; };
  EXPECT_LE(ks_statistic(x, cdf), kKsCritical);
  // Mean of the truncated normal: μ + σ (φ(α) − φ(β)) / Z.
  const auto phi = [](double t) { return std::exp(-t * t / 2) / std::sqrt(2 * M_PI); };
  double mean = 0;
  for (double m : x) mean += m / kSamples;
  EXPECT_NEAR(mean, 2.0 + 0.5 * (phi(alpha) - phi(beta)) / z, 5 * 0.5 / std::sqrt(double(kSamples)));
}

// Far tails: the sampler against the exact truncated CDF, F(x) = (Q(a) − Q(x)) / (Q(a) − Q(b)),
// computed independently in long double (erfcl reaches Q(40) = 3.7e-350, below double's range),
// for intervals from −40 σ to +40 σ, around the mean and with both bounds on one side. Each draw
// must lie in its interval and strictly inside it (no mass piled on a bound).
TEST(Distributions, TruncatedNormalIsExactInTheTails) {
  const auto q = [](long double x) { return 0.5L * std::erfc(x / std::sqrt(2.0L)); };
  const double inf = INFINITY;
  const std::pair<double, double> intervals[] = {{-10, 10}, {-10, -9}, {-1, 40}, {5, 6},     {10, 15},  {8, 40},
                                                 {30, 40},  {40, inf}, {-40, -30}, {-inf, -10}, {-1e-3, 1e-3}, {2, 2.5}};
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (const auto& [a, b] : intervals) {
    // The mass above x, relative to Q(a) or, for an interval below the mean, by symmetry.
    const bool below = b <= 0;
    const long double lo = below ? -b : a, hi = below ? -a : b;
    const auto cdf = [&](double x) {
      const long double t = below ? -x : x, qa = q(lo), qb = std::isinf(hi) ? 0.0L : q(hi);
      const double f = double((qa - q(t)) / (qa - qb));
      return below ? 1 - f : f;
    };
    std::vector<double> x(kSamples);
    for (double& v : x) v = truncated_normal_from_uniform(0, 1, a, b, uniform(rng));
    for (double v : x) {
      ASSERT_GE(v, a) << "[" << a << ", " << b << "]";
      ASSERT_LE(v, b) << "[" << a << ", " << b << "]";
    }
    EXPECT_LE(ks_statistic(x, cdf), kKsCritical) << "[" << a << ", " << b << "]";
    EXPECT_LT(std::count(x.begin(), x.end(), b), 2) << "draws piled on the upper bound of [" << a << ", " << b << "]";
    EXPECT_LT(std::count(x.begin(), x.end(), a), 2) << "draws piled on the lower bound of [" << a << ", " << b << "]";
  }
}

// The cases found in use, nominal mass 2 with σ = 0.02: [2.2, 2.3] (10 to 15 σ) drew 2.3 every
// time, where the mean is μ + σ φ(10)/Q(10) = 2.20196; [2.16, 2.3] piled 8 % on 2.3; [0.5, 1.0]
// (75 to 50 σ below) drew 0.5 every time, where the draws crowd below 1.0 at a scale of
// σ²/(μ − 1) = 4e-4.
TEST(Distributions, TruncatedNormalFarFromTheNominalMass) {
  const auto mass_draws = [](const std::string& bounds) {
    std::vector<double> x;
    for (const auto& d : draws(with_dispersion("body.mass = { distribution = \"truncated_normal\", sigma = 0.02, " +
                                               bounds + " }")))
      x.push_back(d(0));
    return x;
  };
  const auto mean = [](const std::vector<double>& x) { return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size()); };
  const std::vector<double> far = mass_draws("min = 2.2, max = 2.3");
  // Mean of the truncated normal: μ + σ φ(α)/Q(α) (β's term is e^{-50} smaller); its sd there is
  // about σ/α = 0.002, so the mean of 20000 is within 5 × 0.002/√20000.
  const long double phi10 = std::exp(-50.0L) / std::sqrt(2 * M_PIl), q10 = 0.5L * std::erfc(10 / std::sqrt(2.0L));
  EXPECT_NEAR(mean(far), double(2 + 0.02L * phi10 / q10), 5 * 0.002 / std::sqrt(double(kSamples)));
  EXPECT_EQ(std::count(far.begin(), far.end(), 2.3), 0);
  const std::vector<double> wide = mass_draws("min = 2.16, max = 2.3");
  EXPECT_EQ(std::count(wide.begin(), wide.end(), 2.3), 0);
  const std::vector<double> low = mass_draws("min = 0.5, max = 1.0");
  EXPECT_EQ(std::count(low.begin(), low.end(), 0.5), 0);
  EXPECT_NEAR(mean(low), 1.0 - 0.02 * 0.02 / 1.0, 2e-5);  // an exponential tail of scale σ²/(μ − 1)
}

TEST(Distributions, Lognormal) {
  const std::vector<Vec3<double>> v =
      draws(with_dispersion(R"(body.mass = { distribution = "lognormal", log_sigma = 0.2 })"));  // median: the nominal 2
  std::vector<double> x;
  for (const auto& d : v) x.push_back(d(0));
  EXPECT_LE(ks_statistic(x, [](double m) { return normal_cdf((std::log(m) - std::log(2.0)) / 0.2); }), kKsCritical);
}

TEST(Distributions, DiscreteFrequenciesFollowTheWeights) {
  const std::vector<Vec3<double>> v = draws(
      with_dispersion(R"(body.mass = { distribution = "discrete", values = [1.0, 2.0, 4.0], weights = [1, 2, 1] })"));
  double count[3] = {0, 0, 0};
  for (const auto& d : v) count[d(0) == 1.0 ? 0 : d(0) == 2.0 ? 1 : 2] += 1;
  const double p[3] = {0.25, 0.5, 0.25};
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(count[i] / kSamples, p[i], 5 * std::sqrt(p[i] * (1 - p[i]) / kSamples)) << i;
}

TEST(Distributions, FixedIsTheValue) {
  for (const auto& d : draws(with_dispersion(R"(initial.angular_velocity = { distribution = "fixed", value = [1, 2, 3] })")))
    EXPECT_EQ(d, Vec3<double>(1, 2, 3));
}

// Uniform on SO(3): the rotation angle has density (1 − cos θ)/π, CDF (θ − sin θ)/π, and the axes
// are isotropic (each component's mean 0, mean square 1/3).
TEST(Distributions, UniformRotationsOnSo3) {
  const Scenario s = with_dispersion(R"(initial.attitude = { distribution = "uniform_rotation" })");
  const SamplingPlan plan(s);
  std::vector<double> angles;
  Vec3<double> mean = Vec3<double>::Zero(), square = Vec3<double>::Zero();
  SampleInputs<double> in;
  double v[3];
  for (std::uint64_t k = 0; k < kSamples; ++k) {
    plan.sample(k, in, v);
    // The drawn attitude itself (not relative to the nominal) is what must be uniform.
    const Vec3<double> r = rotation_vector_from_quaternion(in.initial.q_wb);
    angles.push_back(r.norm());
    const Vec3<double> axis = r.normalized();
    mean += axis / kSamples;
    square += axis.cwiseProduct(axis) / kSamples;
  }
  EXPECT_LE(ks_statistic(angles, [](double t) { return (t - std::sin(t)) / M_PI; }), kKsCritical);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(mean(i), 0.0, 5 / std::sqrt(3.0 * kSamples));
    EXPECT_NEAR(square(i), 1.0 / 3, 5 * std::sqrt(4.0 / 45 / kSamples));  // var of a² is 1/5 − 1/9
  }
}

// A small rotation about a random axis: the angle is half-normal (mean σ √(2/π)).
TEST(Distributions, RandomAxisSmallAngles) {
  const std::vector<Vec3<double>> v =
      draws(with_dispersion(R"(initial.attitude = { distribution = "random_axis", angle_sigma = 0.05 })"));
  double mean = 0;
  Vec3<double> axis_mean = Vec3<double>::Zero();
  for (const auto& d : v) {
    mean += d.norm() / kSamples;
    axis_mean += d.normalized() / kSamples;
  }
  EXPECT_NEAR(mean, 0.05 * std::sqrt(2 / M_PI), 5 * 0.05 * std::sqrt(1 - 2 / M_PI) / std::sqrt(double(kSamples)));
  EXPECT_LE(axis_mean.norm(), 5 * std::sqrt(1.0 / kSamples));
}

TEST(Distributions, BadParametersNameTheKey) {
  const auto key_of = [](const std::string& dispersion) {
    try {
      with_dispersion(dispersion);
    } catch (const ScenarioError& e) {
      return e.key_path();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(key_of(R"(body.mass = { distribution = "truncated_normal", sigma = 0.1, min = 3.0, max = 1.0 })"),
            "dispersions.body.mass.max");
  EXPECT_EQ(key_of(R"(body.mass = { distribution = "truncated_normal", sigma = 0.1, min = 1.0 })"),
            "dispersions.body.mass.max");
  EXPECT_EQ(key_of(R"(body.mass = { distribution = "lognormal", median = -1.0, log_sigma = 0.1 })"),
            "dispersions.body.mass.median");
  EXPECT_EQ(key_of(R"(body.mass = { distribution = "discrete", values = [1.0, 2.0], weights = [1.0] })"),
            "dispersions.body.mass.weights");
  EXPECT_EQ(key_of(R"(body.mass = { distribution = "discrete", values = [1.0], weights = [-1.0] })"),
            "dispersions.body.mass.weights");
  EXPECT_EQ(key_of(R"(body.mass = { distribution = "uniform_rotation" })"), "dispersions.body.mass.distribution");
  EXPECT_EQ(key_of(R"(initial.attitude = { distribution = "random_axis" })"), "dispersions.initial.attitude.angle_sigma");
  EXPECT_EQ(key_of(R"(body.mass = { distribution = "fixed" })"), "dispersions.body.mass.value");
}

}  // namespace
}  // namespace rbmc

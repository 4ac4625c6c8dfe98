#include "host/sampling/sampling_plan.hpp"

#include <atomic>
#include <cmath>

#include <gtest/gtest.h>

#include "host/util/parallel_for.hpp"
#include "rbmc/body/principal_axes.hpp"
#include "rbmc/math/quaternion.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

Scenario scenario_with(const std::string& dispersions, const std::string& inertia = "[[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]") {
  return parse_scenario(R"([run]
duration = 1.0
step = 0.1
seed = 99
[body]
mass = 2.0
inertia = )" + inertia + R"(
[initial]
angular_velocity = [0.1, 3.0, 0.1]
[dispersions]
)" + dispersions,
                        "plan.toml");
}

TEST(SamplingPlan, NoDispersionsGivesTheNominalInputs) {
  const Scenario s = scenario_with("");
  const SamplingPlan plan(s);
  SampleInputs<double> in;
  EXPECT_EQ(plan.sample(17, in, nullptr), 0);
  EXPECT_EQ(in.body.mass, 2.0);
  EXPECT_EQ(in.initial.omega_b, s.initial.omega_b);
  EXPECT_EQ(in.body.inertia_c_b, s.body.inertia_c_b);
}

// Sample k's draw of one input depends only on (seed, k, key path): dispersing another input
// as well, or asking for the samples in another order, changes nothing.
TEST(SamplingPlan, DrawsDependOnlyOnSeedSampleAndKeyPath) {
  const Scenario one = scenario_with(R"(body.mass = { distribution = "normal", sigma = 0.1 })");
  const Scenario two = scenario_with(R"(initial.velocity = { distribution = "uniform", half_width = 1.0 }
body.mass = { distribution = "normal", sigma = 0.1 })");
  const SamplingPlan a(one), b(two);
  // The drawn values follow the plan's dispersions in order; find the mass among them.
  int mass_column = 0;
  for (const Dispersion& d : b.dispersions()) {
    if (d.info.input == DispersedInput::mass) break;
    mass_column += d.info.dim;
  }
  double pa[1], pb[4];
  SampleInputs<double> ia, ib;
  for (std::uint64_t k : {std::uint64_t(5), std::uint64_t(0), std::uint64_t(123456789)}) {
    a.sample(k, ia, pa);
    b.sample(k, ib, pb);
    EXPECT_EQ(ia.body.mass, ib.body.mass);
    EXPECT_EQ(pa[0], pb[mass_column]);
    EXPECT_EQ(pa[0], ia.body.mass);
  }
  a.sample(6, ia, pa);
  EXPECT_NE(pa[0], pb[mass_column]);
}

// Normal dispersion of the mass over n = 20000 samples: mean within 5σ/√n of the nominal,
// standard deviation within 5σ/√(2n) of σ.
TEST(SamplingPlan, NormalDispersionHasItsMoments) {
  const SamplingPlan plan(scenario_with(R"(body.mass = { distribution = "normal", sigma = 0.1 })"));
  const int n = 20000;
  double sum = 0, sum2 = 0, param;
  SampleInputs<double> in;
  for (int k = 0; k < n; ++k) {
    plan.sample(std::uint64_t(k), in, &param);
    sum += in.body.mass;
    sum2 += in.body.mass * in.body.mass;
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 2.0, 5 * 0.1 / std::sqrt(n));
  EXPECT_NEAR(sd, 0.1, 5 * 0.1 / std::sqrt(2.0 * n));
}

// Principal moments are dispersed along the nominal principal axes, also for a tensor with
// products of inertia: every sample has the nominal axes and moments inside the stated bounds.
TEST(SamplingPlan, PrincipalMomentsKeepTheNominalAxes) {
  const Scenario s = scenario_with(R"(body.principal_moments = { distribution = "uniform", half_width = 0.01 })",
                                   "[[0.2, 0.03, 0.0], [0.03, 0.25, 0.01], [0.0, 0.01, 0.3]]");
  const SamplingPlan plan(s);
  const PrincipalFrame<double> nominal = principal_frame(s.body.inertia_c_b, PrincipalOrder::keep_body_axes);
  SampleInputs<double> in;
  double drawn[3];
  for (std::uint64_t k = 0; k < 200; ++k) {
    plan.sample(k, in, drawn);
    const Mat3<double> in_nominal_axes = nominal.axes.transpose() * in.body.inertia_c_b * nominal.axes;
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(in_nominal_axes(i, i), drawn[i], 1e-14);
      EXPECT_LE(std::abs(drawn[i] - nominal.moments(i)), 0.01);
      for (int j = 0; j < 3; ++j)
        if (i != j) EXPECT_NEAR(in_nominal_axes(i, j), 0.0, 1e-14);
    }
  }
}

// The validity policy: a mass dispersion wide enough to draw negative masses (σ = m/2: 2.3 %
// of draws) is redrawn from the same sample's stream until physical; the redraw is
// deterministic, and no invalid body reaches the integrator.
TEST(SamplingPlan, NonPhysicalDrawsAreRedrawnDeterministically) {
  const SamplingPlan plan(scenario_with(R"(body.mass = { distribution = "normal", sigma = 1.0 })"));
  int redrawn = 0;
  SampleInputs<double> in, again;
  double p, q;
  for (std::uint64_t k = 0; k < 2000; ++k) {
    const int attempts = plan.sample(k, in, &p);
    redrawn += attempts > 0;
    EXPECT_GT(in.body.mass, 0.0);
    EXPECT_EQ(plan.sample(k, again, &q), attempts);
    EXPECT_EQ(again.body.mass, in.body.mass);
  }
  EXPECT_GT(redrawn, 10);   // expected 46 of 2000
  EXPECT_LT(redrawn, 120);
}

// An attitude dispersion is a body-frame rotation by the drawn rotation vector δθ:
// q = q_nominal ⊗ exp(δθ), so q_nominal* ⊗ q has angle |δθ|.
TEST(SamplingPlan, AttitudeDispersionRotatesByTheDrawnVector) {
  const SamplingPlan plan(scenario_with(R"(initial.attitude = { distribution = "normal", sigma = 0.1 })"));
  SampleInputs<double> in;
  double phi[3];
  for (std::uint64_t k = 0; k < 50; ++k) {
    plan.sample(k, in, phi);
    const double angle = 2 * std::acos(std::min(1.0, std::abs(in.initial.q_wb.w)));
    EXPECT_NEAR(angle, Vec3<double>(phi[0], phi[1], phi[2]).norm(), 1e-7);
    EXPECT_NEAR(in.initial.q_wb.norm(), 1.0, 1e-15);
  }
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// Principal axes misaligned by a small rotation keep the moments and turn the axes by it.
TEST(SamplingPlan, PrincipalAxesTurnByTheDrawnRotation) {
  const Scenario s = scenario_with(R"(body.principal_axes = { distribution = "random_axis", angle_sigma = 0.05 })");
  const SamplingPlan plan(s);
  SampleInputs<double> in;
  double phi[3];
  for (std::uint64_t k = 0; k < 50; ++k) {
    plan.sample(k, in, phi);
    const Mat3<double> r = to_rotation_matrix(quaternion_from_rotation_vector<double>(Vec3<double>(phi[0], phi[1], phi[2])));
    // I' = R I Rᵀ for the nominal diagonal I: same moments, axes turned.
    EXPECT_LE((in.body.inertia_c_b - r * s.body.inertia_c_b * r.transpose()).cwiseAbs().maxCoeff(), 1e-15);
  }
}

// 10⁶ bodies dispersed hard enough that many draws break the triangle inequality or positivity
// (moments at 40 % sd, axes misaligned, mass at 50 % sd): under the redraw policy every one is
// valid, and the policy was needed.
TEST(SamplingPlan, AMillionDispersedInertiasAreAllValid) {
  const Scenario s = scenario_with(R"(body.principal_moments = { distribution = "normal", sigma = [0.04, 0.08, 0.1] }
body.principal_axes = { distribution = "random_axis", angle_sigma = 0.3 }
body.mass = { distribution = "normal", sigma = 1.0 })");
  const SamplingPlan plan(s);
  std::atomic<std::uint64_t> invalid{0}, redrawn{0};
  parallel_for(1000000, default_thread_count(), [&](std::size_t begin, std::size_t end) {
    SampleInputs<double> in;
    double params[7];
    for (std::size_t k = begin; k < end; ++k) {
      if (plan.sample(k, in, params) > 0) ++redrawn;
      if (check_mass_properties(in.body) != BodyValidity::valid) ++invalid;
    }
  });
  EXPECT_EQ(invalid.load(), 0u);
  EXPECT_GT(redrawn.load(), 10000u);
}

}  // namespace
}  // namespace rbmc

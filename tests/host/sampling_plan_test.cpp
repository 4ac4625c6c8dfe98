#include "host/sampling/sampling_plan.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/util/parallel_for.hpp"
#include "rbmc/body/principal_axes.hpp"
#include "rbmc/body/shapes.hpp"
#include "rbmc/math/euler.hpp"
#include "rbmc/math/rotation.hpp"
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

// ---- Inputs beyond the spine's ---------------------------------------------------------------

Scenario parse_text(const std::string& body_and_more) {
  return parse_scenario("[run]\nduration = 1.0\nstep = 0.1\nseed = 7\nsamples = 100\n" + body_and_more, "plan.toml");
}

// A body given as a shape takes its inertia from each sample's dimensions and mass.
TEST(SamplingPlan, ShapeDimensionsAndMassDeriveTheInertia) {
  const Scenario s = parse_text(R"([body]
mass = 2.0
shape = { type = "box", size = [0.3, 0.2, 0.1] }
[dispersions]
body.mass = { distribution = "normal", sigma = 0.1 }
body.shape.size = { distribution = "uniform", half_width = [0.01, 0.02, 0.005] }
)");
  const SamplingPlan plan(s);
  SampleInputs<double> in;
  double v[4];  // key-path order: body.mass, body.shape.size
  for (std::uint64_t k = 0; k < 100; ++k) {
    plan.sample(k, in, v);
    EXPECT_EQ(in.body.mass, v[0]);
    const Mat3<double> expected = shapes::box(v[0], v[1], v[2], v[3]);
    EXPECT_LE((in.body.inertia_c_b - expected).cwiseAbs().maxCoeff(), 1e-16) << k;
  }
  // Only the mass dispersed: the inertia scales with it (I ∝ m for a homogeneous solid).
  const SamplingPlan mass_only(parse_text(R"([body]
mass = 2.0
shape = { type = "solid_cylinder", radius = 0.1, height = 0.5 }
[dispersions]
body.mass = { distribution = "uniform", min = 1.0, max = 3.0 }
)"));
  mass_only.sample(3, in, v);
  EXPECT_LE((in.body.inertia_c_b - shapes::solid_cylinder(v[0], 0.1, 0.5)).cwiseAbs().maxCoeff(), 1e-16);
}

// Dimensions that can turn non-physical: the redraw policy draws again until the shape is valid;
// the reject policy keeps the draw, and the sample's body is flagged (run_sample: invalid_body).
TEST(SamplingPlan, InvalidShapesAreRedrawnOrRejected) {
  const std::string text = R"([body]
mass = 2.0
shape = { type = "hollow_cylinder", inner_radius = 0.08, outer_radius = 0.1, height = 0.3 }
[dispersions]
body.shape.inner_radius = { distribution = "normal", sigma = 0.02 }
)";
  // P(inner ≥ outer) = P(z ≥ 1) = 0.1587 per draw.
  const std::uint64_t n = 20000;
  for (const char* policy : {"redraw", "reject"}) {
    const SamplingPlan plan(parse_text(text + "[design]\ninvalid_bodies = \"" + policy + "\"\n"));
    std::uint64_t redrawn = 0, invalid = 0;
    SampleInputs<double> in;
    double v[1];
    for (std::uint64_t k = 0; k < n; ++k) {
      redrawn += plan.sample(k, in, v) > 0;
      const bool valid = check_mass_properties(in.body) == BodyValidity::valid;
      invalid += !valid;
      // A sample kept valid has a valid shape, whatever its inertia says.
      if (valid) EXPECT_LT(v[0], 0.1);
    }
    const double p = 0.1587, sd = std::sqrt(p * (1 - p) * double(n));
    if (std::string(policy) == "redraw") {
      EXPECT_EQ(invalid, 0u);
      EXPECT_NEAR(double(redrawn), p * double(n), 5 * sd);
    } else {
      EXPECT_EQ(redrawn, 0u);
      EXPECT_NEAR(double(invalid), p * double(n), 5 * sd);
    }
  }
}

// The attitude dispersed as Euler angles: each sample's quaternion is the one of its angles.
TEST(SamplingPlan, EulerAnglesDisperseTheAttitude) {
  const SamplingPlan plan(parse_text(R"([body]
mass = 1.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
attitude_euler_zxz = [0.3, 0.8, -0.2]
[dispersions]
initial.attitude_euler_zxz = { distribution = "normal", sigma = [0.1, 0.05, 0.1] }
)"));
  const DispersedInputInfo& info = plan.dispersions()[0].info;
  EXPECT_NEAR(info.nominal[0], 0.3, 1e-12);  // the nominal angles are the scenario's
  EXPECT_NEAR(info.nominal[1], 0.8, 1e-12);
  SampleInputs<double> in;
  double v[3];
  for (std::uint64_t k = 0; k < 20; ++k) {
    plan.sample(k, in, v);
    const Quaternion<double> q = quaternion_from_euler_zxz<double>(Vec3<double>(v[0], v[1], v[2]));
    EXPECT_LE(angle_between(in.initial.q_wb, q), 1e-12);
  }
}

const char* kSpringAndPivot = R"([body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[[loads]]
type = "damping"
linear = 0.5
[[loads]]
type = "spring"
anchor = [0.0, 0.0, 1.0]
stiffness = 40.0
[[loads]]
type = "damping"
linear = 0.25
[constraint]
type = "pivot"
point = [0.0, 0.0, 0.2]
)";

// Load and constraint parameters by key path: each sample carries its values, the constraint it
// starts on is its own, and damping entries still add up.
TEST(SamplingPlan, LoadAndConstraintParametersArePerSample) {
  const Scenario s = parse_text(std::string(kSpringAndPivot) + R"([dispersions]
loads.1.stiffness = { distribution = "uniform", min = 30.0, max = 50.0 }
loads.2.linear = { distribution = "uniform", min = 0.0, max = 1.0 }
constraint.point = { distribution = "normal", sigma = 0.01 }
)");
  ASSERT_EQ(s.model_parameters.n, 5);  // key-path order: constraint.point (3), loads.1.stiffness, loads.2.linear
  const SamplingPlan plan(s);
  SampleInputs<double> in;
  double v[5];
  for (std::uint64_t k = 0; k < 50; ++k) {
    plan.sample(k, in, v);
    LoadSet<double> loads = s.loads;
    Constraint<double> constraint = s.constraint;
    apply_model_parameters(s.model_parameters, in.model_values, loads, constraint);
    EXPECT_EQ(constraint.point_b, Vec3<double>(v[0], v[1], v[2]));
    EXPECT_EQ(loads.springs[0].stiffness, v[3]);
    EXPECT_NEAR(loads.linear_damping, 0.5 + v[4], 1e-15);  // the other entry's 0.5 plus this one's draw
    // The initial state is on this sample's pivot: its body point sits at the anchor.
    const Vec3<double> point_w = in.initial.p_w + rotate(in.initial.q_wb, constraint.point_b);
    EXPECT_LE((point_w - constraint.anchor_w).norm(), 1e-15);
  }
}

// Load values that can be unphysical, drawn so that some are (P(z < −1) = 0.1587 each): under
// "redraw" the loads are drawn again from the sample's streams until they are physical, the body
// keeping its draw (the load and body redraws are counted apart); under "reject" every first draw
// is kept and the sample fails its loads' check (run_sample then flags it invalid_load). A damping
// entry's own value must be non-negative, however much another entry adds.
TEST(SamplingPlan, LoadValuesThatAreNotPhysicalAreRedrawnOrRejected) {
  const std::string text = std::string(kSpringAndPivot) + R"([dispersions]
body.mass = { distribution = "normal", sigma = 0.1 }
loads.1.stiffness = { distribution = "normal", sigma = 40.0 }
loads.2.linear = { distribution = "normal", sigma = 0.25 }
constraint.point = { distribution = "normal", sigma = 0.01 }
)";
  const std::uint64_t n = 20000;
  // Key-path order: body.mass, constraint.point (3), loads.1.stiffness, loads.2.linear.
  const SamplingPlan mass_only(parse_text(std::string(kSpringAndPivot) + "[dispersions]\nbody.mass = { distribution = \"normal\", sigma = 0.1 }\n"));
  std::vector<double> first_stiffness(n), first_linear(n);
  for (const char* policy : {"reject", "redraw"}) {
    const Scenario s = parse_text(text + "[design]\ninvalid_bodies = \"" + policy + "\"\n");
    const SamplingPlan plan(s);
    const bool redraw = std::string(policy) == "redraw";
    std::uint64_t redrawn = 0, unphysical = 0;
    double sum = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
      SampleInputs<double> in, nominal_body;
      double v[6], m[1];
      const int redraws = plan.sample(k, in, v);
      redrawn += redraws > 0;
      mass_only.sample(k, nominal_body, m);
      ASSERT_EQ(v[0], m[0]) << "the body is not redrawn for its loads";
      const bool physical = OwnModelValues<double>{&s.model_parameters, in.model_values, 1}.physical();
      EXPECT_EQ(physical, v[4] >= 0 && v[5] >= 0) << k;
      unphysical += !physical;
      if (!redraw) {
        first_stiffness[k] = v[4];
        first_linear[k] = v[5];
        EXPECT_EQ(redraws, 0);
      } else {
        EXPECT_TRUE(physical) << k;
        // A first draw that was physical is kept, bit for bit.
        if (first_stiffness[k] >= 0 && first_linear[k] >= 0) {
          EXPECT_EQ(redraws, 0);
          EXPECT_EQ(v[4], first_stiffness[k]);
        }
        sum += v[4];
      }
    }
    const double p = 1 - (1 - 0.158655) * (1 - 0.158655), sd = std::sqrt(p * (1 - p) * double(n));
    if (redraw) {
      EXPECT_EQ(unphysical, 0u);
      EXPECT_NEAR(double(redrawn), p * double(n), 5 * sd);
      // The redrawn stiffness is the normal truncated at 0: N(40, 40²) given ≥ 0, whose mean is
      // 40 + 40 φ(1)/Φ(1) = 51.504 and sd 40 √(1 − φ(1)/Φ(1) − (φ(1)/Φ(1))²) = 31.74: within 5
      // standard errors.
      EXPECT_NEAR(sum / double(n), 51.504, 5 * 31.74 / std::sqrt(double(n)));
    } else {
      EXPECT_EQ(redrawn, 0u);
      EXPECT_NEAR(double(unphysical), p * double(n), 5 * sd);
    }
  }
}

// A body made invalid by a grid's values alone (nothing of it dispersed: moments that break the
// triangle inequality) is not redrawn in vain: no redraw can mend it, so none is made or counted,
// and the other inputs keep their one draw.
TEST(SamplingPlan, AnInvalidBodyNoDrawCanMendIsNotRedrawn) {
  const SamplingPlan plan(scenario_with(R"(initial.angular_velocity = { distribution = "normal", sigma = 0.1 }
[design]
type = "grid"
[design.axes]
"body.principal_moments" = { values = [[0.1, 0.2, 0.25], [0.1, 0.1, 0.3]] }
)"));
  SampleInputs<double> in;
  double v[3], first[3];
  for (std::uint64_t k = 0; k < 2; ++k) {
    EXPECT_EQ(plan.sample(k, in, v), 0) << k;
    EXPECT_EQ(check_mass_properties(in.body) == BodyValidity::valid, k == 0);
    if (k == 0) std::copy(v, v + 3, first);
  }
  const SamplingPlan velocity_only(scenario_with(R"(initial.angular_velocity = { distribution = "normal", sigma = 0.1 })"));
  velocity_only.sample(1, in, first);
  EXPECT_EQ(std::vector<double>(v, v + 3), std::vector<double>(first, first + 3));
}

// A multivariate normal: the sample correlation of each pair of components matches the matrix
// within 5 standard errors ((1 − ρ²)/√N), and the marginals keep their means and sds.
TEST(SamplingPlan, CorrelatedNormalsHaveTheirCorrelation) {
  const Scenario s = parse_text(R"([body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[dispersions]
body.mass = { distribution = "normal", sigma = 0.1 }
initial.angular_velocity = { distribution = "normal", mean = [0.0, 3.0, 0.0], sigma = [0.1, 0.2, 0.3] }
[[correlations]]
inputs = ["body.mass", "initial.angular_velocity"]
matrix = [[1.0, 0.8, 0.0, -0.5],
          [0.8, 1.0, 0.3, -0.2],
          [0.0, 0.3, 1.0, 0.0],
          [-0.5, -0.2, 0.0, 1.0]]
)");
  const SamplingPlan plan(s);
  const int n = 40000;
  std::vector<std::array<double, 4>> x(n);
  SampleInputs<double> in;
  for (int k = 0; k < n; ++k) plan.sample(std::uint64_t(k), in, x[std::size_t(k)].data());
  const double mean[4] = {2.0, 0.0, 3.0, 0.0}, sd[4] = {0.1, 0.1, 0.2, 0.3};
  std::array<double, 4> m{}, var{};
  for (const auto& row : x)
    for (int i = 0; i < 4; ++i) m[i] += row[i] / n;
  for (const auto& row : x)
    for (int i = 0; i < 4; ++i) var[i] += (row[i] - m[i]) * (row[i] - m[i]) / (n - 1);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(m[i], mean[i], 5 * sd[i] / std::sqrt(n)) << i;
    EXPECT_NEAR(std::sqrt(var[i]), sd[i], 5 * sd[i] / std::sqrt(2.0 * n)) << i;
  }
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) {
      double c = 0;
      for (const auto& row : x) c += (row[i] - m[i]) * (row[j] - m[j]) / (n - 1);
      const double r = c / std::sqrt(var[i] * var[j]), rho = s.correlations[0].matrix[std::size_t(i * 4 + j)];
      EXPECT_NEAR(r, rho, 5 * (1 - rho * rho) / std::sqrt(n)) << i << "," << j;
    }
}

// Each correlated value, bit for bit, is its member's rows of y = L z over the group's normals
// z_j = Φ⁻¹(u_j), all drawn first and multiplied out in full here (the draw draws them again for
// each member instead of keeping them: draw_inputs.hpp, correlated_value). The group's members
// have dimensions 1 and 3 and are not adjacent, so every row and offset is taken. The products are
// portable::mul, the draw's, so that no compiler fuses them with the sums.
TEST(SamplingPlan, CorrelatedValuesAreTheFactorTimesTheGroupsNormals) {
  const Scenario s = parse_text(R"([body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[dispersions]
body.mass = { distribution = "normal", sigma = 0.1 }
initial.position = { distribution = "uniform", half_width = [1.0, 1.0, 1.0] }
initial.angular_velocity = { distribution = "normal", mean = [0.0, 3.0, 0.0], sigma = [0.1, 0.2, 0.3] }
[[correlations]]
inputs = ["body.mass", "initial.angular_velocity"]
matrix = [[1.0, 0.8, 0.1, -0.5],
          [0.8, 1.0, 0.3, -0.2],
          [0.1, 0.3, 1.0, 0.4],
          [-0.5, -0.2, 0.4, 1.0]]
)");
  const SamplingPlan plan(s);
  const SamplingModel& m = plan.model();
  ASSERT_EQ(m.n_correlations, 1);
  ASSERT_EQ(m.n_dispersions, 3);
  ASSERT_EQ(plan.n_parameter_values(), 7);
  const CorrelationModel& g = m.correlations[0];
  ASSERT_EQ(g.dim, 4);
  const double* factor = m.values + g.factor_at;
  SampleInputs<double> in;
  double params[7];
  for (std::uint64_t k = 0; k < 200; ++k) {
    ASSERT_EQ(plan.sample(k, in, params), 0);  // no redraw: attempt 0's normals
    double z[4], y[4];
    for (int j = 0; j < 4; ++j) z[j] = normal_quantile(unit_uniform(m, g.unit, k, 0, j));
    for (int i = 0; i < 4; ++i) {
      y[i] = 0;
      for (int j = 0; j <= i; ++j) y[i] += portable::mul(factor[i * 4 + j], z[j]);
    }
    std::size_t param = 0;
    int correlated = 0;
    for (int i = 0; i < m.n_dispersions; ++i) {
      const DispersionModel& d = m.dispersions[i];
      for (int c = 0; c < d.target.dim; ++c, ++param) {
        if (d.group < 0) continue;
        const double expected = d.a[c] + portable::mul(d.b[c], y[d.offset_in_group + c]);
        EXPECT_EQ(params[param], expected) << "sample " << k << ", dispersion " << i << ", component " << c;
        ++correlated;
      }
      // The sample's inputs take them.
      if (d.target.input == DispersedInput::mass) EXPECT_EQ(in.body.mass, params[param - 1]);
      if (d.target.input == DispersedInput::angular_velocity)
        EXPECT_EQ(in.initial.omega_b, Vec3<double>(params[param - 3], params[param - 2], params[param - 1]));
    }
    ASSERT_EQ(correlated, 4);
  }
}

}  // namespace
}  // namespace rbmc

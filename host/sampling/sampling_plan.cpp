#include "host/sampling/sampling_plan.hpp"

#include <cmath>

#include "host/sampling/distributions.hpp"
#include "rbmc/body/principal_axes.hpp"
#include "rbmc/math/rotation.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc {

SamplingPlan::SamplingPlan(Scenario scenario) : scenario_(std::move(scenario)) {
  for (const Dispersion& d : scenario_.dispersions) {
    n_parameter_values_ += d.info.dim;
    stream_ids_.push_back(stream_id(d.info.key_path));
  }
  principal_axes_ = principal_frame(scenario_.body.inertia_c_b, PrincipalOrder::keep_body_axes).axes;
}

Vec3<double> SamplingPlan::draw(const Dispersion& d, std::size_t index, std::uint64_t k, int attempt) const {
  const PhiloxStream stream(scenario_.run.seed, k, stream_ids_[index]);
  // Draw indices: 8 per attempt, so a redraw never reuses a number.
  const auto u = [&](int j) { return stream.uniform(static_cast<std::uint32_t>(attempt * 8 + j)); };
  const auto z = [&](int j) { return stream.normal(static_cast<std::uint32_t>(attempt * 8 + j)); };
  Vec3<double> v = Vec3<double>::Zero();
  switch (d.kind) {
    case DistributionKind::normal:
      for (int i = 0; i < d.info.dim; ++i) v(i) = d.a[i] + d.b[i] * z(i);
      break;
    case DistributionKind::uniform:
      for (int i = 0; i < d.info.dim; ++i) v(i) = d.a[i] + (d.b[i] - d.a[i]) * u(i);
      break;
    case DistributionKind::truncated_normal:
      for (int i = 0; i < d.info.dim; ++i) v(i) = truncated_normal(d.a[i], d.b[i], d.lo[i], d.hi[i], u(i));
      break;
    case DistributionKind::lognormal:
      for (int i = 0; i < d.info.dim; ++i) v(i) = d.a[i] * std::exp(d.b[i] * z(i));
      break;
    case DistributionKind::fixed:
      for (int i = 0; i < d.info.dim; ++i) v(i) = d.a[i];
      break;
    case DistributionKind::discrete: {
      const double r = u(0);
      std::size_t choice = 0;
      while (choice + 1 < d.cumulative.size() && r > d.cumulative[choice]) ++choice;
      for (int i = 0; i < d.info.dim; ++i) v(i) = d.values[choice][std::size_t(i)];
      break;
    }
    case DistributionKind::uniform_rotation:
      // As a rotation vector from the nominal attitude, so that q_nominal ⊗ exp(v) is the draw.
      v = rotation_vector_from_quaternion(scenario_.initial.q_wb.conjugate() * uniform_rotation(u(0), u(1), u(2)));
      break;
    case DistributionKind::random_axis: {
      const double angle = d.b[0] > 0 ? std::abs(d.b[0] * z(2)) : d.a[0] * u(2);
      v = uniform_direction(u(0), u(1)) * angle;
      break;
    }
  }
  return v;
}

int SamplingPlan::sample(std::uint64_t k, SampleInputs<double>& in, double* params) const {
  const Scenario& s = scenario_;
  int attempt = 0;
  for (;; ++attempt) {
    in.body = s.body;
    in.initial = s.initial;
    in.gravity_w = s.gravity_w;
    double* out = params;
    for (const Dispersion& d : s.dispersions) {
      // Only the mass properties are redrawn; other inputs keep their first draw.
      const int a = d.info.is_body ? attempt : 0;
      const Vec3<double> v = draw(d, std::size_t(&d - s.dispersions.data()), k, a);
      for (int i = 0; i < d.info.dim; ++i) *out++ = v(i);
      switch (d.info.input) {
        case DispersedInput::mass: in.body.mass = v(0); break;
        case DispersedInput::center_of_mass: in.body.com_b = v; break;
        case DispersedInput::principal_moments:
          // Rotation of inertia, 001: I = E diag(λ) Eᵀ with E the nominal principal axes.
          in.body.inertia_c_b = inertia_from_principal(principal_axes_, v);
          break;
        case DispersedInput::position: in.initial.p_w = v; break;
        case DispersedInput::attitude:
          // A small rotation in the body frame: q = q_nominal ⊗ exp(δθ).
          in.initial.q_wb = normalized(s.initial.q_wb * quaternion_from_rotation_vector(v));
          break;
        case DispersedInput::velocity: in.initial.v_w = v; break;
        case DispersedInput::angular_velocity: in.initial.omega_b = v; break;
        case DispersedInput::gravity: in.gravity_w = v; break;
      }
    }
    if (check_mass_properties(in.body) == BodyValidity::valid || attempt + 1 >= kMaxBodyAttempts) break;
  }
  // A constrained body starts on its constraint: a consistent initial state (docs/scenario.md).
  if (s.constraint.kind != ConstraintKind::none) in.initial = project_onto_constraint(s.constraint, in.initial);
  return attempt;
}

}  // namespace rbmc

#include "host/sampling/sampling_plan.hpp"

#include "rbmc/body/principal_axes.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc {

SamplingPlan::SamplingPlan(Scenario scenario) : scenario_(std::move(scenario)) {
  for (const Dispersion& d : scenario_.dispersions) {
    n_parameter_values_ += d.info.dim;
    stream_ids_.push_back(stream_id(d.info.key_path));
  }
  principal_axes_ = principal_frame(scenario_.body.inertia_c_b, PrincipalOrder::keep_body_axes).axes;
}

double SamplingPlan::draw(const Dispersion& d, std::uint64_t k, int component, int attempt) const {
  const auto index = static_cast<std::size_t>(&d - scenario_.dispersions.data());
  const PhiloxStream stream(scenario_.run.seed, k, stream_ids_[index]);
  // Draw indices: 8 per attempt, one per component, so a redraw never reuses a number.
  const auto draw_index = static_cast<std::uint32_t>(attempt * 8 + component);
  const double a = d.a[component], b = d.b[component];
  if (d.kind == DistributionKind::normal) return a + b * stream.normal(draw_index);
  return a + (b - a) * stream.uniform(draw_index);
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
      Vec3<double> v = Vec3<double>::Zero();
      for (int i = 0; i < d.info.dim; ++i) v(i) = draw(d, k, i, a);
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

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
  const PrincipalFrame<double> frame = principal_frame(scenario_.body.inertia_c_b, PrincipalOrder::keep_body_axes);
  principal_axes_ = frame.axes;
  nominal_moments_ = frame.moments;
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
      // For the attitude, as a rotation vector from the nominal one, so that q_nominal ⊗ exp(v) is
      // the draw; for the principal axes, the rotation itself.
      v = rotation_vector_from_quaternion(
          (d.info.input == DispersedInput::attitude ? scenario_.initial.q_wb.conjugate() : Quaternion<double>::identity()) *
          uniform_rotation(u(0), u(1), u(2)));
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
  const std::vector<std::uint64_t> grid =
      s.design.kind == Design::Kind::grid ? s.design.coordinates(k) : std::vector<std::uint64_t>{};
  int attempt = 0;
  for (;; ++attempt) {
    in.body = s.body;
    in.initial = s.initial;
    in.gravity_w = s.gravity_w;
    // Moments and axes may each be dispersed; the tensor is rebuilt from both at the end.
    Vec3<double> moments = nominal_moments_;
    Mat3<double> axes = principal_axes_;
    bool rebuild_inertia = false;
    // One input's value, whether from the grid or a dispersion.
    const auto apply = [&](DispersedInput input, const Vec3<double>& v) {
      switch (input) {
        case DispersedInput::mass: in.body.mass = v(0); break;
        case DispersedInput::center_of_mass: in.body.com_b = v; break;
        case DispersedInput::principal_moments:
          moments = v;
          rebuild_inertia = true;
          break;
        case DispersedInput::principal_axes:
          // The axes turned by a small rotation in the body frame: E' = R(δθ) E.
          axes = to_rotation_matrix(quaternion_from_rotation_vector(v)) * principal_axes_;
          rebuild_inertia = true;
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
    };
    // A grid point's values first: the sweep sets them, the dispersions of other inputs vary.
    for (std::size_t i = 0; i < grid.size(); ++i) {
      const std::array<double, 3>& g = s.design.axes[i].values[grid[i]];
      apply(s.design.axes[i].info.input, Vec3<double>(g[0], g[1], g[2]));
    }
    double* out = params;
    for (const Dispersion& d : s.dispersions) {
      // Only the mass properties are redrawn; other inputs keep their first draw.
      const int a = d.info.is_body ? attempt : 0;
      const Vec3<double> v = draw(d, std::size_t(&d - s.dispersions.data()), k, a);
      for (int i = 0; i < d.info.dim; ++i) *out++ = v(i);
      apply(d.info.input, v);
    }
    // Rotation of inertia, 001: I = E diag(λ) Eᵀ.
    if (rebuild_inertia) in.body.inertia_c_b = inertia_from_principal(axes, moments);
    if (check_mass_properties(in.body) == BodyValidity::valid || attempt + 1 >= kMaxBodyAttempts) break;
  }
  // A constrained body starts on its constraint: a consistent initial state (docs/scenario.md).
  if (s.constraint.kind != ConstraintKind::none) in.initial = project_onto_constraint(s.constraint, in.initial);
  return attempt;
}

}  // namespace rbmc

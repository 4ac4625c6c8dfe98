#include "host/sampling/sampling_plan.hpp"

#include <cmath>

#include "host/errors.hpp"
#include "rbmc/random/inverse_transforms.hpp"
#include "rbmc/body/principal_axes.hpp"
#include "rbmc/math/euler.hpp"
#include "rbmc/math/rotation.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc {

namespace {

// Uniforms a distribution takes: one per component, one for a discrete choice, three for a rotation.
int uniforms_needed(const Dispersion& d) {
  switch (d.kind) {
    case DistributionKind::fixed: return 0;
    case DistributionKind::discrete: return 1;
    case DistributionKind::uniform_rotation:
    case DistributionKind::random_axis: return 3;
    default: return d.info.dim;
  }
}

// Dispersion d's value from its uniforms u (in (0, 1)), by inversion; a rotation vector for the
// attitude and the principal axes. q_nominal: the nominal attitude.
Vec3<double> from_uniforms(const Dispersion& d, const double* u, const Quaternion<double>& q_nominal) {
  Vec3<double> v = Vec3<double>::Zero();
  switch (d.kind) {
    case DistributionKind::normal:
      for (int i = 0; i < d.info.dim; ++i) v(i) = normal_from_uniform(d.a[i], d.b[i], u[i]);
      break;
    case DistributionKind::uniform:
      for (int i = 0; i < d.info.dim; ++i) v(i) = uniform_from_uniform(d.a[i], d.b[i], u[i]);
      break;
    case DistributionKind::truncated_normal:
      for (int i = 0; i < d.info.dim; ++i) v(i) = truncated_normal_from_uniform(d.a[i], d.b[i], d.lo[i], d.hi[i], u[i]);
      break;
    case DistributionKind::lognormal:
      for (int i = 0; i < d.info.dim; ++i) v(i) = lognormal_from_uniform(d.a[i], d.b[i], u[i]);
      break;
    case DistributionKind::fixed:
      for (int i = 0; i < d.info.dim; ++i) v(i) = d.a[i];
      break;
    case DistributionKind::discrete: {
      const auto choice = std::size_t(discrete_choice(d.cumulative.data(), int(d.cumulative.size()), u[0]));
      for (int i = 0; i < d.info.dim; ++i) v(i) = d.values[choice][std::size_t(i)];
      break;
    }
    case DistributionKind::uniform_rotation:
      // For the attitude, as a rotation vector from the nominal one, so that q_nominal ⊗ exp(v) is
      // the draw; for the principal axes, the rotation itself.
      v = uniform_rotation_vector(d.info.input == DispersedInput::attitude ? q_nominal : Quaternion<double>::identity(),
                                  u[0], u[1], u[2]);
      break;
    case DistributionKind::random_axis: {
      // Half-normal angle by inversion: θ = σ Φ⁻¹((1 + u) / 2); or uniform in [0, max_angle].
      const double angle = d.b[0] > 0 ? portable::mul(d.b[0], normal_quantile(0.5 + portable::mul(0.5, u[2])))
                                       : portable::mul(d.a[0], u[2]);
      const Vec3<double> axis = uniform_direction(u[0], u[1]);
      v = Vec3<double>(portable::mul(axis.x(), angle), portable::mul(axis.y(), angle), portable::mul(axis.z(), angle));
      break;
    }
  }
  return v;
}

}  // namespace

SamplingPlan::SamplingPlan(Scenario scenario) : scenario_(std::move(scenario)) {
  const Scenario& s = scenario_;
  unit_of_dispersion_.assign(s.dispersions.size(), -1);
  group_of_dispersion_.assign(s.dispersions.size(), -1);
  offset_in_group_.assign(s.dispersions.size(), 0);
  for (std::size_t g = 0; g < s.correlations.size(); ++g) {
    const CorrelationGroup& group = s.correlations[g];
    int offset = 0;
    for (std::size_t i : group.dispersions) {
      unit_of_dispersion_[i] = int(s.dispersions.size() + g);  // resolved to a unit index below
      group_of_dispersion_[i] = int(g);
      offset_in_group_[i] = offset;
      offset += s.dispersions[i].info.dim;
    }
  }
  std::vector<int> group_unit(s.correlations.size(), -1);
  for (std::size_t i = 0; i < s.dispersions.size(); ++i) {
    const Dispersion& d = s.dispersions[i];
    n_parameter_values_ += d.info.dim;
    if (unit_of_dispersion_[i] >= 0) continue;  // drawn with its group
    unit_of_dispersion_[i] = int(units_.size());
    units_.push_back({stream_id(d.info.key_path.c_str()), n_design_dimensions_, uniforms_needed(d), d.info.is_body});
    n_design_dimensions_ += uniforms_needed(d);
  }
  for (std::size_t g = 0; g < s.correlations.size(); ++g) {
    const CorrelationGroup& group = s.correlations[g];
    std::string key = "correlation:";
    bool is_body = false;
    for (std::size_t i : group.dispersions) {
      key += s.dispersions[i].info.key_path + ",";
      is_body = is_body || s.dispersions[i].info.is_body;
    }
    if (group.dim > kMaxUniforms)
      throw ScenarioError(group.where.file, group.where.line, group.where.column, "correlations",
                          "a correlation group may hold at most " + std::to_string(kMaxUniforms) + " components");
    group_unit[g] = int(units_.size());
    units_.push_back({stream_id(key.c_str()), n_design_dimensions_, group.dim, is_body});
    n_design_dimensions_ += group.dim;
  }
  for (std::size_t i = 0; i < s.dispersions.size(); ++i)
    if (unit_of_dispersion_[i] >= int(s.dispersions.size()))
      unit_of_dispersion_[i] = group_unit[std::size_t(unit_of_dispersion_[i]) - s.dispersions.size()];
  if (s.design.kind == Design::Kind::sobol) {
    if (n_design_dimensions_ > SobolPoints::kMaxDimensions)
      throw ScenarioError(s.path, 0, 0, "design.type",
                          "a Sobol design supports at most " + std::to_string(SobolPoints::kMaxDimensions) +
                              " dimensions; this scenario needs " + std::to_string(n_design_dimensions_));
    sobol_ = std::make_unique<SobolPoints>(n_design_dimensions_);
  }
  const PrincipalFrame<double> frame = principal_frame(s.body.inertia_c_b, PrincipalOrder::keep_body_axes);
  principal_axes_ = frame.axes;
  nominal_moments_ = frame.moments;
}

void SamplingPlan::uniforms(std::size_t unit_index, std::uint64_t k, int attempt, double* u) const {
  const DrawUnit& unit = units_[unit_index];
  const Scenario& s = scenario_;
  const UniformSource source = s.design.kind == Design::Kind::latin_hypercube ? UniformSource::latin_hypercube
                               : s.design.kind == Design::Kind::sobol         ? UniformSource::sobol
                                                                              : UniformSource::philox;
  const DrawUnitKey key{s.run.seed, s.run.n_samples, unit.stream,
                        sobol_ ? sobol_->directions(unit.first_dimension) : nullptr};
  for (int j = 0; j < unit.n_uniforms; ++j) u[j] = design_uniform(source, key, k, attempt, j);
}

int SamplingPlan::sample(std::uint64_t k, SampleInputs<double>& in, double* params) const {
  const Scenario& s = scenario_;
  const std::vector<std::uint64_t> grid =
      s.design.gives_values() ? s.design.coordinates(k) : std::vector<std::uint64_t>{};
  const bool redraw = s.design.invalid_bodies == Design::InvalidBodies::redraw;
  double u[kMaxUniforms];
  std::vector<double> correlated(s.correlations.size() * kMaxUniforms);
  int attempt = 0;
  Shape<double> shape;
  bool derive_from_shape = false;
  for (;; ++attempt) {
    in.body = s.body;
    in.initial = s.initial;
    in.gravity_w = s.gravity_w;
    shape = s.shape;
    // Moments, axes and shape may each be dispersed; the tensor is rebuilt from them at the end.
    Vec3<double> moments = nominal_moments_;
    Mat3<double> axes_turn = Mat3<double>::Identity();
    bool moments_set = false, axes_set = false;
    derive_from_shape = false;
    // One input's value, whether from the grid or a dispersion.
    const auto apply = [&](const DispersedInputInfo& info, const Vec3<double>& v) {
      switch (info.input) {
        case DispersedInput::mass:
          in.body.mass = v(0);
          derive_from_shape = derive_from_shape || s.shape.kind != ShapeKind::none;  // I ∝ m for a shape
          break;
        case DispersedInput::center_of_mass: in.body.com_b = v; break;
        case DispersedInput::principal_moments:
          moments = v;
          moments_set = true;
          break;
        case DispersedInput::principal_axes:
          // The axes turned by a small rotation in the body frame: E' = R(δθ) E.
          axes_turn = to_rotation_matrix(quaternion_from_rotation_vector(v));
          axes_set = true;
          break;
        case DispersedInput::shape_dimension:
          for (int i = 0; i < info.dim; ++i) shape.dimensions[info.slot + i] = v(i);
          derive_from_shape = true;
          break;
        case DispersedInput::position: in.initial.p_w = v; break;
        case DispersedInput::attitude:
          // A small rotation in the body frame: q = q_nominal ⊗ exp(δθ).
          in.initial.q_wb = normalized(s.initial.q_wb * quaternion_from_rotation_vector(v));
          break;
        case DispersedInput::attitude_euler_zxz: in.initial.q_wb = quaternion_from_euler_zxz<double>(v); break;
        case DispersedInput::attitude_euler_zyx: in.initial.q_wb = quaternion_from_euler_zyx<double>(v); break;
        case DispersedInput::velocity: in.initial.v_w = v; break;
        case DispersedInput::angular_velocity: in.initial.omega_b = v; break;
        case DispersedInput::gravity: in.gravity_w = v; break;
        case DispersedInput::model_parameter:
          for (int i = 0; i < info.dim; ++i) in.model_values[info.slot + i] = v(i);
          break;
      }
    };
    // A grid point's (or table row's) values first: they are set, the dispersions of other inputs vary.
    for (std::size_t i = 0; i < grid.size(); ++i) {
      const std::array<double, 3>& g = s.design.axes[i].values[grid[i]];
      apply(s.design.axes[i].info, Vec3<double>(g[0], g[1], g[2]));
    }
    // Correlation groups: y = L z, z standard normal by inversion.
    for (std::size_t g = 0; g < s.correlations.size(); ++g) {
      const CorrelationGroup& group = s.correlations[g];
      const std::size_t unit = std::size_t(unit_of_dispersion_[group.dispersions[0]]);
      uniforms(unit, k, units_[unit].is_body ? attempt : 0, u);
      double* y = &correlated[g * kMaxUniforms];
      for (int i = 0; i < group.dim; ++i) {
        y[i] = 0;
        for (int j = 0; j <= i; ++j)
          y[i] += portable::mul(group.cholesky[std::size_t(i * group.dim + j)], normal_quantile(u[j]));
      }
    }
    double* out = params;
    for (std::size_t i = 0; i < s.dispersions.size(); ++i) {
      const Dispersion& d = s.dispersions[i];
      const std::size_t unit = std::size_t(unit_of_dispersion_[i]);
      Vec3<double> v;
      if (const int g = group_of_dispersion_[i]; g >= 0) {
        // A correlated normal: mean + σ ∘ y over its components of the group's draw.
        const double* y = &correlated[std::size_t(g) * kMaxUniforms + std::size_t(offset_in_group_[i])];
        for (int c = 0; c < d.info.dim; ++c) v(c) = d.a[c] + portable::mul(d.b[c], y[c]);
        for (int c = d.info.dim; c < 3; ++c) v(c) = 0;
      } else {
        // Only the mass properties are redrawn; other inputs keep their first draw.
        uniforms(unit, k, units_[unit].is_body ? attempt : 0, u);
        v = from_uniforms(d, u, s.initial.q_wb);
      }
      for (int c = 0; c < d.info.dim; ++c) *out++ = v(c);
      apply(d.info, v);
    }
    // Rotation of inertia, 001: I = E diag(λ) Eᵀ; a shape's tensor turned the same way.
    if (derive_from_shape && !moments_set) {
      const Mat3<double> shape_b = shape_inertia(shape, in.body.mass);
      in.body.inertia_c_b = axes_turn * shape_b * axes_turn.transpose();
    } else if (moments_set || axes_set) {
      in.body.inertia_c_b = inertia_from_principal(Mat3<double>(axes_turn * principal_axes_), moments);
    }
    const bool valid = check_mass_properties(in.body) == BodyValidity::valid &&
                       (!derive_from_shape || shape_is_valid(shape));
    if (valid || !redraw || attempt + 1 >= kMaxBodyAttempts) break;
  }
  // A shape that is not physical (a negative length) can still give a valid tensor; a zero one
  // makes run_sample flag the sample invalid_body instead of integrating it.
  if (derive_from_shape && !shape_is_valid(shape)) in.body.inertia_c_b = Mat3<double>::Zero();
  // A constrained body starts on its constraint (its own, when the constraint is dispersed): a
  // consistent initial state (docs/scenario.md).
  if (s.constraint.kind != ConstraintKind::none) {
    const Constraint<double> constraint = constraint_of(s.constraint, own_values(s.model_parameters, in.model_values));
    in.initial = project_onto_constraint(constraint, in.initial);
  }
  return attempt;
}

}  // namespace rbmc

// Sample k's inputs from its draws: each dispersion's value by inversion from its uniforms (the
// design's point, or its own Philox stream: rbmc/random/), a grid's or a table's values, the
// correlation groups' joint normals, the inputs assembled from them (an inertia from dispersed
// moments, axes or shape dimensions), the validity policy's redraws, and the start moved onto
// the constraint. One function, draw_sample_inputs, for every backend: the CPU calls it through
// host/sampling/sampling_plan.cpp and host/run/run_driver.cpp, the GPU in kernels/draw_inputs.cu
// (draw_batch_row, one thread a row), from the same
// SamplingModel, so that sample k's draws are the same bits wherever it is drawn (the draws are
// portable arithmetic: rbmc/math/portable_math.hpp).
//
// SamplingModel holds the nominal sample by value and its tables (the dispersions, correlation
// groups, grid axes, their numbers and the Sobol directions) through pointers, into host memory
// for the CPU and device memory for the GPU; host/sampling/sampling_plan.hpp builds them from a
// scenario.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rbmc/body/mass_properties.hpp"
#include "rbmc/body/principal_axes.hpp"
#include "rbmc/body/shapes.hpp"
#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/dynamics/model_values.hpp"
#include "rbmc/hd.hpp"
#include "rbmc/math/euler.hpp"
#include "rbmc/math/rotation.hpp"
#include "rbmc/random/design_points.hpp"
#include "rbmc/random/inverse_transforms.hpp"
#include "rbmc/sample/model_parameters.hpp"
#include "rbmc/sample/sample_inputs.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

// The inputs a scenario may disperse or sweep, by key path. Each maps to one column group in the output.
enum class DispersedInput {
  mass,                // body.mass (kg)
  center_of_mass,      // body.center_of_mass (m, body frame)
  principal_moments,   // body.principal_moments (kg m², along the nominal principal axes)
  principal_axes,      // body.principal_axes: rotation vector turning the principal axes, body frame (rad)
  shape_dimension,     // body.shape.<key>: a dimension of the body's shape; the inertia follows (m)
  position,            // initial.position (m, world)
  attitude,            // initial.attitude: rotation vector applied in the body frame (rad)
  attitude_euler_zxz,  // initial.attitude_euler_zxz: (ψ, θ, φ), 004 eqs 56–59 (rad)
  attitude_euler_zyx,  // initial.attitude_euler_zyx: (yaw, pitch, roll) (rad)
  velocity,            // initial.velocity (m/s, world)
  angular_velocity,    // initial.angular_velocity (rad/s, body)
  gravity,             // gravity.acceleration (m/s², world)
  model_parameter,     // loads.<i>.<key>, constraint.<key>: a per-sample load or constraint parameter
};

enum class DistributionKind {
  normal,            // a = mean, b = sd
  uniform,           // a = lower, b = upper bound
  truncated_normal,  // a = mean, b = sd, lo, hi = bounds
  lognormal,         // a = median, b = sd of ln x
  fixed,             // a = the value
  discrete,          // values with cumulative weights
  uniform_rotation,  // initial.attitude or body.principal_axes: uniform on SO(3)
  random_axis,       // initial.attitude or body.principal_axes: an angle (half-normal sd b, or uniform up to a) about a random axis
};

// Validity policy "redraw" for dispersed mass properties and load values: a draw that is not
// physical is redrawn from the same sample's streams (attempt 1, 2, ...), deterministically; after
// this many attempts the sample keeps its last draw and run_sample flags it invalid_body (or
// invalid_load).
inline constexpr int kMaxBodyAttempts = 64;

// What one drawn or swept value sets: an input, its components, and for a shape dimension or a
// model parameter its first slot (Shape::dimensions, SampleInputs::model_values).
struct InputTarget {
  DispersedInput input;
  int dim;
  int slot;
};

// A draw unit: a dispersion, or a whole correlation group, drawn from one stream (or from
// consecutive dimensions of the design).
struct DrawUnitModel {
  std::uint32_t stream;  // Philox stream id: the key path's (or the group's) hash
  int first_dimension;   // its first design dimension
  int n_uniforms;
  bool is_body;          // draws a mass property: redrawn by the validity policy when the body is not physical
  bool is_load;          // draws a load value that can be unphysical (model_field_bounded): redrawn when one is
};

// Which attempt a sample's draw is at: the body's and the loads' redraws counted apart, so that a
// body redrawn keeps its loads' draws and the other way round. Both counts in one word (the body's
// in the low half): as two, the device's draw kernel spilled one of them.
struct DrawAttempts {
  std::uint32_t counts = 0;
  RBMC_HD int body() const { return int(counts & 0xffffu); }
  RBMC_HD int load() const { return int(counts >> 16); }
  RBMC_HD void next(bool body_again, bool load_again) {
    counts += std::uint32_t(body_again) + (std::uint32_t(load_again) << 16);
  }
  // The attempt a unit draws at: 0 for a unit no redraw touches.
  RBMC_HD int of(const DrawUnitModel& u) const { return (u.is_body ? body() : 0) + (u.is_load ? load() : 0); }
};

struct DispersionModel {
  InputTarget target;
  DistributionKind kind;
  double a[3], b[3], lo[3], hi[3];  // per component, as DistributionKind says
  int unit;                         // its draw unit (its group's, when correlated)
  int group;                        // its correlation group, or −1
  int offset_in_group;              // its first component within the group's draws
  int n_choices;                    // discrete: rows of 3 values at SamplingModel::values + rows_at,
  std::size_t rows_at, weights_at;  // their cumulative weights at values + weights_at (last = 1)
};

// y = L z over a group's components, z standard normal by inversion, L (dim, dim) lower
// triangular, row-major at SamplingModel::values + factor_at.
struct CorrelationModel {
  int dim;
  int unit;
  std::size_t factor_at;
};

// A grid's (or a table's) axis: sample k's value is row c of n_values (3 doubles each, at
// SamplingModel::values + rows_at), c = (k / replicates / stride) mod n_values for a grid (the
// first axis varying slowest: stride is the product of the later axes' sizes), c = k for a table.
struct GridAxisModel {
  InputTarget target;
  std::uint64_t n_values, stride;
  std::size_t rows_at;
};

struct SamplingModel {
  std::uint64_t seed = 0, n_samples = 0;
  UniformSource source = UniformSource::philox;
  // Validity policy "redraw" where a unit can mend it: some unit draws a mass property (a body
  // made invalid by a grid's or a table's values alone is not drawn 64 times in vain), or a load
  // value that can be unphysical.
  bool redraw_bodies = true, redraw_loads = true;
  bool table = false;  // the axes are a table's columns
  std::uint64_t replicates = 1;
  // The nominal sample, and the nominal body's principal axes (columns, a proper rotation) and
  // moments, along which body.principal_moments and body.principal_axes are dispersed.
  MassProperties<double> body;
  RigidBodyState<double> initial;
  Vec3<double> gravity_w = Vec3<double>::Zero();
  Shape<double> shape;
  Constraint<double> constraint;
  ModelParameters<double> model_parameters;
  Mat3<double> principal_axes = Mat3<double>::Identity();
  Vec3<double> principal_moments = Vec3<double>::Zero();
  // The tables, in the memory of whoever draws.
  const DrawUnitModel* units = nullptr;
  const DispersionModel* dispersions = nullptr;  // in the scenario's order: the order of the params
  const CorrelationModel* correlations = nullptr;
  const GridAxisModel* axes = nullptr;
  const double* values = nullptr;        // discrete rows and weights, grid rows, Cholesky factors
  const std::uint32_t* sobol = nullptr;  // Sobol: the directions, (design dimensions, 32)
  int n_units = 0, n_dispersions = 0, n_correlations = 0, n_axes = 0;
};

// Uniforms a distribution takes: one per component, one for a discrete choice, three for a rotation.
RBMC_HD inline int uniforms_needed(DistributionKind kind, int dim) {
  switch (kind) {
    case DistributionKind::fixed: return 0;
    case DistributionKind::discrete: return 1;
    case DistributionKind::uniform_rotation:
    case DistributionKind::random_axis: return 3;
    default: return dim;
  }
}

// Uniform j of draw unit `unit` for sample k at the given attempt: from the design at attempt 0,
// from the unit's Philox stream for redraws.
RBMC_HD inline double unit_uniform(const SamplingModel& m, int unit, std::uint64_t k, int attempt, int j) {
  const DrawUnitModel& u = m.units[unit];
  const DrawUnitKey key{m.seed, m.n_samples, u.stream,
                        m.sobol != nullptr ? m.sobol + std::size_t(u.first_dimension) * 32 : nullptr};
  return design_uniform(m.source, key, k, attempt, j);
}

// v(i) = value(i) for each component i < dim, the loop unrolled over three: a loop to dim held v
// in local memory on the device (component's reason).
template <class Value>
RBMC_HD_INLINE void set_components(Vec3<double>& v, int dim, const Value& value) {
  RBMC_UNROLL
  for (int i = 0; i < 3; ++i)
    if (i < dim) v(i) = value(i);
}

// An uncorrelated dispersion's value from its uniforms u (in (0, 1)), by inversion; a rotation
// vector for the attitude and the principal axes.
RBMC_HD inline Vec3<double> dispersion_value(const SamplingModel& m, const DispersionModel& d, const double* u) {
  Vec3<double> v = Vec3<double>::Zero();
  const int dim = d.target.dim;
  switch (d.kind) {
    case DistributionKind::normal:
      set_components(v, dim, [&](int i) { return normal_from_uniform(d.a[i], d.b[i], u[i]); });
      break;
    case DistributionKind::uniform:
      set_components(v, dim, [&](int i) { return uniform_from_uniform(d.a[i], d.b[i], u[i]); });
      break;
    case DistributionKind::truncated_normal:
      set_components(v, dim, [&](int i) { return truncated_normal_from_uniform(d.a[i], d.b[i], d.lo[i], d.hi[i], u[i]); });
      break;
    case DistributionKind::lognormal:
      set_components(v, dim, [&](int i) { return lognormal_from_uniform(d.a[i], d.b[i], u[i]); });
      break;
    case DistributionKind::fixed:
      set_components(v, dim, [&](int i) { return d.a[i]; });
      break;
    case DistributionKind::discrete: {
      const double* row = m.values + d.rows_at + 3 * std::size_t(discrete_choice(m.values + d.weights_at, d.n_choices, u[0]));
      set_components(v, dim, [&](int i) { return row[i]; });
      break;
    }
    case DistributionKind::uniform_rotation:
      // For the attitude, as a rotation vector from the nominal one, so that q_nominal ⊗ exp(v) is
      // the draw; for the principal axes, the rotation itself.
      v = uniform_rotation_vector(
          d.target.input == DispersedInput::attitude ? m.initial.q_wb : Quaternion<double>::identity(), u[0], u[1], u[2]);
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

// A correlated dispersion's value: mean + σ ∘ y over its components of its group's y = L z, each
// row summed over j in order. The normals z_j are drawn again for each member of the group, not
// kept between members: a kept array of them (kMaxUniformsPerAttempt doubles, indexed at run time)
// was 512 of the device's draw kernel's 1,176 bytes of stack frame. A member at offset o of
// dimension d draws o + d of them, so a group of D values draws at most D (D + 1) / 2 in all (D
// members of one value each); tossed_cylinder_lhs's (the mass, then the centre of mass) draws 5
// instead of 4.
RBMC_HD inline Vec3<double> correlated_value(const SamplingModel& m, const DispersionModel& d, std::uint64_t k,
                                             DrawAttempts attempts) {
  const CorrelationModel& g = m.correlations[d.group];
  const int unit_attempt = attempts.of(m.units[g.unit]);
  const double* factor = m.values + g.factor_at;
  const int dim = d.target.dim, first = d.offset_in_group, last = first + dim - 1;
  double y0 = 0, y1 = 0, y2 = 0;  // rows first, first + 1 and first + 2 of y, as dim has them
  for (int j = 0; j <= last; ++j) {
    const double z = normal_quantile(unit_uniform(m, g.unit, k, unit_attempt, j));
    if (j <= first) y0 += portable::mul(factor[first * g.dim + j], z);
    if (dim > 1 && j <= first + 1) y1 += portable::mul(factor[(first + 1) * g.dim + j], z);
    if (dim > 2) y2 += portable::mul(factor[(first + 2) * g.dim + j], z);
  }
  return Vec3<double>(d.a[0] + portable::mul(d.b[0], y0), dim > 1 ? d.a[1] + portable::mul(d.b[1], y1) : 0.0,
                      dim > 2 ? d.a[2] + portable::mul(d.b[2], y2) : 0.0);
}

// What the drawn values build up before the inertia is assembled: moments, axes and shape may
// each be dispersed, and the tensor is rebuilt from them at the end.
struct InputAssembly {
  Vec3<double> moments;
  Mat3<double> axes_turn;
  Shape<double> shape;
  bool moments_set, axes_set, derive_from_shape;
};

// Where a sample's model values go: value j at values[j · stride], a SampleInputs' array
// (stride 1) or a batch's input columns in place (stride n, draw_batch_row). A batch's row does not
// pass through SampleInputs::model_values: on the device, that array written at a run-time slot
// held the draw's working values in local memory too.
struct ModelValuesDestination {
  double* values;
  std::size_t stride;
};

// v(c) by name: on the device a run-time index puts v in local memory.
RBMC_HD inline double component(const Vec3<double>& v, int c) { return c == 0 ? v.x() : (c == 1 ? v.y() : v.z()); }

// One input's value, whether from the grid or a dispersion.
RBMC_HD inline void apply_input(const SamplingModel& m, const InputTarget& t, const Vec3<double>& v,
                                SampleInputs<double>& in, ModelValuesDestination model_values, InputAssembly& a) {
  switch (t.input) {
    case DispersedInput::mass:
      in.body.mass = v(0);
      a.derive_from_shape = a.derive_from_shape || m.shape.kind != ShapeKind::none;  // I ∝ m for a shape
      break;
    case DispersedInput::center_of_mass: in.body.com_b = v; break;
    case DispersedInput::principal_moments:
      a.moments = v;
      a.moments_set = true;
      break;
    case DispersedInput::principal_axes:
      // The axes turned by a small rotation in the body frame: E' = R(δθ) E.
      a.axes_turn = to_rotation_matrix(quaternion_from_rotation_vector(v));
      a.axes_set = true;
      break;
    case DispersedInput::shape_dimension:
      RBMC_UNROLL
      for (int s = 0; s < 3; ++s) {  // each slot by name (component's reason)
        const int c = s - t.slot;
        if (c >= 0 && c < t.dim) a.shape.dimensions[s] = component(v, c);
      }
      a.derive_from_shape = true;
      break;
    case DispersedInput::position: in.initial.p_w = v; break;
    case DispersedInput::attitude:
      // A small rotation in the body frame: q = q_nominal ⊗ exp(δθ).
      in.initial.q_wb = normalized(m.initial.q_wb * quaternion_from_rotation_vector(v));
      break;
    case DispersedInput::attitude_euler_zxz: in.initial.q_wb = quaternion_from_euler_zxz<double>(v); break;
    case DispersedInput::attitude_euler_zyx: in.initial.q_wb = quaternion_from_euler_zyx<double>(v); break;
    case DispersedInput::velocity: in.initial.v_w = v; break;
    case DispersedInput::angular_velocity: in.initial.omega_b = v; break;
    case DispersedInput::gravity: in.gravity_w = v; break;
    case DispersedInput::model_parameter:
      for (int c = 0; c < t.dim; ++c) model_values.values[std::size_t(t.slot + c) * model_values.stride] = component(v, c);
      break;
  }
}

// Sample k's inputs into `in` but for its model values, which go to model_values; each
// dispersion's drawn components, in order, into params[j · params_stride] (1 for one sample's row,
// the batch's size for columns). Returns the number of redraws the validity policy made (0 when
// the first draw was valid, and always 0 under invalid_bodies = "reject": an invalid body or load
// value is then flagged by run_sample).
RBMC_HD inline int draw_sample_inputs(const SamplingModel& m, std::uint64_t k, SampleInputs<double>& in,
                                      ModelValuesDestination model_values, double* params, std::size_t params_stride) {
  InputAssembly a;
  DrawAttempts attempts;
  for (;;) {
    in.body = m.body;
    in.initial = m.initial;
    in.gravity_w = m.gravity_w;
    a = {m.principal_moments, Mat3<double>::Identity(), m.shape, false, false, false};
    // A grid point's (or table row's) values first: they are set, the dispersions of other inputs vary.
    for (int i = 0; i < m.n_axes; ++i) {
      const GridAxisModel& axis = m.axes[i];
      const std::uint64_t row = m.table ? k : (k / m.replicates / axis.stride) % axis.n_values;
      const double* value = m.values + axis.rows_at + 3 * row;
      apply_input(m, axis.target, Vec3<double>(value[0], value[1], value[2]), in, model_values, a);
    }
    std::size_t param = 0;
    for (int i = 0; i < m.n_dispersions; ++i) {
      const DispersionModel& d = m.dispersions[i];
      Vec3<double> v;
      if (d.group >= 0) {
        v = correlated_value(m, d, k, attempts);
      } else {
        // Only the mass properties and bounded load values are redrawn; other inputs keep their first draw.
        const int unit_attempt = attempts.of(m.units[d.unit]);
        const int n_uniforms = uniforms_needed(d.kind, d.target.dim);
        double u[3];
        for (int j = 0; j < n_uniforms; ++j) u[j] = unit_uniform(m, d.unit, k, unit_attempt, j);
        v = dispersion_value(m, d, u);
      }
      for (int c = 0; c < d.target.dim; ++c) params[(param++) * params_stride] = component(v, c);
      apply_input(m, d.target, v, in, model_values, a);
    }
    // Rotation of inertia, 001: I = E diag(λ) Eᵀ; a shape's tensor turned the same way.
    if (a.derive_from_shape && !a.moments_set) {
      const Mat3<double> shape_b = shape_inertia(a.shape, in.body.mass);
      in.body.inertia_c_b = a.axes_turn * shape_b * a.axes_turn.transpose();
    } else if (a.moments_set || a.axes_set) {
      in.body.inertia_c_b = inertia_from_principal(Mat3<double>(a.axes_turn * m.principal_axes), a.moments);
    }
    const bool body_valid =
        check_mass_properties(in.body) == BodyValidity::valid && (!a.derive_from_shape || shape_is_valid(a.shape));
    const bool loads_valid =
        OwnModelValues<double>{&m.model_parameters, model_values.values, model_values.stride}.physical();
    const bool redraw_body = !body_valid && m.redraw_bodies, redraw_loads = !loads_valid && m.redraw_loads;
    if (!(redraw_body || redraw_loads) || (redraw_body && attempts.body() + 1 >= kMaxBodyAttempts) ||
        (redraw_loads && attempts.load() + 1 >= kMaxBodyAttempts))
      break;
    attempts.next(redraw_body, redraw_loads);
  }
  // A shape that is not physical (a negative length) can still give a valid tensor; a zero one
  // makes run_sample flag the sample invalid_body instead of integrating it.
  if (a.derive_from_shape && !shape_is_valid(a.shape)) in.body.inertia_c_b = Mat3<double>::Zero();
  // A constrained body starts on its constraint (its own, when the constraint is dispersed): a
  // consistent initial state (docs/scenario.md).
  if (m.constraint.kind != ConstraintKind::none) {
    const OwnModelValues<double> own{&m.model_parameters, model_values.values, model_values.stride};
    const Constraint<double> constraint = constraint_of(m.constraint, own);
    in.initial = project_onto_constraint(constraint, in.initial);
  }
  return attempts.body() + attempts.load();
}

// The same with the model values in in.model_values.
RBMC_HD inline int draw_sample_inputs(const SamplingModel& m, std::uint64_t k, SampleInputs<double>& in, double* params,
                                      std::size_t params_stride) {
  return draw_sample_inputs(m, k, in, ModelValuesDestination{in.model_values, 1}, params, params_stride);
}

// Row i of a batch of n: sample k's inputs stored in the batch's input columns
// (rbmc/sample/sample_layout.hpp, (input_column_count(m.model_parameters.n), n) doubles; the
// model values drawn into theirs in place) and its dispersions' drawn components in the params
// columns ((parameter values, n) doubles). Returns the validity policy's redraws. Every backend
// fills a batch through this, row by row.
RBMC_HD inline int draw_batch_row(const SamplingModel& m, std::uint64_t k, std::size_t i, std::size_t n, double* inputs,
                                  double* params) {
  SampleInputs<double> in;
  const ModelValuesDestination model_values{inputs + std::size_t(input_column::count) * n + i, n};
  const int redraws = draw_sample_inputs(m, k, in, model_values, params + i, n);
  store_sample_inputs(inputs, n, i, in, 0);  // all but the model values, which are in place
  return redraws;
}

}  // namespace rbmc

#include "host/sampling/sampling_plan.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <string>

#include "host/errors.hpp"
#include "host/util/parallel_for.hpp"
#include "rbmc/body/principal_axes.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc {

namespace {

InputTarget target_of(const DispersedInputInfo& info) { return {info.input, info.dim, info.slot}; }

// Appends rows of 3 values to the model's numbers and returns where they begin.
std::size_t append_rows(std::vector<double>& values, const std::vector<std::array<double, 3>>& rows) {
  const std::size_t at = values.size();
  for (const std::array<double, 3>& row : rows) values.insert(values.end(), row.begin(), row.end());
  return at;
}

}  // namespace

SamplingPlan::SamplingPlan(Scenario scenario) : scenario_(std::move(scenario)) {
  static std::atomic<std::uint64_t> plans{0};
  id_ = ++plans;
  const Scenario& s = scenario_;
  SamplingTables& t = tables_;
  // Each dispersion's entry; a correlated one's unit is its group's, resolved below.
  for (const Dispersion& d : s.dispersions) {
    DispersionModel m{};
    m.target = target_of(d.info);
    m.kind = d.kind;
    for (int c = 0; c < 3; ++c) {
      m.a[c] = d.a[std::size_t(c)];
      m.b[c] = d.b[std::size_t(c)];
      m.lo[c] = d.lo[std::size_t(c)];
      m.hi[c] = d.hi[std::size_t(c)];
    }
    m.unit = m.group = -1;
    if (d.kind == DistributionKind::discrete) {
      m.n_choices = int(d.cumulative.size());
      m.rows_at = append_rows(t.values, d.values);
      m.weights_at = t.values.size();
      t.values.insert(t.values.end(), d.cumulative.begin(), d.cumulative.end());
    }
    t.dispersions.push_back(m);
    n_parameter_values_ += d.info.dim;
  }
  for (std::size_t g = 0; g < s.correlations.size(); ++g) {
    int offset = 0;
    for (std::size_t i : s.correlations[g].dispersions) {
      t.dispersions[i].group = int(g);
      t.dispersions[i].offset_in_group = offset;
      offset += s.dispersions[i].info.dim;
    }
  }
  // The draw units: each uncorrelated dispersion, in order, then each correlation group, each
  // taking the next design dimensions. A load value that can be unphysical (a spring's stiffness,
  // a damping coefficient, a central body's μ) is redrawn as a mass property is.
  const auto is_load = [&](std::size_t i) {
    const DispersedInputInfo& info = s.dispersions[i].info;
    return info.input == DispersedInput::model_parameter && model_field_bounded(info.target.field);
  };
  for (std::size_t i = 0; i < s.dispersions.size(); ++i) {
    DispersionModel& m = t.dispersions[i];
    if (m.group >= 0) continue;  // drawn with its group
    const int n = uniforms_needed(m.kind, m.target.dim);
    m.unit = int(t.units.size());
    t.units.push_back({stream_id(s.dispersions[i].info.key_path.c_str()), n_design_dimensions_, n,
                       s.dispersions[i].info.is_body, is_load(i)});
    n_design_dimensions_ += n;
  }
  for (std::size_t g = 0; g < s.correlations.size(); ++g) {
    const CorrelationGroup& group = s.correlations[g];
    std::string key = "correlation:";
    bool is_body = false, load = false;
    for (std::size_t i : group.dispersions) {
      key += s.dispersions[i].info.key_path + ",";
      is_body = is_body || s.dispersions[i].info.is_body;
      load = load || is_load(i);
    }
    if (group.dim > kMaxUniforms)
      throw ScenarioError(group.where.file, group.where.line, group.where.column, "correlations",
                          "a correlation group may hold at most " + std::to_string(kMaxUniforms) + " components");
    const int unit = int(t.units.size());
    t.units.push_back({stream_id(key.c_str()), n_design_dimensions_, group.dim, is_body, load});
    n_design_dimensions_ += group.dim;
    t.correlations.push_back({group.dim, unit, t.values.size()});
    t.values.insert(t.values.end(), group.cholesky.begin(), group.cholesky.end());
    for (std::size_t i : group.dispersions) t.dispersions[i].unit = unit;
  }
  if (s.design.kind == Design::Kind::sobol) {
    if (n_design_dimensions_ > SobolPoints::kMaxDimensions)
      throw ScenarioError(s.path, 0, 0, "design.type",
                          "a Sobol design supports at most " + std::to_string(SobolPoints::kMaxDimensions) +
                              " dimensions; this scenario needs " + std::to_string(n_design_dimensions_));
    const SobolPoints points(n_design_dimensions_);
    if (n_design_dimensions_ > 0) t.sobol.assign(points.directions(0), points.directions(0) + 32 * std::size_t(n_design_dimensions_));
  }
  // The grid's axes, the first varying slowest: stride = the product of the later axes' sizes.
  std::uint64_t stride = 1;
  t.axes.resize(s.design.gives_values() ? s.design.axes.size() : 0);
  for (std::size_t i = t.axes.size(); i-- > 0;) {
    const GridAxis& axis = s.design.axes[i];
    t.axes[i] = {target_of(axis.info), axis.values.size(), stride, append_rows(t.values, axis.values)};
    stride *= axis.values.size();
  }

  SamplingModel& m = model_;
  m.seed = s.run.seed;
  m.n_samples = s.run.n_samples;
  m.source = s.design.kind == Design::Kind::latin_hypercube ? UniformSource::latin_hypercube
             : s.design.kind == Design::Kind::sobol         ? UniformSource::sobol
                                                            : UniformSource::philox;
  const bool redraw = s.design.invalid_bodies == Design::InvalidBodies::redraw;
  const auto any_unit = [&](bool DrawUnitModel::*flag) {
    return std::any_of(t.units.begin(), t.units.end(), [&](const DrawUnitModel& u) { return u.*flag; });
  };
  m.redraw_bodies = redraw && any_unit(&DrawUnitModel::is_body);
  m.redraw_loads = redraw && any_unit(&DrawUnitModel::is_load);
  m.table = s.design.kind == Design::Kind::table;
  m.replicates = s.design.replicates;
  m.body = s.body;
  m.initial = s.initial;
  m.gravity_w = s.gravity_w;
  m.shape = s.shape;
  m.constraint = s.constraint;
  m.model_parameters = s.model_parameters;
  const PrincipalFrame<double> frame = principal_frame(s.body.inertia_c_b, PrincipalOrder::keep_body_axes);
  m.principal_axes = frame.axes;
  m.principal_moments = frame.moments;
  m.units = t.units.data();
  m.dispersions = t.dispersions.data();
  m.correlations = t.correlations.data();
  m.axes = t.axes.data();
  m.values = t.values.data();
  m.sobol = t.sobol.empty() ? nullptr : t.sobol.data();
  m.n_units = int(t.units.size());
  m.n_dispersions = int(t.dispersions.size());
  m.n_correlations = int(t.correlations.size());
  m.n_axes = int(t.axes.size());
}

namespace {

template <class T>
const T* table_at(const unsigned char* base, std::size_t at) {
  return at == SamplingImage::kAbsent ? nullptr : reinterpret_cast<const T*>(base + at);
}

}  // namespace

SamplingImage sampling_image(const SamplingPlan& plan) {
  const SamplingTables& t = plan.tables();
  SamplingImage image;
  image.model = plan.model();
  // Each table at the next multiple of its alignment.
  const auto place = [&](const auto& table, std::size_t& at) {
    using T = std::decay_t<decltype(table[0])>;
    if (table.empty()) return;
    at = (image.bytes.size() + alignof(T) - 1) / alignof(T) * alignof(T);
    image.bytes.resize(at + table.size() * sizeof(T));
    std::memcpy(image.bytes.data() + at, table.data(), table.size() * sizeof(T));
  };
  place(t.units, image.units_at);
  place(t.dispersions, image.dispersions_at);
  place(t.correlations, image.correlations_at);
  place(t.axes, image.axes_at);
  place(t.values, image.values_at);
  place(t.sobol, image.sobol_at);
  return image;
}

SamplingModel SamplingImage::model_at(const unsigned char* base) const {
  SamplingModel m = model;
  m.units = table_at<DrawUnitModel>(base, units_at);
  m.dispersions = table_at<DispersionModel>(base, dispersions_at);
  m.correlations = table_at<CorrelationModel>(base, correlations_at);
  m.axes = table_at<GridAxisModel>(base, axes_at);
  m.values = table_at<double>(base, values_at);
  m.sobol = table_at<std::uint32_t>(base, sobol_at);
  return m;
}

void SamplingPlan::uniforms(std::size_t unit, std::uint64_t k, int attempt, double* u) const {
  for (int j = 0; j < tables_.units[unit].n_uniforms; ++j) u[j] = unit_uniform(model_, int(unit), k, attempt, j);
}

DrawPreview preview_draws(const SamplingPlan& plan, std::uint64_t n) {
  DrawPreview p;
  p.n = n;
  const std::size_t width = std::size_t(plan.n_parameter_values());
  p.values.resize(std::size_t(n) * width);
  std::atomic<std::uint64_t> redrawn{0}, invalid_bodies{0}, invalid_loads{0};
  const ModelParameters<double>& loads = plan.scenario().model_parameters;
  parallel_for(std::size_t(n), default_thread_count(), [&](std::size_t begin, std::size_t end) {
    SampleInputs<double> in;
    for (std::size_t k = begin; k < end; ++k) {
      if (plan.sample(k, in, p.values.data() + k * width) > 0) ++redrawn;
      const SampleStatus verdict = inputs_status(in, own_values(loads, in.model_values));
      if (verdict == SampleStatus::invalid_body) ++invalid_bodies;
      if (verdict == SampleStatus::invalid_load) ++invalid_loads;
    }
  });
  p.redrawn = redrawn;
  p.invalid_bodies = invalid_bodies;
  p.invalid_loads = invalid_loads;
  return p;
}

}  // namespace rbmc

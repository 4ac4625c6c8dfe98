// From a scenario to the tables of its SamplingModel (rbmc/sample/draw_inputs.hpp), which every
// backend draws sample k's inputs from: each dispersion from its own Philox stream, or from the
// scenario's design (Latin hypercube, Sobol, grid, table), by inversion.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "host/sampling/designs.hpp"
#include "host/scenario/scenario.hpp"
#include "rbmc/sample/draw_inputs.hpp"

namespace rbmc {

// What a SamplingModel points to, in host memory: a backend that draws elsewhere copies these
// and points its own model at the copies.
struct SamplingTables {
  std::vector<DrawUnitModel> units;
  std::vector<DispersionModel> dispersions;
  std::vector<CorrelationModel> correlations;
  std::vector<GridAxisModel> axes;
  std::vector<double> values;
  std::vector<std::uint32_t> sobol;
};

class SamplingPlan {
 public:
  static constexpr int kMaxBodyAttempts = rbmc::kMaxBodyAttempts;
  // Uniforms one dispersion or correlation group may take per attempt.
  static constexpr int kMaxUniforms = kMaxUniformsPerAttempt;

  explicit SamplingPlan(Scenario scenario);
  // The model points into this plan's own tables.
  SamplingPlan(const SamplingPlan&) = delete;
  SamplingPlan& operator=(const SamplingPlan&) = delete;

  const Scenario& scenario() const { return scenario_; }
  const std::vector<Dispersion>& dispersions() const { return scenario_.dispersions; }
  // Sum of the dispersions' dimensions: the values sample() writes to `params`.
  int n_parameter_values() const { return n_parameter_values_; }
  // Uniform coordinates of a design point: the Sobol or Latin hypercube dimension count.
  int n_design_dimensions() const { return n_design_dimensions_; }

  // Sample k's inputs; params receives the drawn value of each dispersion in order.
  // Returns the number of redraws the validity policy made (0 when the first draw was valid, and
  // always 0 under invalid_bodies = "reject": an invalid body or load value is then flagged by
  // run_sample).
  int sample(std::uint64_t k, SampleInputs<double>& in, double* params) const {
    return draw_sample_inputs(model_, k, in, params, 1);
  }

  // The nominal body's principal axes (columns, a proper rotation): body.principal_moments
  // are dispersed along them.
  const Mat3<double>& principal_axes() const { return model_.principal_axes; }

  // Sample k's uniforms for draw unit `unit` (a dispersion, or a correlation group) at the given
  // attempt: from the design at attempt 0, from the unit's Philox stream for redraws.
  void uniforms(std::size_t unit, std::uint64_t k, int attempt, double* u) const;

  // The model every backend draws from, pointing into tables().
  const SamplingModel& model() const { return model_; }
  const SamplingTables& tables() const { return tables_; }
  // Unique to this plan in this process: a backend that copies the tables keeps them for it.
  std::uint64_t id() const { return id_; }

 private:
  Scenario scenario_;  // a copy: a plan outlives the scenario it was made from
  int n_parameter_values_ = 0, n_design_dimensions_ = 0;
  SamplingTables tables_;
  SamplingModel model_;
  std::uint64_t id_;
};

// The first n samples' draws as a run makes them, and how the validity policy met them: `rbmc
// check`'s preview and rbmc.check()'s. A sample counts as invalid as run_sample judges it, its
// body first (invalid_body), then its load values (invalid_load).
struct DrawPreview {
  std::uint64_t n = 0, redrawn = 0, invalid_bodies = 0, invalid_loads = 0;
  std::vector<double> values;  // (n, plan.n_parameter_values()), each dispersion's drawn components
};
DrawPreview preview_draws(const SamplingPlan& plan, std::uint64_t n);

// A plan's tables in one block of bytes, for a backend that copies them elsewhere in one
// transfer (the GPU's memory): model_at(base) is the plan's model pointing into the copy at base,
// which must be aligned as malloc or cudaMalloc align.
struct SamplingImage {
  static constexpr std::size_t kAbsent = ~std::size_t(0);  // an empty table's offset: a null pointer
  std::vector<unsigned char> bytes;
  SamplingModel model;  // the plan's, pointing at its own tables
  // Where each table begins in bytes.
  std::size_t units_at = kAbsent, dispersions_at = kAbsent, correlations_at = kAbsent, axes_at = kAbsent,
              values_at = kAbsent, sobol_at = kAbsent;
  SamplingModel model_at(const unsigned char* base) const;
};
SamplingImage sampling_image(const SamplingPlan& plan);

}  // namespace rbmc

// From a scenario to sample k's inputs: every dispersion drawn from its own Philox stream, or
// from the scenario's design (Latin hypercube, Sobol), by inversion.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/sampling/designs.hpp"
#include "host/scenario/scenario.hpp"
#include "rbmc/sample/sample_inputs.hpp"

namespace rbmc {

class SamplingPlan {
 public:
  // Validity policy "redraw" for dispersed mass properties: a draw that is not physical is
  // redrawn from the same sample's streams (attempt 1, 2, ...), deterministically; after this many
  // attempts the sample keeps its last draw and run_sample flags it invalid_body.
  static constexpr int kMaxBodyAttempts = 64;
  // Uniforms one dispersion or correlation group may take per attempt.
  static constexpr int kMaxUniforms = kMaxUniformsPerAttempt;

  explicit SamplingPlan(Scenario scenario);

  const Scenario& scenario() const { return scenario_; }
  const std::vector<Dispersion>& dispersions() const { return scenario_.dispersions; }
  // Sum of the dispersions' dimensions: the values sample() writes to `params`.
  int n_parameter_values() const { return n_parameter_values_; }
  // Uniform coordinates of a design point: the Sobol or Latin hypercube dimension count.
  int n_design_dimensions() const { return n_design_dimensions_; }

  // Sample k's inputs; params receives the drawn value of each dispersion in order.
  // Returns the number of redraws the validity policy made (0 when the first draw was valid, and
  // always 0 under invalid_bodies = "reject": an invalid body is then flagged by run_sample).
  int sample(std::uint64_t k, SampleInputs<double>& in, double* params) const;

  // The nominal body's principal axes (columns, a proper rotation): body.principal_moments
  // are dispersed along them.
  const Mat3<double>& principal_axes() const { return principal_axes_; }

  // Sample k's uniforms for draw unit `unit` (a dispersion, or a correlation group) at the given
  // attempt: from the design at attempt 0, from the unit's Philox stream for redraws.
  void uniforms(std::size_t unit, std::uint64_t k, int attempt, double* u) const;

 private:
  // The uniforms of one dispersion, or of a whole correlation group, come from one stream.
  struct DrawUnit {
    std::uint32_t stream;   // Philox stream id: the key path's (or the group's) hash
    int first_dimension;    // its first design dimension
    int n_uniforms;
    bool is_body;           // redrawn by the validity policy
  };

  Scenario scenario_;  // a copy: a plan outlives the scenario it was made from
  int n_parameter_values_ = 0, n_design_dimensions_ = 0;
  std::vector<DrawUnit> units_;
  std::vector<int> unit_of_dispersion_;    // its unit; for a correlated dispersion, its group's
  std::vector<int> group_of_dispersion_;   // its correlation group, or -1
  std::vector<int> offset_in_group_;       // its first component within its group's draws
  std::unique_ptr<SobolPoints> sobol_;
  Mat3<double> principal_axes_;
  Vec3<double> nominal_moments_;
};

}  // namespace rbmc

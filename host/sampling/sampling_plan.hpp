// From a scenario to sample k's inputs: every dispersion drawn from its own Philox stream.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/scenario/scenario.hpp"
#include "rbmc/sample/sample_inputs.hpp"

namespace rbmc {

class SamplingPlan {
 public:
  // Validity policy for dispersed mass properties: a draw that is not physical is redrawn from
  // the same sample's streams (attempt 1, 2, ...), deterministically; after this many attempts
  // the sample keeps its last draw and run_sample flags it invalid_body.
  static constexpr int kMaxBodyAttempts = 64;

  explicit SamplingPlan(Scenario scenario);

  const Scenario& scenario() const { return scenario_; }
  const std::vector<Dispersion>& dispersions() const { return scenario_.dispersions; }
  // Sum of the dispersions' dimensions: the values sample() writes to `params`.
  int n_parameter_values() const { return n_parameter_values_; }

  // Sample k's inputs; params receives the drawn value of each dispersion in order.
  // Returns the number of redraws the validity policy made (0 when the first draw was valid).
  int sample(std::uint64_t k, SampleInputs<double>& in, double* params) const;

  // The nominal body's principal axes (columns, a proper rotation): body.principal_moments
  // are dispersed along them.
  const Mat3<double>& principal_axes() const { return principal_axes_; }

 private:
  // Dispersion d's value for sample k (a rotation vector for the attitude).
  Vec3<double> draw(const Dispersion& d, std::size_t index, std::uint64_t k, int attempt) const;

  Scenario scenario_;  // a copy: a plan outlives the scenario it was made from
  int n_parameter_values_ = 0;
  std::vector<std::uint32_t> stream_ids_;
  Mat3<double> principal_axes_;
  Vec3<double> nominal_moments_;
};

}  // namespace rbmc

// Is a difference between two runs of the same samples chaos or a real difference? A sample whose
// integration depends sensitively on its initial state (a tumbling body near the intermediate
// axis' separatrix) turns rounding-size differences into large ones; a wrong load or a
// precision that cannot carry the answer does not need such sensitivity. The check re-integrates
// the sample on the CPU in double from the file's scenario, once as stored and once with its
// initial state perturbed by what rounding can inject over the run (and, between a float and a
// double file, once in float), and compares the separation this causes with the
// difference between the files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/analysis/compare_results.hpp"
#include "host/io/results_reader.hpp"
#include "rbmc/dynamics/state.hpp"

namespace rbmc {

// The typical size of each part of the final state (the median norm over a run's samples): the
// scale in which two final states' distance is measured.
struct FinalStateScales {
  double position = 1, orientation = 1, velocity = 1, angular_velocity = 1, time = 1;
  void set(const std::string& dataset, double typical);
  // max over the parts of ‖Δ‖ / scale (q and −q are one attitude).
  double distance(const RigidBodyState<double>& x, double t, const RigidBodyState<double>& y, double s) const;
};

// samples: global indices; differences: each one's file difference in distance() units.
// delta: the relative size of the perturbation (rounding over the run). across_precisions: the
// files hold a float and a double run; then the sample is also re-integrated in float against
// double (float's rounding acts at every step, not only at the start), and the larger of the two
// separations counts.
SensitivityCheck check_rounding_sensitivity(const ResultsReader& file, const std::vector<std::uint64_t>& samples,
                                            const std::vector<double>& differences, const FinalStateScales& scales,
                                            double delta, bool across_precisions);

// From the trajectories both files keep of the mismatched samples: the median rate (1/s) at which
// their separation grows, and how many were compared (0 leaves rate NaN).
void trajectory_growth(const ResultsReader& a, const ResultsReader& b, const std::vector<std::uint64_t>& samples,
                       double& rate, std::uint64_t& compared);

// ln(d(t_s) / d_0) / (t_s − t_0) with t_s the first time d reaches half its largest value and
// (t_0, d_0) the first positive separation: the exponential rate of a separation that saturates.
double separation_growth_rate(const std::vector<double>& times, const std::vector<double>& separations);

}  // namespace rbmc

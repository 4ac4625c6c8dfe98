#include "host/analysis/rounding_sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "host/analysis/kept_trajectory_pairs.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "host/scenario/scenario.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

namespace {

double median_of(std::vector<double> x) {
  if (x.empty()) return NAN;
  std::nth_element(x.begin(), x.begin() + std::ptrdiff_t(x.size() / 2), x.end());
  return x[x.size() / 2];
}

// The run the file came from: its scenario text with the run's own seed and sample count (the
// command line may have overridden the file's).
Scenario scenario_of(const ResultsReader& file) {
  Scenario s = parse_scenario(file.string_attribute("", "scenario"), file.string_attribute("", "scenario_path"));
  s.run.seed = std::uint64_t(file.number_attribute("", "seed"));
  s.run.n_samples = std::uint64_t(file.number_attribute("", "n_samples_in_run"));
  if (s.design.kind == Design::Kind::grid)  // --samples set the replicates of every point
    s.design.replicates = std::uint64_t(file.number_attribute("design", "replicates"));
  return s;
}

// The initial state moved by `delta` relative to each part's size (at least 1 in SI units).
RigidBodyState<double> perturbed(const RigidBodyState<double>& x, double delta) {
  const Vec3<double> direction = Vec3<double>(1, -1, 1) / std::sqrt(3.0);
  RigidBodyState<double> y = x;
  y.p_w += delta * std::max(1.0, x.p_w.norm()) * direction;
  y.v_w += delta * std::max(1.0, x.v_w.norm()) * direction;
  y.omega_b += delta * std::max(1.0, x.omega_b.norm()) * direction;
  y.q_wb = normalized(Quaternion<double>{x.q_wb.w + delta, x.q_wb.x - delta, x.q_wb.y + delta, x.q_wb.z - delta});
  return y;
}

}  // namespace

void FinalStateScales::set(const std::string& dataset, double typical) {
  const double s = typical > 0 ? typical : 1;
  if (dataset == "samples/final/position") position = s;
  if (dataset == "samples/final/orientation") orientation = s;
  if (dataset == "samples/final/velocity") velocity = s;
  if (dataset == "samples/final/angular_velocity") angular_velocity = s;
  if (dataset == "samples/final/time") time = s;
}

double FinalStateScales::distance(const RigidBodyState<double>& x, double t, const RigidBodyState<double>& y,
                                  double s) const {
  const Eigen::Vector4d qx(x.q_wb.w, x.q_wb.x, x.q_wb.y, x.q_wb.z), qy(y.q_wb.w, y.q_wb.x, y.q_wb.y, y.q_wb.z);
  const double dq = std::min((qx - qy).norm(), (qx + qy).norm());
  const double d = std::max({(x.p_w - y.p_w).norm() / position, dq / orientation, (x.v_w - y.v_w).norm() / velocity,
                             (x.omega_b - y.omega_b).norm() / angular_velocity, std::abs(t - s) / time});
  return std::isnan(d) ? INFINITY : d;
}

double separation_growth_rate(const std::vector<double>& times, const std::vector<double>& separations) {
  std::size_t first = times.size(), saturated = times.size();
  double largest = 0;
  for (std::size_t k = 0; k < times.size(); ++k)
    if (std::isfinite(separations[k])) largest = std::max(largest, separations[k]);
  for (std::size_t k = 0; k < times.size(); ++k) {
    if (!(std::isfinite(separations[k]) && separations[k] > 0)) continue;
    if (first == times.size()) first = k;
    if (separations[k] >= 0.5 * largest) {
      saturated = k;
      break;
    }
  }
  if (first >= saturated || saturated == times.size() || times[saturated] <= times[first]) return 0;
  return std::log(separations[saturated] / separations[first]) / (times[saturated] - times[first]);
}

SensitivityCheck check_rounding_sensitivity(const ResultsReader& file, const std::vector<std::uint64_t>& samples,
                                            const std::vector<double>& differences, const FinalStateScales& scales,
                                            double delta, bool across_precisions) {
  SensitivityCheck check;
  if (samples.empty()) return check;
  Scenario s;
  try {
    s = scenario_of(file);
  } catch (const std::exception& e) {
    check.unavailable = std::string("the file's scenario does not parse here: ") + e.what();
    return check;
  }
  const SamplingPlan plan(s);
  SharedModel<double> shared = s.shared_model();
  const IntegrationSettings<double> how = s.integration();
  // The separation over time, at 64 times over the run.
  OutputTimes<double> times;
  times.n = 65;
  times.interval = s.run.duration / 64;
  std::vector<double> t(std::size_t(times.n));
  for (int k = 0; k < times.n; ++k) t[std::size_t(k)] = times.at(k);
  std::vector<double> params(std::size_t(plan.n_parameter_values()) + 1), growth;
  check.min_ratio = INFINITY;
  for (std::size_t n = 0; n < samples.size(); ++n) {
    SampleInputs<double> in;
    plan.sample(samples[n], in, params.data());
    std::vector<double> path(std::size_t(kTrajectoryColumns * times.n)), moved_path(path.size());
    TrajectorySink<double, double> sink{&times, path.data(), 1, 0, 0};
    const SampleResult<double> r = run_sample(in, shared, how, sink);
    // The moved run: perturbed by delta, and across precisions also the float run (float's CPU
    // and GPU roundings differ too; whichever moves the sample further is the explanation).
    SampleInputs<double> moved_inputs = in;
    moved_inputs.initial = perturbed(in.initial, delta);
    if (s.constraint.kind != ConstraintKind::none)
      moved_inputs.initial = project_onto_constraint(s.constraint, moved_inputs.initial);
    TrajectorySink<double, double> moved_sink{&times, moved_path.data(), 1, 0, 0};
    SampleResult<double> m = run_sample(moved_inputs, shared, how, moved_sink);
    double separation = scales.distance(r.final_state, r.time, m.final_state, m.time) + (r.status != m.status ? INFINITY : 0.0);
    if (across_precisions) {
      // The same sample in float, from the same inputs rounded as a float run rounds them.
      std::vector<double> columns(std::size_t(input_column_count(shared.parameters.n)));
      store_sample_inputs(columns.data(), 1, 0, in, shared.parameters.n);
      std::vector<double> float_path(moved_path.size());
      const OutputTimes<float> float_times = times.cast<float>();
      TrajectorySink<float, double> float_sink{&float_times, float_path.data(), 1, 0, 0};
      const SampleResult<float> f = run_sample(load_sample_inputs<float>(columns.data(), 1, 0, shared.parameters.n),
                                               shared.cast<float>(), how.cast<float>(), float_sink);
      const RigidBodyState<double> x{f.final_state.p_w.cast<double>(),
                                     {f.final_state.q_wb.w, f.final_state.q_wb.x, f.final_state.q_wb.y, f.final_state.q_wb.z},
                                     f.final_state.v_w.cast<double>(), f.final_state.omega_b.cast<double>()};
      const double float_separation =
          scales.distance(r.final_state, r.time, x, double(f.time)) + (r.status != f.status ? INFINITY : 0.0);
      if (float_separation > separation) {
        separation = float_separation;
        moved_path = float_path;
      }
    }
    // A sample that differs only in its kept trajectory has no final difference to explain: not sensitive.
    const double ratio = differences[n] > 0 ? separation / differences[n] : 0;
    ++check.checked;
    check.min_ratio = std::min(check.min_ratio, ratio);
    // Sensitive: a rounding-size nudge alone moves the sample by a tenth of the files' difference.
    if (ratio >= 0.1) {
      ++check.sensitive;
      std::vector<double> d(t.size());
      for (std::size_t k = 0; k < t.size(); ++k) {
        StateVector<double> y, z;
        for (int c = 0; c < kTrajectoryColumns; ++c) {
          y(c) = path[k * kTrajectoryColumns + std::size_t(c)];
          z(c) = moved_path[k * kTrajectoryColumns + std::size_t(c)];
        }
        d[k] = scales.distance(unpack(y), t[k], unpack(z), t[k]);
      }
      growth.push_back(separation_growth_rate(t, d));
    } else if (check.insensitive_samples.size() < 10) {
      check.insensitive_samples.push_back(samples[n]);
    }
  }
  check.median_growth_rate = growth.empty() ? 0 : median_of(growth);
  return check;
}

void trajectory_growth(const ResultsReader& a, const ResultsReader& b, const std::vector<std::uint64_t>& samples,
                       double& rate, std::uint64_t& compared) {
  rate = NAN;
  compared = 0;
  const KeptRowPairs pairs = kept_row_pairs(a, b, &samples);
  if (pairs.empty()) return;
  // At the output times both hold (another [output] interval gives b another grid).
  const std::vector<double> times_a = a.doubles("trajectories/time").data, times_b = b.doubles("trajectories/time").data;
  const auto times = common_output_times(times_a, times_b);
  if (times.empty()) return;
  std::vector<double> t;
  for (const auto& [ka, kb] : times) t.push_back(times_a[ka]);
  // The angular velocity's separation, relative to its size: the tumbling quantity. The samples'
  // rows are read a block at a time, about 16 MiB of values from each file.
  std::vector<double> rates;
  const std::size_t block_rows =
      std::max<std::size_t>(1, (std::size_t(1) << 21) / (3 * std::max(times_a.size(), times_b.size())));
  for_each_kept_row_block(a, b, "trajectories/angular_velocity", pairs, block_rows, [&](const KeptRowBlock& block) {
    if (block.a.size() != block.a_rows * times_a.size() * 3 || block.b.size() != block.b_rows * times_b.size() * 3)
      throw Hdf5Error("trajectories/angular_velocity has another shape than its kept samples' and output times'");
    for (std::size_t p = 0; p < block.n_pairs; ++p) {
      const std::size_t i = block.pairs[p].a_row - block.a_first, j = block.pairs[p].b_row - block.b_first;
      std::vector<double> d(times.size());
      for (std::size_t k = 0; k < times.size(); ++k) {
        double s = 0;
        for (std::size_t c = 0; c < 3; ++c) {
          const double u = block.a[(i * times_a.size() + times[k].first) * 3 + c],
                       v = block.b[(j * times_b.size() + times[k].second) * 3 + c];
          s += (u - v) * (u - v);
        }
        d[k] = std::sqrt(s);
      }
      rates.push_back(separation_growth_rate(t, d));
    }
  });
  compared = rates.size();
  if (!rates.empty()) rate = median_of(rates);
}

}  // namespace rbmc

#include "host/cli/check_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "host/cli/number_checks.hpp"
#include "host/run/disk_space.hpp"
#include "host/sampling/designs.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "host/scenario/output_schema.hpp"
#include "host/scenario/scenario.hpp"
#include "host/stats/run_statistics.hpp"
#include "host/util/decimal_bytes.hpp"

namespace rbmc::cli {

namespace {

struct CheckArguments {
  std::string scenario;
  std::uint64_t preview = 10000;
};

std::string distribution_text(const Dispersion& d, int c) {
  char buf[96];
  switch (d.kind) {
    case DistributionKind::normal: std::snprintf(buf, sizeof buf, "normal(mean %.6g, sd %.6g)", d.a[c], d.b[c]); break;
    case DistributionKind::uniform: std::snprintf(buf, sizeof buf, "uniform[%.6g, %.6g]", d.a[c], d.b[c]); break;
    case DistributionKind::truncated_normal:
      std::snprintf(buf, sizeof buf, "normal(%.4g, sd %.4g) in [%.4g, %.4g]", d.a[c], d.b[c], d.lo[c], d.hi[c]);
      break;
    case DistributionKind::lognormal:
      std::snprintf(buf, sizeof buf, "lognormal(median %.6g, log sd %.4g)", d.a[c], d.b[c]);
      break;
    case DistributionKind::fixed: std::snprintf(buf, sizeof buf, "fixed %.6g", d.a[c]); break;
    case DistributionKind::discrete: std::snprintf(buf, sizeof buf, "discrete, %zu values", d.values.size()); break;
    case DistributionKind::uniform_rotation: std::snprintf(buf, sizeof buf, "uniform on SO(3)"); break;
    case DistributionKind::random_axis:
      if (d.b[0] > 0)
        std::snprintf(buf, sizeof buf, "random axis, |angle| ~ half-normal(%.4g)", d.b[0]);
      else
        std::snprintf(buf, sizeof buf, "random axis, angle ~ U[0, %.4g]", d.a[0]);
      break;
  }
  return buf;
}

// How the run's quantiles will be found (RunStatistics::planned_sketch_k): exactly, or by
// sketches whose k the budget sets. Below the default k their rank error bound may pass 1e-3
// (docs/output-format.md, "Quantiles"); the run's summary states the bound it reached.
void print_planned_quantiles(const Scenario& s) {
  if (!s.output.statistics || s.output_times.n == 0) return;
  const double mib = double(s.output.quantile_memory) / double(1 << 20);
  const int k = RunStatistics::planned_sketch_k(s, s.run.n_samples);
  if (k == 0) {
    std::printf("  quantiles    exact: every sample's values fit quantile_memory_mb = %.6g\n", mib);
  } else if (k >= QuantileSketch::kDefaultK) {
    std::printf("  quantiles    sketched (k = %d): rank error within 1e-3 (95 %%)\n", k);
  } else {
    std::printf("  quantiles    sketched (k = %d, below the default %d that keeps the rank error within 1e-3): "
                "a larger quantile_memory_mb than %.6g raises it\n",
                k, QuantileSketch::kDefaultK, mib);
  }
}

// What the file will hold before compression ([output] samples, storage and trajectories), at the
// run's N: what to weigh before a large run (docs/scenario.md, "What these save"). HDF5 adds its
// chunks' padding (up to a chunk of rows a dataset: +15 % for bench/scenarios/free_body.toml's
// 100,000 samples, 443 bytes a sample in the file against these 393) and its metadata.
void print_planned_file(const Scenario& s) {
  const bool float32 = s.output.storage == OutputSettings::Storage::float32;
  const std::size_t per_sample = stored_bytes_per_sample(s);
  const std::uint64_t n = s.run.n_samples;
  std::printf("  file         %zu of %zu per-sample datasets in %s: %zu bytes a sample, about %s for %llu samples\n",
              sample_datasets(s).size(), all_sample_datasets(s).size(), float32 ? "float32" : "float64", per_sample,
              decimal_bytes(double(per_sample) * double(n)).c_str(), static_cast<unsigned long long>(n));
  if (s.output_times.n > 0 && s.output.trajectories.kind != TrajectoryRetention::Kind::none) {
    bool exact = true;
    const std::uint64_t kept = planned_trajectories(s.output.trajectories, n, exact);
    const double bytes = double(kept) * double(s.output_times.n) * kTrajectoryColumns * (float32 ? 4 : 8);
    std::printf("               trajectories of %s%llu samples (%s) at %d output times: %s%s before compression\n",
                exact ? "" : "at most ", static_cast<unsigned long long>(kept),
                retention_text(s.output.trajectories).c_str(), s.output_times.n, exact ? "" : "at most ",
                decimal_bytes(bytes).c_str());
  }
  // What `rbmc run` checks against the free space where the file goes (host/run/disk_space.hpp).
  const DiskNeed need = disk_need(s, n, true, true);
  std::printf("               on disk while it runs: at least %s, with its journal's %s (--no-journal leaves it out)\n",
              decimal_bytes(double(need.total())).c_str(), decimal_bytes(double(need.journal)).c_str());
}

// How many of the previewed samples the validity policy redrew, and how many it leaves with a body
// or a load value that is not physical (docs/scenario.md, "Validity policy").
void print_preview_validity(const Scenario& s, const DrawPreview& p) {
  const std::uint64_t n = p.n, redrawn = p.redrawn, invalid_bodies = p.invalid_bodies, invalid_loads = p.invalid_loads;
  std::string left;
  if (invalid_bodies + invalid_loads > 0)
    left = std::to_string(invalid_bodies) + " invalid_body, " + std::to_string(invalid_loads) + " invalid_load";
  if (s.design.invalid_bodies == Design::InvalidBodies::reject)
    std::printf("  validity     %.3g %% of previewed samples rejected (policy: reject, not integrated)%s\n",
                100.0 * double(invalid_bodies + invalid_loads) / double(n), left.empty() ? "" : (": " + left).c_str());
  else
    std::printf("  validity     %.3g %% of previewed samples redrawn (policy: up to %d redraws), %llu left invalid%s\n",
                100.0 * double(redrawn) / double(n), SamplingPlan::kMaxBodyAttempts,
                static_cast<unsigned long long>(invalid_bodies + invalid_loads),
                left.empty() ? "" : (" (" + left + ")").c_str());
}

void print_resolved(const Scenario& s, std::uint64_t preview) {
  std::printf("rbmc check: %s (%s): valid\n", s.name.c_str(), s.path.c_str());
  std::printf("  run          %llu sample%s, seed %llu, %s", static_cast<unsigned long long>(s.run.n_samples),
              s.run.n_samples == 1 ? "" : "s", static_cast<unsigned long long>(s.run.seed),
              integrator_name(s.run.integrator));
  if (s.run.integrator == IntegratorKind::dopri5)
    std::printf(" (rtol %.3g, atol %.3g) over %.6g s\n", s.run.rtol, s.run.atol, s.run.duration);
  else
    std::printf(", %lld steps of %.6g s (%.6g s)\n", static_cast<long long>(s.run.n_steps), s.step_used(), s.run.duration);
  const Mat3<double>& i = s.body.inertia_c_b;
  std::printf("  body         mass %.6g kg, centre of mass [%.6g, %.6g, %.6g] m%s%s\n", s.body.mass, s.body.com_b.x(),
              s.body.com_b.y(), s.body.com_b.z(), s.body_shape.empty() ? "" : ", shape ", s.body_shape.c_str());
  std::printf("               inertia about the centre of mass [[%.6g, %.6g, %.6g], [%.6g, %.6g, %.6g], [%.6g, %.6g, %.6g]] kg m^2\n",
              i(0, 0), i(0, 1), i(0, 2), i(1, 0), i(1, 1), i(1, 2), i(2, 0), i(2, 1), i(2, 2));
  const LoadSet<double>& l = s.loads;
  const auto plural = [](int n) { return n == 1 ? "" : "s"; };
  std::printf("  loads        gravity [%.6g, %.6g, %.6g] m/s^2; %d point force%s, %d couple%s, %d spring%s%s%s\n",
              s.gravity_w.x(), s.gravity_w.y(), s.gravity_w.z(), l.n_point_forces, plural(l.n_point_forces),
              l.n_torques, plural(l.n_torques), l.n_springs, plural(l.n_springs),
              (l.linear_damping + l.quadratic_damping + l.angular_linear_damping + l.angular_quadratic_damping) > 0
                  ? ", damping"
                  : "",
              l.has_central_body ? ", a central body" : "");
  const char* constraint = s.constraint.kind == ConstraintKind::pivot    ? "pivot"
                           : s.constraint.kind == ConstraintKind::planar ? "planar"
                                                                         : "none";
  std::printf("  constraint   %s; %d event%s; %d output time%s\n", constraint, s.events.n, s.events.n == 1 ? "" : "s",
              s.output_times.n, s.output_times.n == 1 ? "" : "s");
  for (int i = 0; i < s.events.n; ++i)
    std::printf("  %s %s: %s\n", i == 0 ? "events      " : "            ", s.event_names[std::size_t(i)].c_str(),
                describe_event(s.events.events[i]).c_str());
  if (s.output_times.n > 0)
    std::printf("  statistics   %s\n",
                s.output.statistics ? ("of " + quantity_names(s.output.statistics_quantities) + " at each output time").c_str()
                                    : "none");
  print_planned_quantiles(s);
  print_planned_file(s);
  if (s.design.kind == Design::Kind::grid) {
    std::printf("  design       grid of %llu point%s x %llu replicate%s:",
                static_cast<unsigned long long>(s.design.n_points()), s.design.n_points() == 1 ? "" : "s",
                static_cast<unsigned long long>(s.design.replicates), s.design.replicates == 1 ? "" : "s");
    for (const GridAxis& a : s.design.axes) std::printf(" %s (%zu values)", a.info.key_path.c_str(), a.values.size());
    std::printf("\n");
  } else {
    const std::string note = s.design.kind == Design::Kind::sobol ? sobol_balance_note(s.run.n_samples) : "";
    std::printf("  design       %s%s\n", s.design.name(), note.empty() ? "" : (": " + note).c_str());
  }
  for (const CorrelationGroup& c : s.correlations) {
    std::printf("  correlated  ");
    for (const std::string& i : c.inputs) std::printf(" %s", i.c_str());
    std::printf(" (%dx%d matrix)\n", c.dim, c.dim);
  }
  const bool axes = s.design.gives_values();  // a grid's or a table's values
  if (s.dispersions.empty() && !axes) {
    std::printf("  dispersions  none: every sample is the nominal one\n");
    return;
  }

  // A preview of the samples the run would draw: the same streams, so the same numbers.
  const SamplingPlan plan(s);
  const DrawPreview drawn = preview_draws(plan, std::min<std::uint64_t>(preview, s.run.n_samples));
  const std::uint64_t n = drawn.n;
  const int width = plan.n_parameter_values();
  const std::vector<double>& values = drawn.values;
  if (s.dispersions.empty()) {
    std::printf("  dispersions  none: the samples differ by the %s's values\n", s.design.name());
    print_preview_validity(s, drawn);
    return;
  }
  std::printf("  dispersions  (preview of the first %llu samples)\n", static_cast<unsigned long long>(n));
  std::printf("    %-28s %12s  %-36s %12s %12s %12s %12s\n", "input", "nominal", "distribution", "mean", "sd", "min",
              "max");
  int column = 0;
  for (const Dispersion& d : s.dispersions) {
    for (int c = 0; c < d.info.dim; ++c, ++column) {
      double sum = 0, sum2 = 0, lo = INFINITY, hi = -INFINITY;
      for (std::uint64_t k = 0; k < n; ++k) {
        const double v = values[std::size_t(k) * std::size_t(width) + std::size_t(column)];
        sum += v;
        sum2 += v * v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      const double mean = sum / double(n), sd = std::sqrt(std::max(0.0, sum2 / double(n) - mean * mean));
      std::string name = d.info.key_path;
      if (d.info.dim > 1) name += "[" + std::to_string(c) + "]";
      std::printf("    %-28s %12.6g  %-36s %12.6g %12.6g %12.6g %12.6g  %s\n", name.c_str(), d.nominal[c],
                  distribution_text(d, c).c_str(), mean, sd, lo, hi, d.info.units.c_str());
    }
  }
  // Each correlation group: the requested matrix and the preview's sample correlation.
  for (const CorrelationGroup& g : s.correlations) {
    std::vector<int> columns;  // the group's components among the drawn values
    for (std::size_t i : g.dispersions) {
      int first = 0;
      for (std::size_t j = 0; j < i; ++j) first += s.dispersions[j].info.dim;
      for (int c = 0; c < s.dispersions[i].info.dim; ++c) columns.push_back(first + c);
    }
    const auto column = [&](int a, std::uint64_t k) { return values[std::size_t(k) * std::size_t(width) + std::size_t(a)]; };
    std::vector<double> mean(columns.size(), 0.0), sd(columns.size(), 0.0);
    for (std::size_t a = 0; a < columns.size(); ++a) {
      for (std::uint64_t k = 0; k < n; ++k) mean[a] += column(columns[a], k) / double(n);
      for (std::uint64_t k = 0; k < n; ++k) sd[a] += std::pow(column(columns[a], k) - mean[a], 2) / double(n);
      sd[a] = std::sqrt(sd[a]);
    }
    std::printf("  correlation  requested / previewed, components in the order of");
    for (const std::string& i : g.inputs) std::printf(" %s", i.c_str());
    std::printf("\n");
    for (std::size_t a = 0; a < columns.size(); ++a) {
      std::printf("   ");
      for (std::size_t b = 0; b < columns.size(); ++b) {
        double c = 0;
        for (std::uint64_t k = 0; k < n; ++k)
          c += (column(columns[a], k) - mean[a]) * (column(columns[b], k) - mean[b]) / double(n);
        const double r = sd[a] > 0 && sd[b] > 0 ? c / (sd[a] * sd[b]) : NAN;
        std::printf("  %6.3f/%6.3f", g.matrix[a * columns.size() + b], r);
      }
      std::printf("\n");
    }
  }
  print_preview_validity(s, drawn);
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArguments>();
  CLI::App* check = app.add_subcommand("check", "Validate a scenario and print its resolved inputs, without running it");
  check->add_option("scenario", args->scenario, "Scenario file (TOML)")->required();
  check->add_option("--preview", args->preview, "Samples drawn for the preview statistics")->check(whole_number_check(1));
  check->callback([args] { print_resolved(load_scenario(args->scenario), args->preview); });
}

}  // namespace rbmc::cli

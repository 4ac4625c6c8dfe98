#include "host/analysis/results_info.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "host/io/results_reader.hpp"
#include "host/stats/run_statistics.hpp"
#include "rbmc/sample/sample_status.hpp"

namespace rbmc {

void print_results_info(const std::string& path, std::FILE* out) {
  const ResultsReader r(path);
  const auto text = [&](const char* name) { return r.has_attribute("", name) ? r.string_attribute("", name) : std::string("?"); };
  const auto number = [&](const char* name) { return r.has_attribute("", name) ? r.number_attribute("", name) : NAN; };
  std::fprintf(out, "rbmc info: %s\n", path.c_str());
  std::fprintf(out, "  scenario     %s (%s), written %s by rbmc %s\n", text("scenario_name").c_str(),
               text("scenario_path").c_str(), text("created").c_str(), text("rbmc_version").c_str());
  std::fprintf(out, "  backend      %s: %s, %s precision\n", text("backend").c_str(), text("device").c_str(),
               text("precision").c_str());
  std::fprintf(out, "  samples      %.0f of a run of %.0f, seed %.0f, design %s\n", number("n_samples"),
               number("n_samples_in_run"), number("seed"), text("design").c_str());
  std::fprintf(out, "  integration  %s over %.6g s, %.0f steps in all; %.3g s wall\n", text("integrator").c_str(),
               number("duration"), number("total_steps"), number("wall_seconds"));
  std::fprintf(out, "  status      ");
  for (int c = 0; c < kSampleStatusCount; ++c) {
    const std::string name = std::string("n_status_") + status_name(SampleStatus(c));
    const double count = r.has_attribute("", name) ? r.number_attribute("", name) : 0;
    if (count > 0) std::fprintf(out, " %s %.0f", status_name(SampleStatus(c)), count);
  }
  std::fprintf(out, "\n");
  if (r.has_attribute("", "n_redrawn_bodies") && number("n_redrawn_bodies") > 0)
    std::fprintf(out, "  redrawn      %.0f bodies (validity policy)\n", number("n_redrawn_bodies"));
  if (r.has("trajectories/time"))
    std::fprintf(out, "  trajectories %.0f retained (%s) at %llu output times\n", number("n_trajectories"),
                 r.has_attribute("trajectories", "retained") ? r.string_attribute("trajectories", "retained").c_str() : "?",
                 static_cast<unsigned long long>(r.doubles("trajectories/time").data.size()));
  if (r.has("statistics")) std::fprintf(out, "  statistics   at each output time in /statistics\n");

  // The final states as a table over the samples that have them.
  std::fprintf(out, "  final state  %-22s %12s %12s %12s %12s %12s %12s %12s\n", "", "mean", "sd", "min", "5 %", "median",
               "95 %", "max");
  const struct {
    const char* dataset;
    const char* label;
    const char* components;
    const char* units;
  } rows[] = {{"samples/final/position", "position", "xyz", "m"},
              {"samples/final/velocity", "velocity", "xyz", "m/s"},
              {"samples/final/angular_velocity", "angular_velocity", "xyz", "rad/s"},
              {"samples/final/time", "time", "", "s"}};
  for (const auto& row : rows) {
    const Array<double> a = r.doubles(row.dataset);
    const std::size_t dim = std::max<std::size_t>(1, std::string(row.components).size());
    const std::size_t n = a.shape.empty() ? 0 : std::size_t(a.shape[0]);
    for (std::size_t c = 0; c < dim; ++c) {
      std::vector<double> v;
      for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(a.data[i * dim + c])) v.push_back(a.data[i * dim + c]);
      std::sort(v.begin(), v.end());
      double mean = 0, var = 0;
      for (double x : v) mean += x / double(v.size());
      for (double x : v) var += (x - mean) * (x - mean) / double(v.size() > 1 ? v.size() - 1 : 1);
      std::string label = std::string(row.label) + (dim > 1 ? std::string(".") + row.components[c] : "") + " (" + row.units + ")";
      if (v.empty()) {
        std::fprintf(out, "               %-22s (no finite values)\n", label.c_str());
        continue;
      }
      std::fprintf(out, "               %-22s %12.6g %12.6g %12.6g %12.6g %12.6g %12.6g %12.6g\n", label.c_str(), mean,
                   std::sqrt(var), v.front(), quantile_of_sorted(v, 0.05), quantile_of_sorted(v, 0.5),
                   quantile_of_sorted(v, 0.95), v.back());
    }
  }
}

}  // namespace rbmc

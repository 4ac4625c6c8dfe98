#include "host/analysis/results_info.hpp"
#include "host/scenario/output_schema.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "host/io/results_reader.hpp"
#include "host/io/results_writer.hpp"
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
  // The rows that hold results: all of a complete file, the prefix done of a partial one (its
  // rows are written in order; the later ones are not_run). Read in blocks: a file of 2^40
  // declared rows is summarised in the memory of its rows done.
  const bool partial = r.has("resume");
  const std::uint64_t declared = std::uint64_t(r.number_attribute("", "n_samples"));
  const std::uint64_t prefix =
      partial ? std::min<std::uint64_t>(declared, std::uint64_t(r.number_attribute("resume", "rows_done"))) : declared;
  constexpr std::uint64_t kBlock = std::uint64_t(1) << 20;
  std::array<std::uint64_t, 256> counts{};
  const auto block = [&](std::uint64_t first) { return std::min(kBlock, prefix - first); };
  for (std::uint64_t first = 0; first < prefix; first += kBlock)
    for (std::uint8_t code : r.uint8s("samples/status", first, block(first)).data) ++counts[code];
  const std::uint64_t n_done = prefix - counts[kStatusNotRun];
  counts[kStatusNotRun] = 0;
  // The table of final states over at most kTableRows rows: every stride-th beyond that.
  constexpr std::uint64_t kTableRows = std::uint64_t(1) << 22;
  const std::uint64_t stride = (prefix + kTableRows - 1) / kTableRows;
  const bool complete = r.has_attribute("", "complete") && r.number_attribute("", "complete") == 1;
  if (!complete)
    std::fprintf(out, "  INCOMPLETE   an interrupted run's partial file: %llu of %llu samples done; everything below is "
                      "over those (rbmc run SCENARIO -o OUT --resume completes it)\n",
                 static_cast<unsigned long long>(n_done), static_cast<unsigned long long>(declared));
  std::fprintf(out, "  integration  %s over %.6g s", text("integrator").c_str(), number("duration"));
  if (r.has_attribute("", "n_steps")) std::fprintf(out, ", %.0f steps per sample", number("n_steps"));
  if (r.has_attribute("", "mean_steps")) std::fprintf(out, ", %.4g steps per sample on average", number("mean_steps"));
  if (r.has_attribute("", "total_steps")) std::fprintf(out, ", %.0f steps in all", number("total_steps"));
  if (r.has_attribute("", "wall_seconds")) std::fprintf(out, "; %.3g s wall", number("wall_seconds"));
  std::fprintf(out, "\n  status      ");
  // Counted from the rows themselves, so that a partial file's are right too.
  for (int c = 0; c < 256; ++c)
    if (counts[std::size_t(c)] > 0)
      std::fprintf(out, " %s %llu", c < kSampleStatusCount ? status_name(SampleStatus(c)) : "unknown",
                   static_cast<unsigned long long>(counts[std::size_t(c)]));
  std::fprintf(out, "\n");
  if (r.has_attribute("", "n_redrawn_bodies") && number("n_redrawn_bodies") > 0)
    std::fprintf(out, "  redrawn      %.0f bodies (validity policy)\n", number("n_redrawn_bodies"));
  if (r.has("trajectories/time"))
    std::fprintf(out, "  trajectories %.0f retained (%s) at %llu output times\n", number("n_trajectories"),
                 r.has_attribute("trajectories", "retained") ? r.string_attribute("trajectories", "retained").c_str() : "?",
                 static_cast<unsigned long long>(r.doubles("trajectories/time").data.size()));
  if (r.has("statistics")) std::fprintf(out, "  statistics   at each output time in /statistics\n");

  // The final states as a table over the samples that have them.
  std::fprintf(out, "  final state  %-22s %12s %12s %12s %12s %12s %12s %12s%s\n", "", "mean", "sd", "min", "5 %",
               "median", "95 %", "max", stride > 1 ? (" (every " + std::to_string(stride) + "th sample)").c_str() : "");
  // The final state's datasets the file keeps, labelled from the schema (host/scenario/output_schema.hpp).
  for (const SampleDataset& row : common_sample_datasets()) {
    if (row.role != SampleRole::result || !row.compared || row.path == "samples/final/orientation" || !r.has(row.path))
      continue;
    const std::size_t dim = std::max<std::size_t>(1, row.components.size());
    std::vector<std::vector<double>> values(dim);
    for (std::uint64_t first = 0; first < prefix; first += kBlock) {
      const std::vector<double> a = r.doubles(row.path, first, block(first)).data;
      const std::vector<std::uint8_t> status = r.uint8s("samples/status", first, block(first)).data;
      for (std::uint64_t i = (stride - first % stride) % stride; i < status.size(); i += stride)
        for (std::size_t c = 0; c < dim && status[i] != kStatusNotRun; ++c)
          if (std::isfinite(a[i * dim + c])) values[c].push_back(a[i * dim + c]);
    }
    for (std::size_t c = 0; c < dim; ++c) {
      std::vector<double>& v = values[c];
      std::sort(v.begin(), v.end());
      double mean = 0, var = 0;
      for (double x : v) mean += x / double(v.size());
      for (double x : v) var += (x - mean) * (x - mean) / double(v.size() > 1 ? v.size() - 1 : 1);
      const std::string name = row.path.substr(std::string("samples/final/").size());
      const std::string label = name + (dim > 1 ? "." + row.components[c] : "") + " (" + row.units + ")";
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

#include "host/analysis/results_info.hpp"
#include "host/scenario/output_schema.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "host/io/results_reader.hpp"
#include "host/util/json_writer.hpp"
#include "host/io/results_writer.hpp"
#include "host/stats/column_moments.hpp"
#include "host/stats/run_statistics.hpp"
#include "rbmc/sample/sample_status.hpp"

namespace rbmc {

namespace {

// Rows read at a time: a file of 2^40 declared rows is summarised in the memory of its rows done.
constexpr std::uint64_t kBlock = std::uint64_t(1) << 20;

// A sample the run did not integrate: its final state NaN at time 0 (its initial state in the files
// of builds before 2026-12-07), left out of the table by its status either way.
bool not_integrated(std::uint8_t status) { return !was_integrated(SampleStatus(status)); }

// The events of /samples/events over the first `prefix` rows: in how many samples each occurred,
// how many it stopped, and when it first occurred there (over every stride-th row, as the final
// state's table). An event whose datasets [output] samples left out is not listed.
void read_events(const ResultsReader& r, std::uint64_t prefix, std::uint64_t stride, ResultsInfo& info) {
  if (!r.has("samples/events")) return;
  const bool stops = r.has("samples/final/stopping_event");
  for (const std::string& name : r.children("samples/events")) {
    const std::string group = "samples/events/" + name;
    if (!r.has_attribute(group, "index") || !r.has(group + "/count")) continue;
    ResultsInfo::Event e;
    e.name = name;
    e.index = int(r.number_attribute(group, "index"));
    e.terminal = r.has_attribute(group, "terminal") && r.string_attribute(group, "terminal") == "true";
    if (stops) e.stopped = 0;
    const bool timed = r.has(group + "/time");
    std::vector<double> first_times;
    for (std::uint64_t first = 0; first < prefix; first += kBlock) {
      const std::uint64_t n = std::min(kBlock, prefix - first);
      const std::vector<std::uint8_t> status = r.uint8s("samples/status", first, n).data;
      const std::vector<double> count = r.doubles(group + "/count", first, n).data;
      const std::vector<double> time = timed ? r.doubles(group + "/time", first, n).data : std::vector<double>();
      const std::vector<double> stopping =
          stops ? r.doubles("samples/final/stopping_event", first, n).data : std::vector<double>();
      for (std::uint64_t i = 0; i < n; ++i) {
        if (status[i] == kStatusNotRun || !(count[i] > 0)) continue;
        ++e.occurred;
        if (stops && stopping[i] == e.index) ++*e.stopped;
        if (timed && (first + i) % stride == 0 && std::isfinite(time[i])) first_times.push_back(time[i]);
      }
    }
    if (!first_times.empty()) {
      std::sort(first_times.begin(), first_times.end());
      e.first_min = first_times.front();
      e.first_median = quantile_of_sorted(first_times, 0.5);
      e.first_max = first_times.back();
    }
    info.events.push_back(e);
  }
  std::sort(info.events.begin(), info.events.end(),
            [](const ResultsInfo::Event& a, const ResultsInfo::Event& b) { return a.index < b.index; });
}

}  // namespace

ResultsInfo read_results_info(const std::string& path) {
  const ResultsReader r(path);
  require_results_file(r);
  ResultsInfo info;
  info.path = path;
  const auto text = [&](const char* name) { return r.has_attribute("", name) ? r.string_attribute("", name) : std::string("?"); };
  const auto number = [&](const char* name) { return r.has_attribute("", name) ? r.number_attribute("", name) : NAN; };
  info.scenario_name = text("scenario_name");
  info.scenario_path = text("scenario_path");
  info.created = text("created");
  info.rbmc_version = text("rbmc_version");
  info.backend = text("backend");
  info.device = text("device");
  info.precision = text("precision");
  info.design = text("design");
  info.integrator = text("integrator");
  info.n_samples = number("n_samples");
  info.n_samples_in_run = number("n_samples_in_run");
  info.seed = number("seed");
  info.duration = number("duration");
  info.n_steps = number("n_steps");
  info.mean_steps = number("mean_steps");
  info.total_steps = number("total_steps");
  info.wall_seconds = number("wall_seconds");
  info.elapsed_seconds = number("elapsed_seconds");
  info.n_redrawn = r.has_attribute("", "n_redrawn_bodies") ? number("n_redrawn_bodies") : 0;
  info.shard_index = number("shard_index");
  info.shard_count = number("shard_count");
  if (r.has_attribute("", "n_parts")) {
    info.n_parts = number("n_parts");
    info.joined_by = text("joined_by");
  }
  if (r.has_attribute("", "resumed_samples")) info.resumed_samples = number("resumed_samples");
  if (info.design == "grid" && r.has_attribute("", "scenario")) {
    // The axes from the scenario the file keeps (the values a point, not the samples': a run of
    // some samples, --only or a shard, need not hold every point); the replicates from the run,
    // which --samples may have set.
    try {
      for (const GridAxis& a : parse_scenario(r.string_attribute("", "scenario"), info.scenario_path).design.axes)
        info.grid_axes.push_back({a.info.key_path, a.values.size()});
    } catch (const std::exception&) {
      info.grid_axes.clear();  // a scenario of an older rbmc: the design line says "grid" alone
    }
    info.grid_replicates = number("replicates");
  }
  // The rows that hold results: all of a complete file, the prefix done of a partial one (its
  // rows are written in order; the later ones are not_run), read in blocks.
  const bool partial = r.has("resume");
  const std::uint64_t declared = std::uint64_t(r.number_attribute("", "n_samples"));
  const std::uint64_t prefix =
      partial ? std::min<std::uint64_t>(declared, std::uint64_t(r.number_attribute("resume", "rows_done"))) : declared;
  std::array<std::uint64_t, 256> counts{};
  const auto block = [&](std::uint64_t first) { return std::min(kBlock, prefix - first); };
  for (std::uint64_t first = 0; first < prefix; first += kBlock)
    for (std::uint8_t code : r.uint8s("samples/status", first, block(first)).data) ++counts[code];
  info.n_done = prefix - counts[kStatusNotRun];
  info.not_integrated =
      counts[std::size_t(SampleStatus::invalid_body)] + counts[std::size_t(SampleStatus::invalid_load)];
  counts[kStatusNotRun] = 0;
  for (int c = 0; c < 256; ++c)
    if (counts[std::size_t(c)] > 0)
      info.status_counts.push_back({c < kSampleStatusCount ? status_name(SampleStatus(c)) : "unknown", counts[std::size_t(c)]});
  info.complete = r.has_attribute("", "complete") && r.number_attribute("", "complete") == 1;
  if (r.has("trajectories/time")) {
    info.n_trajectories = number("n_trajectories");
    info.retained = r.has_attribute("trajectories", "retained") ? r.string_attribute("trajectories", "retained") : "?";
    info.n_output_times = double(r.doubles("trajectories/time").data.size());
    if (r.has("trajectories/position"))
      info.trajectory_compression = r.filter_count("trajectories/position") > 0 ? OutputSettings::Compression::deflate
                                                                                : OutputSettings::Compression::none;
  }
  info.statistics = r.has("statistics");
  for (const QuantityInfo& q : kStatisticsQuantities)
    if (r.has(std::string("statistics/") + q.name)) info.statistics_quantities.push_back(q.name);
  if (!info.statistics_quantities.empty() && r.has("statistics/time")) {
    info.statistics_times = r.doubles("statistics/time").data;
    info.statistics_counts = r.uint64s("statistics/" + info.statistics_quantities.front() + "/count").data;
  }
  // The final states over at most kTableRows rows: every stride-th beyond that.
  constexpr std::uint64_t kTableRows = std::uint64_t(1) << 22;
  info.stride = std::max<std::uint64_t>(1, (prefix + kTableRows - 1) / kTableRows);
  const std::uint64_t stride = info.stride;
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
        for (std::size_t c = 0; c < dim && status[i] != kStatusNotRun && !not_integrated(status[i]); ++c)
          if (std::isfinite(a[i * dim + c])) values[c].push_back(a[i * dim + c]);
    }
    for (std::size_t c = 0; c < dim; ++c) {
      std::vector<double>& v = values[c];
      std::sort(v.begin(), v.end());
      ResultsInfo::Row out;
      out.quantity = row.path.substr(std::string("samples/final/").size()) + (dim > 1 ? "." + row.components[c] : "");
      out.units = row.units;
      out.count = v.size();
      if (!v.empty()) {
        // As /statistics computes them (column_moments): the mean from the sum, so that a column
        // of one number (every sample's final time, say) has that number as its mean and a
        // standard deviation of 0, where adding x / n value by value left 2e-11 s of spread.
        const double* column = v.data();
        Moments m;
        column_moments(&column, 1, v.size(), &m);
        out.mean = m.mean;
        out.sd = std::sqrt(m.variance());
        out.min = v.front();
        out.p05 = quantile_of_sorted(v, 0.05);
        out.median = quantile_of_sorted(v, 0.5);
        out.p95 = quantile_of_sorted(v, 0.95);
        out.max = v.back();
      }
      info.final_state.push_back(out);
    }
  }
  read_events(r, prefix, stride, info);
  return info;
}

namespace {

// Where the file came from, when not from one uninterrupted run: a part of one, parts joined, a
// resumed run (the root attributes shard_index, n_parts, joined_by, resumed_samples).
void print_provenance(const ResultsInfo& info, std::FILE* out) {
  std::string made;
  if (std::isfinite(info.shard_index))
    made = "part " + std::to_string(std::uint64_t(info.shard_index)) + "/" + std::to_string(std::uint64_t(info.shard_count)) +
           " of a run (rbmc run --shard); rbmc merge joins the parts";
  if (info.n_parts > 0)
    made = "joined from " + std::to_string(std::uint64_t(info.n_parts)) + " parts by " +
           (info.joined_by == "MPI" ? std::string("an MPI run's ranks") : info.joined_by);
  if (info.resumed_samples > 0)
    made += (made.empty() ? "" : "; ") + std::to_string(std::uint64_t(info.resumed_samples)) +
            " samples finished by an interrupted run, the rest after its --resume";
  if (!made.empty()) std::fprintf(out, "  made         %s\n", made.c_str());
}

}  // namespace

void print_results_info(const ResultsInfo& info, std::FILE* out) {
  std::fprintf(out, "rbmc info: %s\n", info.path.c_str());
  std::fprintf(out, "  scenario     %s (%s), written %s by rbmc %s\n", info.scenario_name.c_str(), info.scenario_path.c_str(),
               info.created.c_str(), info.rbmc_version.c_str());
  std::fprintf(out, "  backend      %s: %s, %s precision\n", info.backend.c_str(), info.device.c_str(), info.precision.c_str());
  std::fprintf(out, "  samples      %.0f of a run of %.0f, seed %.0f, design %s\n", info.n_samples, info.n_samples_in_run,
               info.seed, info.design.c_str());
  if (!info.grid_axes.empty()) {
    std::string axes;
    for (const auto& [key_path, values] : info.grid_axes)
      axes += (axes.empty() ? "" : " x ") + key_path + " (" + std::to_string(values) + " value" +
              (values == 1 ? "" : "s") + ")";
    std::fprintf(out, "  grid         %s", axes.c_str());
    if (std::isfinite(info.grid_replicates))
      std::fprintf(out, ", %.0f replicate%s a point", info.grid_replicates, info.grid_replicates == 1 ? "" : "s");
    std::fprintf(out, "\n");
  }
  if (!info.complete)
    std::fprintf(out, "  INCOMPLETE   an interrupted run's partial file: %llu of %.0f samples done; everything below is "
                      "over those (rbmc run SCENARIO -o OUT --resume completes it)\n",
                 static_cast<unsigned long long>(info.n_done), info.n_samples);
  print_provenance(info, out);
  std::fprintf(out, "  integration  %s over %.6g s", info.integrator.c_str(), info.duration);
  if (std::isfinite(info.n_steps)) std::fprintf(out, ", %.0f steps per sample", info.n_steps);
  if (std::isfinite(info.mean_steps)) std::fprintf(out, ", %.4g steps per sample on average", info.mean_steps);
  if (std::isfinite(info.total_steps)) std::fprintf(out, ", %.0f steps in all", info.total_steps);
  if (std::isfinite(info.elapsed_seconds))
    std::fprintf(out, "; %.3g s wall (the MPI run's; its parts' %.3g s summed)", info.elapsed_seconds,
                 info.wall_seconds);
  else if (std::isfinite(info.wall_seconds))
    std::fprintf(out, "; %.3g s wall%s", info.wall_seconds, info.n_parts > 0 ? " (the parts' sum)" : "");
  std::fprintf(out, "\n  status      ");
  for (const auto& [name, count] : info.status_counts)
    std::fprintf(out, " %s %llu", name.c_str(), static_cast<unsigned long long>(count));
  std::fprintf(out, "\n");
  if (info.n_redrawn > 0) std::fprintf(out, "  redrawn      %.0f bodies (validity policy)\n", info.n_redrawn);
  if (std::isfinite(info.n_output_times))
    std::fprintf(out, "  trajectories %.0f retained (%s) at %.0f output time%s%s\n", info.n_trajectories,
                 info.retained.c_str(), info.n_output_times, info.n_output_times == 1 ? "" : "s",
                 info.trajectory_compression == OutputSettings::Compression::none ? ", stored uncompressed" : "");
  if (info.statistics) {
    std::string names;
    for (const std::string& q : info.statistics_quantities) names += (names.empty() ? "" : ", ") + q;
    std::fprintf(out, "  statistics   of %s at each output time in /statistics\n", names.c_str());
    const std::string running = running_samples_note(info.statistics_times, info.statistics_counts);
    if (!running.empty()) std::fprintf(out, "               over the samples still running: %s\n", running.c_str());
    if (info.not_integrated > 0)  // they have no state at any output time
      std::fprintf(out,
                   "               over the samples integrated: %llu of %llu (the others invalid_body or "
                   "invalid_load)\n",
                   static_cast<unsigned long long>(info.n_done - info.not_integrated),
                   static_cast<unsigned long long>(info.n_done));
  }
  for (std::size_t k = 0; k < info.events.size(); ++k) {
    const ResultsInfo::Event& e = info.events[k];
    std::fprintf(out, "  %s %s%s: in %llu of %llu samples", k == 0 ? "events      " : "            ", e.name.c_str(),
                 e.terminal ? " (terminal)" : "", static_cast<unsigned long long>(e.occurred),
                 static_cast<unsigned long long>(info.n_done));
    if (e.terminal && e.stopped) std::fprintf(out, ", stopping %llu", static_cast<unsigned long long>(*e.stopped));
    if (std::isfinite(e.first_median))
      std::fprintf(out, "; first at %.6g to %.6g s, median %.6g s%s", e.first_min, e.first_max, e.first_median,
                   info.stride > 1 ? (" (every " + std::to_string(info.stride) + "th sample)").c_str() : "");
    std::fprintf(out, "\n");
  }
  if (info.final_state.empty()) {  // [output] samples kept none of the final state's datasets
    std::fprintf(out, "  final state  not kept in this file ([output] samples)\n");
    return;
  }
  // The labels' column as wide as the longest ("angular_velocity.x (rad/s)" took the numbers'
  // columns out of line at a fixed 22).
  const auto label_of = [](const ResultsInfo::Row& row) { return row.quantity + " (" + row.units + ")"; };
  int width = 22;
  for (const ResultsInfo::Row& row : info.final_state) width = std::max(width, int(label_of(row).size()));
  std::string notes;
  if (info.stride > 1) notes += " (every " + std::to_string(info.stride) + "th sample)";
  if (info.not_integrated > 0)
    notes += " (" + std::to_string(info.not_integrated) + " sample" + (info.not_integrated == 1 ? "" : "s") +
             " not integrated, invalid_body or invalid_load, left out)";
  std::fprintf(out, "  final state  %-*s %12s %12s %12s %12s %12s %12s %12s%s\n", width, "", "mean", "sd", "min", "5 %",
               "median", "95 %", "max", notes.c_str());
  for (const ResultsInfo::Row& row : info.final_state) {
    const std::string label = label_of(row);
    if (row.count == 0) {
      std::fprintf(out, "               %-*s (no finite values)\n", width, label.c_str());
      continue;
    }
    std::fprintf(out, "               %-*s %12.6g %12.6g %12.6g %12.6g %12.6g %12.6g %12.6g\n", width, label.c_str(),
                 row.mean, row.sd, row.min, row.p05, row.median, row.p95, row.max);
  }
}

void print_results_info_json(const ResultsInfo& info, std::FILE* out) {
  JsonWriter j(out);
  j.begin_object();
  j.field("file", info.path).field("complete", info.complete);
  j.key("scenario").begin_object().field("name", info.scenario_name).field("path", info.scenario_path).end_object();
  j.field("created", info.created).field("rbmc_version", info.rbmc_version);
  j.field("backend", info.backend).field("device", info.device).field("precision", info.precision);
  j.field("n_samples", info.n_samples).field("n_samples_in_run", info.n_samples_in_run);
  j.field("n_done", static_cast<unsigned long long>(info.n_done)).field("seed", info.seed).field("design", info.design);
  if (!info.grid_axes.empty()) {
    j.key("grid").begin_object().key("axes").begin_array();
    for (const auto& [key_path, values] : info.grid_axes)
      j.begin_object().field("key_path", key_path).field("values", static_cast<unsigned long long>(values)).end_object();
    j.end_array().field("replicates", info.grid_replicates).end_object();
  }
  j.key("integration").begin_object().field("integrator", info.integrator).field("duration", info.duration);
  j.field("n_steps", info.n_steps).field("mean_steps", info.mean_steps).field("total_steps", info.total_steps);
  j.field("wall_seconds", info.wall_seconds).field("elapsed_seconds", info.elapsed_seconds).end_object();
  j.key("status").begin_object();
  for (const auto& [name, count] : info.status_counts) j.field(name, static_cast<unsigned long long>(count));
  j.end_object();
  j.field("n_redrawn_bodies", info.n_redrawn);
  j.key("made").begin_object().field("shard_index", info.shard_index).field("shard_count", info.shard_count);
  j.field("n_parts", info.n_parts).field("joined_by", info.joined_by).field("resumed_samples", info.resumed_samples).end_object();
  j.key("trajectories").begin_object().field("n_retained", info.n_trajectories).field("retained", info.retained);
  const std::string compression = info.trajectory_compression ? compression_name(*info.trajectory_compression) : "";
  j.field("n_output_times", info.n_output_times).field("compression", compression).end_object();
  j.field("statistics", info.statistics).field("table_stride", static_cast<unsigned long long>(info.stride));
  j.key("statistics_quantities").begin_array();
  for (const std::string& q : info.statistics_quantities) j.value(q);
  j.end_array();
  j.field("statistics_running", running_samples_note(info.statistics_times, info.statistics_counts));
  j.key("events").begin_array();
  for (const ResultsInfo::Event& e : info.events) {
    j.begin_object().field("name", e.name).field("index", double(e.index)).field("terminal", e.terminal);
    j.field("occurred", static_cast<unsigned long long>(e.occurred));
    if (e.stopped) j.field("stopped", static_cast<unsigned long long>(*e.stopped));
    j.field("first_min", e.first_min).field("first_median", e.first_median).field("first_max", e.first_max);
    j.end_object();
  }
  j.end_array();
  j.field("final_state_not_integrated", static_cast<unsigned long long>(info.not_integrated));
  j.key("final_state").begin_array();
  for (const ResultsInfo::Row& row : info.final_state) {
    j.begin_object().field("quantity", row.quantity).field("units", row.units);
    j.field("count", static_cast<unsigned long long>(row.count)).field("mean", row.mean).field("sd", row.sd);
    j.field("min", row.min).field("p05", row.p05).field("median", row.median).field("p95", row.p95).field("max", row.max);
    j.end_object();
  }
  j.end_array().end_object();
  j.finish();
}

namespace {

// A time as %g prints it: "1.3", "0.05", "1e+03".
std::string format_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

std::string running_samples_note(const std::vector<double>& times, const std::vector<std::uint64_t>& counts) {
  const std::size_t n = std::min(times.size(), counts.size());
  const auto as_first = [&](std::uint64_t c) { return c == counts[0]; };
  if (n == 0 || std::all_of(counts.begin(), counts.begin() + std::ptrdiff_t(n), as_first)) return "";
  const auto at = [&](std::size_t k) { return std::to_string(counts[k]) + " at " + format_number(times[k]) + " s"; };
  std::size_t same = 0;  // the last of the first times that hold as many as the first
  while (same + 1 < n && counts[same + 1] == counts[0]) ++same;
  std::string note =
      same > 0 ? "all " + std::to_string(counts[0]) + " up to " + format_number(times[same]) + " s" : at(0);
  // The last time any sample runs: there is one, as the counts differ (so one is above 0).
  std::size_t last = n - 1;
  while (counts[last] == 0) --last;
  if (last > same) note += ", " + at(last);
  if (last + 1 < n) note += ", none after " + format_number(times[last]) + " s";
  return note;
}

void print_results_info(const std::string& path, std::FILE* out) { print_results_info(read_results_info(path), out); }

}  // namespace rbmc

#include "host/run/merge_shards.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include "host/errors.hpp"
#include "host/io/output_lock.hpp"
#include "host/io/results_reader.hpp"
#include "host/io/results_writer.hpp"
#include "host/scenario/output_schema.hpp"
#include "host/stats/run_statistics.hpp"
#include "host/util/parallel_for.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

namespace {

struct Shard {
  std::string path;
  std::unique_ptr<ResultsReader> reader;
  std::uint64_t index = 0, count = 0, first = 0, rows = 0;
};

// Every part's root attribute that must agree, and what to call it when it does not.
constexpr const char* kSameAttributes[][2] = {{"scenario", "scenario"}, {"precision", "precision"},
                                              {"backend", "backend"}, {"rbmc_version", "rbmc version"}};
constexpr const char* kSameNumbers[][2] = {
    {"seed", "seed"}, {"n_samples_in_run", "sample count"}, {"shard_count", "number of parts"}};

std::vector<Shard> open_and_check(const std::vector<std::string>& paths) {
  if (paths.empty()) throw UsageError("merge: give the shard files");
  std::vector<Shard> shards;
  for (const std::string& p : paths) {
    if (!std::filesystem::exists(p)) throw UsageError("merge: " + p + " does not exist");
    Shard s;
    s.path = p;
    s.reader = std::make_unique<ResultsReader>(p);
    const ResultsReader& r = *s.reader;
    if (!r.has_attribute("", "shard_count"))
      throw UsageError("merge: " + p + " is not a shard (rbmc run --shard i/n writes one)");
    if (!r.has_attribute("", "complete") || r.number_attribute("", "complete") != 1)
      throw UsageError("merge: " + p + " is incomplete (an interrupted part: complete it with rbmc run --resume)");
    s.index = std::uint64_t(r.number_attribute("", "shard_index"));
    s.count = std::uint64_t(r.number_attribute("", "shard_count"));
    s.first = std::uint64_t(r.number_attribute("", "first_sample"));
    s.rows = std::uint64_t(r.number_attribute("", "n_samples"));
    shards.push_back(std::move(s));
  }
  const ResultsReader& a = *shards.front().reader;
  for (const Shard& s : shards) {
    for (const auto& [attribute, what] : kSameAttributes)
      if (s.reader->string_attribute("", attribute) != a.string_attribute("", attribute))
        throw UsageError("merge: " + s.path + " belongs to another run than " + shards.front().path + ": another " +
                         what);
    for (const auto& [attribute, what] : kSameNumbers)
      if (s.reader->number_attribute("", attribute) != a.number_attribute("", attribute))
        throw UsageError("merge: " + s.path + " belongs to another run than " + shards.front().path + ": another " +
                         what);
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& x, const Shard& y) { return x.index < y.index; });
  const std::uint64_t n = shards.front().count;
  for (std::size_t i = 1; i < shards.size(); ++i)
    if (shards[i].index == shards[i - 1].index)
      throw UsageError("merge: part " + std::to_string(shards[i].index) + "/" + std::to_string(n) + " is given twice (" +
                       shards[i - 1].path + " and " + shards[i].path + ")");
  std::uint64_t expected = 0, next_first = 0;
  for (const Shard& s : shards) {
    if (s.index != expected)
      throw UsageError("merge: part " + std::to_string(expected) + "/" + std::to_string(n) +
                       " is missing (rbmc run --shard " + std::to_string(expected) + "/" + std::to_string(n) + ")");
    if (s.first != next_first) throw UsageError("merge: " + s.path + " does not start where the part before it ends");
    next_first = s.first + s.rows;
    ++expected;
  }
  if (expected != n)
    throw UsageError("merge: part " + std::to_string(expected) + "/" + std::to_string(n) + " is missing (rbmc run --shard " +
                     std::to_string(expected) + "/" + std::to_string(n) + ")");
  if (next_first != std::uint64_t(a.number_attribute("", "n_samples_in_run")))
    throw UsageError("merge: the parts do not cover the run's samples");
  return shards;
}

// The run's scenario as the parts ran it: the file's text with the seed and sample count used.
Scenario scenario_of(const ResultsReader& r) {
  Scenario s = parse_scenario(r.string_attribute("", "scenario"), r.string_attribute("", "scenario_path"));
  s.run.seed = std::uint64_t(r.number_attribute("", "seed"));
  s.run.n_samples = std::uint64_t(r.number_attribute("", "n_samples_in_run"));
  if (s.design.kind == Design::Kind::grid) s.design.replicates = s.run.n_samples / s.design.n_points();
  return s;
}

// Sums a part's totals (root attributes and /timings) into the run's.
void add_totals(const ResultsReader& r, RunTotals& t) {
  for (int c = 0; c < kSampleStatusCount; ++c)
    t.status_counts[std::size_t(c)] +=
        std::uint64_t(r.number_attribute("", std::string("n_status_") + status_name(static_cast<SampleStatus>(c))));
  t.steps += std::uint64_t(r.number_attribute("", "total_steps"));
  t.rejected_steps += std::uint64_t(r.number_attribute("", "total_rejected_steps"));
  t.n_redrawn += std::uint64_t(r.number_attribute("", "n_redrawn_bodies"));
  t.wall_seconds += r.number_attribute("", "wall_seconds");
  if (r.has("timings"))
    for (int i = 0; i < int(Stage::count); ++i)
      t.stage_seconds[Stage(i)] += r.number_attribute("timings", stage_name(Stage(i)));
}

}  // namespace

MergeSummary merge_shards(const std::vector<std::string>& paths, const std::string& output, bool overwrite,
                          unsigned threads) {
  std::vector<Shard> shards = open_and_check(paths);
  const ResultsReader& first = *shards.front().reader;
  const Scenario scenario = scenario_of(first);
  namespace fs = std::filesystem;
  if (fs::is_directory(output)) throw UsageError("-o " + output + " is a directory; name the merged file");
  for (const Shard& s : shards)
    if (fs::exists(output) && fs::equivalent(output, s.path)) throw UsageError("merge: -o " + output + " is one of the parts");
  const OutputLock lock(output);

  ResultsMetadata meta;
  meta.backend = first.string_attribute("", "backend");
  meta.device = first.string_attribute("", "device");
  for (const Shard& s : shards)
    if (s.reader->string_attribute("", "device") != meta.device) meta.device = "several: the parts ran on different devices";
  meta.precision = first.string_attribute("", "precision");
  meta.scenario = &scenario;
  meta.n_samples = scenario.run.n_samples;
  meta.threads = threads;
  ResultsWriter writer(output, overwrite, meta);

  RunStatistics statistics(scenario, scenario.run.n_samples, threads);
  RunTotals totals;
  const std::vector<SampleDataset> schema = sample_datasets(scenario);
  const int n_model = scenario.model_parameters.n, n_events = scenario.events.n;
  int n_params = 0;
  for (const Dispersion& d : scenario.dispersions) n_params += d.info.dim;
  const std::size_t n_times = std::size_t(scenario.output_times.n);
  const bool trajectories = n_times > 0 && scenario.output.trajectories.kind != TrajectoryRetention::Kind::none;
  const std::uint64_t limit = scenario.output.trajectories.limit;
  std::uint64_t kept_so_far = 0;
  StageTimings ignored;
  constexpr std::uint64_t kBlock = 65536;
  for (const Shard& shard : shards) {
    const ResultsReader& r = *shard.reader;
    if (statistics.enabled()) {
      if (!r.has("shard_state")) throw UsageError("merge: " + shard.path + " holds no statistics state");
      statistics.absorb(read_statistics_state(r, "shard_state"));
    }
    add_totals(r, totals);
    // The part's kept trajectories, by global sample index.
    std::vector<std::uint64_t> kept_index;
    if (trajectories && r.has("trajectories/sample_index")) kept_index = r.uint64s("trajectories/sample_index").data;
    std::size_t next_kept = 0;
    for (std::uint64_t at = 0; at < shard.rows; at += kBlock) {
      const std::size_t n = std::size_t(std::min(kBlock, shard.rows - at));
      // The block's columns, as a backend's batch holds them (the inverse of the writer's schema).
      std::vector<double> inputs(n * std::size_t(input_column_count(n_model))), outputs(n * std::size_t(output_column_count(n_events))),
          params(n * std::size_t(n_params));
      std::vector<std::uint8_t> status;
      std::vector<std::uint64_t> index;
      for (const SampleDataset& d : schema) {
        const std::size_t dim = d.row_size();
        const auto to_columns = [&](double* columns, std::size_t count) {
          const std::vector<double> rows = r.doubles(d.path, at, n).data;
          for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < count; ++c) columns[(std::size_t(d.column) + c) * n + i] = rows[i * dim + c];
        };
        switch (d.source) {
          case SampleSource::index: index = r.uint64s(d.path, at, n).data; break;
          case SampleSource::status: status = r.uint8s(d.path, at, n).data; break;
          case SampleSource::params: to_columns(params.data(), dim); break;
          case SampleSource::inputs: to_columns(inputs.data(), dim); break;
          case SampleSource::outputs: to_columns(outputs.data(), dim); break;
          case SampleSource::inertia: {
            // A full symmetric 3×3 back to the six stored components (xx, yy, zz, xy, xz, yz).
            static constexpr int kOfSix[6] = {0, 4, 8, 1, 2, 5};
            const std::vector<double> rows = r.doubles(d.path, at, n).data;
            for (std::size_t i = 0; i < n; ++i)
              for (int k = 0; k < 6; ++k) inputs[std::size_t(d.column + k) * n + i] = rows[i * 9 + std::size_t(kOfSix[k])];
            break;
          }
          case SampleSource::grid_index:
          case SampleSource::grid_value: break;  // the writer recomputes them from the index
        }
      }
      // The block's kept trajectories: rows of this block, in order, up to the run's limit.
      std::vector<std::uint32_t> kept;
      std::vector<double> states;
      const std::size_t kept_first = next_kept;
      while (next_kept < kept_index.size() && kept_index[next_kept] < shard.first + at + n) ++next_kept;
      std::size_t take = next_kept - kept_first;
      if (limit > 0) take = std::size_t(std::min<std::uint64_t>(take, limit > kept_so_far ? limit - kept_so_far : 0));
      if (take > 0) {
        states.assign(take * n_times * kTrajectoryColumns, 0.0);
        for (const TrajectoryPart& part : trajectory_parts()) {
          const std::vector<double> v = r.doubles(std::string("trajectories/") + part.name, kept_first, take).data;
          for (std::size_t k = 0; k < take * n_times; ++k)
            for (int c = 0; c < part.dim; ++c)
              states[k * kTrajectoryColumns + std::size_t(part.first + c)] = v[k * std::size_t(part.dim) + std::size_t(c)];
        }
        for (std::size_t k = 0; k < take; ++k) kept.push_back(std::uint32_t(kept_index[kept_first + k] - shard.first - at));
        kept_so_far += take;
      }
      const bool any = !kept.empty();
      writer.write_batch({shard.first + at, n, inputs.data(), outputs.data(), status.data(), params.data(),
                          any ? &kept : nullptr, any ? &states : nullptr, index.data()},
                         ignored);
    }
  }
  writer.write_statistics(statistics);
  writer.finish(totals);
  return {scenario.run.n_samples, shards.size(), output};
}

}  // namespace rbmc

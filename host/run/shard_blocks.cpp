#include "host/run/shard_blocks.hpp"

#include <algorithm>
#include <filesystem>

#include "host/errors.hpp"
#include "host/scenario/output_schema.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

namespace {

// Every part's root attribute that must agree, and what to call it when it does not.
constexpr const char* kSameAttributes[][2] = {{"scenario", "scenario"}, {"precision", "precision"},
                                              {"backend", "backend"}, {"rbmc_version", "rbmc version"}};
constexpr const char* kSameNumbers[][2] = {
    {"seed", "seed"}, {"n_samples_in_run", "sample count"}, {"shard_count", "number of parts"}};

std::string part_text(std::uint64_t index, std::uint64_t count) {
  return std::to_string(index) + "/" + std::to_string(count);
}

}  // namespace

ShardFile open_shard(const std::string& p, unsigned threads) {
  if (!std::filesystem::exists(p)) throw UsageError("merge: " + p + " does not exist");
  ShardFile s;
  s.path = p;
  s.reader = std::make_unique<ResultsReader>(p, threads);
  const ResultsReader& r = *s.reader;
  if (!r.has_attribute("", "shard_count")) {
    // A merged file is the commonest file given by mistake (a second merge over the first's output).
    if (r.has_attribute("", "n_parts"))
      throw UsageError("merge: " + p + " is a merged file (joined from " +
                       std::to_string(std::uint64_t(r.number_attribute("", "n_parts"))) +
                       " parts), not a part: merging merged files is not supported; merge the parts themselves");
    throw UsageError("merge: " + p + " is not a shard (rbmc run --shard i/n writes one)");
  }
  if (!r.has_attribute("", "complete") || r.number_attribute("", "complete") != 1)
    throw UsageError("merge: " + p + " is incomplete (an interrupted part: complete it with rbmc run --resume)");
  s.index = std::uint64_t(r.number_attribute("", "shard_index"));
  s.count = std::uint64_t(r.number_attribute("", "shard_count"));
  s.first = std::uint64_t(r.number_attribute("", "first_sample"));
  s.rows = std::uint64_t(r.number_attribute("", "n_samples"));
  if (r.has_attribute("", "n_trajectories")) s.n_trajectories = std::uint64_t(r.number_attribute("", "n_trajectories"));
  return s;
}

std::vector<ShardFile> open_shards(const std::vector<std::string>& paths, unsigned threads) {
  if (paths.empty()) throw UsageError("merge: give the shard files");
  std::vector<ShardFile> shards;
  for (const std::string& p : paths) shards.push_back(open_shard(p, threads));
  const ResultsReader& a = *shards.front().reader;
  for (const ShardFile& s : shards) {
    for (const auto& [attribute, what] : kSameAttributes)
      if (s.reader->string_attribute("", attribute) != a.string_attribute("", attribute))
        throw UsageError("merge: " + s.path + " belongs to another run than " + shards.front().path + ": another " +
                         what);
    if (s.reader->draw_revision() != a.draw_revision())
      throw UsageError("merge: " + s.path + " belongs to another run than " + shards.front().path +
                       ": drawn by an rbmc build whose draws differ (draw revision " +
                       std::to_string(s.reader->draw_revision()) + " against " + std::to_string(a.draw_revision()) + ")");
    for (const auto& [attribute, what] : kSameNumbers)
      if (s.reader->number_attribute("", attribute) != a.number_attribute("", attribute))
        throw UsageError("merge: " + s.path + " belongs to another run than " + shards.front().path + ": another " +
                         what);
  }
  std::sort(shards.begin(), shards.end(), [](const ShardFile& x, const ShardFile& y) { return x.index < y.index; });
  const std::uint64_t n = shards.front().count;
  for (std::size_t i = 1; i < shards.size(); ++i)
    if (shards[i].index == shards[i - 1].index)
      throw UsageError("merge: part " + part_text(shards[i].index, n) + " is given twice (" + shards[i - 1].path + " and " +
                       shards[i].path + ")");
  std::uint64_t expected = 0, next_first = 0;
  for (const ShardFile& s : shards) {
    if (s.index != expected)
      throw UsageError("merge: part " + part_text(expected, n) + " is missing (rbmc run --shard " + part_text(expected, n) + ")");
    if (s.first != next_first) throw UsageError("merge: " + s.path + " does not start where the part before it ends");
    next_first = s.first + s.rows;
    ++expected;
  }
  if (expected != n)
    throw UsageError("merge: part " + part_text(expected, n) + " is missing (rbmc run --shard " + part_text(expected, n) + ")");
  if (next_first != std::uint64_t(a.number_attribute("", "n_samples_in_run")))
    throw UsageError("merge: the parts do not cover the run's samples");
  return shards;
}

Scenario scenario_of_shards(const ResultsReader& r) {
  Scenario s = parse_scenario(r.string_attribute("", "scenario"), r.string_attribute("", "scenario_path"));
  s.run.seed = std::uint64_t(r.number_attribute("", "seed"));
  s.run.n_samples = std::uint64_t(r.number_attribute("", "n_samples_in_run"));
  if (s.design.kind == Design::Kind::grid) s.design.replicates = s.run.n_samples / s.design.n_points();
  return s;
}

void add_shard_totals(const ResultsReader& r, RunTotals& t) {
  for (int c = 0; c < kSampleStatusCount; ++c)
    t.status_counts[std::size_t(c)] +=
        std::uint64_t(r.number_attribute("", std::string("n_status_") + status_name(static_cast<SampleStatus>(c))));
  t.steps += std::uint64_t(r.number_attribute("", "total_steps"));
  t.rejected_steps += std::uint64_t(r.number_attribute("", "total_rejected_steps"));
  t.n_redrawn += std::uint64_t(r.number_attribute("", "n_redrawn_bodies"));
  t.wall_seconds += r.number_attribute("", "wall_seconds");
  if (r.has_attribute("", "resumed_samples")) t.resumed_samples += std::uint64_t(r.number_attribute("", "resumed_samples"));
  if (r.has("timings")) {
    for (int i = 0; i < int(Stage::count); ++i)  // a part written before a stage was timed has none of it
      if (r.has_attribute("timings", stage_name(Stage(i))))
        t.stage_seconds[Stage(i)] += r.number_attribute("timings", stage_name(Stage(i)));
    // The parts' processes' walls, summed as their stages are.
    if (r.has_attribute("timings", "wall")) t.process_wall_seconds += r.number_attribute("timings", "wall");
  }
}

std::string device_of_shards(const std::vector<ShardFile>& shards) {
  const std::string device = shards.front().reader->string_attribute("", "device");
  for (const ShardFile& s : shards)
    if (s.reader->string_attribute("", "device") != device) return "several: the parts ran on different devices";
  return device;
}

ShardBlockReader::ShardBlockReader(const Scenario& scenario, const ShardFile& shard, std::uint64_t kept_before)
    : scenario_(scenario), shard_(shard), kept_before_(kept_before) {
  for (const Dispersion& d : scenario.dispersions) n_params_ += d.info.dim;
  const bool trajectories =
      scenario.output_times.n > 0 && scenario.output.trajectories.kind != TrajectoryRetention::Kind::none;
  if (trajectories && shard.reader->has("trajectories/sample_index"))
    kept_index_ = shard.reader->uint64s("trajectories/sample_index").data;
}

BatchView ShardBlockReader::read(std::uint64_t at, std::size_t n) {
  const ResultsReader& r = *shard_.reader;
  const int n_model = scenario_.model_parameters.n, n_events = scenario_.events.n;
  inputs_.assign(n * std::size_t(input_column_count(n_model)), 0.0);
  outputs_.assign(n * std::size_t(output_column_count(n_events)), 0.0);
  params_.assign(n * std::size_t(n_params_), 0.0);
  status_.clear();
  index_.clear();
  // The block's columns, as a backend's batch holds them (the inverse of the writer's schema).
  for (const SampleDataset& d : sample_datasets(scenario_)) {
    const std::size_t dim = d.row_size();
    const auto to_columns = [&](double* columns, std::size_t count) {
      const std::vector<double> rows = r.doubles(d.path, at, n).data;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < count; ++c) columns[(std::size_t(d.column) + c) * n + i] = rows[i * dim + c];
    };
    switch (d.source) {
      case SampleSource::index: index_ = r.uint64s(d.path, at, n).data; break;
      case SampleSource::status: status_ = r.uint8s(d.path, at, n).data; break;
      case SampleSource::params: to_columns(params_.data(), dim); break;
      case SampleSource::inputs: to_columns(inputs_.data(), dim); break;
      case SampleSource::outputs: to_columns(outputs_.data(), dim); break;
      case SampleSource::inertia: {
        // A full symmetric 3×3 back to the six stored components (xx, yy, zz, xy, xz, yz).
        static constexpr int kOfSix[6] = {0, 4, 8, 1, 2, 5};
        const std::vector<double> rows = r.doubles(d.path, at, n).data;
        for (std::size_t i = 0; i < n; ++i)
          for (int k = 0; k < 6; ++k) inputs_[std::size_t(d.column + k) * n + i] = rows[i * 9 + std::size_t(kOfSix[k])];
        break;
      }
      case SampleSource::grid_index:
      case SampleSource::grid_value: break;  // the writer recomputes them from the index
    }
  }
  // The block's kept trajectories: rows of this block, in order, up to the run's retention limit.
  const std::uint64_t limit = scenario_.output.trajectories.limit;
  const std::size_t n_times = std::size_t(scenario_.output_times.n), kept_first = next_kept_;
  while (next_kept_ < kept_index_.size() && kept_index_[next_kept_] < shard_.first + at + n) ++next_kept_;
  const std::uint64_t position = kept_before_ + kept_first;  // the first one's row in the run's file
  std::size_t take = next_kept_ - kept_first;
  if (limit > 0) take = std::size_t(std::min<std::uint64_t>(take, limit > position ? limit - position : 0));
  kept_.clear();
  states_.clear();
  if (take > 0) {
    states_.assign(take * n_times * kTrajectoryColumns, 0.0);
    for (const TrajectoryPart& part : trajectory_parts()) {
      const std::vector<double> v = r.doubles(std::string("trajectories/") + part.name, kept_first, take).data;
      for (std::size_t k = 0; k < take * n_times; ++k)
        for (int c = 0; c < part.dim; ++c)
          states_[k * kTrajectoryColumns + std::size_t(part.first + c)] = v[k * std::size_t(part.dim) + std::size_t(c)];
    }
    for (std::size_t k = 0; k < take; ++k) kept_.push_back(std::uint32_t(kept_index_[kept_first + k] - shard_.first - at));
  }
  BatchView view{shard_.first + at, n, inputs_.data(), outputs_.data(), status_.data(), params_.data(),
                 &kept_, &states_, index_.data()};
  view.trajectory_row = position;
  return view;
}

}  // namespace rbmc

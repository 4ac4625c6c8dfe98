#include "host/run/merge_shards.hpp"

#include <algorithm>
#include <filesystem>

#include "host/errors.hpp"
#include "host/io/output_lock.hpp"
#include "host/io/results_reader.hpp"
#include "host/io/results_writer.hpp"
#include "host/run/run_driver.hpp"  // interrupt_requested, Interrupted
#include "host/run/shard_blocks.hpp"
#include "host/stats/run_statistics.hpp"

namespace rbmc {

namespace {

// A part of a run is finished work: the merge never writes over one, --overwrite or not. The
// commonest way to ask it to is `rbmc merge part-*.h5`, whose first part is taken for the output.
void check_output_is_not_a_part(const std::string& output) {
  std::error_code e;
  if (!std::filesystem::is_regular_file(output, e)) return;
  std::uint64_t index = 0, count = 0;
  try {
    const ResultsReader r(output);
    if (!r.has_attribute("", "shard_count")) return;
    index = std::uint64_t(r.number_attribute("", "shard_index"));
    count = std::uint64_t(r.number_attribute("", "shard_count"));
  } catch (const std::exception&) {
    return;  // not a results file: --overwrite decides, as for any other file
  }
  throw UsageError("merge: " + output + ", the merged file to write, is part " + std::to_string(index) + "/" +
                   std::to_string(count) +
                   " of a run, which the merge never replaces: name the merged file first or with -o "
                   "(rbmc merge -o OUT.h5 PARTS...)");
}

}  // namespace

MergeSummary merge_shards(const std::vector<std::string>& paths, const std::string& output, bool overwrite,
                          unsigned threads) {
  namespace fs = std::filesystem;
  if (fs::is_directory(output)) throw UsageError("-o " + output + " is a directory; name the merged file");
  check_output_is_not_special(output);
  check_output_is_not_a_part(output);
  const std::vector<ShardFile> shards = open_shards(paths, threads);
  const ResultsReader& first = *shards.front().reader;
  const Scenario scenario = scenario_of_shards(first);
  const OutputLock lock(output);

  ResultsMetadata meta;
  meta.backend = first.string_attribute("", "backend");
  meta.device = device_of_shards(shards);
  meta.precision = first.string_attribute("", "precision");
  meta.draw_revision = first.draw_revision();
  meta.scenario = &scenario;
  meta.n_samples = scenario.run.n_samples;
  meta.threads = threads;
  ResultsWriter writer(output, overwrite, meta);

  RunStatistics statistics(scenario, scenario.run.n_samples, threads);
  RunTotals totals;
  std::uint64_t kept_before = 0;
  StageTimings ignored;
  for (const ShardFile& shard : shards) {
    const ResultsReader& r = *shard.reader;
    if (statistics.enabled()) {
      if (!r.has("shard_state")) throw UsageError("merge: " + shard.path + " holds no statistics state");
      std::vector<std::vector<double>> exact_values;  // a part's exact values by column, appended
      statistics.absorb(read_statistics_state(r, "shard_state", &exact_values), &exact_values);
    }
    add_shard_totals(r, totals);
    ShardBlockReader blocks(scenario, shard, kept_before);
    for (std::uint64_t at = 0; at < shard.rows; at += kShardBlockRows) {
      // SIGINT or SIGTERM: the writer's temporary file goes with it; the parts are only read.
      if (interrupt_requested()) throw Interrupted("merge: interrupted; nothing is written, and the parts are as they were");
      writer.write_batch(blocks.read(at, std::size_t(std::min(kShardBlockRows, shard.rows - at))), ignored);
    }
    kept_before += shard.n_trajectories;
  }
  const QuantileAccuracy quantiles = writer.write_statistics(statistics);
  totals.n_parts = shards.size();
  totals.joined_by = "rbmc merge";
  writer.finish(totals);
  return {scenario.run.n_samples, shards.size(), output, quantiles};
}

}  // namespace rbmc

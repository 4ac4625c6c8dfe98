#include "host/mpi/write_collectively.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include "host/errors.hpp"
#include "host/io/h5_handle.hpp"
#include "host/io/output_lock.hpp"
#include "host/run/shard_blocks.hpp"
#include "host/stats/run_statistics.hpp"

namespace rbmc {

namespace {

// Rank 0's string on every rank.
std::string broadcast(MPI_Comm comm, std::string text) {
  unsigned long long size = text.size();
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  text.resize(std::size_t(size));
  MPI_Bcast(text.data(), int(size), MPI_CHAR, 0, comm);
  return text;
}

// A killed run's temporary files (OUT.partial-mpi-<pid>): with OUT's lock held, no process is
// writing them.
void remove_stale_temporaries(const std::string& output) {
  namespace fs = std::filesystem;
  const fs::path out(output);
  const fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  const std::string prefix = out.filename().string() + ".partial-mpi-";
  std::error_code e;
  for (const auto& entry : fs::directory_iterator(dir, e))
    if (entry.path().filename().string().compare(0, prefix.size(), prefix) == 0) fs::remove(entry.path(), e);
}

}  // namespace

CollectiveOutcome write_collectively(MPI_Comm comm, const std::vector<std::string>& part_paths,
                                     const std::vector<std::uint64_t>& mine, const std::string& output, bool overwrite,
                                     unsigned threads, std::chrono::steady_clock::time_point started) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  h5::initialize();
  const std::size_t n_parts = part_paths.size();
  // Rank 0 checks that the parts belong together and holds the output's lock; what every rank
  // must agree on (the device, the time, each part's kept trajectories) comes from it.
  std::vector<ShardFile> all;
  std::optional<OutputLock> lock;
  std::string device, created, temporary;
  std::vector<unsigned long long> kept(n_parts, 0);
  if (rank == 0) {
    all = open_shards(part_paths);
    lock.emplace(output);
    remove_stale_temporaries(output);
    device = device_of_shards(all);
    created = iso8601_utc_now();
    temporary = output + ".partial-mpi-" + std::to_string(::getpid());
    for (std::size_t i = 0; i < n_parts; ++i) kept[i] = all[i].n_trajectories;
  }
  device = broadcast(comm, device);
  created = broadcast(comm, created);
  temporary = broadcast(comm, temporary);
  MPI_Bcast(kept.data(), int(n_parts), MPI_UNSIGNED_LONG_LONG, 0, comm);

  // The run's scenario as the parts ran it, and this rank's parts.
  const ShardFile first = open_shard(part_paths.front());
  const Scenario scenario = scenario_of_shards(*first.reader);
  std::vector<ShardFile> own;
  for (const std::uint64_t i : mine) own.push_back(open_shard(part_paths[std::size_t(i)], threads));
  std::vector<std::uint64_t> kept_before(n_parts + 1, 0);  // prefix sums: each part's first kept row
  for (std::size_t i = 0; i < n_parts; ++i) kept_before[i + 1] = kept_before[i] + kept[i];
  const std::uint64_t limit = scenario.output.trajectories.limit;

  h5::Handle file_access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate");
  h5::check_status(H5Pset_fapl_mpio(file_access.get(), comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
  // Metadata read and written collectively: one rank reads it and shares it, instead of all.
  h5::check_status(H5Pset_all_coll_metadata_ops(file_access.get(), true), "H5Pset_all_coll_metadata_ops");
  h5::check_status(H5Pset_coll_metadata_write(file_access.get(), true), "H5Pset_coll_metadata_write");
  h5::Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "H5Pcreate");
  h5::check_status(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  CollectiveWrite collective;
  collective.file_access = file_access.get();
  collective.transfer = transfer.get();
  collective.temporary_path = temporary;
  collective.created = created;
  collective.n_trajectories = limit > 0 ? std::min<std::uint64_t>(kept_before.back(), limit) : kept_before.back();

  ResultsMetadata meta;
  meta.backend = first.reader->string_attribute("", "backend");
  meta.device = device;
  meta.precision = first.reader->string_attribute("", "precision");
  meta.scenario = &scenario;
  meta.n_samples = scenario.run.n_samples;
  meta.threads = threads;
  meta.collective = &collective;
  try {
    const h5::CollectiveSection section;
    ResultsWriter writer(output, overwrite, meta);
    // Every rank writes as many batches as the rank with the most: an empty one when it is done.
    unsigned long long my_blocks = 0, rounds = 0;
    for (const ShardFile& s : own) my_blocks += (s.rows + kShardBlockRows - 1) / kShardBlockRows;
    MPI_Allreduce(&my_blocks, &rounds, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    StageTimings ignored;
    std::size_t part = 0;
    std::uint64_t at = 0;
    std::unique_ptr<ShardBlockReader> blocks;
    for (unsigned long long round = 0; round < rounds; ++round) {
      while (part < own.size() && at >= own[part].rows) {
        ++part;
        at = 0;
        blocks.reset();
      }
      if (part == own.size()) {
        writer.write_batch(BatchView{}, ignored);
        continue;
      }
      if (!blocks) blocks = std::make_unique<ShardBlockReader>(scenario, own[part], kept_before[std::size_t(mine[part])]);
      const std::size_t n = std::size_t(std::min(kShardBlockRows, own[part].rows - at));
      writer.write_batch(blocks->read(at, n), ignored);
      at += n;
    }
    writer.close_collectively();
  } catch (...) {
    // This rank's error: the caller ends every rank; no file that could pass for complete stays.
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }

  // Rank 0: the statistics merged from every part's state, the totals, and the file in place.
  CollectiveOutcome outcome;
  outcome.n_samples = scenario.run.n_samples;
  if (rank == 0) {
    RunStatistics statistics(scenario, scenario.run.n_samples, threads);
    for (const ShardFile& s : all) {
      if (statistics.enabled()) {
        if (!s.reader->has("shard_state")) throw UsageError("merge: " + s.path + " holds no statistics state");
        std::vector<std::vector<double>> exact_values;  // a part's exact values by column, appended
        statistics.absorb(read_statistics_state(*s.reader, "shard_state", &exact_values), &exact_values);
      }
      add_shard_totals(*s.reader, outcome.totals);
    }
    ResultsWriter writer(output, meta, ResultsWriter::Reopen{});
    outcome.quantiles = writer.write_statistics(statistics);
    outcome.totals.n_parts = n_parts;
    outcome.totals.joined_by = "MPI";
    outcome.totals.elapsed_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    writer.finish(outcome.totals);
  }
  return outcome;
}

}  // namespace rbmc

#include "host/mpi/mpi_run.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/io/run_journal.hpp"
#include "host/mpi/write_collectively.hpp"
#include "host/run/disk_space.hpp"

namespace rbmc {

bool launched_under_mpi() {
  // Open MPI, MPICH/Hydra and Slurm's PMI each say so in the environment.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

std::string mpi_part_path(const std::string& output, std::uint64_t index, std::uint64_t count) {
  return output + ".part-" + std::to_string(index) + "-of-" + std::to_string(count);
}

namespace {

// The number of parts of an interrupted MPI run of this output (from its part files, finished,
// partial or journalled), or 0 when there is none.
std::uint64_t parts_left_by(const std::string& output) {
  namespace fs = std::filesystem;
  const fs::path out(output);
  const fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  const std::string prefix = out.filename().string() + ".part-";
  std::set<std::uint64_t> counts;
  std::error_code e;
  for (const auto& entry : fs::directory_iterator(dir, e)) {
    const std::string f = entry.path().filename().string();
    if (f.compare(0, prefix.size(), prefix) != 0) continue;
    const std::size_t of = f.find("-of-", prefix.size());
    if (of == std::string::npos) continue;
    counts.insert(std::strtoull(f.c_str() + of + 4, nullptr, 10));
  }
  if (counts.size() > 1) throw UsageError("--resume: parts of runs with different rank counts lie beside " + output);
  return counts.empty() ? 0 : *counts.begin();
}

int exit_code_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Interrupted&) {
    return 130;
  } catch (const ScenarioError&) {
    return 2;
  } catch (const UsageError&) {
    return 2;
  } catch (const NotBuiltWithCuda&) {
    return 3;
  } catch (const CudaError&) {
    return 4;
  } catch (const Hdf5Error&) {
    return 5;
  } catch (...) {
    return 1;
  }
}

std::string message_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown error";
  }
}

// A rank's error ends every rank: the others would otherwise integrate on for nothing, or wait
// for it forever.
[[noreturn]] void abort_all(int rank, int size, const std::exception_ptr& e) {
  std::fprintf(stderr, "rbmc: error (rank %d of %d): %s\n", rank, size, message_of(e).c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_code_of(e));
  std::abort();
}

}  // namespace

MpiRunOutcome run_under_mpi(Scenario scenario, RunOptions options) {
  const auto start = std::chrono::steady_clock::now();
  MPI_Init(nullptr, nullptr);
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;  // the ranks on this node: they share its GPUs and cores
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);
  MpiRunOutcome outcome;
  outcome.ranks = size;
  namespace fs = std::filesystem;
  // The checks before any work, on rank 0 alone (the others would see its first files), then
  // shared: every rank stops, or every rank knows the number of parts.
  std::uint64_t parts = std::uint64_t(size);
  int setup_code = 0;
  if (rank == 0) {
    try {
      if (!options.only.empty() || options.shard_count > 0)
        throw UsageError("under MPI the ranks split the run themselves: --only and --shard do not apply");
      check_output_is_not_special(options.output);
      check_output_is_not_an_input(scenario, options.output);
      if (options.resume) {
        if (fs::exists(options.output) && !options.overwrite)
          throw UsageError("--resume: " + options.output + " exists, a complete results file; pass --overwrite to replace it");
        parts = parts_left_by(options.output);
        if (parts == 0)
          throw UsageError("--resume: there is no interrupted MPI run of " + options.output + " (no " + options.output +
                           ".part-* files)");
      } else {
        if (fs::exists(options.output) && !options.overwrite)
          throw UsageError("output file " + options.output + " exists; pass --overwrite to replace it");
        if (parts_left_by(options.output) > 0 && !options.overwrite)
          throw UsageError("the parts of an interrupted MPI run of " + options.output + " lie beside it: complete it with "
                           "--resume (under any number of ranks), or pass --overwrite to start afresh");
        // The parts beside OUT hold every row, and then OUT does too, until the parts go.
        DiskNeed need = disk_need(scenario, options.samples.value_or(scenario.run.n_samples), options.journal, true);
        need.joined = need.file;
        if (options.space_check) check_disk_space(options.output, need);
      }
    } catch (...) {
      setup_code = exit_code_of(std::current_exception());
      std::fprintf(stderr, "rbmc: error: %s\n", message_of(std::current_exception()).c_str());
    }
  }
  MPI_Bcast(&setup_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  unsigned long long shared_parts = parts;
  MPI_Bcast(&shared_parts, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  parts = shared_parts;
  if (setup_code != 0) {
    MPI_Finalize();
    outcome.exit_code = setup_code;
    return outcome;
  }
  std::vector<std::uint64_t> mine;
  try {
    // Each rank's cores: the node's, shared among its ranks; its GPU: its node-local rank's.
    if (options.threads == 0)
      options.threads = std::max(1u, std::thread::hardware_concurrency() / unsigned(std::max(1, local_size)));
    options.device = local_rank;
    options.processes_on_node = local_size;
    for (std::uint64_t i = std::uint64_t(rank); i < parts; i += std::uint64_t(size)) mine.push_back(i);
    for (const std::uint64_t i : mine) {
      RunOptions o = options;
      o.output = mpi_part_path(options.output, i, parts);
      o.shard_index = i;
      o.shard_count = parts;
      o.progress = options.progress && rank == 0 && size == 1;
      if (options.resume) {
        if (fs::exists(o.output)) continue;  // finished before the interruption
        o.resume = fs::exists(o.output + ".partial") || fs::exists(RunJournal::path_for(o.output));
      }
      run_scenario(scenario, o);
    }
  } catch (const Interrupted& e) {
    std::fprintf(stderr, "rbmc: rank %d of %d: %s\n", rank, size, e.what());
    outcome.exit_code = 130;
  } catch (...) {
    abort_all(rank, size, std::current_exception());
  }
  // Every rank's parts done, or some interrupted: only then is a merge possible.
  int interrupted = outcome.exit_code == 130 ? 1 : 0, any_interrupted = 0;
  MPI_Allreduce(&interrupted, &any_interrupted, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_interrupted) {
    if (rank == 0)
      std::fprintf(stderr,
                   "rbmc: interrupted; the finished samples are kept in %s.part-*-of-%llu: rerun the same command with "
                   "--resume, under any number of ranks\n",
                   options.output.c_str(), static_cast<unsigned long long>(parts));
    MPI_Finalize();
    outcome.exit_code = 130;
    return outcome;
  }
  // Every part done: all ranks write OUT together, each its own parts' rows.
  std::vector<std::string> paths;
  for (std::uint64_t i = 0; i < parts; ++i) paths.push_back(mpi_part_path(options.output, i, parts));
  try {
    const CollectiveOutcome written =
        write_collectively(MPI_COMM_WORLD, paths, mine, options.output, options.overwrite, options.threads, start);
    if (rank == 0) {
      for (const std::string& p : paths) fs::remove(p);
      const ResultsReader r(options.output);
      RunSummary s;
      s.backend = r.string_attribute("", "backend");
      s.device = r.string_attribute("", "device") + " (" + std::to_string(size) + " MPI ranks)";
      s.precision = r.string_attribute("", "precision");
      s.output = options.output;
      s.n_samples = written.n_samples;
      s.n_steps = scenario.run.integrator == IntegratorKind::dopri5
                      ? std::int64_t(r.number_attribute("", "mean_steps") + 0.5)
                      : scenario.run.n_steps;
      s.totals = written.totals;
      s.totals.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      s.body_steps_per_second = double(s.totals.steps) / s.totals.wall_seconds;
      s.quantiles = written.quantiles;
      outcome.summary = s;
    }
  } catch (...) {
    abort_all(rank, size, std::current_exception());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return outcome;
}

}  // namespace rbmc

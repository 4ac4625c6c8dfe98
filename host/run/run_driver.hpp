// The pipeline of one run, a list of named stages over each batch (run_driver.cpp's BatchStages,
// timed as host/util/stage_timings.hpp names them): sample → integrate → statistics → gather →
// write, the write of batch k on the writer's thread overlapping the stages of batch k + 1.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/backend/backend.hpp"
#include "host/io/results_writer.hpp"
#include "host/run/run_selection.hpp"
#include "host/scenario/scenario.hpp"

namespace rbmc {

struct RunOptions {
  std::string output;
  bool overwrite = false;
  std::optional<std::uint64_t> samples, seed;  // override the scenario's run.samples, run.seed
  BackendChoice backend = BackendChoice::automatic;
  unsigned threads = 0;  // CPU backend; 0 = all cores
  int device = -1;       // CUDA backend: which GPU (modulo the devices present); -1: the current one
  int processes_on_node = 1;  // CUDA backend: the processes sharing this node's GPUs (an MPI run's ranks there)
  Precision precision = Precision::float64;
  std::size_t batch_size = 0;  // 0 = the backend's maximum
  bool progress = true;        // a progress bar on stderr when it is a terminal
  std::vector<std::uint64_t> only;  // run just these global sample indices (ascending, unique)
  // --shard i/n: run the i-th of n contiguous parts of the run (0 ≤ i < n); rbmc merge joins them.
  std::uint64_t shard_index = 0, shard_count = 0;  // count 0: not a shard
  bool resume = false;  // continue the interrupted run kept at ResultsWriter::suspended_path(output)
  // Journal every finished batch (RunJournal) so that a kill -9 loses only the batches in flight;
  // off: a kill loses everything since the last SIGINT-saved partial file.
  bool journal = true;
  // Refuse, before any work, a run whose file and journal cannot fit in the free space where the
  // output goes (host/run/disk_space.hpp). Off: start it anyway (to stop it and resume it with
  // more room, or on a file system that compresses what it stores).
  bool space_check = true;
  // Called after each batch is integrated (its write may still be in flight), with the rows done
  // so far (for embedding: progress, or a request to stop through interrupt_requested()).
  std::function<void(std::uint64_t rows_done)> after_batch;
  // When set, the run integrates on the backend this returns instead of the one `backend`,
  // `threads`, `device` and `precision` choose (for embedding, and for tests of the driver's
  // stages with a backend of their own). `precision` still names the file's precision.
  std::function<std::unique_ptr<Backend>()> make_backend;
};

// The files a run reads (the scenario, a table design's file): an output at one of them would
// replace it, --overwrite or not. Throws UsageError naming it.
void check_output_is_not_an_input(const Scenario& scenario, const std::string& output);

struct RunSummary {
  std::string backend, device, precision, output;
  std::uint64_t n_samples = 0;
  std::int64_t n_steps = 0;  // per sample: fixed steps, or dopri5's mean of the steps taken
  RunTotals totals;
  double body_steps_per_second = 0;  // over totals.wall_seconds
  // Of n_samples, those an interrupted run had finished (its partial file and journal): a resumed
  // run's; 0 for a fresh one.
  std::uint64_t resumed_samples = 0;
  QuantileAccuracy quantiles;  // method none without statistics
};

// Set by SIGINT/SIGTERM (installed by the CLI); the run abandons the batch in flight within a
// fraction of a second, keeps the batches done before it in ResultsWriter::suspended_path(output)
// for --resume, and throws Interrupted.
std::atomic<bool>& interrupt_requested();

class Interrupted : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

RunSummary run_scenario(Scenario scenario, const RunOptions& options);

}  // namespace rbmc

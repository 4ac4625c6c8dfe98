// Writes one self-describing results file, batch by batch (layout: docs/output-format.md).
//
// The file is built under a temporary name beside the target and renamed only by finish(), so
// a file at the target path is always complete. A writer destroyed before finish() (an error, an
// interrupt) removes its temporary file.
#pragma once

#include <array>
#include <optional>
#include <set>
#include <cstdint>
#include <string>
#include <vector>

#include "host/io/h5_handle.hpp"
#include "host/io/statistics_group.hpp"  // the statistics' state, which a suspended run keeps
#include "host/io/trajectory_chunks.hpp"
#include "host/scenario/output_schema.hpp"
#include "host/scenario/scenario.hpp"
#include "host/stats/run_statistics.hpp"
#include "host/util/stage_timings.hpp"
#include "rbmc/random/inverse_transforms.hpp"
#include "rbmc/sample/sample_status.hpp"

namespace rbmc {

// Several processes writing one file at once: an MPI run's ranks, with parallel HDF5
// (host/mpi/write_collectively.hpp). Every process constructs the writer with the same metadata,
// then calls write_batch the same number of times (a batch of no rows where it has none left),
// since HDF5 writes compressed datasets only collectively, then close_collectively(). One process
// then adds the statistics and totals serially (the Reopen constructor) and renames the file.
struct CollectiveWrite {
  hid_t file_access = H5P_DEFAULT;   // the MPI-IO driver's file access
  hid_t transfer = H5P_DEFAULT;      // collective data transfers
  std::string temporary_path;        // the same on every process
  std::string created;               // the file's creation time, the same on every process
  std::uint64_t n_trajectories = 0;  // the run's kept trajectories: their datasets' extent from the start
};

struct ResultsMetadata {
  std::string backend, device, precision;
  const Scenario* scenario = nullptr;
  std::uint64_t n_samples = 0;  // rows in the file
  unsigned threads = 1;         // for compressing trajectory chunks
  std::size_t batch_size = 0;   // samples per batch
  std::string overrides;        // the command line's changes to the scenario text ("--samples 1000 --seed 7")
  // A shard (rbmc run --shard i/n): the rows are samples [first_sample, first_sample + n_samples).
  std::uint64_t shard_index = 0, shard_count = 0, first_sample = 0;
  const CollectiveWrite* collective = nullptr;  // several processes write the file (see above)
  int draw_revision = kDrawRevision;            // which draws made the samples (a merge: the parts')
};

// One batch as the backends produce it: structure-of-arrays columns of n rows each
// (rbmc/sample/sample_layout.hpp), for the rows [first, first + n) of the file.
struct BatchView {
  std::uint64_t first = 0;
  std::size_t n = 0;
  const double* inputs = nullptr;   // input_column::count columns
  const double* outputs = nullptr;  // output_column_count(n events) columns
  const std::uint8_t* status = nullptr;
  const double* params = nullptr;  // SamplingPlan::n_parameter_values() columns
  // The retained rows and their trajectories ((kept, output times, 13)), or null.
  const std::vector<std::uint32_t>* kept = nullptr;
  const std::vector<double>* trajectories = nullptr;
  const std::uint64_t* index = nullptr;  // each row's global sample index; null: first + row
  std::uint64_t trajectory_row = 0;      // collective writing: the file row of the first kept trajectory
};

struct RunTotals {
  double wall_seconds = 0;  // the run's, over every process that worked on it (a resumed run's too)
  // This process's (a resumed run: since the resume), the wall that stage_seconds divide.
  double process_wall_seconds = 0;
  std::array<std::uint64_t, kSampleStatusCount> status_counts{};
  std::uint64_t n_redrawn = 0;  // samples whose mass properties the validity policy redrew
  std::uint64_t steps = 0, rejected_steps = 0;  // over all samples
  // How the file came to be, for rbmc info: the samples an interrupted run had finished before a
  // --resume completed it (a joined file: its parts' sum), and the number of parts a joined file
  // was written from, by `joined_by` ("rbmc merge" or "MPI"); 0 and empty: one run's file.
  std::uint64_t resumed_samples = 0, n_parts = 0;
  std::string joined_by;
  // An MPI run's seconds from its start to its file in place (a resumed run's since the resume),
  // where wall_seconds sums its parts' walls; 0 for any other file.
  double elapsed_seconds = 0;
  StageTimings stage_seconds;  // this process's time per stage (a resumed run: since the resume)
  // Of stage_seconds[statistics], the merges of compacted batches on a thread of their own while
  // the next batch is drawn and integrated (a GPU run's sketched quantiles): off the driver's path
  // unless the driver waits for them (idle).
  double statistics_merging_seconds = 0;
  // Of stage_seconds[statistics], the final quantiles and the write of /statistics after the last
  // batch: on the driver's path, overlapping nothing.
  double statistics_final_seconds = 0;
  // Of stage_seconds[integrate], the batches a backend began ahead (Backend::begin_batch: a GPU's
  // kernel while the host reduces the batch before it): off the driver's path unless the driver
  // waits for them (idle).
  double integrate_ahead_seconds = 0;
};

// The time now as the file's `created` attribute holds it (2026-11-23T09:00:00Z).
std::string iso8601_utc_now();

// Throws UsageError when OUT exists but is neither a regular file nor a directory (a device such
// as /dev/null, a pipe, a socket): the finished file's rename into place would replace it, with
// --overwrite (as root, /dev/null itself). Directories are the callers' to name.
void check_output_is_not_special(const std::string& output);

// samples/status of a row an interrupted run has not reached (the dataset's fill value).
inline constexpr std::uint8_t kStatusNotRun = 255;

// What an interrupted run leaves to continue from.
struct SuspendedRun {
  std::uint64_t rows_done = 0;   // rows [0, rows_done) are complete
  std::uint64_t batch_size = 0;  // the batches so far: resuming with the same ones reproduces the run
  RunTotals totals;
  StatisticsState statistics;
  // The exact quantiles' values by column (RunStatistics::exact_values()), written where they lie;
  // statistics is then save_without_exact_values()'. Null: statistics holds them.
  const std::vector<std::vector<double>>* exact_values = nullptr;
};

class ResultsWriter {
 public:
  struct Resume {};
  struct Reopen {};
  // Where an interrupted run's file waits for --resume.
  static std::string suspended_path(const std::string& path) { return path + ".partial"; }

  // Refuses an existing target unless overwrite; creates the temporary file and every dataset.
  ResultsWriter(std::string path, bool overwrite, const ResultsMetadata& meta);
  // Continues the interrupted run suspended at suspended_path(path) (its state read beforehand).
  ResultsWriter(std::string path, const ResultsMetadata& meta, Resume);
  // Continues, in this process alone, the file that meta.collective's processes wrote and closed.
  ResultsWriter(std::string path, const ResultsMetadata& meta, Reopen);
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;
  ~ResultsWriter();

  // Adds its time to timings' compress and write stages.
  void write_batch(const BatchView& batch, StageTimings& timings);
  // The statistics at the output times, once every batch is in; returns how exact their
  // quantiles are. Settles the sketches first (RunStatistics::settle_sketches: no estimate moves).
  QuantileAccuracy write_statistics(RunStatistics& stats);
  // Writes the run's totals, closes the file and renames it to the target path. A shard also
  // keeps its statistics' state (group /shard_state) for rbmc merge.
  void finish(const RunTotals& totals, const StatisticsState* shard_state = nullptr,
              const std::vector<std::vector<double>>* shard_exact_values = nullptr);
  // Records the state of an interrupted run, closes the file and renames it to
  // suspended_path(path): a valid file marked complete = 0 whose rows past rows_done read status
  // not_run, never at the target path.
  void suspend(const SuspendedRun& state);
  // Collective writing: closes the file on every process together (then see Reopen).
  void close_collectively();
  std::uint64_t n_trajectories() const { return n_trajectories_; }

  const std::string& path() const { return path_; }
  const std::string& temporary_path() const { return temporary_path_; }

 private:
  struct Dataset {
    std::string name;
    h5::Handle id;
    std::vector<hsize_t> row_shape;  // dimensions after the sample dimension
    std::size_t row_size;           // product of row_shape
  };

  Dataset& create(const std::string& name, hid_t type, std::vector<hsize_t> row_shape, const std::string& units,
                  const std::string& description, bool extendible = false);
  void append_rows(Dataset& d, hid_t memory_type, std::size_t n, const void* rows);
  void drop_suspended_state();
  void finish_resumed(const RunTotals& totals);
  void append_trajectories(const std::uint64_t* index, const std::vector<std::uint32_t>& kept,
                           const std::vector<double>& trajectories, StageTimings& timings);
  void create_trajectory_part(const TrajectoryPart& part, hsize_t n_times, hsize_t rows_in_file);
  void flush_trajectories();
  void write_trajectories_collectively(const std::uint64_t* index, const BatchView& batch);
  hid_t stored_type(StoredType t) const;
  Dataset& dataset(const std::string& name);
  void write_rows(Dataset& d, hid_t memory_type, std::uint64_t first, std::size_t n, const void* rows);
  void write_sample_scales(std::uint64_t first, std::size_t n, const std::uint64_t* index);

  std::string path_, temporary_path_;
  std::uint64_t n_rows_;
  h5::Handle file_;
  std::vector<Dataset> datasets_;
  std::vector<double> scratch_;
  const Scenario* scenario_;
  std::vector<SampleDataset> schema_;  // the per-sample datasets this file keeps
  std::set<std::string> sample_scales_;  // each group's `sample` coordinate (host/io/dimension_scales.hpp)
  h5::Handle status_type_;              // samples/status: an HDF5 enum of the status names
  unsigned threads_;
  std::vector<TrajectoryChunks> trajectory_chunks_;  // in trajectory_parts() order
  std::vector<double> part_rows_;
  std::optional<CollectiveWrite> collective_;
  bool finished_ = false;
  bool resumed_ = false;
  bool resumed_state_dropped_ = false;
  std::uint64_t n_trajectories_ = 0;
};

}  // namespace rbmc

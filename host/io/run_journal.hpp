// OUT.journal: an append-only record of every batch a run has finished, so that a run killed by
// SIGKILL, a crash or a pre-emption loses only the batches in flight (and, where the run keeps
// statistics, those since its statistics were last saved: below). The results file under
// construction is not safe to reopen after such a death (HDF5 updates its metadata in place);
// the journal is: each record is written whole at the end of the file and carries its length and
// a checksum, so a record cut short by the kill is recognised and dropped.
//
// A record holds what cannot be recomputed cheaply: the batch's outputs, statuses and kept
// trajectories. Inputs are drawn again from the samples' Philox streams on --resume.
// docs/output-format.md, "What a crash leaves".
//
// The statistics are not in the records: a batch's quantities are every sample's values at every
// output time (14.5 KB a sample for the default scenario, 30 times its outputs), which only
// integration gives. Instead the run's statistics state (moments and quantile values or sketches,
// bounded by quantile_memory_mb) is saved beside the journal every so often (OUT.journal.statistics,
// replaced whole by a rename), and a resume replays the records up to it and integrates the
// batches after it again. (Format 1 repeated exact quantiles' values in each record: runs of
// 10,000 samples of the default scenario took 1.65 times as long, bench/RESULTS.md, 2026-12-06.)
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host/stats/run_statistics.hpp"

namespace rbmc {

// One finished batch, rows [first, first + n) of the file.
struct JournalBatch {
  std::uint64_t first = 0, n = 0;
  std::uint64_t redrawn = 0;                // bodies the validity policy redrew
  std::vector<double> outputs;              // (output columns, n)
  std::vector<std::uint8_t> status;         // (n,)
  std::vector<std::uint32_t> kept;          // rows whose trajectories the file keeps
  std::vector<double> trajectories;         // (kept, output times, 13)
};

// The run's statistics after its first `rows` rows.
struct StatisticsSnapshot {
  std::uint64_t rows = 0;
  StatisticsState state;
};

// A contiguous array the journal writes as it is (no copy).
struct JournalArray {
  const void* data = nullptr;
  std::uint64_t count = 0, element_size = 0;
  template <class T, class Allocator>
  static JournalArray of(const std::vector<T, Allocator>& v) {
    return {v.data(), v.size(), sizeof(T)};
  }
};

// What append writes of a batch, read in place from the driver's buffers.
struct JournalBatchView {
  std::uint64_t first = 0, n = 0, redrawn = 0;
  JournalArray outputs, status, kept, trajectories;  // as in JournalBatch
};

class RunJournal {
 public:
  static std::string path_for(const std::string& output) { return output + ".journal"; }
  static std::string snapshot_path_for(const std::string& journal) { return journal + ".statistics"; }

  // No journal: append and remove do nothing.
  RunJournal() = default;
  // Starts a journal at path (replacing one there) whose identity line ties it to one run: the
  // same scenario text, seed, rows, precision, backend and batch size.
  RunJournal(std::string path, const std::string& identity);
  // Continues the journal at path after its last complete record (a cut-short tail is dropped).
  RunJournal(std::string path, const std::string& identity, std::uint64_t valid_bytes);
  RunJournal(const RunJournal&) = delete;
  RunJournal& operator=(const RunJournal&) = delete;
  ~RunJournal();

  // Appends one record. A failure to write (a full disk) stops the journal where its last whole
  // record ends and warns once on stderr: the run goes on, and the journal still holds the
  // batches finished until then.
  void append(const JournalBatchView& batch);
  // Saves the statistics after the first `rows` rows beside the journal, replacing the last
  // snapshot whole (a temporary file renamed over it), once the records up to `rows` are
  // appended. A failure to write warns once and leaves the last snapshot as it was. With
  // exact_values (RunStatistics::save_without_exact_values' state, whose `values` is empty), the
  // values written are those columns' one after another, read where they are: the same file.
  void snapshot_statistics(std::uint64_t rows, const StatisticsState& state,
                           const std::vector<std::vector<double>>* exact_values = nullptr);
  // Removes the journal file and its snapshot: the run is finished, or suspended into OUT.partial.
  void remove();
  bool active() const { return file_ != nullptr; }

  // A journal on disk: its identity line, or nothing when the file does not exist or has no
  // readable header. Throws UsageError when it is a journal of another format (another rbmc's).
  static std::optional<std::string> read_identity(const std::string& path);
  // Calls each(batch) for every complete record in order, one in memory at a time, until it
  // returns false; returns the bytes up to the end of the last record it took (where appending
  // continues).
  static std::uint64_t for_each_record(const std::string& path, const std::function<bool(const JournalBatch&)>& each);
  // The snapshot beside the journal at path, when there is a whole one of the run `identity`.
  // With exact_values, an exact state's values are read column by column into it (value_counts
  // says how many each holds; columns it holds already keep their room) and the state's `values`
  // stays empty, as read_statistics_state does: RunStatistics::restore takes them without a
  // second copy. The file is read twice, the checksum streamed first, so that memory holds the
  // values once.
  static std::optional<StatisticsSnapshot> read_statistics_snapshot(
      const std::string& path, const std::string& identity, std::vector<std::vector<double>>* exact_values = nullptr);

 private:
  void give_up(const std::string& why);

  std::string path_, identity_;
  std::FILE* file_ = nullptr;
  std::uint64_t valid_bytes_ = 0;  // up to the end of the last whole record
  bool snapshot_failed_ = false;   // warned once
};

}  // namespace rbmc

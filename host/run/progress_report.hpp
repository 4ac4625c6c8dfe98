// Progress of a run on stderr, from its own thread, so that it moves within a large batch too:
// on a terminal a bar redrawn every second; without one (Slurm logs, nohup) a line every ten
// seconds (RBMC_PROGRESS_INTERVAL seconds). Runs shorter than that print nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace rbmc {

class ProgressReport {
 public:
  // total: the run's rows; done: rows finished before this process (a resumed run's);
  // log_seconds: without a terminal, how often a line is logged (at least 0.05 s).
  ProgressReport(bool enabled, std::uint64_t total, std::uint64_t done, double log_seconds);
  ProgressReport(const ProgressReport&) = delete;
  ProgressReport& operator=(const ProgressReport&) = delete;
  ~ProgressReport();

  // Rows finished in whole batches; the batches in flight (one begun ahead among them) count their
  // samples in in_batch().
  void batches_done(std::uint64_t rows);
  // Rows a resumed run found finished before it integrated any (the partial file's, and the
  // journal's batches it replayed): done, and not counted in this process's rate. Called before
  // any batch is integrated.
  void found_done(std::uint64_t rows);
  // The samples finished now: whole batches, and those of the batches in flight.
  std::uint64_t samples_done() const;
  // The backends add each sample (CPU) or part (CUDA) they finish: BatchIntegration::progress.
  std::atomic<std::uint64_t>& in_batch() { return in_batch_; }

 private:
  void loop();
  void print();

  using Clock = std::chrono::steady_clock;
  const bool enabled_, terminal_;
  const double log_seconds_;
  const std::uint64_t total_;
  std::atomic<std::uint64_t> start_done_{0}, done_{0}, in_batch_{0};
  const Clock::time_point start_ = Clock::now();
  bool shown_ = false, stopping_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace rbmc

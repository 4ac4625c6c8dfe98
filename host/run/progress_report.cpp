#include "host/run/progress_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace rbmc {

ProgressReport::ProgressReport(bool enabled, std::uint64_t total, std::uint64_t done, double log_seconds)
    : enabled_(enabled),
      terminal_(::isatty(STDERR_FILENO) != 0),
      log_seconds_(std::max(0.05, log_seconds)),
      total_(std::max<std::uint64_t>(total, 1)),
      start_done_(done),
      done_(done) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

ProgressReport::~ProgressReport() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (shown_ && terminal_) std::fputc('\n', stderr);
}

void ProgressReport::batches_done(std::uint64_t rows) {
  // The samples the finished batches added to in_batch come off it; those of a batch begun ahead
  // (Backend::begin_batch) stay. Never below zero: a backend may add none.
  const std::uint64_t finished = rows - done_.load(std::memory_order_relaxed);
  std::uint64_t in = in_batch_.load(std::memory_order_relaxed);
  while (!in_batch_.compare_exchange_weak(in, in - std::min(in, finished), std::memory_order_relaxed)) {
  }
  done_.store(rows, std::memory_order_relaxed);
}

void ProgressReport::found_done(std::uint64_t rows) {
  start_done_.store(rows, std::memory_order_relaxed);
  done_.store(rows, std::memory_order_relaxed);
}

std::uint64_t ProgressReport::samples_done() const {
  return std::min(total_, done_.load(std::memory_order_relaxed) + in_batch_.load(std::memory_order_relaxed));
}

void ProgressReport::loop() {
  const auto period = std::chrono::duration<double>(terminal_ ? 1.0 : log_seconds_);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) print();
}

void ProgressReport::print() {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const std::uint64_t done = samples_done(), found = start_done_.load(std::memory_order_relaxed);
  const double fraction = double(done) / double(total_);
  // The rate of this process, not counting rows a resumed run found done.
  const double rate = double(done - std::min(done, found)) / std::max(elapsed, 1e-9);
  const double left = rate > 0 ? double(total_ - done) / rate : 0;
  if (terminal_) {
    const int width = 40, filled = int(fraction * width);
    std::fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %llu/%llu samples  %.0f s left ", filled,
                 "########################################", width - filled, "", 100 * fraction,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), left);
  } else {
    std::fprintf(stderr, "rbmc: %llu of %llu samples (%.1f %%), %.0f s elapsed, about %.0f s left\n",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), 100 * fraction, elapsed,
                 left);
  }
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace rbmc

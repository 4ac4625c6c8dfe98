// Two sets of a backend's per-batch state (slots) and a thread for a batch begun ahead
// (Backend::begin_batch): the batch integrated last is in current(), which the later primitives
// read; the next batch goes into next(), integrated in turn (then integrated()) or begun on the
// thread (begin), and then finished (finish) or dropped (drop). The CUDA backend's orchestration,
// written once so that the tests' CPU backend that begins batches the same way runs this very code
// (tests/host/run_driver_test.cpp's AheadCpuBackend).
#pragma once

#include <array>
#include <atomic>
#include <stdexcept>
#include <string>
#include <utility>

#include "host/util/serial_worker.hpp"
#include "host/util/stage_timings.hpp"

namespace rbmc {

template <class Slot>
class BatchSlots {
 public:
  BatchSlots() = default;
  BatchSlots(const BatchSlots&) = delete;
  BatchSlots& operator=(const BatchSlots&) = delete;
  ~BatchSlots() { drop(); }

  Slot& current() { return slots_[std::size_t(current_)]; }      // the batch integrated last
  Slot& next() { return slots_[std::size_t(current_ ^ 1)]; }     // where the next batch goes
  std::array<Slot, 2>& both() { return slots_; }

  bool begun() const { return begun_; }
  // For the primitives that must not run while a batch is begun (draw_inputs, integrate, begin).
  void expect_nothing_begun(const char* primitive) const {
    if (begun_) throw std::logic_error(std::string(primitive) + ": a batch begun ahead is not finished");
  }
  // The next batch, integrated in turn on the caller's thread, is now the current one.
  void integrated() {
    expect_nothing_begun("integrated");
    current_ ^= 1;
  }

  // Runs work(next(), stop) on the thread, where stop is drop's request to abandon it: work checks
  // it between its parts (and may throw BatchAbandoned). What work uses must outlive finish or drop.
  template <class Work>
  void begin(Work work) {
    expect_nothing_begun("begin_batch");
    dropping_.store(false, std::memory_order_relaxed);
    Slot& slot = next();
    worker_.submit([work = std::move(work), &slot, this]() mutable { work(slot, dropping_); });
    begun_ = true;
  }
  // Waits for the batch begun (the wait counted as idle in `timings`) and makes it the current one;
  // rethrows what its work threw (BatchAbandoned on a stop, having changed nothing).
  Slot& finish(StageTimings& timings) {
    if (!begun_) throw std::logic_error("finish_batch: no batch was begun");
    begun_ = false;
    {
      const StageClock clock(&timings, Stage::idle);
      worker_.wait();
    }
    current_ ^= 1;
    return current();
  }
  // Forgets the batch begun, if any, once its work has stopped (asked to, between its parts).
  // Returns whether there was one.
  bool drop() noexcept {
    if (!begun_) return false;
    begun_ = false;
    dropping_.store(true, std::memory_order_relaxed);
    try {
      worker_.wait();
    } catch (...) {  // abandoned, or failed: either way nothing of it is read
    }
    return true;
  }

 private:
  std::array<Slot, 2> slots_{};
  int current_ = 0;
  bool begun_ = false;
  std::atomic<bool> dropping_{false};
  SerialWorker worker_;  // last: destroyed first, finishing its job while the slots exist
};

}  // namespace rbmc

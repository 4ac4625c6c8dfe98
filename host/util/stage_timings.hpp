// Wall time per stage of a run's pipeline (rbmc run --timings, the file's /timings): where the
// time goes, without a profiler. Each stage is timed by the one thread that runs it (the driver,
// the backend on the driver's thread, or the writer), so no two threads add to the same entry.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>

namespace rbmc {

enum class Stage : int {
  setup,       // before the first batch: the backend (on a GPU, its context), the results file, the
               // statistics' state, a resumed run's replay
  sample,      // drawing every sample's inputs (Philox streams, designs)
  transfer,    // host <-> device copies (CUDA)
  integrate,   // the per-sample function over the batch
  statistics,  // quantities at the output times, moments, quantile values
  gather,      // selecting and gathering the trajectories the file keeps
  compress,    // shuffling and deflating trajectory chunks (writer thread)
  write,       // HDF5 writes (writer thread)
  idle,        // the driver waiting for the previous batch's write or statistics merge
  count
};

inline constexpr std::array<const char*, std::size_t(Stage::count)> kStageNames = {
    "setup", "sample", "transfer", "integrate", "statistics", "gather", "compress", "write", "idle"};

inline const char* stage_name(Stage s) { return kStageNames[std::size_t(s)]; }

struct StageTimings {
  std::array<double, std::size_t(Stage::count)> seconds{};

  double& operator[](Stage s) { return seconds[std::size_t(s)]; }
  double operator[](Stage s) const { return seconds[std::size_t(s)]; }
  StageTimings& operator+=(const StageTimings& o) {
    for (std::size_t i = 0; i < seconds.size(); ++i) seconds[i] += o.seconds[i];
    return *this;
  }
};

// Adds the wall time of its scope to one stage (a null target times nothing).
class StageClock {
 public:
  StageClock(StageTimings* target, Stage stage) : target_(target), stage_(stage), start_(Clock::now()) {}
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;
  ~StageClock() { stop(); }
  void stop() {
    if (target_ == nullptr) return;
    (*target_)[stage_] += std::chrono::duration<double>(Clock::now() - start_).count();
    target_ = nullptr;
  }

 private:
  using Clock = std::chrono::steady_clock;
  StageTimings* target_;
  Stage stage_;
  Clock::time_point start_;
};

}  // namespace rbmc

// The CPU backend: every core runs the core's per-sample function over a share of the batch.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <type_traits>

#include "host/backend/backend.hpp"
#include "host/backend/cpu_lanes.hpp"
#include "host/stats/column_moments.hpp"
#include "host/util/parallel_for.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/simd/fixed_step_lanes.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

template <class Scalar>
class CpuBackend final : public Backend {
 public:
  CpuBackend(unsigned threads, LaneIsa lanes)
      : lane_isa_(lanes), lanes_(lane_groups<Scalar>(lanes)),
        threads_(threads == 0 ? default_thread_count() : threads) {}

  std::string name() const override { return "cpu"; }
  std::string device() const override {
    std::string d = cpu_model_name() + " (" + std::to_string(threads_) + (threads_ == 1 ? " thread" : " threads");
    if (lanes_.width > 1)
      d += ", " + std::string(lane_isa_name(lane_isa_)) + " lanes of " + std::to_string(lanes_.width);
    return d + ")";
  }
  // kSamplesPerThread samples a thread, and the states and quantities a batch keeps near 512 MiB
  // at most.
  std::size_t max_batch_size(const BatchIntegration& how) const override {
    const std::size_t kept = kept_bytes_per_sample(how), per_threads = std::size_t(threads_) * kSamplesPerThread;
    return kept == 0 ? per_threads : std::max<std::size_t>(1, std::min(per_threads, (std::size_t(512) << 20) / kept));
  }

  void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n, const BatchIntegration& how,
                 const BatchNeeds& needs, StageTimings& timings) override {
    const StageClock clock(&timings, Stage::integrate);
    const IntegrationSettings<Scalar> settings = how.settings.cast<Scalar>();
    shared_ = how.shared.cast<Scalar>();
    inputs_ = inputs;
    n_ = n;
    const int n_times = shared_.output_times.n;
    const std::size_t block = std::size_t(n_times) * kTrajectoryColumns;  // one sample's states
    // The samples whose states share a block (TrajectoryLayout::by_group): a lane group's, so that
    // the lanes store and load each component's values as one vector.
    const std::size_t width = std::size_t(lanes_.width);
    // Each sample's quantities at the output times, computed as soon as its group is integrated,
    // while its states are still in cache (reading them back batch-wide afterwards ran at memory
    // speed). Their thread time is moved from the integrate stage to the statistics stage below.
    const bool quantities = n_times > 0 && how.statistics;
    const bool keep = n_times > 0 && how.keep_states;
    // States at the output times, a lane group's together (TrajectoryLayout::by_group: the
    // integration's stores stay in the group's own pages). Every row's in the batch's buffer where
    // any row may be gathered; otherwise only those of the rows named in advance
    // (needs.state_rows), and every group's pass through a buffer of its thread's own that stays
    // in the core's cache while their quantities are computed. The main job's batch-wide buffer, 129 MB of 8,192 samples' states
    // of which the file keeps 20, cost its 2.5 s integration 0.1–0.2 s (bench/RESULTS.md,
    // 2026-11-26, fifteenth session).
    every_row_kept_ = keep && (needs.state_rows == nullptr || needs.state_rows->size() == n);
    kept_rows_.clear();
    if (keep && !every_row_kept_) {
      kept_rows_ = *needs.state_rows;
      if (!std::is_sorted(kept_rows_.begin(), kept_rows_.end()) || (!kept_rows_.empty() && kept_rows_.back() >= n))
        throw std::logic_error("integrate: BatchNeeds::state_rows must be ascending rows of the batch");
    }
    // Every entry is written: every row's in whole groups, or the rows named in advance, each in a
    // block of its own (by sample: keep_passing_states).
    trajectory_.resize((every_row_kept_ ? (n + width - 1) / width * width : kept_rows_.size()) * block);
    const bool passing_states = !every_row_kept_ && (quantities || !kept_rows_.empty());
    quantities_ready_ = false;
    if (quantities) prepare_quantities(how, n);
    std::atomic<std::int64_t> quantity_nanoseconds{0};
    // The per-sample function compiled for the run's kinds (sample_kinds.hpp).
    with_sample_kinds(choose_sample_kinds(shared_, settings), [&](auto kinds) {
      using Kinds = decltype(kinds);
      // A group's samples [begin, end), their states into the group's block `states`, or none.
      const auto one_by_one = [&](std::size_t begin, std::size_t end, double* states) {
        for (std::size_t i = begin; i < end; ++i)
          run_sample_in_batch<Scalar, Kinds, TrajectoryLayout::by_group, ModelValuesAccess::copied>(
              inputs, outputs, states, status, n, i, shared_, settings, width);
      };
      // Every kind in SIMD lanes (cpu_lanes.hpp), a group of `width` samples at a time; a group
      // the lanes give back and the samples short of a whole group one by one. The same results
      // bit for bit either way.
      LaneGroupFunction<Scalar> group = nullptr;
      // The general lanes take the unconstrained kind too (the lanes dispatch on the constraint).
      if constexpr (std::is_same_v<Kinds, FreeBodyRk4Kinds>) group = lanes_.free_body;
      else if constexpr (Kinds::stepper == StepperKind::rk4) group = Kinds::events ? lanes_.general_events : lanes_.general;
      else if constexpr (Kinds::stepper == StepperKind::rk4_euler_zxz)
        group = Kinds::events ? lanes_.euler_zxz_events : lanes_.euler_zxz;
      else if constexpr (Kinds::stepper == StepperKind::splitting)
        group = Kinds::events ? lanes_.splitting_events : lanes_.splitting;
      else if constexpr (Kinds::stepper == StepperKind::dopri5)
        group = Kinds::events ? lanes_.dopri5_events : lanes_.dopri5;
      // Threads claim whole groups, whatever integrates them, so that a group's states are all in
      // its block when its quantities are computed; only the batch's last group can fall short.
      parallel_for((n + width - 1) / width, threads_, [&](std::size_t first_group, std::size_t end_group) {
        // The states of samples [unreduced, ...): their quantities are still to compute, and those
        // passing through the thread's buffer still to copy where the file keeps them.
        std::size_t unreduced = first_group * width;
        PassingStates passing(passing_states ? this : nullptr, (kQuantityBlock + width) * block);
        const auto states_of = [&](std::size_t i) -> double* {
          if (every_row_kept_) return trajectory_.data() + i * block;
          return passing_states ? passing.data() + (i - unreduced) * block : nullptr;
        };
        for (std::size_t g = first_group; g < end_group; ++g) {
          // One relaxed load a group: a request to stop is seen within one group's integration.
          if (how.stop != nullptr && how.stop->load(std::memory_order_relaxed)) throw BatchAbandoned();
          const std::size_t i = g * width, group_end = std::min(n, i + width);
          double* const states = states_of(i);
          const bool in_lanes = group != nullptr && group_end - i == width &&
                                group(inputs, outputs, states, status, n, i, shared_, settings);
          if (!in_lanes) one_by_one(i, group_end, states);
          if ((quantities || passing_states) && (group_end - unreduced >= kQuantityBlock || g + 1 == end_group)) {
            if (quantities) {
              const auto start = std::chrono::steady_clock::now();
              compute_quantities(unreduced, group_end, states_of(unreduced));
              quantity_nanoseconds.fetch_add(
                  std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
                      .count(),
                  std::memory_order_relaxed);
            }
            if (passing_states) keep_passing_states(unreduced, group_end, passing.data());
            unreduced = group_end;
          }
          if (how.progress != nullptr) how.progress->fetch_add(group_end - i, std::memory_order_relaxed);
        }
      });
    });
    // The quantities' share of the wall: their thread time over the threads that ran in parallel.
    const double quantity_seconds =
        double(quantity_nanoseconds.load()) * 1e-9 / double(std::max<std::size_t>(1, std::min<std::size_t>(threads_, n)));
    timings[Stage::statistics] += quantity_seconds;
    timings[Stage::integrate] -= quantity_seconds;
    quantities_ready_ = quantities;
  }

  // The quantities integrate computed, handed over without a copy when every row is asked for;
  // their moments are then left to the run's statistics, which compute them in the same pass
  // over the values as the quantiles (RunStatistics::add). Otherwise the moments of each (time,
  // quantity) column over the batch (column_moments.hpp), and the rows' values.
  void reduce_statistics(const BatchIntegration&, const std::vector<std::uint32_t>& rows,
                         std::vector<Moments>& moments, QuantityValues& values, StageTimings& timings) override {
    const StageClock clock(&timings, Stage::statistics);
    if (!quantities_ready_)
      throw std::logic_error("reduce_statistics: the batch was not integrated with statistics, or was reduced already");
    const std::size_t n = n_, columns = std::size_t(shared_.output_times.n) * quantity::count;
    const std::size_t n_rows = rows.size();
    quantities_ready_ = false;
    if (n_rows == n) {
      moments.clear();
      values.swap(quantities_);  // the next integrate refills whichever buffer it holds
      return;
    }
    // The kept quantities' columns alone, which the lanes wrote (the others are not written, and
    // the run's statistics read none of them): their moments stay empty, their values unwritten.
    const auto kept = [&](std::size_t c) { return ((kept_columns_ >> (c % quantity::count)) & 1u) != 0; };
    moments.assign(columns, Moments{});
    parallel_for(columns, threads_, [&](std::size_t begin, std::size_t end) {
      std::vector<const double*> column;
      std::vector<std::size_t> which;
      for (std::size_t c = begin; c < end; ++c)
        if (kept(c)) {
          column.push_back(quantities_.data() + c * n);
          which.push_back(c);
        }
      std::vector<Moments> computed(column.size());
      column_moments(column.data(), column.size(), n, computed.data());
      for (std::size_t j = 0; j < which.size(); ++j) moments[which[j]] = computed[j];
    });
    values.resize(n_rows * columns);
    parallel_for(columns, threads_, [&](std::size_t begin, std::size_t end) {
      for (std::size_t c = begin; c < end; ++c)
        if (kept(c))
          for (std::size_t r = 0; r < n_rows; ++r)
            gather_column_element(quantities_.data(), n, rows.data(), n_rows, r, c, values.data());
    });
  }

  // The buffer reduce_statistics handed over, back for the next batch when it is the larger (the
  // one swapped for it is the caller's old one, empty after the first batch).
  void recycle_quantities(QuantityValues& values) override {
    if (values.capacity() > quantities_.capacity()) quantities_.swap(values);
  }

  void gather_trajectories(const std::vector<std::uint32_t>& rows, std::vector<double>& trajectories,
                           StageTimings& timings) override {
    const StageClock clock(&timings, Stage::gather);
    // Every row's states lie in their lane groups' blocks (TrajectoryLayout::by_group); the rows
    // named in advance each in a block of its own, in their order (by sample).
    const std::size_t block = std::size_t(shared_.output_times.n) * kTrajectoryColumns;
    std::vector<std::size_t> at(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      at[r] = rows[r];
      if (every_row_kept_) continue;
      const auto found = std::lower_bound(kept_rows_.begin(), kept_rows_.end(), rows[r]);
      if (found == kept_rows_.end() || *found != rows[r])
        throw std::logic_error("gather_trajectories: row " + std::to_string(rows[r]) +
                               "'s states were not kept (BatchNeeds::state_rows)");
      at[r] = std::size_t(found - kept_rows_.begin());
    }
    trajectories.resize(rows.size() * block);
    const std::size_t width = every_row_kept_ ? std::size_t(lanes_.width) : 1;
    parallel_for(rows.size(), threads_, [&](std::size_t begin, std::size_t end) {
      for (std::size_t r = begin; r < end; ++r)
        copy_sample_states(trajectory_.data() + at[r] / width * width * block, width, at[r] % width, block,
                           trajectories.data() + r * block);
    });
  }

 private:
  // A batch's share a thread: 256 lane groups of 8, so that the batch's end, where the threads
  // wait for the last group, stays a small part of it. Not more: the statistics' quantities take
  // 14.5 KB a sample in the main job (151 times × 12 doubles), whose pages the first batch's lanes
  // fault in; fresh huge pages cost a virtual machine up to 20 times what their zeroing does, and
  // the main job at 4,096 samples a thread spent 0.1 s more in its statistics stage than at
  // 2,048 (bench/RESULTS.md, 2026-12-03, forty-seventh session). Half the memory, too.
  static constexpr std::size_t kSamplesPerThread = 2048;

  // Each output time's nominal attitude in Scalar, and room for the batch's quantities.
  void prepare_quantities(const BatchIntegration& how, std::size_t n) {
    kept_columns_ = quantity_columns_of(how.statistics_quantities);
    nominal_.clear();
    for (const Quaternion<double>& q : how.nominal_attitudes) nominal_.push_back({Scalar(q.w), Scalar(q.x), Scalar(q.y), Scalar(q.z)});
    quantities_.resize(n * std::size_t(shared_.output_times.n) * quantity::count);
  }

  // A buffer of states for one thread's groups, taken from the backend's and given back when it
  // goes (their pages are touched once a run, not once a batch); none for a null backend.
  class PassingStates {
   public:
    PassingStates(CpuBackend* backend, std::size_t size) : backend_(backend) {
      if (backend_ == nullptr) return;
      {
        const std::lock_guard<std::mutex> lock(backend_->passing_mutex_);
        if (!backend_->passing_.empty()) {
          buffer_ = std::move(backend_->passing_.back());
          backend_->passing_.pop_back();
        }
      }
      buffer_.resize(size);
    }
    ~PassingStates() {
      if (backend_ == nullptr) return;
      const std::lock_guard<std::mutex> lock(backend_->passing_mutex_);
      backend_->passing_.push_back(std::move(buffer_));
    }
    PassingStates(const PassingStates&) = delete;
    PassingStates& operator=(const PassingStates&) = delete;
    double* data() { return buffer_.data(); }

   private:
    CpuBackend* backend_;
    std::vector<double> buffer_;
  };

  // One sample's states, the group's sample `lane` of a block of `width` (TrajectoryLayout::by_group),
  // into `out` by sample ([k · 13 + c]).
  static void copy_sample_states(const double* group_states, std::size_t width, std::size_t lane, std::size_t block,
                                 double* out) {
    for (std::size_t j = 0; j < block; ++j) out[j] = group_states[j * width + lane];
  }

  // The states of samples [first, end), from `states` on (sample first's group's block), copied to
  // their places in trajectory_ where the rows named in advance hold them.
  void keep_passing_states(std::size_t first, std::size_t end, const double* states) {
    const std::size_t block = std::size_t(shared_.output_times.n) * kTrajectoryColumns,
                      width = std::size_t(lanes_.width);
    auto row = std::lower_bound(kept_rows_.begin(), kept_rows_.end(), std::uint32_t(first));
    for (; row != kept_rows_.end() && *row < end; ++row)
      copy_sample_states(states + (*row - *row % width - first) * block, width, *row % width, block,
                         trajectory_.data() + std::size_t(row - kept_rows_.begin()) * block);
  }

  // Samples [first, end)'s quantities at every output time, from their states (by group, from
  // `states` on: sample first's group's block), into quantities_ column by column ((times ×
  // quantity::count, n)): a lane group at a time while the lanes take them (the same values bit
  // for bit), the rest sample by sample, time by time, so that each column's values of the block
  // are written together.
  void compute_quantities(std::size_t first, std::size_t end, const double* states) {
    const int n_times = shared_.output_times.n;
    const std::size_t n = n_, state_block = std::size_t(n_times) * kTrajectoryColumns;
    const std::size_t width = std::size_t(lanes_.width);
    const std::size_t states_first = first;  // whose block `states` starts at
    if (lanes_.quantities != nullptr) {
      const auto lanes_take = [&](LaneQuantitiesFunction<Scalar> samples_from_first) {
        return samples_from_first(inputs_, states + (first - states_first) * state_block, n, first, shared_,
                                  nominal_.data(), quantities_.data(), kept_columns_);
      };
      // Several groups from a line's start, so that each column's values fill whole cache lines
      // (cpu_lanes.hpp); one group where they cannot, or where those groups' samples cannot go
      // together; the rest from the first group the lanes give back, one by one.
      const std::size_t line_width = std::size_t(lanes_.line_width);
      while (end - first >= width) {
        if (lanes_.quantities_in_lines != nullptr && first % line_width == 0 && end - first >= line_width &&
            lanes_take(lanes_.quantities_in_lines)) {
          first += line_width;
          continue;
        }
        if (!lanes_take(lanes_.quantities)) break;
        first += width;
      }
    }
    for (std::size_t from = first; from < end; from += kQuantityBlock) {
      const std::size_t count = std::min(kQuantityBlock, end - from);
      FreeBodyModel<Scalar> model[kQuantityBlock];
      for (std::size_t j = 0; j < count; ++j) {
        const SampleInputs<Scalar> in = load_sample_inputs<Scalar>(inputs_, n, from + j, 0);
        model[j] = make_free_body_model(in.body, in.gravity_w);
      }
      for (int k = 0; k < n_times; ++k)
        for (std::size_t j = 0; j < count; ++j) {
          const std::size_t i = from + j;
          StateVector<Scalar> y;
          const double* x = states + (i - i % width - states_first) * state_block +
                            std::size_t(k) * kTrajectoryColumns * width + i % width;
          for (int c = 0; c < kTrajectoryColumns; ++c) y(c) = Scalar(x[std::size_t(c) * width]);
          Scalar q[quantity::count];
          sample_quantities_at(shared_.loads, own_values_in_batch(shared_.parameters, inputs_, n, i), model[j], unpack(y),
                               nominal_[std::size_t(k)], q);
          double* const column = &quantities_[std::size_t(k) * quantity::count * n + i];
          for (int c = 0; c < quantity::count; ++c) column[std::size_t(c) * n] = q[c];
        }
    }
  }

  // Samples whose quantities are computed together, each column's values of them written
  // together: 32 doubles are four cache lines, where a lane group's eight are one line, most often
  // written in two halves (the 12 × T columns each in its own page). The main job's quantities
  // took 0.72 s instead of 0.84 (bench/RESULTS.md, 2026-11-24). Their states, 32 × T × 13
  // doubles, are still in the core's cache.
  static constexpr std::size_t kQuantityBlock = 32;

  // What the last integrate kept for the later primitives.
  SharedModel<Scalar> shared_{};
  const double* inputs_ = nullptr;
  LaneIsa lane_isa_;
  LaneGroups<Scalar> lanes_;
  std::size_t n_ = 0;
  // The kept states: every row's (every_row_kept_) by lane group (TrajectoryLayout::by_group, the
  // batch's whole groups), or those of kept_rows_, in their order, sample by sample ((rows,
  // output times, 13)).
  std::vector<double> trajectory_;
  bool every_row_kept_ = false;
  std::vector<std::uint32_t> kept_rows_;
  std::vector<std::vector<double>> passing_;  // PassingStates' buffers, between batches
  std::mutex passing_mutex_;
  QuantityValues quantities_;  // (times × quantity::count, n): each thread writes its own samples
  std::vector<Quaternion<Scalar>> nominal_;  // (output times)
  QuantityColumns kept_columns_ = kAllQuantityColumns;  // the columns the lanes store (the statistics read no others)
  bool quantities_ready_ = false;            // quantities_ holds the last integrated batch's
  unsigned threads_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(Precision precision, unsigned threads, LaneIsa lanes) {
  if (precision == Precision::float32) return std::make_unique<CpuBackend<float>>(threads, lanes);
  return std::make_unique<CpuBackend<double>>(threads, lanes);
}

std::unique_ptr<Backend> make_cpu_backend(Precision precision, unsigned threads) {
  return make_cpu_backend(precision, threads, chosen_lane_isa());
}

std::unique_ptr<Backend> make_backend(BackendChoice choice, Precision precision, unsigned threads, int device,
                                      int processes_on_node) {
  if (choice == BackendChoice::cuda || (choice == BackendChoice::automatic && cuda_device_available()))
    return make_cuda_backend(precision, device, processes_on_node);
  return make_cpu_backend(precision, threads);
}

}  // namespace rbmc

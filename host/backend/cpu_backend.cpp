// The CPU backend: every core runs the core's per-sample function over a share of the batch.
#include <algorithm>
#include <fstream>
#include <memory>
#include <type_traits>

#include "host/backend/backend.hpp"
#include "host/backend/cpu_lanes.hpp"
#include "rbmc/simd/rk4_lanes.hpp"
#include "host/util/parallel_for.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "rbmc/sample/sample_layout.hpp"
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
      : lane_isa_(lanes), rk4_lanes_(rk4_lanes<Scalar>(lanes)),
        threads_(threads == 0 ? default_thread_count() : threads) {}

  std::string name() const override { return "cpu"; }
  std::string device() const override {
    std::string d = cpu_model_name() + " (" + std::to_string(threads_) + " threads";
    if (rk4_lanes_.width > 1)
      d += ", " + std::string(lane_isa_name(lane_isa_)) + " lanes of " + std::to_string(rk4_lanes_.width);
    return d + ")";
  }
  std::size_t max_batch_size() const override { return std::size_t(threads_) * 4096; }

  void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n, const BatchIntegration& how,
                 StageTimings& timings) override {
    const StageClock clock(&timings, Stage::integrate);
    const IntegrationSettings<Scalar> settings = how.settings.cast<Scalar>();
    shared_ = how.shared.cast<Scalar>();
    inputs_ = inputs;
    n_ = n;
    const int n_times = shared_.output_times.n;
    const bool states = n_times > 0 && (how.statistics || how.keep_states);
    // States at the output times, sample by sample (TrajectoryLayout::by_sample: the integration's
    // stores stay in the sample's own pages); every entry is written.
    trajectory_.resize(states ? n * kTrajectoryColumns * std::size_t(n_times) : 0);
    double* trajectory = states ? trajectory_.data() : nullptr;
    // The per-sample function compiled for the run's kinds (sample_kinds.hpp).
    with_sample_kinds(choose_sample_kinds(shared_, settings), [&](auto kinds) {
      using Kinds = decltype(kinds);
      const auto one_by_one = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
          run_sample_in_batch<Scalar, Kinds, TrajectoryLayout::by_sample, ModelValuesAccess::copied>(
              inputs, outputs, trajectory, status, n, i, shared_, settings);
      };
      // RK4 in SIMD lanes (cpu_lanes.hpp) where the kind allows, a group of `width` samples at a
      // time; a group the lanes give back, and the samples short of a whole group, one by one.
      // The same results bit for bit either way.
      LaneGroupFunction<Scalar> group = nullptr;
      if constexpr (std::is_same_v<Kinds, FreeBodyRk4Kinds>) group = rk4_lanes_.free_body;
      else if constexpr (std::is_same_v<Kinds, SampleKinds<StepperKind::rk4, false>>)
        group = gravity_alone(shared_) ? rk4_lanes_.gravity : nullptr;
      const std::size_t width = group != nullptr ? std::size_t(rk4_lanes_.width) : std::size_t(1);
      // Threads claim whole groups, so that only the batch's last group can fall short of a width.
      parallel_for((n + width - 1) / width, threads_, [&](std::size_t first_group, std::size_t end_group) {
        for (std::size_t g = first_group; g < end_group; ++g) {
          // One relaxed load a group: a request to stop is seen within one group's integration.
          if (how.stop != nullptr && how.stop->load(std::memory_order_relaxed)) throw BatchAbandoned();
          const std::size_t i = g * width, group_end = std::min(n, i + width);
          if (group_end - i < width || width == 1 ||
              !group(inputs, outputs, trajectory, status, n, i, shared_, settings))
            one_by_one(i, group_end);
          if (how.progress != nullptr) how.progress->fetch_add(group_end - i, std::memory_order_relaxed);
        }
      });
    });
  }

  // Each sample's quantities at the output times, then the moments of each (time, quantity)
  // column over the batch, merged in sample order; and the quantile rows' values.
  void reduce_statistics(const BatchIntegration& how, const std::vector<std::uint32_t>& rows,
                         std::vector<Moments>& moments, std::vector<double>& values, StageTimings& timings) override {
    const StageClock clock(&timings, Stage::statistics);
    const int n_times = shared_.output_times.n;
    const std::size_t n = n_, columns = std::size_t(n_times) * quantity::count;
    std::vector<Quaternion<Scalar>> nominal;
    for (const Quaternion<double>& q : how.nominal_attitudes) nominal.push_back({Scalar(q.w), Scalar(q.x), Scalar(q.y), Scalar(q.z)});
    quantities_.resize(n * columns);
    // Blocks of samples, time by time: each time's 12 quantity columns are written for a block of
    // consecutive samples at once (structure of arrays, as the moments and quantiles read them),
    // from the block's states, which lie sample by sample.
    constexpr std::size_t kBlock = 32;
    const std::size_t n_blocks = (n + kBlock - 1) / kBlock, state_block = std::size_t(n_times) * kTrajectoryColumns;
    parallel_for(n_blocks, threads_, [&](std::size_t first_block, std::size_t end_block) {
      std::vector<FreeBodyModel<Scalar>> model(kBlock);
      for (std::size_t b = first_block; b < end_block; ++b) {
        const std::size_t first = b * kBlock, count = std::min(kBlock, n - first);
        for (std::size_t j = 0; j < count; ++j) {
          const SampleInputs<Scalar> in = load_sample_inputs<Scalar>(inputs_, n, first + j, 0);
          model[j] = make_free_body_model(in.body, in.gravity_w);
        }
        for (int k = 0; k < n_times; ++k)
          for (std::size_t j = 0; j < count; ++j) {
            const std::size_t i = first + j;
            StateVector<Scalar> y;
            const double* x = &trajectory_[i * state_block + std::size_t(k) * kTrajectoryColumns];
            for (int c = 0; c < kTrajectoryColumns; ++c) y(c) = Scalar(x[c]);
            Scalar q[quantity::count];
            sample_quantities_at(shared_.loads, own_values_in_batch(shared_.parameters, inputs_, n, i), model[j], unpack(y),
                                 nominal[std::size_t(k)], q);
            for (int c = 0; c < quantity::count; ++c) quantities_[(std::size_t(k) * quantity::count + std::size_t(c)) * n + i] = q[c];
          }
      }
    });
    moments.assign(columns, Moments{});
    parallel_for(columns, threads_, [&](std::size_t begin, std::size_t end) {
      for (std::size_t c = begin; c < end; ++c) {
        Moments m;
        for (std::size_t i = 0; i < n; ++i) m = merge(m, Moments::of(quantities_[c * n + i]));
        moments[c] = m;
      }
    });
    // The quantile rows' values, column by column: contiguous copies when every row is asked for.
    values.resize(rows.size() * columns);
    const std::size_t n_rows = rows.size();
    parallel_for(columns, threads_, [&](std::size_t begin, std::size_t end) {
      for (std::size_t c = begin; c < end; ++c) {
        if (n_rows == n) {
          std::copy(quantities_.begin() + std::ptrdiff_t(c * n), quantities_.begin() + std::ptrdiff_t((c + 1) * n),
                    values.begin() + std::ptrdiff_t(c * n));
          continue;
        }
        for (std::size_t r = 0; r < n_rows; ++r) gather_column_element(quantities_.data(), n, rows.data(), n_rows, r, c, values.data());
      }
    });
  }

  void gather_trajectories(const std::vector<std::uint32_t>& rows, std::vector<double>& trajectories,
                           StageTimings& timings) override {
    const StageClock clock(&timings, Stage::gather);
    // The states lie sample by sample: a kept row is one contiguous block.
    const std::size_t block = std::size_t(shared_.output_times.n) * kTrajectoryColumns;
    trajectories.resize(rows.size() * block);
    parallel_for(rows.size(), threads_, [&](std::size_t begin, std::size_t end) {
      for (std::size_t r = begin; r < end; ++r)
        std::copy_n(trajectory_.begin() + std::ptrdiff_t(rows[r] * block), block,
                    trajectories.begin() + std::ptrdiff_t(r * block));
    });
  }

 private:
  // What the last integrate kept for the later primitives.
  SharedModel<Scalar> shared_{};
  const double* inputs_ = nullptr;
  LaneIsa lane_isa_;
  Rk4Lanes<Scalar> rk4_lanes_;
  std::size_t n_ = 0;
  std::vector<double> trajectory_, quantities_;
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

std::unique_ptr<Backend> make_backend(BackendChoice choice, Precision precision, unsigned threads, int device) {
  if (choice == BackendChoice::cuda || (choice == BackendChoice::automatic && cuda_device_available()))
    return make_cuda_backend(precision, device);
  return make_cpu_backend(precision, threads);
}

}  // namespace rbmc

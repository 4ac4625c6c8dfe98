// The CUDA backend: the device draws a batch's inputs (the same draw_batch_row as the CPU's) and
// keeps them for the kernel, which integrates it (one thread per sample, the same per-sample
// function as the CPU backend); inputs drawn on the host are converted to the run's precision and
// sent. Only what the file keeps crosses back.
#include <algorithm>
#include <chrono>
#include <climits>
#include <vector>

#include "host/backend/backend.hpp"
#include "host/backend/cuda_check.hpp"
#include "host/backend/device_buffer.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "host/util/parallel_for.hpp"
#include "kernels/draw_inputs.cuh"
#include "kernels/run_batch.cuh"
#include "kernels/statistics.cuh"
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

bool cuda_device_available() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
    (void)cudaGetLastError();  // reset the recorded error so that later calls start clean
    return false;
  }
  RBMC_CUDA_CHECK(e);
  return count > 0;
}

namespace {

template <class Scalar>
class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int sharing)
      : sharing_(std::max(1, sharing)), copy_threads_(std::max(1u, default_thread_count() / unsigned(sharing_))) {
    if (!cuda_device_available()) throw CudaError("--backend cuda: no CUDA device is present (or its driver is missing)");
    RBMC_CUDA_CHECK(cudaGetDevice(&device_));
    RBMC_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device_));
    RBMC_CUDA_CHECK(cudaStreamCreate(&stream_));
    for (cudaEvent_t& e : staged_) RBMC_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~CudaBackend() override {
    for (cudaEvent_t e : staged_) (void)cudaEventDestroy(e);
    (void)cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda"; }
  std::string device() const override { return properties_.name; }

  // Half of the free device memory (of this process's share of it, when several share the GPU:
  // they may all ask at once); the driver bounds the samples a batch holds whatever the memory
  // (host/run/batch_sizing.hpp), so that memory stays flat in N. What a sample keeps at the
  // output times stays on the device: its states, its quantities and, for the sort that compacts
  // them, their copy. Only the kept trajectories and, for the statistics, the moments and each
  // column's compacted values (or, for exact quantiles, every value, within [output]
  // quantile_memory_mb) cross to the host.
  std::size_t max_batch_size(const BatchIntegration& how) const override {
    std::size_t free_bytes = 0, total_bytes = 0;
    RBMC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t kept = kept_bytes_per_sample(how) / sizeof(double) * sizeof(Scalar);
    const std::size_t sorted =
        how.statistics ? std::size_t(how.shared.output_times.n) * quantity::count * sizeof(Scalar) : 0;
    // The inputs and outputs sized for the most events a scenario can declare, and the inputs as
    // drawn on the device, in double, with their sample index (the drawn dispersions' values, a
    // few columns, fit in the half left free).
    const std::size_t per_sample =
        (input_column_count(kMaxModelParameters) + output_column_count(EventSet<double>::kMax)) * sizeof(Scalar) + 1 +
        (input_column_count(kMaxModelParameters) + 1) * sizeof(double) + kept + sorted;
    const std::size_t share = free_bytes / 2 / std::size_t(sharing_);
    return std::max<std::size_t>(1024, share / per_sample);
  }

  // The batch drawn by draw_batch_row on the device, into d_drawn_ (double), copied to the host
  // where the file keeps it; integrate then rounds it on the device instead of sending it.
  bool draw_inputs(const SamplingPlan& plan, const std::uint64_t* index, std::size_t n, double* inputs, double* params,
                   const DrawnColumnsWanted& wanted, std::uint64_t& redrawn, StageTimings& timings) override {
    const int n_model = plan.scenario().model_parameters.n;
    const std::size_t n_in = n * std::size_t(input_column_count(n_model)),
                      n_params = n * std::size_t(plan.n_parameter_values());
    drawn_inputs_ = nullptr;
    {
      StageClock clock(&timings, Stage::transfer);
      if (plan.id() != sampling_plan_id_) upload_sampling_tables(plan);
      d_index_.reserve(n);
      d_drawn_.reserve(n_in);
      d_params_.reserve(std::max<std::size_t>(n_params, 1));
      RBMC_CUDA_CHECK(cudaMemcpyAsync(d_index_.data(), index, n * sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream_));
      RBMC_CUDA_CHECK(cudaMemsetAsync(d_sampling_.data() + sizeof(SamplingModel), 0, sizeof(unsigned long long), stream_));
    }
    {
      StageClock clock(&timings, Stage::sample);
      RBMC_CUDA_CHECK(kernels::launch_draw_inputs(device_model(), d_index_.data(), n, n_model, d_drawn_.data(),
                                                  d_params_.data(), device_redraw_count(), stream_));
      RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    StageClock clock(&timings, Stage::transfer);
    unsigned long long redraws = 0;
    RBMC_CUDA_CHECK(cudaMemcpyAsync(&redraws, device_redraw_count(), sizeof(redraws), cudaMemcpyDeviceToHost, stream_));
    // Through the page-locked staging, as the outputs: a copy into pageable memory would go
    // through the driver's own buffer on one thread.
    if (wanted.inputs) copy_to_host(d_drawn_.data(), n_in, inputs);
    if (wanted.params && n_params > 0) copy_to_host(d_params_.data(), n_params, params);
    RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    redrawn += redraws;
    drawn_inputs_ = inputs;
    drawn_n_ = n;
    return true;
  }

  // Keeps every row's states on the device (needs.state_rows unused): its statistics' quantities
  // read them all.
  void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n, const BatchIntegration& how,
                 const BatchNeeds& /*needs*/, StageTimings& timings) override {
    shared_ = how.shared.cast<Scalar>();
    n_ = n;
    const int n_times = shared_.output_times.n;
    const bool states = n_times > 0 && (how.statistics || how.keep_states);
    const std::size_t n_in = n * std::size_t(input_column_count(how.shared.parameters.n)),
                      n_out = n * std::size_t(output_column_count(how.shared.events.n)),
                      n_traj = states ? n * std::size_t(n_times) * kTrajectoryColumns : 0;
    const bool drawn_here = inputs == drawn_inputs_ && n == drawn_n_;
    drawn_inputs_ = nullptr;
    {
      StageClock clock(&timings, Stage::transfer);
      d_inputs_.reserve(n_in);
      d_outputs_.reserve(n_out);
      d_trajectory_.reserve(n_traj);
      d_status_.reserve(n);
      if (drawn_here) {
        // double -> Scalar on the device, the same rounding as the host's conversion below.
        RBMC_CUDA_CHECK(kernels::launch_round_columns<Scalar>(d_drawn_.data(), n_in, d_inputs_.data(), stream_));
      } else {
        staging_in_.assign(inputs, inputs + n_in);  // double -> Scalar, as load_sample_inputs rounds on the CPU
        RBMC_CUDA_CHECK(cudaMemcpyAsync(d_inputs_.data(), staging_in_.data(), n_in * sizeof(Scalar),
                                        cudaMemcpyHostToDevice, stream_));
      }
      RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    {
      StageClock clock(&timings, Stage::integrate);
      launch_in_parts(n, shared_, how, states ? d_trajectory_.data() : nullptr);
      RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    StageClock clock(&timings, Stage::transfer);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(status, d_status_.data(), n, cudaMemcpyDeviceToHost, stream_));
    copy_to_host(d_outputs_.data(), n_out, outputs);
  }

  // Quantities and their column moments on the device; only the moments and the quantile rows'
  // values cross to the host.
  void reduce_statistics(const BatchIntegration& how, const std::vector<std::uint32_t>& rows,
                         std::vector<Moments>& moments, QuantityValues& values, StageTimings& timings) override {
    const StageClock clock(&timings, Stage::statistics);
    const std::size_t n = n_, columns = quantities_and_moments(how, moments);
    // The quantile rows' values, column by column ((columns, rows), as RunStatistics::add takes them).
    values.assign(rows.size() * columns, 0.0);
    if (!rows.empty()) {
      d_rows_.reserve(rows.size());
      d_gathered_.reserve(rows.size() * columns);
      RBMC_CUDA_CHECK(cudaMemcpyAsync(d_rows_.data(), rows.data(), rows.size() * sizeof(std::uint32_t),
                                      cudaMemcpyHostToDevice, stream_));
      RBMC_CUDA_CHECK(kernels::launch_gather_columns<Scalar>(d_quantities_.data(), n, columns, d_rows_.data(), rows.size(),
                                                             d_gathered_.data(), stream_));
    }
    copy_to_host(d_gathered_.data(), values.size(), values.data());  // the moments' copy completes with it
  }

  // The columns classified against their brackets, and their kept values sorted and compacted, on
  // the device (kernels/statistics.cuh): a few thousand values a column cross to the host instead
  // of every sample's, and fewer once the brackets narrow. Batches of fewer than 2 · keep samples
  // have nothing to compact, and take reduce_statistics.
  bool reduce_statistics_compacted(const BatchIntegration& how, const BatchCompactionRequest& request,
                                   const std::vector<ColumnBrackets>& brackets, std::vector<Moments>& moments,
                                   CompactedColumns& compacted, StageTimings& timings) override {
    if (request.keep == 0 || n_ < 2 * request.keep) return false;
    const StageClock clock(&timings, Stage::statistics);
    const std::size_t n = n_, columns = quantities_and_moments(how, moments);
    if (brackets.size() != columns) throw std::logic_error("reduce_statistics_compacted: a bracket for each column");
    d_brackets_.reserve(columns);
    d_tallies_.reserve(columns);
    d_offsets_.reserve(columns + 1);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_brackets_.data(), brackets.data(), columns * sizeof(ColumnBrackets),
                                    cudaMemcpyHostToDevice, stream_));
    std::size_t temp_bytes = 0;
    RBMC_CUDA_CHECK(kernels::compact_columns_in_brackets<Scalar>(d_quantities_.data(), n, columns, nullptr, request,
                                                                 nullptr, nullptr, temp_bytes, nullptr, nullptr,
                                                                 nullptr, stream_));
    temp_bytes = std::max<std::size_t>(temp_bytes, 1);  // a null scratch would ask for the size again
    d_sort_temp_.reserve(temp_bytes);
    d_sorted_.reserve(std::min(columns, std::max<std::size_t>(1, std::size_t(INT_MAX) / n)) * n);
    d_gathered_.reserve(columns * std::size_t(compacted_capacity(n, request.keep)));
    RBMC_CUDA_CHECK(kernels::compact_columns_in_brackets<Scalar>(
        d_quantities_.data(), n, columns, d_brackets_.data(), request, d_sorted_.data(), d_sort_temp_.data(),
        temp_bytes, d_tallies_.data(), d_offsets_.data(), d_gathered_.data(), stream_));
    compacted.tallies.resize(columns);
    compacted.offsets.resize(columns + 1);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(compacted.tallies.data(), d_tallies_.data(), columns * sizeof(ColumnTally),
                                    cudaMemcpyDeviceToHost, stream_));
    RBMC_CUDA_CHECK(cudaMemcpyAsync(compacted.offsets.data(), d_offsets_.data(), (columns + 1) * sizeof(std::uint64_t),
                                    cudaMemcpyDeviceToHost, stream_));
    RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the moments' copy completes with them
    compacted.values.resize(compacted.offsets[columns]);  // unwritten: the copy on every core touches it first
    copy_to_host(d_gathered_.data(), compacted.values.size(), compacted.values.data());
    return true;
  }

  // Only the retained rows' trajectories cross to the host.
  void gather_trajectories(const std::vector<std::uint32_t>& rows, std::vector<double>& trajectories,
                           StageTimings& timings) override {
    const StageClock clock(&timings, Stage::gather);
    gather_to_host(d_trajectory_.data(), n_, std::size_t(shared_.output_times.n) * kTrajectoryColumns, rows, trajectories);
  }

  // The whole batch at once, or, when a stop may be requested, in parts of about a quarter of a
  // second each (sized from the previous part's time), with the request checked between them: a
  // large batch is abandoned within a second, at the cost of a synchronisation per part.
  void launch_in_parts(std::size_t n, const SharedModel<Scalar>& shared, const BatchIntegration& how,
                       Scalar* trajectory) {
    const IntegrationSettings<Scalar> settings = how.settings.cast<Scalar>();
    if (how.stop == nullptr) {
      RBMC_CUDA_CHECK(kernels::launch_run_batch<Scalar>(d_inputs_.data(), d_outputs_.data(), trajectory,
                                                        d_status_.data(), n, shared, settings, stream_));
      return;
    }
    std::size_t part = std::size_t(1) << 16;
    for (std::size_t first = 0; first < n;) {
      if (how.stop->load(std::memory_order_relaxed)) throw BatchAbandoned();
      const std::size_t count = std::min(part, n - first);
      const auto start = std::chrono::steady_clock::now();
      RBMC_CUDA_CHECK(kernels::launch_run_batch<Scalar>(d_inputs_.data(), d_outputs_.data(), trajectory,
                                                        d_status_.data(), n, shared, settings, stream_, first, count));
      RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));
      first += count;
      if (how.progress != nullptr) how.progress->fetch_add(count, std::memory_order_relaxed);
      // The next part: a quarter of a second at the rate just seen, at most 4 times this one.
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double scale = seconds > 0 ? std::min(4.0, 0.25 / seconds) : 4.0;
      part = std::max<std::size_t>(8192, std::size_t(double(count) * scale));
    }
    if (how.stop->load(std::memory_order_relaxed)) throw BatchAbandoned();
  }

 private:
  // The plan's SamplingModel and its tables copied to the device, once per plan: d_sampling_ holds
  // the model (pointing at the copies in d_sampling_tables_), then the redraw counter.
  void upload_sampling_tables(const SamplingPlan& plan) {
    const SamplingImage image = sampling_image(plan);
    d_sampling_tables_.reserve(std::max<std::size_t>(image.bytes.size(), 1));
    d_sampling_.reserve(sizeof(SamplingModel) + sizeof(unsigned long long));
    const SamplingModel model = image.model_at(d_sampling_tables_.data());
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_sampling_tables_.data(), image.bytes.data(), image.bytes.size(),
                                    cudaMemcpyHostToDevice, stream_));
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_sampling_.data(), &model, sizeof(model), cudaMemcpyHostToDevice, stream_));
    RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));  // image and model are about to go
    sampling_plan_id_ = plan.id();
  }
  const SamplingModel* device_model() { return reinterpret_cast<const SamplingModel*>(d_sampling_.data()); }
  unsigned long long* device_redraw_count() {
    return reinterpret_cast<unsigned long long*>(d_sampling_.data() + sizeof(SamplingModel));
  }

  // The batch's quantities at the output times on the device, and their moments per column, also
  // copied to `moments` (on the stream: complete after its next synchronisation). Returns the
  // number of columns.
  std::size_t quantities_and_moments(const BatchIntegration& how, std::vector<Moments>& moments) {
    const int n_times = shared_.output_times.n;
    const std::size_t n = n_, columns = std::size_t(n_times) * quantity::count;
    staging_nominal_.clear();
    for (const Quaternion<double>& q : how.nominal_attitudes)
      staging_nominal_.push_back({Scalar(q.w), Scalar(q.x), Scalar(q.y), Scalar(q.z)});
    d_nominal_.reserve(staging_nominal_.size());
    d_quantities_.reserve(n * columns);
    d_moments_.reserve(columns);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_nominal_.data(), staging_nominal_.data(),
                                    staging_nominal_.size() * sizeof(Quaternion<Scalar>), cudaMemcpyHostToDevice, stream_));
    RBMC_CUDA_CHECK(kernels::launch_compute_quantities<Scalar>(d_inputs_.data(), d_trajectory_.data(), d_nominal_.data(),
                                                               n_times, n, shared_, d_quantities_.data(), stream_));
    RBMC_CUDA_CHECK(kernels::reduce_column_moments<Scalar>(d_quantities_.data(), n, columns, d_moments_.data(), stream_));
    moments.resize(columns);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(moments.data(), d_moments_.data(), columns * sizeof(Moments), cudaMemcpyDeviceToHost,
                                    stream_));
    return columns;
  }

  // Rows of a device structure-of-arrays buffer, gathered on the device and copied as doubles.
  // `out` is resized, not cleared: a batch's buffer of the same size is overwritten in place,
  // without first filling hundreds of megabytes with zeros.
  void gather_to_host(const Scalar* data, std::size_t n, std::size_t columns, const std::vector<std::uint32_t>& rows,
                      std::vector<double>& out) {
    out.resize(rows.size() * columns);
    if (rows.empty()) return;
    d_rows_.reserve(rows.size());
    d_gathered_.reserve(rows.size() * columns);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_rows_.data(), rows.data(), rows.size() * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice, stream_));
    RBMC_CUDA_CHECK(kernels::launch_gather_rows<Scalar>(data, n, columns, d_rows_.data(), rows.size(),
                                                        d_gathered_.data(), stream_));
    copy_to_host(d_gathered_.data(), out.size(), out.data());
  }

  // count values (Scalar, or the draws' doubles) from the device into `out` as doubles, in parts
  // through two halves of page-locked staging: part k + 1 crosses the bus while the host's cores
  // (this process's share of them) copy part k out. A half is at most kStagingHalf bytes whatever
  // the count: a batch's compacted columns or kept trajectories (hundreds of megabytes) once took
  // as much page-locked memory, whose allocation cost 0.09–0.12 s of the default scenario's first
  // batch on an H200's host (bench/RESULTS.md, 2026-11-27). A small run's copies lock only what
  // they need, not 64 MiB. The stream is synchronised, so earlier copies on it are complete too.
  template <class T>
  void copy_to_host(const T* device_values, std::size_t count, double* out) {
    constexpr std::size_t kStagingHalf = std::size_t(32) << 20;  // bytes
    constexpr std::size_t kPart = kStagingHalf / sizeof(T);     // values a half holds
    const std::size_t parts = (count + kPart - 1) / kPart;
    // A copy of at most 4 MiB (one part) stages in a buffer of its size; any larger one takes both
    // halves whole, so that a large run allocates its staging once.
    const bool small = count * sizeof(T) <= (std::size_t(4) << 20);
    staging_.reserve(small ? std::max<std::size_t>(count * sizeof(T), 1) : 2 * kStagingHalf);
    T* const halves[2] = {reinterpret_cast<T*>(staging_.data()),
                          reinterpret_cast<T*>(staging_.data() + (small ? 0 : kStagingHalf))};
    const auto send = [&](std::size_t k) {  // part k into its half of the staging
      const std::size_t first = k * kPart, n = std::min(kPart, count - first);
      RBMC_CUDA_CHECK(
          cudaMemcpyAsync(halves[k % 2], device_values + first, n * sizeof(T), cudaMemcpyDeviceToHost, stream_));
      RBMC_CUDA_CHECK(cudaEventRecord(staged_[k % 2], stream_));
    };
    if (parts > 0) send(0);
    for (std::size_t k = 0; k < parts; ++k) {
      if (k + 1 < parts) send(k + 1);  // into the half part k − 1 left, copied out already
      RBMC_CUDA_CHECK(cudaEventSynchronize(staged_[k % 2]));
      const std::size_t first = k * kPart, n = std::min(kPart, count - first);
      const T* from = halves[k % 2];
      constexpr std::size_t kBlock = std::size_t(1) << 18;  // values a claim: 1–2 MiB
      parallel_for((n + kBlock - 1) / kBlock, copy_threads_, [&](std::size_t begin, std::size_t end) {
        std::copy(from + begin * kBlock, from + std::min(n, end * kBlock), out + first + begin * kBlock);
      });
    }
    RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  int device_ = 0;
  int sharing_ = 1;  // the processes using this GPU
  cudaDeviceProp properties_{};
  cudaStream_t stream_ = nullptr;
  std::vector<Scalar> staging_in_;
  cuda::PinnedBuffer<unsigned char> staging_;  // what comes back from the device (copy_to_host)
  cudaEvent_t staged_[2] = {nullptr, nullptr};  // each half's copy done
  unsigned copy_threads_ = 1;
  std::vector<Quaternion<Scalar>> staging_nominal_;
  cuda::DeviceBuffer<Scalar> d_inputs_, d_outputs_, d_trajectory_, d_quantities_, d_gathered_, d_sorted_;
  cuda::DeviceBuffer<unsigned char> d_sort_temp_;
  cuda::DeviceBuffer<std::uint8_t> d_status_;
  cuda::DeviceBuffer<std::uint32_t> d_rows_;
  cuda::DeviceBuffer<Quaternion<Scalar>> d_nominal_;
  cuda::DeviceBuffer<Moments> d_moments_;
  cuda::DeviceBuffer<ColumnBrackets> d_brackets_;
  cuda::DeviceBuffer<ColumnTally> d_tallies_;
  cuda::DeviceBuffer<std::uint64_t> d_offsets_;
  // Sampling on the device: the plan's model and tables, the batch's sample indices and its draws.
  // cudaMalloc aligns to 256 bytes, enough for the model and the counter after it.
  cuda::DeviceBuffer<unsigned char> d_sampling_, d_sampling_tables_;
  std::uint64_t sampling_plan_id_ = 0;
  cuda::DeviceBuffer<std::uint64_t> d_index_;
  cuda::DeviceBuffer<double> d_drawn_, d_params_;
  const double* drawn_inputs_ = nullptr;  // the host's copy of the inputs in d_drawn_, and their rows
  std::size_t drawn_n_ = 0;
  // What the last integrate kept for the later primitives.
  SharedModel<Scalar> shared_{};
  std::size_t n_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(Precision precision, int device, int processes_on_node) {
  int sharing = 1;  // the processes using this GPU
  if (device >= 0 && cuda_device_available()) {
    int count = 0;
    RBMC_CUDA_CHECK(cudaGetDeviceCount(&count));
    RBMC_CUDA_CHECK(cudaSetDevice(device % count));  // ranks of a node share its GPUs round-robin
    sharing = (std::max(1, processes_on_node) + count - 1 - device % count) / count;
  }
  if (precision == Precision::float32) return std::make_unique<CudaBackend<float>>(sharing);
  return std::make_unique<CudaBackend<double>>(sharing);
}

}  // namespace rbmc

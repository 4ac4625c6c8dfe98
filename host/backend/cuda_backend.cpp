// The CUDA backend: the device draws a batch's inputs (the same draw_batch_row as the CPU's) and
// keeps them for the kernel, which integrates it (one thread per sample, the same per-sample
// function as the CPU backend); inputs drawn on the host are converted to the run's precision and
// sent. Only what the file keeps crosses back. A batch's draws and kernel may run while the host
// still reduces the batch before it (begin_batch): each has device buffers and a stream of its
// own (a Slot), two in all.
#include <algorithm>
#include <chrono>
#include <climits>
#include <vector>

#include "host/backend/backend.hpp"
#include "host/backend/batch_slots.hpp"
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
  // What one batch holds on the device from its draws to the later primitives, and the stream
  // its work goes on.
  struct Slot {
    cudaStream_t stream = nullptr;
    cuda::DeviceBuffer<std::uint64_t> index;     // (n) each row's global sample index
    cuda::DeviceBuffer<double> drawn, params;    // the draws, as the host's: (input columns, n), (parameter values, n)
    cuda::DeviceBuffer<unsigned long long> redraws;  // (1) the validity policy's redraws
    cuda::DeviceBuffer<Scalar> inputs, outputs;  // (input columns, n), (output columns, n)
    cuda::DeviceBuffer<Scalar> trajectory;       // (output times × 13, n), when states are kept
    cuda::DeviceBuffer<std::uint8_t> status;     // (n)
    std::size_t n = 0;
    int n_model_parameters = 0;
    std::size_t n_parameter_values = 0;
    SharedModel<Scalar> shared{};
    const BatchIntegration* how = nullptr;  // a batch begun ahead's (begin_batch)
    StageTimings seconds;                   // a batch begun ahead's stages, on the slots' thread
  };

 public:
  explicit CudaBackend(int sharing)
      : sharing_(std::max(1, sharing)), copy_threads_(std::max(1u, default_thread_count() / unsigned(sharing_))) {
    if (!cuda_device_available()) throw CudaError("--backend cuda: no CUDA device is present (or its driver is missing)");
    RBMC_CUDA_CHECK(cudaGetDevice(&device_));
    RBMC_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device_));
    for (Slot& slot : slots_.both()) RBMC_CUDA_CHECK(cudaStreamCreate(&slot.stream));
    for (cudaEvent_t& e : staged_) RBMC_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~CudaBackend() override {
    slots_.drop();
    for (cudaEvent_t e : staged_) (void)cudaEventDestroy(e);
    for (Slot& slot : slots_.both()) (void)cudaStreamDestroy(slot.stream);
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
    // few columns, fit in the half left free), and the states at the output times: each twice, a
    // slot's for the batch integrated and one for the batch begun ahead.
    const std::size_t states =
        std::size_t(how.shared.output_times.n) * std::size_t(kTrajectoryColumns) * sizeof(Scalar);
    const std::size_t slot =
        (input_column_count(kMaxModelParameters) + output_column_count(EventSet<double>::kMax)) * sizeof(Scalar) + 1 +
        (input_column_count(kMaxModelParameters) + 1) * sizeof(double) + states;
    const std::size_t per_sample = 2 * slot + (kept - states) + sorted;
    const std::size_t share = free_bytes / 2 / std::size_t(sharing_);
    return std::max<std::size_t>(1024, share / per_sample);
  }

  // The batch drawn by draw_batch_row on the device (in double, into the next slot), copied to the
  // host where the file keeps it; integrate then rounds it on the device instead of sending it.
  bool draw_inputs(const SamplingPlan& plan, const std::uint64_t* index, std::size_t n, double* inputs, double* params,
                   const DrawnColumnsWanted& wanted, std::uint64_t& redrawn, StageTimings& timings) override {
    slots_.expect_nothing_begun("draw_inputs");
    Slot& slot = slots_.next();
    drawn_inputs_ = nullptr;
    {
      StageClock clock(&timings, Stage::transfer);
      send_index(plan, index, n, slot);
    }
    {
      StageClock clock(&timings, Stage::sample);
      draw(slot);
      RBMC_CUDA_CHECK(cudaStreamSynchronize(slot.stream));
    }
    StageClock clock(&timings, Stage::transfer);
    copy_draws_back(slot, inputs, params, wanted, redrawn);
    drawn_inputs_ = inputs;
    drawn_n_ = n;
    return true;
  }

  // In the next slot (where draw_inputs left its draws); the later primitives then read that slot.
  // Keeps every row's states on the device (needs.state_rows unused): its statistics' quantities
  // read them all.
  void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n, const BatchIntegration& how,
                 const BatchNeeds& /*needs*/, StageTimings& timings) override {
    slots_.expect_nothing_begun("integrate");
    Slot& slot = slots_.next();
    const bool drawn_here = inputs == drawn_inputs_ && n == drawn_n_;
    drawn_inputs_ = nullptr;
    slot.n = n;
    {
      StageClock clock(&timings, Stage::transfer);
      reserve_for_integration(slot, how);
      if (drawn_here) {
        round_draws(slot);
      } else {
        const std::size_t n_in = n * std::size_t(input_column_count(how.shared.parameters.n));
        staging_in_.assign(inputs, inputs + n_in);  // double -> Scalar, as load_sample_inputs rounds on the CPU
        RBMC_CUDA_CHECK(cudaMemcpyAsync(slot.inputs.data(), staging_in_.data(), n_in * sizeof(Scalar),
                                        cudaMemcpyHostToDevice, slot.stream));
      }
      RBMC_CUDA_CHECK(cudaStreamSynchronize(slot.stream));
    }
    {
      StageClock clock(&timings, Stage::integrate);
      launch_in_parts(slot, how, nullptr);
      RBMC_CUDA_CHECK(cudaStreamSynchronize(slot.stream));
    }
    slots_.integrated();
    StageClock clock(&timings, Stage::transfer);
    copy_outputs_back(slot, how, outputs, status);
  }

  // The batch drawn and integrated in the next slot, on the slots' thread (which waits on the
  // slot's stream and checks for a stop between the parts of the kernel) while the driver reduces
  // and gathers the current slot's batch on its stream.
  bool begin_batch(const SamplingPlan& plan, const std::uint64_t* index, std::size_t n,
                   const BatchIntegration& how) override {
    slots_.expect_nothing_begun("begin_batch");
    drawn_inputs_ = nullptr;
    Slot& slot = slots_.next();
    slot.n = n;
    slot.seconds = StageTimings{};
    slot.how = &how;
    // The index crosses here, from memory the driver reuses once this returns (a copy from
    // pageable memory is staged before the call returns); the tables too (once per plan).
    send_index(plan, index, n, slot);
    reserve_for_integration(slot, how);
    slots_.begin([this](Slot& begun, const std::atomic<bool>& dropped) {
      RBMC_CUDA_CHECK(cudaSetDevice(device_));  // a thread's current device is the first until set
      {
        StageClock clock(&begun.seconds, Stage::sample);
        draw(begun);
        RBMC_CUDA_CHECK(cudaStreamSynchronize(begun.stream));
      }
      StageClock clock(&begun.seconds, Stage::integrate);
      round_draws(begun);
      launch_in_parts(begun, *begun.how, &dropped);
      RBMC_CUDA_CHECK(cudaStreamSynchronize(begun.stream));
    });
    return true;
  }

  // Rethrows BatchAbandoned, or a CUDA error of the slots' thread.
  void finish_batch(double* inputs, double* params, const DrawnColumnsWanted& wanted, double* outputs,
                    std::uint8_t* status, std::uint64_t& redrawn, StageTimings& timings, StageTimings& ahead) override {
    Slot& slot = slots_.finish(timings);
    ahead += slot.seconds;
    StageClock clock(&timings, Stage::transfer);
    copy_draws_back(slot, inputs, params, wanted, redrawn);
    copy_outputs_back(slot, *slot.how, outputs, status);
  }

  void drop_batch() noexcept override { slots_.drop(); }

  // Quantities and their column moments on the device; only the moments and the quantile rows'
  // values cross to the host.
  void reduce_statistics(const BatchIntegration& how, const std::vector<std::uint32_t>& rows,
                         std::vector<Moments>& moments, QuantityValues& values, StageTimings& timings) override {
    const StageClock clock(&timings, Stage::statistics);
    const Slot& slot = slots_.current();
    const std::size_t n = slot.n, columns = quantities_and_moments(how, moments);
    // The quantile rows' values, column by column ((columns, rows), as RunStatistics::add takes them):
    // every one copied from the device, so grown unzeroed (QuantityValues).
    values.resize(rows.size() * columns);
    if (!rows.empty()) {
      d_rows_.reserve(rows.size());
      d_gathered_.reserve(rows.size() * columns);
      RBMC_CUDA_CHECK(cudaMemcpyAsync(d_rows_.data(), rows.data(), rows.size() * sizeof(std::uint32_t),
                                      cudaMemcpyHostToDevice, slot.stream));
      RBMC_CUDA_CHECK(kernels::launch_gather_columns<Scalar>(d_quantities_.data(), n, columns, d_rows_.data(), rows.size(),
                                                             d_gathered_.data(), slot.stream));
    }
    // The moments' copy completes with it.
    copy_to_host(d_gathered_.data(), values.size(), values.data(), slot.stream);
  }

  // The columns classified against their brackets, and their kept values sorted and compacted, on
  // the device (kernels/statistics.cuh): a few thousand values a column cross to the host instead
  // of every sample's, and fewer once the brackets narrow. Batches of fewer than 2 · keep samples
  // have nothing to compact, and take reduce_statistics.
  bool reduce_statistics_compacted(const BatchIntegration& how, const BatchCompactionRequest& request,
                                   const std::vector<ColumnBrackets>& brackets, std::vector<Moments>& moments,
                                   CompactedColumns& compacted, StageTimings& timings) override {
    const Slot& slot = slots_.current();
    if (request.keep == 0 || slot.n < 2 * request.keep) return false;
    const StageClock clock(&timings, Stage::statistics);
    const cudaStream_t stream = slot.stream;
    const std::size_t n = slot.n, columns = quantities_and_moments(how, moments);
    if (brackets.size() != columns) throw std::logic_error("reduce_statistics_compacted: a bracket for each column");
    d_brackets_.reserve(columns);
    d_tallies_.reserve(columns);
    d_offsets_.reserve(columns + 1);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_brackets_.data(), brackets.data(), columns * sizeof(ColumnBrackets),
                                    cudaMemcpyHostToDevice, stream));
    std::size_t temp_bytes = 0;
    RBMC_CUDA_CHECK(kernels::compact_columns_in_brackets<Scalar>(d_quantities_.data(), n, columns, nullptr, request,
                                                                 nullptr, nullptr, temp_bytes, nullptr, nullptr,
                                                                 nullptr, stream));
    temp_bytes = std::max<std::size_t>(temp_bytes, 1);  // a null scratch would ask for the size again
    d_sort_temp_.reserve(temp_bytes);
    d_sorted_.reserve(std::min(columns, std::max<std::size_t>(1, std::size_t(INT_MAX) / n)) * n);
    d_gathered_.reserve(columns * std::size_t(compacted_capacity(n, request.keep)));
    RBMC_CUDA_CHECK(kernels::compact_columns_in_brackets<Scalar>(
        d_quantities_.data(), n, columns, d_brackets_.data(), request, d_sorted_.data(), d_sort_temp_.data(),
        temp_bytes, d_tallies_.data(), d_offsets_.data(), d_gathered_.data(), stream));
    compacted.tallies.resize(columns);
    compacted.offsets.resize(columns + 1);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(compacted.tallies.data(), d_tallies_.data(), columns * sizeof(ColumnTally),
                                    cudaMemcpyDeviceToHost, stream));
    RBMC_CUDA_CHECK(cudaMemcpyAsync(compacted.offsets.data(), d_offsets_.data(), (columns + 1) * sizeof(std::uint64_t),
                                    cudaMemcpyDeviceToHost, stream));
    RBMC_CUDA_CHECK(cudaStreamSynchronize(stream));  // the moments' copy completes with them
    compacted.values.resize(compacted.offsets[columns]);  // unwritten: the copy on every core touches it first
    copy_to_host(d_gathered_.data(), compacted.values.size(), compacted.values.data(), stream);
    return true;
  }

  // Only the retained rows' trajectories cross to the host.
  void gather_trajectories(const std::vector<std::uint32_t>& rows, std::vector<double>& trajectories,
                           StageTimings& timings) override {
    const StageClock clock(&timings, Stage::gather);
    const Slot& slot = slots_.current();
    gather_to_host(slot, slot.trajectory.data(), std::size_t(slot.shared.output_times.n) * kTrajectoryColumns, rows,
                   trajectories);
  }

  // The slot's batch whole at once, or, when a stop may be requested (how.stop, or `dropped`:
  // drop_batch's), in parts of about a quarter of a second each (sized from the previous part's
  // time), with the request checked between them: a large batch is abandoned within a second, at
  // the cost of a synchronisation per part. The states at the output times are kept when the
  // statistics or the trajectories need them.
  void launch_in_parts(Slot& slot, const BatchIntegration& how, const std::atomic<bool>* dropped) {
    const IntegrationSettings<Scalar> settings = how.settings.cast<Scalar>();
    const SharedModel<Scalar>& shared = slot.shared;
    const std::size_t n = slot.n;
    Scalar* const trajectory = keeps_states(how) ? slot.trajectory.data() : nullptr;
    const auto stop_requested = [&] {
      return (how.stop != nullptr && how.stop->load(std::memory_order_relaxed)) ||
             (dropped != nullptr && dropped->load(std::memory_order_relaxed));
    };
    if (how.stop == nullptr && dropped == nullptr) {
      RBMC_CUDA_CHECK(kernels::launch_run_batch<Scalar>(slot.inputs.data(), slot.outputs.data(), trajectory,
                                                        slot.status.data(), n, shared, settings, slot.stream));
      return;
    }
    std::size_t part = std::size_t(1) << 16;
    for (std::size_t first = 0; first < n;) {
      if (stop_requested()) throw BatchAbandoned();
      const std::size_t count = std::min(part, n - first);
      const auto start = std::chrono::steady_clock::now();
      RBMC_CUDA_CHECK(kernels::launch_run_batch<Scalar>(slot.inputs.data(), slot.outputs.data(), trajectory,
                                                        slot.status.data(), n, shared, settings, slot.stream, first,
                                                        count));
      RBMC_CUDA_CHECK(cudaStreamSynchronize(slot.stream));
      first += count;
      if (how.progress != nullptr) how.progress->fetch_add(count, std::memory_order_relaxed);
      // The next part: a quarter of a second at the rate just seen, at most 4 times this one.
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double scale = seconds > 0 ? std::min(4.0, 0.25 / seconds) : 4.0;
      part = std::max<std::size_t>(8192, std::size_t(double(count) * scale));
    }
    if (stop_requested()) throw BatchAbandoned();
  }

 private:
  static bool keeps_states(const BatchIntegration& how) {
    return how.shared.output_times.n > 0 && (how.statistics || how.keep_states);
  }

  // The sampling tables (once per plan) and the rows' sample indices to the device, the redraw
  // counter zeroed: all that draw(slot) needs.
  void send_index(const SamplingPlan& plan, const std::uint64_t* index, std::size_t n, Slot& slot) {
    if (plan.id() != sampling_plan_id_) upload_sampling_tables(plan);
    slot.n = n;
    slot.n_model_parameters = plan.scenario().model_parameters.n;
    slot.n_parameter_values = std::size_t(plan.n_parameter_values());
    slot.index.reserve(n);
    slot.drawn.reserve(n * std::size_t(input_column_count(slot.n_model_parameters)));
    slot.params.reserve(std::max<std::size_t>(n * slot.n_parameter_values, 1));
    slot.redraws.reserve(1);
    RBMC_CUDA_CHECK(
        cudaMemcpyAsync(slot.index.data(), index, n * sizeof(std::uint64_t), cudaMemcpyHostToDevice, slot.stream));
    RBMC_CUDA_CHECK(cudaMemsetAsync(slot.redraws.data(), 0, sizeof(unsigned long long), slot.stream));
  }
  void draw(Slot& slot) {
    RBMC_CUDA_CHECK(kernels::launch_draw_inputs(device_model(), slot.index.data(), slot.n, slot.drawn.data(),
                                                slot.params.data(), slot.redraws.data(), slot.stream));
  }
  // The drawn columns the file keeps, and the redraws, back to the host.
  void copy_draws_back(Slot& slot, double* inputs, double* params, const DrawnColumnsWanted& wanted,
                       std::uint64_t& redrawn) {
    unsigned long long redraws = 0;
    RBMC_CUDA_CHECK(
        cudaMemcpyAsync(&redraws, slot.redraws.data(), sizeof(redraws), cudaMemcpyDeviceToHost, slot.stream));
    // Through the page-locked staging, as the outputs: a copy into pageable memory would go
    // through the driver's own buffer on one thread.
    const std::size_t n_in = slot.n * std::size_t(input_column_count(slot.n_model_parameters)),
                      n_params = slot.n * slot.n_parameter_values;
    if (wanted.inputs) copy_to_host(slot.drawn.data(), n_in, inputs, slot.stream);
    if (wanted.params && n_params > 0) copy_to_host(slot.params.data(), n_params, params, slot.stream);
    RBMC_CUDA_CHECK(cudaStreamSynchronize(slot.stream));
    redrawn += redraws;
  }
  // The slot's buffers for its integration, and the run's model in its precision.
  void reserve_for_integration(Slot& slot, const BatchIntegration& how) {
    slot.shared = how.shared.cast<Scalar>();
    const std::size_t n = slot.n;
    slot.inputs.reserve(n * std::size_t(input_column_count(how.shared.parameters.n)));
    slot.outputs.reserve(n * std::size_t(output_column_count(how.shared.events.n)));
    slot.trajectory.reserve(keeps_states(how) ? n * std::size_t(how.shared.output_times.n) * kTrajectoryColumns : 0);
    slot.status.reserve(n);
  }
  // double -> Scalar on the device, the same rounding as the host's conversion in integrate.
  void round_draws(Slot& slot) {
    const std::size_t n_in = slot.n * std::size_t(input_column_count(slot.n_model_parameters));
    RBMC_CUDA_CHECK(kernels::launch_round_columns<Scalar>(slot.drawn.data(), n_in, slot.inputs.data(), slot.stream));
  }
  void copy_outputs_back(Slot& slot, const BatchIntegration& how, double* outputs, std::uint8_t* status) {
    RBMC_CUDA_CHECK(cudaMemcpyAsync(status, slot.status.data(), slot.n, cudaMemcpyDeviceToHost, slot.stream));
    copy_to_host(slot.outputs.data(), slot.n * std::size_t(output_column_count(how.shared.events.n)), outputs,
                 slot.stream);
  }

  // The plan's SamplingModel and its tables copied to the device, once per plan: d_sampling_ holds
  // the model (pointing at the copies in d_sampling_tables_); each slot has its redraw counter.
  void upload_sampling_tables(const SamplingPlan& plan) {
    const SamplingImage image = sampling_image(plan);
    d_sampling_tables_.reserve(std::max<std::size_t>(image.bytes.size(), 1));
    d_sampling_.reserve(sizeof(SamplingModel));
    const SamplingModel model = image.model_at(d_sampling_tables_.data());
    // Synchronous: image and model are about to go, and a draw on either slot's stream reads them.
    RBMC_CUDA_CHECK(cudaMemcpy(d_sampling_tables_.data(), image.bytes.data(), image.bytes.size(), cudaMemcpyHostToDevice));
    RBMC_CUDA_CHECK(cudaMemcpy(d_sampling_.data(), &model, sizeof(model), cudaMemcpyHostToDevice));
    sampling_plan_id_ = plan.id();
  }
  const SamplingModel* device_model() { return reinterpret_cast<const SamplingModel*>(d_sampling_.data()); }

  // The batch's quantities at the output times on the device, and their moments per column, also
  // copied to `moments` (on the stream: complete after its next synchronisation). Returns the
  // number of columns.
  std::size_t quantities_and_moments(const BatchIntegration& how, std::vector<Moments>& moments) {
    Slot& slot = slots_.current();
    const cudaStream_t stream = slot.stream;
    const int n_times = slot.shared.output_times.n;
    const std::size_t n = slot.n, columns = std::size_t(n_times) * quantity::count;
    staging_nominal_.clear();
    for (const Quaternion<double>& q : how.nominal_attitudes)
      staging_nominal_.push_back({Scalar(q.w), Scalar(q.x), Scalar(q.y), Scalar(q.z)});
    d_nominal_.reserve(staging_nominal_.size());
    d_quantities_.reserve(n * columns);
    d_moments_.reserve(columns);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_nominal_.data(), staging_nominal_.data(),
                                    staging_nominal_.size() * sizeof(Quaternion<Scalar>), cudaMemcpyHostToDevice, stream));
    RBMC_CUDA_CHECK(kernels::launch_compute_quantities<Scalar>(slot.inputs.data(), slot.trajectory.data(),
                                                               d_nominal_.data(), n_times, n, slot.shared,
                                                               d_quantities_.data(), stream));
    RBMC_CUDA_CHECK(kernels::reduce_column_moments<Scalar>(d_quantities_.data(), n, columns, d_moments_.data(), stream));
    moments.resize(columns);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(moments.data(), d_moments_.data(), columns * sizeof(Moments), cudaMemcpyDeviceToHost,
                                    stream));
    return columns;
  }

  // Rows of a device structure-of-arrays buffer, gathered on the device and copied as doubles.
  // `out` is resized, not cleared: a batch's buffer of the same size is overwritten in place,
  // without first filling hundreds of megabytes with zeros.
  void gather_to_host(const Slot& slot, const Scalar* data, std::size_t columns, const std::vector<std::uint32_t>& rows,
                      std::vector<double>& out) {
    out.resize(rows.size() * columns);
    if (rows.empty()) return;
    d_rows_.reserve(rows.size());
    d_gathered_.reserve(rows.size() * columns);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_rows_.data(), rows.data(), rows.size() * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice, slot.stream));
    RBMC_CUDA_CHECK(kernels::launch_gather_rows<Scalar>(data, slot.n, columns, d_rows_.data(), rows.size(),
                                                        d_gathered_.data(), slot.stream));
    copy_to_host(d_gathered_.data(), out.size(), out.data(), slot.stream);
  }

  // count values (Scalar, or the draws' doubles) from the device into `out` as doubles, in parts
  // through two halves of page-locked staging: part k + 1 crosses the bus while the host's cores
  // (this process's share of them) copy part k out. A half is at most kStagingHalf bytes whatever
  // the count: a batch's compacted columns or kept trajectories (hundreds of megabytes) once took
  // as much page-locked memory, whose allocation cost 0.09–0.12 s of the default scenario's first
  // batch on an H200's host (bench/RESULTS.md, 2026-11-27). A small run's copies lock only what
  // they need, not 64 MiB. The stream is synchronised, so earlier copies on it are complete too.
  // Only the driver's thread copies back, one stream at a time.
  template <class T>
  void copy_to_host(const T* device_values, std::size_t count, double* out, cudaStream_t stream) {
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
          cudaMemcpyAsync(halves[k % 2], device_values + first, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
      RBMC_CUDA_CHECK(cudaEventRecord(staged_[k % 2], stream));
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
    RBMC_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  int device_ = 0;
  int sharing_ = 1;  // the processes using this GPU
  cudaDeviceProp properties_{};
  std::vector<Scalar> staging_in_;
  cuda::PinnedBuffer<unsigned char> staging_;  // what comes back from the device (copy_to_host)
  cudaEvent_t staged_[2] = {nullptr, nullptr};  // each half's copy done
  unsigned copy_threads_ = 1;
  std::vector<Quaternion<Scalar>> staging_nominal_;
  // The later primitives' scratch, shared by the slots: each primitive waits for its stream
  // before it returns, so no two batches' work on them overlaps.
  cuda::DeviceBuffer<Scalar> d_quantities_, d_gathered_, d_sorted_;
  cuda::DeviceBuffer<unsigned char> d_sort_temp_;
  cuda::DeviceBuffer<std::uint32_t> d_rows_;
  cuda::DeviceBuffer<Quaternion<Scalar>> d_nominal_;
  cuda::DeviceBuffer<Moments> d_moments_;
  cuda::DeviceBuffer<ColumnBrackets> d_brackets_;
  cuda::DeviceBuffer<ColumnTally> d_tallies_;
  cuda::DeviceBuffer<std::uint64_t> d_offsets_;
  // Sampling on the device: the plan's model (d_sampling_) and tables, shared by the slots.
  cuda::DeviceBuffer<unsigned char> d_sampling_, d_sampling_tables_;
  std::uint64_t sampling_plan_id_ = 0;
  const double* drawn_inputs_ = nullptr;  // the host's copy of the inputs drawn into the next slot, and their rows
  std::size_t drawn_n_ = 0;
  // The batch integrated last (current) and the next one (integrated in turn, or begun ahead).
  // Last: a batch begun ahead is dropped before the members its work uses go.
  BatchSlots<Slot> slots_;
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

// A backend integrates batches of samples laid out as in rbmc/sample/sample_layout.hpp, and
// offers the primitives that reduce what a run keeps of them: the statistics at the output times
// and the trajectories the file retains. The run's driver (host/run/run_driver.cpp) calls them as
// named stages; a backend never calls back into the driver.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/backend/cpu_lanes.hpp"
#include "host/util/buffer_allocator.hpp"
#include "host/util/default_init_allocator.hpp"
#include "host/util/stage_timings.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "rbmc/stats/batch_compaction.hpp"
#include "rbmc/stats/moments.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

// A batch's statistics quantities, or values of them, column by column ((output times ×
// quantity::count, rows)), each column's start on a cache line when rows is a multiple of 8: the
// CPU's SIMD lanes write each column's values of 8 samples as one line (lane_quantities.hpp), on
// huge pages where the kernel gives them (buffer_allocator.hpp).
using QuantityValues = std::vector<double, BufferAllocator<double>>;

// What reduce_statistics_compacted gives: each column's tally against its brackets, and its
// compacted values. A run holds one, refilled batch after batch once the previous batch's merge is
// done; its values are overwritten whole, so growing them zeroes nothing.
struct CompactedColumns {
  std::vector<ColumnTally> tallies;                          // (columns)
  std::vector<std::uint64_t> offsets;                        // (columns + 1)
  std::vector<double, DefaultInitAllocator<double>> values;  // column c's at [offsets[c], offsets[c + 1])
};

class SamplingPlan;  // host/sampling/sampling_plan.hpp

enum class Precision { float32, float64 };
enum class BackendChoice { automatic, cpu, cuda };

inline const char* precision_name(Precision p) { return p == Precision::float32 ? "float" : "double"; }

// What every sample of a run shares: how it is integrated, the loads and the constraint, and
// for statistics the nominal sample's attitude at each output time.
struct BatchIntegration {
  BatchIntegration() = default;
  // The integration and the model. What the batch keeps is set by name afterwards (statistics,
  // keep_states, ...): with this constructor the struct takes no initialisers by position, which
  // a field added in the middle would silently shift.
  BatchIntegration(const IntegrationSettings<double>& settings_, const SharedModel<double>& shared_)
      : settings(settings_), shared(shared_) {}

  IntegrationSettings<double> settings;
  SharedModel<double> shared;
  bool statistics = false;   // moments (and quantity values) at the output times
  bool keep_states = false;  // states at the output times, for trajectories the file keeps
  std::vector<Quaternion<double>> nominal_attitudes;  // (output times)
  // When set and true, the backend abandons the batch in flight within a fraction of a second
  // (between samples on the CPU, between launches of a part of the batch on the GPU) by throwing
  // BatchAbandoned; its outputs are then undefined.
  const std::atomic<bool>* stop = nullptr;
  // When set, the backend adds the samples it finishes as it goes (for progress within a batch).
  std::atomic<std::uint64_t>* progress = nullptr;
  // The quantities whose statistics the run keeps ([output] statistics): a backend may leave the
  // other quantities' columns unwritten.
  QuantitySet statistics_quantities = kAllQuantities;
};

// What the stages after one batch's integration will ask of it, where the driver knows it before
// integrating (BatchIntegration is the run's, the same for every batch).
struct BatchNeeds {
  // With BatchIntegration::keep_states, the rows gather_trajectories will ask for (ascending): a
  // backend may keep only their states. Null: any row's.
  const std::vector<std::uint32_t>* state_rows = nullptr;
};

// What one sample keeps at the output times for the stages after its integration, as doubles:
// its states (13 values a time) and the statistics' quantities (quantity::count a time). Counted
// whenever the run has output times, whatever it keeps of them, as batches have always been sized.
inline std::size_t kept_bytes_per_sample(const BatchIntegration& how) {
  return sizeof(double) * std::size_t(kTrajectoryColumns + quantity::count) * std::size_t(how.shared.output_times.n);
}

// Which of a batch's drawn columns the host needs from a backend that draws on the device: those
// the file keeps a dataset of ([output] samples; keeps_any in host/scenario/output_schema.hpp).
struct DrawnColumnsWanted {
  bool inputs = true;  // the inputs' columns: /samples/body, /samples/initial
  bool params = true;  // each dispersion's drawn values: /samples/params
};

// A batch given up on request (BatchIntegration::stop): not an error.
class BatchAbandoned : public std::runtime_error {
 public:
  BatchAbandoned() : std::runtime_error("the batch in flight was abandoned on request") {}
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;    // "cpu" or "cuda"
  virtual std::string device() const = 0;  // processor or GPU model
  // The most samples one batch of the run `how` should hold: bounded by what each sample keeps for
  // the stages after integration (kept_bytes_per_sample), in host memory for the CPU, in device
  // memory for CUDA. default_batch_size (host/run/batch_sizing.hpp) adds the bounds every backend
  // shares; --batch-size overrides both.
  virtual std::size_t max_batch_size(const BatchIntegration& how) const = 0;

  // The primitives a run's stages call, in this order for each batch; the later ones use what
  // integrate kept of the batch (on the device for CUDA), until the next integrate. Each adds its
  // wall time to the stages it spends it in.
  //
  // Stage sample where the backend integrates: row i < n drawn as sample index[i] by
  // draw_batch_row (rbmc/sample/draw_inputs.hpp), each dispersion's values bit for bit the host's
  // (the inputs assembled from them within the device's sin and cos: docs/physics.md), into `inputs` and
  // `params` (input_column_count(model parameters) and plan.n_parameter_values() columns of n
  // doubles), and kept where it was drawn: the next integrate of these `inputs` and n sends
  // nothing. Of the two, only those `wanted` are written (the file's datasets come from them);
  // the others are left as they were. Adds the validity policy's redraws to `redrawn`. Returns
  // false, having done nothing, when the backend does not draw (the CPU's: the driver draws on its
  // threads); the caller then draws on the host, both.
  virtual bool draw_inputs(const SamplingPlan&, const std::uint64_t* /*index*/, std::size_t /*n*/, double* /*inputs*/,
                           double* /*params*/, const DrawnColumnsWanted& /*wanted*/, std::uint64_t& /*redrawn*/,
                           StageTimings&) {
    return false;
  }
  //
  // inputs: input_column_count(how.shared.parameters.n) columns of n doubles; outputs:
  // output_column_count(n events) columns of n doubles; status: n codes. Integrates in the
  // backend's precision. With output times, the states there are kept when how.keep_states or
  // how.statistics asks for them (those of needs.state_rows only, or of any row).
  virtual void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n,
                         const BatchIntegration& how, const BatchNeeds& needs, StageTimings& timings) = 0;
  // The batch's quantities at the output times (how.statistics): moments (output times,
  // quantity::count) over every sample, and the values of the given rows (ascending) for the
  // quantiles, column by column: (output times × quantity::count, rows). `values` may be swapped
  // with a buffer of the backend's (its old contents are then the backend's to overwrite). When
  // the rows are all of the batch's, `moments` may be left empty: RunStatistics::add then
  // computes them from the values (the CPU backend's way: one pass over them instead of two).
  // Once per integrated batch.
  virtual void reduce_statistics(const BatchIntegration& how, const std::vector<std::uint32_t>& rows,
                                 std::vector<Moments>& moments, QuantityValues& values, StageTimings& timings) = 0;
  // A buffer of quantity values the caller is done with (one reduce_statistics gave): the backend
  // may keep it for the next batch's quantities rather than fill fresh pages, leaving `values`
  // with one of its own (empty) in exchange. The CPU backend, whose quantities are the values
  // themselves, then holds one buffer for every batch of a run (59 MB for the main job on 2
  // threads). Otherwise it does nothing.
  virtual void recycle_quantities(QuantityValues& /*values*/) {}
  // With sketched quantiles (request.keep > 0), a backend may instead compact each (time,
  // quantity) column of the batch where it lies (rbmc/stats/batch_compaction.hpp), so that a few
  // thousand values a column cross to the host rather than every sample's: the moments as
  // reduce_statistics gives them, and for column c its tally against brackets[c] (ColumnTally: the
  // finite values kept, the others counted below each bracket) and its kept values compacted, in
  // the layout batch_compaction.hpp describes (CompactedColumns). Returns
  // false, having done nothing, when it does not compact: the caller then calls
  // reduce_statistics. The CPU backend never does (its values cross no bus, and its batches are
  // too small for a compaction). Once per integrated batch, instead of reduce_statistics.
  virtual bool reduce_statistics_compacted(const BatchIntegration& /*how*/, const BatchCompactionRequest& /*request*/,
                                           const std::vector<ColumnBrackets>& /*brackets*/,
                                           std::vector<Moments>& /*moments*/, CompactedColumns& /*compacted*/,
                                           StageTimings& /*timings*/) {
    return false;
  }
  // The kept states of the given rows (ascending): (rows, output times, 13), p, q, v, ω at each time.
  // `trajectories` is resized to that and every value overwritten (whatever it held before).
  virtual void gather_trajectories(const std::vector<std::uint32_t>& rows, std::vector<double>& trajectories,
                                   StageTimings& timings) = 0;

  // The overlap of batches (issue 12): a backend that integrates on a device may begin the next
  // batch (its draws and its integration, into buffers of their own) while the host still reduces
  // and gathers the batch before it, so that the device is not idle meanwhile.
  //
  // begin_batch: stages sample and integrate of rows [0, n) drawn as samples index[0, n) (read
  // before it returns), started without waiting for them; every row's states are kept (no
  // BatchNeeds). Returns false, having done nothing, when the backend does not begin batches ahead
  // (the CPU's, whose threads are all busy integrating): the caller then calls draw_inputs (or
  // draws on the host) and integrate. At most one batch is begun and not finished; the later
  // primitives (reduce_statistics..., gather_trajectories) still refer to the batch integrated
  // before it until finish_batch.
  virtual bool begin_batch(const SamplingPlan& /*plan*/, const std::uint64_t* /*index*/, std::size_t /*n*/,
                           const BatchIntegration& /*how*/) {
    return false;
  }
  // Waits for the batch begun last and copies back what draw_inputs and integrate would have: the
  // `wanted` drawn columns into inputs and params, the outputs and status; adds its redraws to
  // `redrawn`. From here the later primitives refer to it. Throws BatchAbandoned when a stop was
  // requested while it integrated (its outputs are then undefined). Its own stages' time (the
  // draws, the kernel: spent while the host worked on the batch before it) is added to `ahead`,
  // the time spent waiting for them here to `timings` as idle, the copies back as transfer.
  virtual void finish_batch(double* /*inputs*/, double* /*params*/, const DrawnColumnsWanted& /*wanted*/,
                            double* /*outputs*/, std::uint8_t* /*status*/, std::uint64_t& /*redrawn*/,
                            StageTimings& /*timings*/, StageTimings& /*ahead*/) {
    throw std::logic_error("finish_batch: no batch was begun (begin_batch returned false)");
  }
  // Forgets the batch begun last, if any, once the backend no longer works on it (abandoned as
  // soon as it can be): what its integration uses (the BatchIntegration, its progress counter)
  // may go after this returns. Never throws; the batches finished before it are untouched.
  virtual void drop_batch() noexcept {}
};

// threads = 0: all cores. RK4 runs of a free body, or of a body under gravity alone with a
// constraint, go in SIMD lanes of the given instruction set, or of chosen_lane_isa()'s
// (cpu_lanes.hpp): the same results bit for bit whichever.
std::unique_ptr<Backend> make_cpu_backend(Precision precision, unsigned threads, LaneIsa lanes);
std::unique_ptr<Backend> make_cpu_backend(Precision precision, unsigned threads);

// Throws NotBuiltWithCuda in a build without the CUDA toolkit, CudaError when no device works.
// device: which GPU, counted modulo the devices present (an MPI rank passes its node-local rank);
// -1: the current one. processes_on_node: the processes that share the node's GPUs round-robin
// (an MPI run's ranks there), so that each sizes its batches by its share of its GPU's memory.
std::unique_ptr<Backend> make_cuda_backend(Precision precision, int device = -1, int processes_on_node = 1);

// True when this build has CUDA and a usable device is present. "No device" and "insufficient
// driver" answer false; any other CUDA failure throws CudaError.
bool cuda_device_available();

// `automatic` picks CUDA when a device is present, else the CPU.
std::unique_ptr<Backend> make_backend(BackendChoice choice, Precision precision, unsigned threads, int device = -1,
                                      int processes_on_node = 1);

}  // namespace rbmc

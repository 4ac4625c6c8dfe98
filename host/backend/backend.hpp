// A backend integrates batches of samples laid out as in rbmc/sample/sample_layout.hpp, and
// reduces what a run keeps of them: the trajectories it retains and the statistics at the
// output times.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "rbmc/sample/run_sample.hpp"
#include "rbmc/stats/moments.hpp"

namespace rbmc {

enum class Precision { float32, float64 };
enum class BackendChoice { automatic, cpu, cuda };

inline const char* precision_name(Precision p) { return p == Precision::float32 ? "float" : "double"; }

// What every sample of a run shares: how it is integrated, the loads and the constraint, and
// for statistics the nominal sample's attitude at each output time.
struct BatchIntegration {
  IntegrationSettings<double> settings;
  SharedModel<double> shared;
  bool statistics = false;  // moments (and quantity values) at the output times
  std::vector<Quaternion<double>> nominal_attitudes;  // (output times)
  // When set and true, the backend abandons the batch in flight within a fraction of a second
  // (between samples on the CPU, between launches of a part of the batch on the GPU) by throwing
  // BatchAbandoned; its outputs are then undefined.
  const std::atomic<bool>* stop = nullptr;
};

// A batch given up on request (BatchIntegration::stop): not an error.
class BatchAbandoned : public std::runtime_error {
 public:
  BatchAbandoned() : std::runtime_error("the batch in flight was abandoned on request") {}
};

// What a batch gives back besides its final states and statistics.
struct BatchProducts {
  // In: chooses the rows whose trajectories come back, from the batch's outputs (columns of n)
  // and statuses once integrated; empty: none.
  std::function<std::vector<std::uint32_t>(const double* outputs, const std::uint8_t* status)> select_trajectories;
  // In: the rows whose quantity values come back (for quantiles), ascending.
  std::vector<std::uint32_t> quantile_rows;

  // Out:
  std::vector<std::uint32_t> kept;   // the selected rows
  std::vector<double> trajectories;  // (kept, output times, 13): p, q, v, ω at each time
  std::vector<Moments> moments;      // (output times, quantity::count), over the batch's samples
  std::vector<double> quantities;    // (quantile_rows, output times, quantity::count)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;    // "cpu" or "cuda"
  virtual std::string device() const = 0;  // processor or GPU model
  // The most samples one run_batch call should take (device memory for CUDA).
  virtual std::size_t max_batch_size() const = 0;
  // inputs: input_column_count(how.shared.parameters.n) columns of n doubles; outputs:
  // output_column_count(n events) columns of n doubles; status: n codes. Integrates in the
  // backend's precision. With output times, the states there are computed when products asks for
  // trajectories or how asks for statistics.
  virtual void run_batch(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n,
                         const BatchIntegration& how, BatchProducts& products) = 0;
};

// threads = 0: all cores.
std::unique_ptr<Backend> make_cpu_backend(Precision precision, unsigned threads);

// Throws NotBuiltWithCuda in a build without the CUDA toolkit, CudaError when no device works.
std::unique_ptr<Backend> make_cuda_backend(Precision precision);

// True when this build has CUDA and a usable device is present. "No device" and "insufficient
// driver" answer false; any other CUDA failure throws CudaError.
bool cuda_device_available();

// `automatic` picks CUDA when a device is present, else the CPU.
std::unique_ptr<Backend> make_backend(BackendChoice choice, Precision precision, unsigned threads);

}  // namespace rbmc

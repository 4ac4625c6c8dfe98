// A backend integrates batches of samples laid out as in rbmc/sample/sample_layout.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "rbmc/sample/run_sample.hpp"

namespace rbmc {

enum class Precision { float32, float64 };
enum class BackendChoice { automatic, cpu, cuda };

inline const char* precision_name(Precision p) { return p == Precision::float32 ? "float" : "double"; }

// What every sample of a run shares: how it is integrated, the loads and the constraint.
struct BatchIntegration {
  IntegrationSettings<double> settings;
  SharedModel<double> shared;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;    // "cpu" or "cuda"
  virtual std::string device() const = 0;  // processor or GPU model
  // The most samples one run_batch call should take (device memory for CUDA).
  virtual std::size_t max_batch_size() const = 0;
  // inputs: input_column_count(how.shared.parameters.n) columns of n doubles; outputs: output_column_count(n events) columns of n
  // doubles; trajectory: 13 × (output times) columns of n doubles, or null when there are none;
  // status: n codes. Integrates in the backend's precision.
  virtual void run_batch(const double* inputs, double* outputs, double* trajectory, std::uint8_t* status,
                         std::size_t n, const BatchIntegration& how) = 0;
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

// The CUDA backend: the host converts a batch to the run's precision, the kernel integrates it
// (one thread per sample, the same per-sample function as the CPU backend), the host converts back.
#include <algorithm>
#include <vector>

#include "host/backend/backend.hpp"
#include "host/backend/cuda_check.hpp"
#include "host/backend/device_buffer.hpp"
#include "kernels/run_batch.cuh"
#include "rbmc/sample/sample_layout.hpp"

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
  CudaBackend() {
    if (!cuda_device_available()) throw CudaError("--backend cuda: no CUDA device is present (or its driver is missing)");
    RBMC_CUDA_CHECK(cudaGetDevice(&device_));
    RBMC_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device_));
    RBMC_CUDA_CHECK(cudaStreamCreate(&stream_));
  }
  ~CudaBackend() override { (void)cudaStreamDestroy(stream_); }

  std::string name() const override { return "cuda"; }
  std::string device() const override { return properties_.name; }

  // Half of the free device memory, and at most 2^20 samples so that the host's batch buffers
  // stay near 300 MB.
  std::size_t max_batch_size() const override {
    std::size_t free_bytes = 0, total_bytes = 0;
    RBMC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Sized for the most events a scenario can declare.
    const std::size_t per_sample =
        (input_column_count(kMaxModelParameters) + output_column_count(EventSet<double>::kMax)) * sizeof(Scalar) + 1;
    return std::max<std::size_t>(1024, std::min<std::size_t>(std::size_t(1) << 20, free_bytes / 2 / per_sample));
  }

  void run_batch(const double* inputs, double* outputs, double* trajectory, std::uint8_t* status, std::size_t n,
                 const BatchIntegration& how) override {
    const std::size_t n_in = n * std::size_t(input_column_count(how.shared.parameters.n)),
                      n_out = n * std::size_t(output_column_count(how.shared.events.n)),
                      n_traj = trajectory != nullptr ? n * kTrajectoryColumns * std::size_t(how.shared.output_times.n) : 0;
    staging_in_.assign(inputs, inputs + n_in);  // double -> Scalar, as load_sample_inputs rounds on the CPU
    d_inputs_.reserve(n_in);
    d_outputs_.reserve(n_out);
    d_trajectory_.reserve(n_traj);
    d_status_.reserve(n);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(d_inputs_.data(), staging_in_.data(), n_in * sizeof(Scalar),
                                    cudaMemcpyHostToDevice, stream_));
    RBMC_CUDA_CHECK(kernels::launch_run_batch<Scalar>(d_inputs_.data(), d_outputs_.data(),
                                                      n_traj > 0 ? d_trajectory_.data() : nullptr, d_status_.data(), n,
                                                      how.shared.cast<Scalar>(), how.settings.cast<Scalar>(),
                                                      stream_));
    staging_out_.resize(n_out);
    RBMC_CUDA_CHECK(cudaMemcpyAsync(staging_out_.data(), d_outputs_.data(), n_out * sizeof(Scalar),
                                    cudaMemcpyDeviceToHost, stream_));
    RBMC_CUDA_CHECK(cudaMemcpyAsync(status, d_status_.data(), n, cudaMemcpyDeviceToHost, stream_));
    if (n_traj > 0) {
      staging_traj_.resize(n_traj);
      RBMC_CUDA_CHECK(cudaMemcpyAsync(staging_traj_.data(), d_trajectory_.data(), n_traj * sizeof(Scalar),
                                      cudaMemcpyDeviceToHost, stream_));
    }
    RBMC_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::copy(staging_out_.begin(), staging_out_.end(), outputs);
    if (n_traj > 0) std::copy(staging_traj_.begin(), staging_traj_.end(), trajectory);
  }

 private:
  int device_ = 0;
  cudaDeviceProp properties_{};
  cudaStream_t stream_ = nullptr;
  std::vector<Scalar> staging_in_, staging_out_, staging_traj_;
  cuda::DeviceBuffer<Scalar> d_inputs_, d_outputs_, d_trajectory_;
  cuda::DeviceBuffer<std::uint8_t> d_status_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(Precision precision) {
  if (precision == Precision::float32) return std::make_unique<CudaBackend<float>>();
  return std::make_unique<CudaBackend<double>>();
}

}  // namespace rbmc

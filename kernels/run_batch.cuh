// Launch helper for the batch kernel: plain device pointers in, a CUDA error code out.
// Layout of the buffers: rbmc/sample/sample_layout.hpp (structure of arrays, stride n).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "rbmc/sample/run_sample.hpp"

namespace rbmc::kernels {

// Integrates samples [0, n) on `stream`, one thread each; trajectory may be null. Returns the
// launch's error code.
template <class Scalar>
cudaError_t launch_run_batch(const Scalar* inputs, Scalar* outputs, Scalar* trajectory, std::uint8_t* status,
                             std::size_t n,
                             const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how, cudaStream_t stream);

}  // namespace rbmc::kernels

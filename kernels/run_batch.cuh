// Launch helper for the batch kernel: plain device pointers in, a CUDA error code out.
// Layout of the buffers: rbmc/sample/sample_layout.hpp (structure of arrays, stride n).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "rbmc/sample/run_sample.hpp"

namespace rbmc::kernels {

// Integrates samples [first, first + count) of a batch of n (the buffers' stride) on `stream`, one
// thread each; count = 0 means through the end of the batch. trajectory may be null. Returns the
// launch's error code. A batch launched in ranges can be abandoned between them.
template <class Scalar>
cudaError_t launch_run_batch(const Scalar* inputs, Scalar* outputs, Scalar* trajectory, std::uint8_t* status,
                             std::size_t n, const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how,
                             cudaStream_t stream, std::size_t first = 0, std::size_t count = 0);

// The same, samples [first, end), with the kernel compiled for the given SampleKinds. Defined in
// run_batch_kernel.cuh and instantiated in run_batch_<stepper>.cu (RK4 with a constraint in
// run_batch_rk4_constrained.cu).
template <class Scalar, class Kinds>
cudaError_t launch_run_batch_for(const Scalar* inputs, Scalar* outputs, Scalar* trajectory, std::uint8_t* status,
                                 std::size_t n, const SharedModel<Scalar>& shared,
                                 const IntegrationSettings<Scalar>& how, cudaStream_t stream, std::size_t first,
                                 std::size_t end);

}  // namespace rbmc::kernels

// The batch kernel, one instantiation per precision and SampleKinds (sample_kinds.hpp): thread i
// integrates sample i with the core's per-sample function compiled for the run's kinds. The
// instantiations are spread over run_batch_<stepper>.cu so that they compile in parallel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "kernels/block_size.cuh"
#include "kernels/run_batch.cuh"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc::kernels {

// The largest block the kernels are compiled for, and the blocks of it each SM must hold, which
// bound the registers: 4 blocks of 128 allow 128 registers a thread (16 of an H100's 64 warps per
// SM, 25 % occupancy), 2 allow 255 (12.5 %). Each kind takes the most blocks it compiles for
// without a spill: in float the free body 4, and 4 where the rate reads its model in place
// (SampleKinds::rate_reads_in_place: RK4 and the splitting without events); every other kernel 2,
// where the RK stages, the model and the loads' or constraint's evaluation need more than 128
// registers (at 4 they spill: the compiler's report, bench/RESULTS.md). tests/tools/ptxas_report.py
// holds them to it. A kinds type may name its own (min_blocks_per_sm): the variants rbmc_kernel_bench
// times beside the kernels runs take (bench/kernel_bench_variants.cu).
constexpr int kMaxBlockSize = 128;
template <class Scalar, class Kinds, class = void>
constexpr int kMinBlocksPerSm =
    sizeof(Scalar) == 4 && (Kinds::free_body || Kinds::template rate_reads_in_place<Scalar>) ? 4 : 2;
template <class Scalar, class Kinds>
constexpr int kMinBlocksPerSm<Scalar, Kinds, std::void_t<decltype(Kinds::min_blocks_per_sm)>> = Kinds::min_blocks_per_sm;

// The shared model and the settings are __grid_constant__: read in place from the kernel's
// parameter space, never copied to each thread's stack (sm_70 and later).
template <class Scalar, class Kinds>
__global__ void __launch_bounds__(kMaxBlockSize, kMinBlocksPerSm<Scalar, Kinds>)
    run_batch_kernel(const Scalar* __restrict__ inputs, Scalar* __restrict__ outputs, Scalar* __restrict__ trajectory,
                     std::uint8_t* __restrict__ status, std::size_t n, std::size_t first, std::size_t end,
                     const __grid_constant__ SharedModel<Scalar> shared,
                     const __grid_constant__ IntegrationSettings<Scalar> how) {
  const std::size_t i = first + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= end) return;
  run_sample_in_batch<Scalar, Kinds>(inputs, outputs, trajectory, status, n, i, shared, how);
}

// Samples [first, end) of a batch of n on `stream`.
template <class Scalar, class Kinds>
cudaError_t launch_run_batch_for(const Scalar* inputs, Scalar* outputs, Scalar* trajectory, std::uint8_t* status,
                                 std::size_t n, const SharedModel<Scalar>& shared,
                                 const IntegrationSettings<Scalar>& how, cudaStream_t stream, std::size_t first,
                                 std::size_t end) {
  const unsigned block = block_size_for<run_batch_kernel<Scalar, Kinds>, kMaxBlockSize>();
  run_batch_kernel<Scalar, Kinds><<<grid_for(end - first, block), block, 0, stream>>>(inputs, outputs, trajectory, status, n, first, end, shared, how);
  return cudaGetLastError();
}

// Explicit instantiations for one stepper, in both precisions, with and without events.
#define RBMC_INSTANTIATE_RUN_BATCH(SCALAR, KINDS)                                                         \
  template cudaError_t launch_run_batch_for<SCALAR, KINDS>(                                              \
      const SCALAR*, SCALAR*, SCALAR*, std::uint8_t*, std::size_t, const SharedModel<SCALAR>&,           \
      const IntegrationSettings<SCALAR>&, cudaStream_t, std::size_t, std::size_t);
#define RBMC_INSTANTIATE_RUN_BATCH_STEPPER(STEPPER)                 \
  using STEPPER##_kinds = SampleKinds<StepperKind::STEPPER, false>; \
  using STEPPER##_events_kinds = SampleKinds<StepperKind::STEPPER, true>; \
  RBMC_INSTANTIATE_RUN_BATCH(float, STEPPER##_kinds)                \
  RBMC_INSTANTIATE_RUN_BATCH(float, STEPPER##_events_kinds)         \
  RBMC_INSTANTIATE_RUN_BATCH(double, STEPPER##_kinds)               \
  RBMC_INSTANTIATE_RUN_BATCH(double, STEPPER##_events_kinds)

}  // namespace rbmc::kernels

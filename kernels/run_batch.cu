// The batch kernel: thread i integrates sample i with the core's per-sample function. Nothing
// else happens here; the physics lives in include/rbmc.
#include "kernels/run_batch.cuh"
#include "rbmc/sample/run_sample.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc::kernels {

namespace {

constexpr unsigned kBlockSize = 128;

template <class Scalar, class Variant>
__global__ void run_batch_kernel(const Scalar* __restrict__ inputs, Scalar* __restrict__ outputs, Scalar* __restrict__ trajectory,
                                 std::uint8_t* __restrict__ status, std::size_t n, std::size_t first, std::size_t end,
                                 const SharedModel<Scalar> shared, IntegrationSettings<Scalar> how) {
  const std::size_t i = first + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= end) return;
  run_sample_in_batch<Scalar, Variant>(inputs, outputs, trajectory, status, n, i, shared, how);
}

}  // namespace

template <class Scalar>
cudaError_t launch_run_batch(const Scalar* inputs, Scalar* outputs, Scalar* trajectory, std::uint8_t* status,
                             std::size_t n, const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how,
                             cudaStream_t stream, std::size_t first, std::size_t count) {
  const std::size_t end = count == 0 || first + count > n ? n : first + count;
  if (first >= end) return cudaSuccess;
  const auto blocks = static_cast<unsigned>((end - first + kBlockSize - 1) / kBlockSize);
  // The shared model travels as a kernel argument (read-only, cached). A kernel per variant: each
  // holds only the registers its own path needs.
  if (is_free_body_rk4(shared, how))
    run_batch_kernel<Scalar, FreeBodyRk4Variant><<<blocks, kBlockSize, 0, stream>>>(inputs, outputs, trajectory, status,
                                                                                    n, first, end, shared, how);
  else
    run_batch_kernel<Scalar, GeneralVariant><<<blocks, kBlockSize, 0, stream>>>(inputs, outputs, trajectory, status, n,
                                                                                first, end, shared, how);
  return cudaGetLastError();
}

template cudaError_t launch_run_batch<float>(const float*, float*, float*, std::uint8_t*, std::size_t, const SharedModel<float>&,
                                             const IntegrationSettings<float>&, cudaStream_t, std::size_t, std::size_t);
template cudaError_t launch_run_batch<double>(const double*, double*, double*, std::uint8_t*, std::size_t,
                                              const SharedModel<double>&, const IntegrationSettings<double>&,
                                              cudaStream_t, std::size_t, std::size_t);

}  // namespace rbmc::kernels

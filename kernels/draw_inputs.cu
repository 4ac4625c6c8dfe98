// Sampling on the device: a thin driver over draw_batch_row (rbmc/sample/draw_inputs.hpp).
#include "kernels/draw_inputs.cuh"

#include "kernels/block_size.cuh"

namespace rbmc::kernels {

namespace {

// At most 128 registers (four blocks of kDrawBlock an SM, 25 % occupancy): left to itself the
// compiler took 130 for the draw (draw_sample_inputs, a call), where 128 spill nothing
// (tests/tools/ptxas_report.py holds it to that).
constexpr int kDrawBlock = 128;

__global__ void __launch_bounds__(kDrawBlock, 4)
    draw_inputs_kernel(const SamplingModel* model, const std::uint64_t* index, std::size_t n, double* inputs,
                       double* params, unsigned long long* redrawn) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (draw_batch_row(*model, index[i], i, n, inputs, params) > 0) atomicAdd(redrawn, 1ull);
}

template <class Scalar>
__global__ void round_columns_kernel(const double* in, std::size_t count, Scalar* out) {
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) out[j] = Scalar(in[j]);
}

}  // namespace

cudaError_t launch_draw_inputs(const SamplingModel* model, const std::uint64_t* index, std::size_t n, double* inputs,
                               double* params, unsigned long long* redrawn, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const unsigned block = block_size_for<draw_inputs_kernel, kDrawBlock>();
  draw_inputs_kernel<<<grid_for(n, block), block, 0, stream>>>(model, index, n, inputs, params, redrawn);
  return cudaGetLastError();
}

template <class Scalar>
cudaError_t launch_round_columns(const double* in, std::size_t count, Scalar* out, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const unsigned block = block_size_for<round_columns_kernel<Scalar>>();
  round_columns_kernel<Scalar><<<grid_for(count, block), block, 0, stream>>>(in, count, out);
  return cudaGetLastError();
}

template cudaError_t launch_round_columns<float>(const double*, std::size_t, float*, cudaStream_t);
template cudaError_t launch_round_columns<double>(const double*, std::size_t, double*, cudaStream_t);

}  // namespace rbmc::kernels

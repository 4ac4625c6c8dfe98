// Sampling on the device: a thin driver over draw_batch_row (rbmc/sample/draw_inputs.hpp).
#include "kernels/draw_inputs.cuh"

namespace rbmc::kernels {

namespace {

__global__ void draw_inputs_kernel(const SamplingModel* model, const std::uint64_t* index, std::size_t n,
                                   int n_model_parameters, double* inputs, double* params,
                                   unsigned long long* redrawn) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (draw_batch_row(*model, index[i], i, n, n_model_parameters, inputs, params) > 0) atomicAdd(redrawn, 1ull);
}

template <class Scalar>
__global__ void round_columns_kernel(const double* in, std::size_t count, Scalar* out) {
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) out[j] = Scalar(in[j]);
}

// The block size the occupancy API suggests for a kernel (HOOMD-blue's way), and the grid for n threads.
template <class Kernel>
cudaError_t launch_shape(Kernel kernel, std::size_t n, unsigned& grid, unsigned& block) {
  int min_grid = 0, suggested = 0;
  const cudaError_t e = cudaOccupancyMaxPotentialBlockSize(&min_grid, &suggested, kernel);
  if (e != cudaSuccess) return e;
  block = unsigned(suggested);
  grid = unsigned((n + block - 1) / block);
  return cudaSuccess;
}

}  // namespace

cudaError_t launch_draw_inputs(const SamplingModel* model, const std::uint64_t* index, std::size_t n,
                               int n_model_parameters, double* inputs, double* params, unsigned long long* redrawn,
                               cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  unsigned grid = 0, block = 0;
  if (const cudaError_t e = launch_shape(draw_inputs_kernel, n, grid, block); e != cudaSuccess) return e;
  draw_inputs_kernel<<<grid, block, 0, stream>>>(model, index, n, n_model_parameters, inputs, params, redrawn);
  return cudaGetLastError();
}

template <class Scalar>
cudaError_t launch_round_columns(const double* in, std::size_t count, Scalar* out, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  unsigned grid = 0, block = 0;
  if (const cudaError_t e = launch_shape(round_columns_kernel<Scalar>, count, grid, block); e != cudaSuccess) return e;
  round_columns_kernel<Scalar><<<grid, block, 0, stream>>>(in, count, out);
  return cudaGetLastError();
}

template cudaError_t launch_round_columns<float>(const double*, std::size_t, float*, cudaStream_t);
template cudaError_t launch_round_columns<double>(const double*, std::size_t, double*, cudaStream_t);

}  // namespace rbmc::kernels

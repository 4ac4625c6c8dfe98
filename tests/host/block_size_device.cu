// Two kernels of one signature and different launch bounds, for block_size_device_test.cpp.
#include "block_size_device.hpp"
#include "host/backend/cuda_check.hpp"
#include "kernels/block_size.cuh"

namespace rbmc::test {

namespace {
__global__ void __launch_bounds__(64) bounded_64_kernel(double* out) { out[threadIdx.x] = 1.0; }
__global__ void __launch_bounds__(256) bounded_256_kernel(double* out) { out[threadIdx.x] = 2.0; }

template <auto kernel>
BlockSizeAnswer answer_for() {
  BlockSizeAnswer answer;
  answer.cached = kernels::block_size_for<kernel>();
  int min_grid = 0, block = 0;
  RBMC_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel));
  answer.asked = unsigned(block);
  return answer;
}
}  // namespace

TwoKernelsBlockSizes block_sizes_of_two_kernels_of_one_signature() {
  TwoKernelsBlockSizes sizes;
  sizes.bounded_64 = answer_for<bounded_64_kernel>();
  sizes.bounded_256 = answer_for<bounded_256_kernel>();
  return sizes;
}

}  // namespace rbmc::test

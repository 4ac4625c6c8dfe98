// The launch shape of a thin driver's kernel: the block size the occupancy API suggests for the
// kernel's registers (HOOMD-blue's way), found once per kernel, and the grid that covers n threads.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace rbmc::kernels {

// The kernel itself is the template argument, so each kernel keeps its own answer: keyed by the
// kernel's type instead, every kernel of one signature (each SampleKinds of run_batch_kernel)
// would share the first one's. max_block bounds the answer (0: the device's limit); if the API
// fails, 128 (launchable at any register count) stands and the launch reports a real failure.
template <auto kernel, int max_block = 0>
unsigned block_size_for() {
  static const unsigned size = [] {
    int min_grid = 0, block = 0;
    if (cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, 0, max_block) != cudaSuccess || block <= 0) {
      (void)cudaGetLastError();
      block = 128;
    }
    return unsigned(block);
  }();
  return size;
}

// Blocks of `block` threads that cover n threads.
inline unsigned grid_for(std::size_t n, unsigned block) { return unsigned((n + block - 1) / block); }

}  // namespace rbmc::kernels

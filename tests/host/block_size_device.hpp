// The kernels' launch shape (kernels/block_size.cuh) asked of two kernels of one signature:
// built only with CUDA.
#pragma once

namespace rbmc::test {

// What block_size_for answers and what the occupancy API says, for one kernel.
struct BlockSizeAnswer {
  unsigned cached = 0;
  unsigned asked = 0;
};

// Two kernels of one signature, bounded to 64 and to 256 threads a block, asked in that order.
struct TwoKernelsBlockSizes {
  BlockSizeAnswer bounded_64;
  BlockSizeAnswer bounded_256;
};
TwoKernelsBlockSizes block_sizes_of_two_kernels_of_one_signature();

}  // namespace rbmc::test

// Launch helpers for drawing a batch's inputs on the device: the same draw_batch_row as the CPU's
// (rbmc/sample/draw_inputs.hpp), one thread a row, so that sample k's inputs are the same bits
// wherever they are drawn. Plain device pointers in, a CUDA error code out.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "rbmc/sample/draw_inputs.hpp"

namespace rbmc::kernels {

// Row i < n of the batch drawn as sample index[i]: inputs (input_column_count(the model's
// model_parameters.n), n) and params (parameter values, n), both doubles; redrawn (one counter,
// zeroed by the caller) gains one for each row the validity policy redrew. model: a SamplingModel
// in device memory whose tables are in device memory too.
cudaError_t launch_draw_inputs(const SamplingModel* model, const std::uint64_t* index, std::size_t n, double* inputs,
                               double* params, unsigned long long* redrawn, cudaStream_t stream);

// out[j] = in[j] rounded to Scalar (round to nearest, as the host's conversion) for j < count.
template <class Scalar>
cudaError_t launch_round_columns(const double* in, std::size_t count, Scalar* out, cudaStream_t stream);

}  // namespace rbmc::kernels

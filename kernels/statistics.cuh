// Launch helpers for what a run keeps of a batch on the device: each sample's quantities at the
// output times, their moments per (time, quantity) column, and row gathers of trajectories and
// quantities for the host. Plain device pointers in, a CUDA error code out.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "rbmc/sample/run_sample.hpp"
#include "rbmc/stats/batch_compaction.hpp"
#include "rbmc/stats/moments.hpp"

namespace rbmc::kernels {

// quantities[(k · quantity::count + c) · n + i] for every sample i and output time k
// (rbmc/stats/output_quantities.hpp), one thread per sample.
template <class Scalar>
cudaError_t launch_compute_quantities(const Scalar* inputs, const Scalar* trajectory, const Quaternion<Scalar>* nominal,
                                      int n_times, std::size_t n, const SharedModel<Scalar>& shared,
                                      Scalar* quantities, cudaStream_t stream);

// moments[c] over the n values of each of `columns` structure-of-arrays columns: a block per
// column, Welford's update per thread and the Chan merge of rbmc/stats/moments.hpp across them.
template <class Scalar>
cudaError_t reduce_column_moments(const Scalar* data, std::size_t n, std::size_t columns, Moments* moments,
                                  cudaStream_t stream);

// Each of `columns` structure-of-arrays columns of n values classified against its brackets
// (tally_value; brackets and tallies: (columns), on the device), and its kept values sorted (CUB's
// segmented radix sort) and compacted as `request` asks (rbmc/stats/batch_compaction.hpp) into
// out[offsets[c], offsets[c + 1]) (offsets: columns + 1, on the device). The sort alternates
// between `kept` (min(columns, INT_MAX / n) · n values) and `data`, which is scratch afterwards.
// temp: scratch of temp_bytes; with temp null, only sets temp_bytes to what it needs.
template <class Scalar>
cudaError_t compact_columns_in_brackets(Scalar* data, std::size_t n, std::size_t columns,
                                        const ColumnBrackets* brackets, const BatchCompactionRequest& request,
                                        Scalar* kept, void* temp, std::size_t& temp_bytes, ColumnTally* tallies,
                                        std::uint64_t* offsets, Scalar* out, cudaStream_t stream);

// out[r · columns + c] = data[c · n + rows[r]] for r < n_rows (sample_layout.hpp gather_element).
template <class Scalar>
cudaError_t launch_gather_rows(const Scalar* data, std::size_t n, std::size_t columns, const std::uint32_t* rows,
                               std::size_t n_rows, Scalar* out, cudaStream_t stream);

// out[c · n_rows + r] = data[c · n + rows[r]] for r < n_rows (sample_layout.hpp gather_column_element).
template <class Scalar>
cudaError_t launch_gather_columns(const Scalar* data, std::size_t n, std::size_t columns, const std::uint32_t* rows,
                                  std::size_t n_rows, Scalar* out, cudaStream_t stream);

}  // namespace rbmc::kernels

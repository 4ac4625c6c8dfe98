// Kernels for what a run keeps of a batch: thin drivers over the core (output_quantities.hpp,
// moments.hpp, sample_layout.hpp, batch_compaction.hpp), a reduction per column and CUB's sort.
#include "kernels/statistics.cuh"

#include <algorithm>
#include <climits>

#include <cub/device/device_segmented_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc::kernels {

namespace {

constexpr unsigned kBlockSize = 128;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kBlockSize - 1) / kBlockSize); }

template <class Scalar>
__global__ void compute_quantities_kernel(const Scalar* __restrict__ inputs, const Scalar* __restrict__ trajectory,
                                          const Quaternion<Scalar>* __restrict__ nominal, int n_times, std::size_t n,
                                          const __grid_constant__ SharedModel<Scalar> shared,
                                          Scalar* __restrict__ quantities) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  compute_sample_quantities(load_sample_inputs<Scalar>(inputs, n, i, 0), own_values_in_batch(shared.parameters, inputs, n, i),
                            shared, trajectory, nominal, n_times, n, i, quantities);
}

template <class Scalar>
__global__ void gather_rows_kernel(const Scalar* __restrict__ data, std::size_t n, std::size_t columns,
                                   const std::uint32_t* __restrict__ rows, std::size_t n_rows, Scalar* __restrict__ out) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= n_rows * columns) return;
  gather_element(data, n, columns, rows, e / columns, e % columns, out);
}

template <class Scalar>
__global__ void gather_columns_kernel(const Scalar* __restrict__ data, std::size_t n, std::size_t columns,
                                      const std::uint32_t* __restrict__ rows, std::size_t n_rows, Scalar* __restrict__ out) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= n_rows * columns) return;
  gather_column_element(data, n, rows, n_rows, e % n_rows, e / n_rows, out);  // consecutive threads: consecutive rows
}

// One block per column: its finite values, which the sort put together between the negative and
// the positive non-finite ones (CUB orders floating-point keys by their bits: −NaN, −∞, the finite
// values, +∞, +NaN), compacted into the column's slot.
template <class Scalar>
__global__ void compact_sorted_columns_kernel(const Scalar* __restrict__ sorted, std::size_t n,
                                              const Moments* __restrict__ moments, BatchCompactionRequest request,
                                              std::size_t first_column, Scalar* __restrict__ out, std::size_t slot) {
  const std::size_t c = first_column + blockIdx.x;
  const Scalar* column = sorted + std::size_t(blockIdx.x) * n;
  __shared__ std::uint64_t first_finite, coins;
  const auto m0 = std::uint64_t(moments[c].count);
  const int levels = batch_compaction_levels(m0, request.keep);
  if (threadIdx.x == 0) {
    first_finite = first_finite_of_sorted(column, n);
    coins = batch_compaction_coins(statistics_column_seed(request.seed, c), request.batch_key, levels);
  }
  __syncthreads();
  const std::uint64_t count = compacted_count(m0, levels);
  for (std::uint64_t j = threadIdx.x; j < count; j += blockDim.x)
    out[c * slot + j] = column[first_finite + compacted_position(m0, levels, coins, j)];
}

// One block per column: each thread takes every kMomentsBlock-th value with Welford's update
// (add_value, one division a value), then the block merges its threads' moments pairwise (Chan
// et al.'s merge; both in rbmc/stats/moments.hpp). The same order every run: the moments are
// deterministic. (Thrust's reduce_by_key over Moments took 168 ms for 10⁶ × 1,812 values on an
// H200, more than the sort; this takes 6.5 ms.)
constexpr unsigned kMomentsBlock = 256;

template <class Scalar>
__global__ void __launch_bounds__(kMomentsBlock) column_moments_kernel(const Scalar* __restrict__ data, std::size_t n,
                                                                       Moments* __restrict__ moments) {
  const Scalar* column = data + std::size_t(blockIdx.x) * n;
  Moments m;
  for (std::size_t i = threadIdx.x; i < n; i += kMomentsBlock) m = add_value(m, double(column[i]));
  __shared__ Moments partial[kMomentsBlock];
  partial[threadIdx.x] = m;
  __syncthreads();
  for (unsigned half = kMomentsBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] = merge(partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) moments[blockIdx.x] = partial[0];
}

// Segment s of a group of columns starts at s · n.
struct SegmentStart {
  int n;
  __host__ __device__ int operator()(int s) const { return s * n; }
};

}  // namespace

template <class Scalar>
cudaError_t launch_compute_quantities(const Scalar* inputs, const Scalar* trajectory, const Quaternion<Scalar>* nominal,
                                      int n_times, std::size_t n, const SharedModel<Scalar>& shared,
                                      Scalar* quantities, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  compute_quantities_kernel<Scalar><<<blocks_for(n), kBlockSize, 0, stream>>>(inputs, trajectory, nominal, n_times, n,
                                                                               shared, quantities);
  return cudaGetLastError();
}

template <class Scalar>
cudaError_t reduce_column_moments(const Scalar* data, std::size_t n, std::size_t columns, Moments* moments,
                                  cudaStream_t stream) {
  if (n == 0 || columns == 0) return cudaSuccess;
  // A grid's x dimension holds 2³¹ − 1 blocks: columns beyond that in further launches.
  constexpr std::size_t kMostBlocks = 0x7FFFFFFF;
  for (std::size_t first = 0; first < columns; first += kMostBlocks) {
    const std::size_t count = std::min(kMostBlocks, columns - first);
    column_moments_kernel<Scalar><<<unsigned(count), kMomentsBlock, 0, stream>>>(data + first * n, n, moments + first);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <class Scalar>
cudaError_t compact_sorted_columns(const Scalar* data, std::size_t n, std::size_t columns, const Moments* moments,
                                   const BatchCompactionRequest& request, Scalar* sorted, void* temp,
                                   std::size_t& temp_bytes, Scalar* out, std::size_t slot, cudaStream_t stream) {
  if (n == 0 || columns == 0 || n > std::size_t(INT_MAX)) {
    if (temp == nullptr) temp_bytes = 0;
    return n > std::size_t(INT_MAX) ? cudaErrorInvalidValue : cudaSuccess;
  }
  // CUB counts items in an int: the columns go in groups of at most INT_MAX values.
  const std::size_t group = std::max<std::size_t>(1, std::size_t(INT_MAX) / n);
  const auto starts = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), SegmentStart{int(n)});
  if (temp == nullptr) {
    const std::size_t largest = std::min(group, columns);
    return cub::DeviceSegmentedRadixSort::SortKeys(nullptr, temp_bytes, data, sorted, int(largest * n), int(largest),
                                                   starts, starts + 1, 0, int(sizeof(Scalar) * 8), stream);
  }
  for (std::size_t first = 0; first < columns; first += group) {
    const std::size_t count = std::min(group, columns - first);
    std::size_t bytes = temp_bytes;
    cudaError_t e = cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, data + first * n, sorted, int(count * n),
                                                            int(count), starts, starts + 1, 0, int(sizeof(Scalar) * 8),
                                                            stream);
    if (e != cudaSuccess) return e;
    compact_sorted_columns_kernel<Scalar><<<unsigned(count), kBlockSize, 0, stream>>>(sorted, n, moments, request, first,
                                                                                      out, slot);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <class Scalar>
cudaError_t launch_gather_rows(const Scalar* data, std::size_t n, std::size_t columns, const std::uint32_t* rows,
                               std::size_t n_rows, Scalar* out, cudaStream_t stream) {
  if (n_rows == 0 || columns == 0) return cudaSuccess;
  gather_rows_kernel<Scalar><<<blocks_for(n_rows * columns), kBlockSize, 0, stream>>>(data, n, columns, rows, n_rows, out);
  return cudaGetLastError();
}

template <class Scalar>
cudaError_t launch_gather_columns(const Scalar* data, std::size_t n, std::size_t columns, const std::uint32_t* rows,
                                  std::size_t n_rows, Scalar* out, cudaStream_t stream) {
  if (n_rows == 0 || columns == 0) return cudaSuccess;
  gather_columns_kernel<Scalar><<<blocks_for(n_rows * columns), kBlockSize, 0, stream>>>(data, n, columns, rows, n_rows, out);
  return cudaGetLastError();
}

#define RBMC_INSTANTIATE(Scalar)                                                                                      \
  template cudaError_t launch_compute_quantities<Scalar>(const Scalar*, const Scalar*, const Quaternion<Scalar>*, int, \
                                                         std::size_t, const SharedModel<Scalar>&, Scalar*,             \
                                                         cudaStream_t);                                                \
  template cudaError_t reduce_column_moments<Scalar>(const Scalar*, std::size_t, std::size_t, Moments*, cudaStream_t); \
  template cudaError_t compact_sorted_columns<Scalar>(const Scalar*, std::size_t, std::size_t, const Moments*,       \
                                                      const BatchCompactionRequest&, Scalar*, void*, std::size_t&,     \
                                                      Scalar*, std::size_t, cudaStream_t);                             \
  template cudaError_t launch_gather_rows<Scalar>(const Scalar*, std::size_t, std::size_t, const std::uint32_t*,       \
                                                  std::size_t, Scalar*, cudaStream_t);                                 \
  template cudaError_t launch_gather_columns<Scalar>(const Scalar*, std::size_t, std::size_t, const std::uint32_t*,    \
                                                     std::size_t, Scalar*, cudaStream_t);
RBMC_INSTANTIATE(float)
RBMC_INSTANTIATE(double)
#undef RBMC_INSTANTIATE

}  // namespace rbmc::kernels

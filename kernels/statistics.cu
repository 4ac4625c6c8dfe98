// Kernels for what a run keeps of a batch: thin drivers over the core (output_quantities.hpp,
// moments.hpp, sample_layout.hpp, batch_compaction.hpp), a reduction per column and CUB's sort.
#include "kernels/statistics.cuh"

#include <algorithm>
#include <climits>

#include <cub/block/block_scan.cuh>
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

// One block per column: its values classified against its brackets (tally_value), the kept ones
// gathered in the column's order at the start of its place in `kept` (a block-wide scan of each
// tile's counts places them), and its tally. In order, not as warps happen to claim places: CUB's
// radix sort orders −0 and +0 as equal and keeps their order, so an order that varied from run to
// run made the sign of a zero quantile vary with it.
constexpr unsigned kTallyBlock = 256;
constexpr unsigned kTallyItems = 4;  // consecutive values a thread, a tile of 1,024

template <class Scalar>
__global__ void __launch_bounds__(kTallyBlock)
    tally_columns_kernel(const Scalar* __restrict__ data, std::size_t n, const ColumnBrackets* __restrict__ brackets,
                         std::size_t first_column, Scalar* __restrict__ kept, ColumnTally* __restrict__ tallies) {
  using Scan = cub::BlockScan<unsigned, kTallyBlock>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ unsigned long long below[kColumnBrackets];
  const std::size_t c = first_column + blockIdx.x;
  const Scalar* column = data + std::size_t(blockIdx.x) * n;
  Scalar* to = kept + std::size_t(blockIdx.x) * n;
  const ColumnBrackets& b = brackets[c];
  if (threadIdx.x < kColumnBrackets) below[threadIdx.x] = 0;
  ColumnTally mine{};
  std::uint64_t written = 0;  // the same in every thread
  for (std::size_t from = 0; from < n; from += kTallyBlock * kTallyItems) {
    Scalar x[kTallyItems];
    unsigned keep = 0, count = 0;  // bit k: value k kept
    for (unsigned k = 0; k < kTallyItems; ++k) {
      const std::size_t i = from + threadIdx.x * kTallyItems + k;
      x[k] = i < n ? column[i] : Scalar(0);
      if (i < n && tally_value(double(x[k]), b, mine)) {
        keep |= 1u << k;
        ++count;
      }
    }
    unsigned before = 0, total = 0;
    Scan(scan).ExclusiveSum(count, before, total);
    std::uint64_t at = written + before;
    for (unsigned k = 0; k < kTallyItems; ++k)
      if (keep & (1u << k)) to[at++] = x[k];
    written += total;
    __syncthreads();  // the scan's storage serves the next tile
  }
  for (int j = 0; j < kColumnBrackets; ++j)
    if (mine.below[j] != 0) atomicAdd(&below[j], (unsigned long long)(mine.below[j]));
  __syncthreads();
  if (threadIdx.x == 0) {
    ColumnTally t{};
    t.kept = written;
    for (int j = 0; j < kColumnBrackets; ++j) t.below[j] = below[j];
    tallies[c] = t;
  }
}

// Where each column's compacted values go among all columns': offsets[c + 1] = offsets[c] + its
// compacted count, for the columns [first, first + count) after offsets[first]. One block: each
// thread sums a run of columns, and a block-wide scan places the runs (one thread over the default
// scenario's 1,812 columns took 0.65–0.83 ms on an H200).
constexpr unsigned kOffsetsBlock = 256;

__global__ void __launch_bounds__(kOffsetsBlock)
    compacted_offsets_kernel(const ColumnTally* __restrict__ tallies, std::uint64_t keep, std::size_t first,
                             std::size_t count, std::uint64_t* __restrict__ offsets) {
  using Scan = cub::BlockScan<std::uint64_t, kOffsetsBlock>;
  __shared__ typename Scan::TempStorage scan;
  const std::size_t per = (count + kOffsetsBlock - 1) / kOffsetsBlock;
  const std::size_t begin = std::min(count, threadIdx.x * per), end = std::min(count, begin + per);
  const auto sent = [&](std::size_t c) {
    const std::uint64_t m0 = tallies[first + c].kept;
    return compacted_count(m0, batch_compaction_levels(m0, keep));
  };
  std::uint64_t run = 0;
  for (std::size_t c = begin; c < end; ++c) run += sent(c);
  std::uint64_t before = 0;
  Scan(scan).ExclusiveSum(run, before);
  const std::uint64_t base = first == 0 ? 0 : offsets[first];  // the previous group's last
  if (first == 0 && threadIdx.x == 0) offsets[0] = 0;
  std::uint64_t at = base + before;
  for (std::size_t c = begin; c < end; ++c) offsets[first + c + 1] = (at += sent(c));
}

// One block per column: its sorted kept values compacted into out[offsets[c], offsets[c + 1]).
template <class Scalar>
__global__ void compact_sorted_columns_kernel(const Scalar* __restrict__ sorted, std::size_t n,
                                              const ColumnTally* __restrict__ tallies,
                                              const std::uint64_t* __restrict__ offsets, BatchCompactionRequest request,
                                              std::size_t first_column, Scalar* __restrict__ out) {
  const std::size_t c = first_column + blockIdx.x;
  const Scalar* column = sorted + std::size_t(blockIdx.x) * n;
  __shared__ std::uint64_t coins;
  const std::uint64_t m0 = tallies[c].kept;
  const int levels = batch_compaction_levels(m0, request.keep);
  if (threadIdx.x == 0)
    coins = batch_compaction_coins(statistics_column_seed(request.seed, c), request.batch_key, levels);
  __syncthreads();
  const std::uint64_t count = compacted_count(m0, levels);
  Scalar* to = out + offsets[c];
  for (std::uint64_t j = threadIdx.x; j < count; j += blockDim.x)
    to[j] = column[compacted_position(m0, levels, coins, j)];
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

// Segment s of a group of columns starts at s · n and holds the column's kept values.
struct SegmentStart {
  int n;
  __host__ __device__ int operator()(int s) const { return s * n; }
};
struct SegmentEnd {
  int n;
  const ColumnTally* tallies;  // the group's first column's
  __host__ __device__ int operator()(int s) const { return s * n + int(tallies[s].kept); }
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
cudaError_t compact_columns_in_brackets(Scalar* data, std::size_t n, std::size_t columns,
                                        const ColumnBrackets* brackets, const BatchCompactionRequest& request,
                                        Scalar* kept, void* temp, std::size_t& temp_bytes, ColumnTally* tallies,
                                        std::uint64_t* offsets, Scalar* out, cudaStream_t stream) {
  if (n == 0 || columns == 0 || n > std::size_t(INT_MAX)) {
    if (temp == nullptr) temp_bytes = 0;
    return n > std::size_t(INT_MAX) ? cudaErrorInvalidValue : cudaSuccess;
  }
  // CUB counts items in an int: the columns go in groups of at most INT_MAX values.
  const std::size_t group = std::max<std::size_t>(1, std::size_t(INT_MAX) / n);
  const auto starts = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), SegmentStart{int(n)});
  if (temp == nullptr) {
    const std::size_t largest = std::min(group, columns);
    cub::DoubleBuffer<Scalar> keys(kept, data);
    const auto ends = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), SegmentEnd{int(n), tallies});
    return cub::DeviceSegmentedRadixSort::SortKeys(nullptr, temp_bytes, keys, int(largest * n), int(largest), starts,
                                                   ends, 0, int(sizeof(Scalar) * 8), stream);
  }
  for (std::size_t first = 0; first < columns; first += group) {
    const std::size_t count = std::min(group, columns - first);
    Scalar* group_data = data + first * n;
    tally_columns_kernel<Scalar><<<unsigned(count), kTallyBlock, 0, stream>>>(group_data, n, brackets, first, kept,
                                                                               tallies);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    compacted_offsets_kernel<<<1, kOffsetsBlock, 0, stream>>>(tallies, request.keep, first, count, offsets);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    // The group's values are read: their place is the sort's other buffer.
    cub::DoubleBuffer<Scalar> keys(kept, group_data);
    const auto ends =
        thrust::make_transform_iterator(thrust::counting_iterator<int>(0), SegmentEnd{int(n), tallies + first});
    std::size_t bytes = temp_bytes;
    e = cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, keys, int(count * n), int(count), starts, ends, 0,
                                                int(sizeof(Scalar) * 8), stream);
    if (e != cudaSuccess) return e;
    compact_sorted_columns_kernel<Scalar>
        <<<unsigned(count), kBlockSize, 0, stream>>>(keys.Current(), n, tallies, offsets, request, first, out);
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
  template cudaError_t compact_columns_in_brackets<Scalar>(Scalar*, std::size_t, std::size_t, const ColumnBrackets*,   \
                                                           const BatchCompactionRequest&, Scalar*, void*,              \
                                                           std::size_t&, ColumnTally*, std::uint64_t*, Scalar*,        \
                                                           cudaStream_t);                                              \
  template cudaError_t launch_gather_rows<Scalar>(const Scalar*, std::size_t, std::size_t, const std::uint32_t*,       \
                                                  std::size_t, Scalar*, cudaStream_t);                                 \
  template cudaError_t launch_gather_columns<Scalar>(const Scalar*, std::size_t, std::size_t, const std::uint32_t*,    \
                                                     std::size_t, Scalar*, cudaStream_t);
RBMC_INSTANTIATE(float)
RBMC_INSTANTIATE(double)
#undef RBMC_INSTANTIATE

}  // namespace rbmc::kernels

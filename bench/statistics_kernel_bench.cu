// What the GPU's statistics stage spends, kernel by kernel, on a batch shaped like the default
// scenario's (n samples × 151 output times × 12 quantities, column by column): the column moments
// (a block per column, as kernels/statistics.cu runs it), the classification against the
// sketches' brackets, sort and compaction for the quantile sketch (CUB's segmented radix sort of
// the kept values, as it runs them), with open brackets (a run's first batch: every value kept)
// and with brackets that keep about 5 % of each column (a later batch's), and, beside them, two
// other ways to sort the same columns, so that a change is chosen by measurement: CUB's
// DeviceSegmentedSort, and DeviceRadixSort column by column. Then what crosses to the host after
// the compaction, as the CUDA backend's copy_to_host moves it: the compacted columns into
// page-locked memory, and from there into pageable doubles on every core. CUDA events, the median
// of `repetitions` after a warm-up (the host's copy timed by events around it, on an idle stream;
// the columns refilled before each repetition of the compaction, which overwrites them).
//   rbmc_statistics_kernel_bench [n] [columns] [repetitions]
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "host/backend/cuda_check.hpp"
#include "host/backend/device_buffer.hpp"
#include "kernels/statistics.cuh"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc::bench {
namespace {

// Column c's values: normal draws with a mean and spread of the column's own, as quantities are.
template <class Scalar>
__global__ void fill_columns(Scalar* data, std::size_t n, std::size_t columns) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= n * columns) return;
  const std::size_t c = e / n, i = e % n;
  const PhiloxStream s(20261126, i, std::uint32_t(c));
  const double u1 = s.uniform(0), u2 = s.uniform(1);
  const double z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
  data[e] = Scalar(double(c % 12) + (1.0 + double(c % 7)) * z);
}

struct SegmentOffset {
  int n;
  __host__ __device__ int operator()(int s) const { return s * n; }
};

double median_ms(int repetitions, const std::function<void()>& work, const std::function<void()>& prepare = [] {}) {
  cudaEvent_t start, stop;
  RBMC_CUDA_CHECK(cudaEventCreate(&start));
  RBMC_CUDA_CHECK(cudaEventCreate(&stop));
  prepare();
  work();  // warm-up
  std::vector<float> ms;
  for (int r = 0; r < repetitions; ++r) {
    prepare();
    RBMC_CUDA_CHECK(cudaEventRecord(start));
    work();
    RBMC_CUDA_CHECK(cudaEventRecord(stop));
    RBMC_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    RBMC_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  RBMC_CUDA_CHECK(cudaEventDestroy(start));
  RBMC_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <class Scalar>
void run(std::size_t n, std::size_t columns, int repetitions) {
  const char* precision = sizeof(Scalar) == 8 ? "double" : "float";
  const std::size_t values = n * columns;
  cuda::DeviceBuffer<Scalar> data(values), sorted(values), compacted;
  cuda::DeviceBuffer<Moments> moments(columns);
  const auto fill = [&] {
    fill_columns<Scalar><<<unsigned((values + 255) / 256), 256>>>(data.data(), n, columns);
    RBMC_CUDA_CHECK(cudaGetLastError());
    RBMC_CUDA_CHECK(cudaDeviceSynchronize());
  };
  fill();
  const double gvalues = double(values) * 1e-9;
  const auto row = [&](const char* what, double ms) {
    std::printf("| %s | %s | %.2f | %.2f |\n", what, precision, ms, gvalues / (ms * 1e-3));
  };

  row("column moments (as run)", median_ms(repetitions, [&] {
        RBMC_CUDA_CHECK(kernels::reduce_column_moments<Scalar>(data.data(), n, columns, moments.data(), nullptr));
      }));

  // The classification, sort and compaction as the run does them (keep = 2 k, k = 5120): with
  // open brackets, then with brackets of ±0.5 % of the values around each quantile (column c is
  // normal with mean c mod 12 and spread 1 + c mod 7; z ± h(z), h = 0.005 / φ(z)).
  const BatchCompactionRequest request{10240, 1, 0};
  compacted.reserve(columns * std::size_t(compacted_capacity(n, request.keep)));
  cuda::DeviceBuffer<ColumnBrackets> brackets(columns);
  cuda::DeviceBuffer<ColumnTally> tallies(columns);
  cuda::DeviceBuffer<std::uint64_t> compacted_offsets(columns + 1);
  std::size_t temp_bytes = 0;
  RBMC_CUDA_CHECK(kernels::compact_columns_in_brackets<Scalar>(data.data(), n, columns, nullptr, request, nullptr,
                                                               nullptr, temp_bytes, nullptr, nullptr, nullptr,
                                                               nullptr));
  cuda::DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
  constexpr double kZ[kColumnBrackets] = {-2.3263, -1.6449, 0.0, 1.6449, 2.3263};
  constexpr double kHalfWidth[kColumnBrackets] = {0.187, 0.0485, 0.0125, 0.0485, 0.187};
  std::uint64_t sent = 0;
  for (const bool narrow : {false, true}) {
    std::vector<ColumnBrackets> host_brackets(columns);
    for (std::size_t c = 0; c < columns; ++c)
      for (int j = 0; j < kColumnBrackets; ++j) {
        const double mean = double(c % 12), spread = 1.0 + double(c % 7);
        host_brackets[c].lo[j] = narrow ? mean + spread * (kZ[j] - kHalfWidth[j]) : -INFINITY;
        host_brackets[c].hi[j] = narrow ? mean + spread * (kZ[j] + kHalfWidth[j]) : INFINITY;
      }
    RBMC_CUDA_CHECK(cudaMemcpy(brackets.data(), host_brackets.data(), columns * sizeof(ColumnBrackets),
                               cudaMemcpyHostToDevice));
    row(narrow ? "classification, sort and compaction, brackets keeping 5 % (as run)"
               : "classification, sort and compaction, open brackets (as run)",
        median_ms(
            repetitions,
            [&] {
              std::size_t bytes = temp_bytes;
              RBMC_CUDA_CHECK(kernels::compact_columns_in_brackets<Scalar>(
                  data.data(), n, columns, brackets.data(), request, sorted.data(), temp.data(), bytes, tallies.data(),
                  compacted_offsets.data(), compacted.data(), nullptr));
            },
            fill));
    RBMC_CUDA_CHECK(cudaMemcpy(&sent, compacted_offsets.data() + columns, sizeof sent, cudaMemcpyDeviceToHost));
    std::printf("|   values sent | %s | %llu | %.1f a column |\n", precision, (unsigned long long)sent,
                double(sent) / double(columns));
  }
  fill();

  // The compacted columns (the narrowed brackets', as the backend sends a later batch's) to the
  // host.
  const std::size_t count = std::max<std::uint64_t>(sent, 1);
  cuda::PinnedBuffer<Scalar> staging(count);
  std::vector<double> host(count);
  const auto copy_row = [&](const char* what, double ms) {
    std::printf("| %s | %s | %.2f | %.2f |\n", what, precision, ms, double(count) * 1e-9 / (ms * 1e-3));
  };
  copy_row("compacted columns to page-locked host memory (as run)", median_ms(repetitions, [&] {
             RBMC_CUDA_CHECK(cudaMemcpyAsync(staging.data(), compacted.data(), count * sizeof(Scalar),
                                             cudaMemcpyDeviceToHost, nullptr));
           }));
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  copy_row("then into pageable doubles on every core (as run)", median_ms(repetitions, [&] {
             std::vector<std::thread> pool;
             const std::size_t per = (count + threads - 1) / threads;
             for (unsigned t = 0; t < threads; ++t)
               pool.emplace_back([&, t] {
                 const std::size_t first = std::min(count, std::size_t(t) * per), last = std::min(count, first + per);
                 std::copy(staging.data() + first, staging.data() + last, host.data() + first);
               });
             for (std::thread& worker : pool) worker.join();
           }));

  // CUB's DeviceSegmentedSort over the same segments.
  const auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), SegmentOffset{int(n)});
  const std::size_t group = std::min(columns, std::max<std::size_t>(1, std::size_t(INT_MAX) / n));
  std::size_t seg_bytes = 0;
  RBMC_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, seg_bytes, data.data(), sorted.data(), int(group * n),
                                                     int(group), offsets, offsets + 1));
  cuda::DeviceBuffer<unsigned char> seg_temp(std::max<std::size_t>(seg_bytes, 1));
  row("DeviceSegmentedSort (sort only)", median_ms(repetitions, [&] {
        for (std::size_t first = 0; first < columns; first += group) {
          const std::size_t count = std::min(group, columns - first);
          std::size_t bytes = seg_bytes;
          RBMC_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(seg_temp.data(), bytes, data.data() + first * n,
                                                             sorted.data(), int(count * n), int(count), offsets,
                                                             offsets + 1));
        }
      }));

  // DeviceRadixSort (onesweep), one column at a time.
  std::size_t one_bytes = 0;
  RBMC_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, one_bytes, data.data(), sorted.data(), int(n)));
  cuda::DeviceBuffer<unsigned char> one_temp(std::max<std::size_t>(one_bytes, 1));
  row("DeviceRadixSort, column by column (sort only)", median_ms(repetitions, [&] {
        for (std::size_t c = 0; c < columns; ++c) {
          std::size_t bytes = one_bytes;
          RBMC_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(one_temp.data(), bytes, data.data() + c * n,
                                                         sorted.data() + c * n, int(n)));
        }
      }));
  RBMC_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace rbmc::bench

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t(1) << 20;
  const std::size_t columns = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 151 * 12;
  const int repetitions = argc > 3 ? std::atoi(argv[3]) : 3;
  std::printf("statistics kernels: n = %zu samples, %zu columns (median of %d)\n\n", n, columns, repetitions);
  std::printf("| kernel | precision | ms | G values/s |\n| --- | --- | --- | --- |\n");
  rbmc::bench::run<double>(n, columns, repetitions);
  rbmc::bench::run<float>(n, columns, repetitions);
  return 0;
}

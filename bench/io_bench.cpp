// The writer's trajectory chunks deflated (host/io/shuffled_deflate.hpp), bytes a second on one
// thread: rbmc's shuffle_and_deflate against libdeflate's own zlib stream of the same shuffled
// bytes (the peer, what rbmc did before 2026-12-03), measured in the same run. A chunk as
// TrajectoryChunks lays one out: (rows, 32 times, 3) doubles, 256 KiB.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "host/io/shuffled_deflate.hpp"

#ifdef RBMC_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

namespace {

constexpr std::size_t kRows = 341, kTimes = 32, kDim = 3;

// kind 0: every sample in flight, uniform in [-3, 3) (its lowest byte is not quite noise: a third
// of the values, those above 1 in size, have two low bits zero, so that plane 0 deflates 7 %
// smaller and, the noise planes being the lowest ones, every plane is deflated as before); 1: the
// same with each sample stopped at a random time, NaN after it (tossed_box's chunks as its samples
// land); 2: a ramp of sample indices (a dimension scale), which deflates to nearly nothing.
std::vector<unsigned char> chunk_of(int kind) {
  std::vector<double> v(kRows * kTimes * kDim);
  std::mt19937 g(11);
  std::uniform_real_distribution<double> u(-3, 3);
  for (std::size_t r = 0; r < kRows; ++r) {
    const std::size_t stop = kind == 1 ? g() % (kTimes + 1) : kTimes;
    for (std::size_t k = 0; k < kTimes; ++k)
      for (std::size_t c = 0; c < kDim; ++c) {
        const std::size_t i = (r * kTimes + k) * kDim + c;
        v[i] = kind == 2 ? 0.0 : k < stop ? u(g) : std::numeric_limits<double>::quiet_NaN();
        if (kind == 2) {
          const std::uint64_t index = 5000 + i;
          std::memcpy(&v[i], &index, 8);
        }
      }
  }
  std::vector<unsigned char> bytes(v.size() * 8);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

void trajectory_chunk_deflated(benchmark::State& state) {
  const std::vector<unsigned char> chunk = chunk_of(int(state.range(0)));
  std::size_t size = 0;
  for (auto _ : state) {
    const std::vector<unsigned char> out = rbmc::shuffle_and_deflate(chunk.data(), chunk.size(), 8, 1);
    size = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(std::int64_t(state.iterations() * chunk.size()));
  state.counters["ratio"] = double(size) / double(chunk.size());
}

#ifdef RBMC_HAVE_LIBDEFLATE
void trajectory_chunk_libdeflate(benchmark::State& state) {
  const std::vector<unsigned char> chunk = chunk_of(int(state.range(0)));
  libdeflate_compressor* c = libdeflate_alloc_compressor(1);
  std::vector<unsigned char> shuffled(chunk.size()), out(libdeflate_zlib_compress_bound(c, chunk.size()));
  std::size_t size = 0;
  for (auto _ : state) {
    const std::size_t n = chunk.size() / 8;  // the shuffle, as shuffle_and_deflate's
    for (std::size_t j = 0; j < 8; ++j)
      for (std::size_t i = 0; i < n; ++i) shuffled[j * n + i] = chunk[i * 8 + j];
    size = libdeflate_zlib_compress(c, shuffled.data(), shuffled.size(), out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
  libdeflate_free_compressor(c);
  state.SetBytesProcessed(std::int64_t(state.iterations() * chunk.size()));
  state.counters["ratio"] = double(size) / double(chunk.size());
}
BENCHMARK(trajectory_chunk_libdeflate)->DenseRange(0, 2);
#endif
BENCHMARK(trajectory_chunk_deflated)->DenseRange(0, 2);

}  // namespace

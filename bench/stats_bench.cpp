// The statistics stage's costs per value on one core: feeding a quantile sketch (what every
// sample's value at every output time costs past [output] quantile_memory_mb), value by value, a
// batch column at a time, or as a GPU's compacted batches; and a batch's columns' moments, as
// RunStatistics::add computes them beside the sketch and as merging value by value would; the
// sketch fed through brackets around the quantiles, as RunStatistics feeds it, alone and as a
// run's 1,812 columns; a bracket update's ranks read from sketches; the brackets' filter
// alone, at each width, on columns it has not seen; and what the quantities' non-temporal lines
// cost a core, on ordinary pages and on huge ones.
// "items" are values unless a benchmark says otherwise.
#include <benchmark/benchmark.h>

#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "host/stats/bracket_filter.hpp"
#include "host/stats/bracketed_sketch.hpp"
#include "host/stats/column_moments.hpp"
#include "host/stats/run_statistics.hpp"  // kQuantileProbabilities
#include "host/stats/quantile_sketch.hpp"
#include "host/util/buffer_allocator.hpp"
#include "rbmc/stats/batch_compaction.hpp"

namespace rbmc::bench {
namespace {

std::vector<double> normal_values(std::size_t n) {
  std::mt19937_64 engine(42);
  std::normal_distribution<double> normal(3.0, 0.5);
  std::vector<double> v(n);
  for (double& x : v) x = normal(engine);
  return v;
}

// A column of a run: `state.range(0)` values (the samples), fed one at a time.
void sketch_add_each(benchmark::State& state) {
  const std::vector<double> values = normal_values(std::size_t(state.range(0)));
  for (auto _ : state) {
    QuantileSketch sketch;
    for (double v : values) sketch.add(v);
    benchmark::DoNotOptimize(sketch.count());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The same values a batch of 4,096 samples at a time, as RunStatistics feeds them.
void sketch_add_batches(benchmark::State& state) {
  const std::vector<double> values = normal_values(std::size_t(state.range(0)));
  for (auto _ : state) {
    QuantileSketch sketch;
    for (std::size_t at = 0; at < values.size(); at += 4096)
      sketch.add(values.data() + at, std::min<std::size_t>(4096, values.size() - at));
    benchmark::DoNotOptimize(sketch.count());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The same values through brackets around a run's 5 quantiles (bracketed_sketch.hpp): past the
// first 4,096, most are counted, not sketched.
void bracketed_sketch_add_batches(benchmark::State& state) {
  const std::vector<double> values = normal_values(std::size_t(state.range(0)));
  for (auto _ : state) {
    BracketedSketch sketch(kQuantileProbabilities, true);
    for (std::size_t at = 0; at < values.size(); at += 4096)
      sketch.add(values.data() + at, std::min<std::size_t>(4096, values.size() - at));
    benchmark::DoNotOptimize(sketch.count());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// A run's sketches on one core, as RunStatistics keeps them on the CPU: `state.range(0)` columns
// (the main job's 151 times × 12 quantities: 1,812) of `state.range(1)` samples, fed in the CPU
// backend's batches of 4,096 (2 threads × 2,048; 8,192 until 2026-12-03) column by column, then
// each column's estimates and rank bound read. The sketches together are far more than the caches
// hold, as in the run: the bracket updates, compactions and estimates read them from memory.
// Every batch brings the same values (one batch's worth, drawn once), which only repeats the
// quantiles the brackets close in on. "items" are values.
void bracketed_sketches_of_a_run(benchmark::State& state) {
  constexpr std::size_t kBatch = 4096;
  const std::size_t columns = std::size_t(state.range(0)), samples = std::size_t(state.range(1));
  const std::vector<double> batch = normal_values(columns * kBatch);  // (columns, kBatch)
  for (auto _ : state) {
    std::vector<BracketedSketch> sketches;
    sketches.reserve(columns);
    for (std::size_t c = 0; c < columns; ++c) sketches.emplace_back(kQuantileProbabilities, true, QuantileSketch::kDefaultK, c);
    for (std::size_t at = 0; at < samples; at += kBatch)
      for (std::size_t c = 0; c < columns; ++c) sketches[c].add(batch.data() + c * kBatch, std::min(kBatch, samples - at));
    double sum = 0;
    for (const BracketedSketch& sketch : sketches) sum += sketch.quantiles()[2] + sketch.rank_error_95();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(columns * samples));
}

// The host's share when a GPU compacts each batch's column before sending it
// (rbmc/stats/batch_compaction.hpp): merging the compacted columns of batches of 2^20 samples
// into the sketch. The compaction itself (the device's sort and gather) is not timed: here it is
// done once, before the loop. "items" are the samples the merged values stand for.
void sketch_merge_compacted_batches(benchmark::State& state) {
  const std::size_t batch = std::size_t(1) << 20, n = std::size_t(state.range(0));
  std::vector<double> values = normal_values(n);
  const std::uint64_t keep = 2 * QuantileSketch::kDefaultK;
  std::vector<std::vector<double>> sent;
  std::vector<std::uint64_t> counts;
  for (std::size_t at = 0; at < n; at += batch) {
    const std::size_t m0 = std::min(batch, n - at);
    std::sort(values.begin() + std::ptrdiff_t(at), values.begin() + std::ptrdiff_t(at + m0));
    const int levels = batch_compaction_levels(m0, keep);
    const std::uint64_t coins = batch_compaction_coins(1, at, levels);
    std::vector<double> column(compacted_count(m0, levels));
    for (std::size_t j = 0; j < column.size(); ++j) column[j] = values[at + compacted_position(m0, levels, coins, j)];
    sent.push_back(column);
    counts.push_back(m0);
  }
  for (auto _ : state) {
    QuantileSketch sketch;
    for (std::size_t b = 0; b < sent.size(); ++b)
      sketch.merge_compacted(sent[b].data(), counts[b], batch_compaction_levels(counts[b], keep));
    benchmark::DoNotOptimize(sketch.count());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// Reading a bracket update's 10 ranks (5 probabilities ∓ their margins) from sketches of
// `state.range(0)` values: `state.range(1)` sketches read in turn, so that with many each is read
// from memory, as the run's thousands of columns are (1: the same sketch, in the core's cache).
// By searching the sorted levels (values_at_ranks), or from weighted_values' pairs and their
// running weights (how the brackets and the estimates were read until 2026-11-27). "items" are
// sketches read.
std::vector<QuantileSketch> sketches_of(std::size_t n, std::size_t count) {
  const std::vector<double> values = normal_values(n + count);
  std::vector<QuantileSketch> sketches;
  for (std::size_t i = 0; i < count; ++i) {
    sketches.emplace_back(QuantileSketch::kDefaultK, i);
    sketches.back().add(values.data() + i, n);  // each a different window of the values
  }
  return sketches;
}

std::array<double, 10> bracket_ranks(double n) {
  std::array<double, 10> t{};
  for (std::size_t j = 0; j < 5; ++j) {
    const double p = kQuantileProbabilities[j], margin = 6 * std::sqrt(p * (1 - p) / n);
    t[j] = std::max(0.0, p - margin) * (n - 1);
    t[5 + j] = std::min(1.0, p + margin) * (n - 1);
  }
  return t;
}

using Ranks = std::array<double, 10>;

// Reads the ranks from each sketch in turn: read(sketch, ranks, values).
template <class Read>
void read_sketch_ranks(benchmark::State& state, Read read) {
  const std::vector<QuantileSketch> sketches = sketches_of(std::size_t(state.range(0)), std::size_t(state.range(1)));
  const Ranks t = bracket_ranks(double(state.range(0)));
  Ranks x;
  std::size_t next = 0;
  for (auto _ : state) {
    read(sketches[next], t, x);
    benchmark::DoNotOptimize(x.data());
    next = next + 1 == sketches.size() ? 0 : next + 1;
  }
  state.SetItemsProcessed(state.iterations());
}

void sketch_ranks_searched(benchmark::State& state) {
  read_sketch_ranks(state, [](const QuantileSketch& sketch, const Ranks& t, Ranks& x) {
    sketch.values_at_ranks(t.data(), t.size(), x.data());
  });
}

void sketch_ranks_from_weighted_values(benchmark::State& state) {
  read_sketch_ranks(state, [](const QuantileSketch& sketch, const Ranks& t, Ranks& x) {
    const std::vector<std::pair<double, double>> weighted = sketch.weighted_values();
    std::vector<double> running(weighted.size());
    double sum = 0;
    for (std::size_t i = 0; i < weighted.size(); ++i) running[i] = sum += weighted[i].second;
    for (std::size_t j = 0; j < t.size(); ++j) {
      const auto at = std::upper_bound(running.begin(), running.end(), t[j]);
      x[j] = at == running.end() ? INFINITY : weighted[std::size_t(at - running.begin())].first;
    }
  });
}

// A batch's 12 quantities at one output time: 12 columns of `state.range(0)` samples.
constexpr std::size_t kColumns = 12;

void moments_of_columns(benchmark::State& state) {
  const std::size_t n_rows = std::size_t(state.range(0));
  const std::vector<double> values = normal_values(kColumns * n_rows);
  std::vector<const double*> columns(kColumns);
  for (std::size_t j = 0; j < kColumns; ++j) columns[j] = values.data() + j * n_rows;
  std::vector<Moments> out(kColumns);
  for (auto _ : state) {
    column_moments(columns.data(), kColumns, n_rows, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(kColumns * n_rows));
}

// The reference it agrees with to rounding: merge(m, Moments::of(x)), a column at a time.
void moments_merged_value_by_value(benchmark::State& state) {
  const std::size_t n_rows = std::size_t(state.range(0));
  const std::vector<double> values = normal_values(kColumns * n_rows);
  std::vector<Moments> out(kColumns);
  for (auto _ : state) {
    for (std::size_t j = 0; j < kColumns; ++j) {
      Moments m;
      for (std::size_t i = 0; i < n_rows; ++i) m = merge(m, Moments::of(values[j * n_rows + i]));
      out[j] = m;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(kColumns * n_rows));
}

// The brackets' filter (bracket_filter.hpp) over 64 batch columns of 8,192 values each, 4 MiB
// (fresh to the branch predictor, as a run's columns are: one column filtered again and again
// lets it learn the column), with brackets around the run's five quantiles that keep
// state.range(0) per mille of the values (the main job keeps about 13 % over a run of 10^5
// samples: all of its first 4,096, then fewer as the brackets narrow). state.range(1): 0 the
// widest vectors the processor has, 1 GCC's vectors of four, 2 AVX2's intrinsics (where the
// processor has AVX2).
constexpr std::size_t kFilterRows = 8192, kFilterColumns = 64;

// Brackets around the five quantiles of normal values that keep `kept_share` of them.
struct BenchBrackets {
  double lo[kColumnBrackets], hi[kColumnBrackets];
  BenchBrackets(const std::vector<double>& values, double kept_share) {
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    // Each bracket's share of the kept values as its quantile's standard error, sqrt(p (1 - p)).
    double weight[kColumnBrackets], total = 0;
    for (int j = 0; j < kColumnBrackets; ++j)
      total += weight[j] = std::sqrt(kQuantileProbabilities[j] * (1 - kQuantileProbabilities[j]));
    const auto at = [&](double p) { return sorted[std::size_t(std::clamp(p, 0.0, 1.0) * double(sorted.size() - 1))]; };
    for (int j = 0; j < kColumnBrackets; ++j) {
      const double half = kept_share * weight[j] / total / 2;
      lo[j] = at(kQuantileProbabilities[j] - half);
      hi[j] = at(kQuantileProbabilities[j] + half);
    }
  }
};

BracketFilterWidth bench_filter_width(std::int64_t arg) {
  return arg == 0 ? BracketFilterWidth::widest : arg == 1 ? BracketFilterWidth::vectors_of_four : BracketFilterWidth::avx2;
}

void bracket_filter_fresh_columns(benchmark::State& state) {
  const std::vector<double> values = normal_values(kFilterRows * kFilterColumns);
  const BenchBrackets b(values, double(state.range(0)) / 1000);
  const BracketFilterWidth width = bench_filter_width(state.range(1));
  std::vector<double> kept(kFilterRows + kBracketFilterSlack);
  std::uint64_t below[kColumnBrackets] = {}, finite = 0, kept_count = 0;
  for (auto _ : state)
    for (std::size_t c = 0; c < kFilterColumns; ++c)
      kept_count += keep_inside_brackets(values.data() + c * kFilterRows, kFilterRows, b.lo, b.hi, below, finite,
                                         kept.data(), width);
  benchmark::DoNotOptimize(kept_count);
  state.counters["kept"] = double(kept_count) / double(finite);
  state.SetItemsProcessed(std::int64_t(state.iterations()) * std::int64_t(kFilterRows * kFilterColumns));
}

// The moments and the filter of the same columns together, as the run's statistics take a batch's
// columns (column_moments_filtering, column_moments.hpp): one read of each column on AVX-512 and
// AVX2, two with vectors of four. The arguments as bracket_filter_fresh_columns'.
void moments_filtering_fresh_columns(benchmark::State& state) {
  const std::vector<double> values = normal_values(kFilterRows * kFilterColumns);
  const BenchBrackets b(values, double(state.range(0)) / 1000);
  const BracketFilterWidth width = bench_filter_width(state.range(1));
  std::vector<double> kept(kFilterRows + kBracketFilterSlack);
  double sum = 0;
  for (auto _ : state)
    for (std::size_t c = 0; c < kFilterColumns; ++c) {
      ColumnPrefixFilter filter;
      filter.lo = b.lo;
      filter.hi = b.hi;
      filter.rows = kFilterRows;
      filter.kept = kept.data();
      sum += column_moments_filtering(values.data() + c * kFilterRows, kFilterRows, filter, width).m2;
    }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(std::int64_t(state.iterations()) * std::int64_t(kFilterRows * kFilterColumns));
}

// What a line of the statistics' quantities costs a core beyond the arithmetic between lines: the
// CPU backend's pattern (lane_quantities.hpp), a lane group of 8 samples at a time, at each of
// 151 output times `state.range(0)` rounds of 8 independent vector products (about 1.5 ns a
// round on the development machine; the quantities' own arithmetic is some tens of rounds), then
// one non-temporal line into each of the time's 12 columns of 8,192 rows. Each round of the loop
// times the arithmetic alone and then with the lines, alternately, so that a drifting machine
// moves both alike; the counters are the fastest of each. state.range(1): 0 ordinary pages, 1 the buffer rbmc writes
// (BufferAllocator: huge pages where the kernel gives them). AVX-512 only (its lines are one store).
__attribute__((target("avx512f"))) double quantity_lines_pattern(double* columns, int rounds, bool lines) {
  constexpr std::size_t kRows = 8192, kTimes = 151, kQuantities = 12;
  __m512d v[8];
  for (int j = 0; j < 8; ++j) v[j] = _mm512_set1_pd(1.0 + 1e-3 * j);
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t g = 0; g < kRows; g += 8)
    for (std::size_t k = 0; k < kTimes; ++k) {
      for (int r = 0; r < rounds; ++r)
        for (int j = 0; j < 8; ++j) v[j] = _mm512_mul_pd(v[j], v[j]);
      if (lines)
        for (std::size_t c = 0; c < kQuantities; ++c) _mm512_stream_pd(columns + (k * kQuantities + c) * kRows + g, v[c % 8]);
    }
  _mm_sfence();
  double sink = 0;
  for (int j = 0; j < 8; ++j) sink += _mm512_reduce_add_pd(v[j]);
  benchmark::DoNotOptimize(sink);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / double(kRows / 8 * kTimes);
}

void quantity_lines_streamed(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("needs AVX-512");
    return;
  }
  const std::size_t n = std::size_t(8192) * 151 * 12;
  std::vector<double> plain(n + 8);  // ordinary pages, even where the kernel gives huge ones unasked
  madvise(reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(plain.data()) / 4096 * 4096), plain.size() * sizeof(double),
          MADV_NOHUGEPAGE);
  std::fill(plain.begin(), plain.end(), 0.0);
  std::vector<double, BufferAllocator<double>> buffer(n, 0.0);
  double* const columns = state.range(1) == 0 ? plain.data() + (8 - reinterpret_cast<std::uintptr_t>(plain.data()) / 8 % 8) % 8
                                              : buffer.data();
  double arithmetic = 1e30, with_lines = 1e30;
  for (auto _ : state) {
    arithmetic = std::min(arithmetic, quantity_lines_pattern(columns, int(state.range(0)), false));
    with_lines = std::min(with_lines, quantity_lines_pattern(columns, int(state.range(0)), true));
  }
  state.counters["arithmetic_ns_a_time"] = arithmetic;
  state.counters["with_lines_ns_a_time"] = with_lines;
  state.counters["ns_a_line"] = (with_lines - arithmetic) / 12;
}

BENCHMARK(moments_of_columns)->Arg(8192);
BENCHMARK(bracket_filter_fresh_columns)->ArgsProduct({{20, 50, 130}, {0, 1, 2}});
BENCHMARK(moments_filtering_fresh_columns)->ArgsProduct({{50, 130}, {0, 1, 2}});
BENCHMARK(moments_merged_value_by_value)->Arg(8192);
BENCHMARK(sketch_add_each)->Arg(100000)->Arg(1000000);
BENCHMARK(sketch_add_batches)->Arg(100000)->Arg(1000000);
BENCHMARK(bracketed_sketch_add_batches)->Arg(100000)->Arg(1000000);
BENCHMARK(bracketed_sketches_of_a_run)->Args({1812, 100000})->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(sketch_merge_compacted_batches)->Arg(1000000)->Arg(10000000);
BENCHMARK(sketch_ranks_searched)->Args({100000, 1})->Args({100000, 1024});
BENCHMARK(sketch_ranks_from_weighted_values)->Args({100000, 1})->Args({100000, 1024});
BENCHMARK(quantity_lines_streamed)->ArgsProduct({{0, 30, 100}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rbmc::bench

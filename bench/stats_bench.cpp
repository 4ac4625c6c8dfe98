// The statistics stage's costs per value on one core: feeding a quantile sketch (what every
// sample's value at every output time costs past [output] quantile_memory_mb), value by value and
// a batch column at a time; and a batch's columns' moments, as RunStatistics::add computes them
// beside the sketch and as merging value by value would. "items" are values.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "host/stats/column_moments.hpp"
#include "host/stats/quantile_sketch.hpp"

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

// A batch's 12 quantities at one output time: 12 columns of `state.range(0)` samples.
constexpr std::size_t kColumns = 12;

void moments_of_columns(benchmark::State& state) {
  const std::size_t n_rows = std::size_t(state.range(0));
  const std::vector<double> values = normal_values(kColumns * n_rows);
  std::vector<const double*> columns(kColumns);
  for (std::size_t j = 0; j < kColumns; ++j) columns[j] = values.data() + j * n_rows;
  const MomentFactors factors(n_rows);
  std::vector<Moments> out(kColumns);
  for (auto _ : state) {
    column_moments(columns.data(), kColumns, n_rows, factors, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(kColumns * n_rows));
}

// The reference it equals bit for bit: merge(m, Moments::of(x)), a column at a time.
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

BENCHMARK(moments_of_columns)->Arg(8192);
BENCHMARK(moments_merged_value_by_value)->Arg(8192);
BENCHMARK(sketch_add_each)->Arg(100000)->Arg(1000000);
BENCHMARK(sketch_add_batches)->Arg(100000)->Arg(1000000);

}  // namespace
}  // namespace rbmc::bench

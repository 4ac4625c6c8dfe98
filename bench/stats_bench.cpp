// The statistics stage's costs per value on one core: feeding a quantile sketch (what every
// sample's value at every output time costs past [output] quantile_memory_mb), value by value and
// a batch column at a time. "items" are values.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

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

BENCHMARK(sketch_add_each)->Arg(100000)->Arg(1000000);
BENCHMARK(sketch_add_batches)->Arg(100000)->Arg(1000000);

}  // namespace
}  // namespace rbmc::bench

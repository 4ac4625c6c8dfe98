// Micro-benchmarks of the math core on the CPU, one core, per precision: the right-hand side,
// one RK4 step, one Dormand–Prince trial step, and one sample's whole integration (free and on a
// pivot). "items" are body-steps (or right-hand-side evaluations): Google Benchmark reports them
// per second.
#include <benchmark/benchmark.h>

#include "bench/bench_body.hpp"
#include "host/backend/cpu_lanes.hpp"
#include "rbmc/integrate/dopri5.hpp"
#include "rbmc/integrate/rk4.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc::bench {
namespace {

// The pivot of the pivot benchmarks: the body hangs from its body point (0, 0, 0.05).
Constraint<double> bench_pivot() {
  return {ConstraintKind::pivot, Vec3<double>(0, 0, 0.05), Vec3<double>(0, 0, 0.05), 0.0, 50.0};
}

template <class Scalar>
void right_hand_side(benchmark::State& state) {
  const SampleInputs<Scalar> in = body_inputs<Scalar>();
  const SharedModel<Scalar> shared{};
  const BodyRate<Scalar> rate{make_free_body_model(in.body, in.gravity_w), &shared.loads, &shared.constraint};
  RigidBodyState<Scalar> x = in.initial;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x);
    const RigidBodyStateRate<Scalar> xd = rate(x);
    benchmark::DoNotOptimize(xd);
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Scalar>
void rk4_step_bench(benchmark::State& state) {
  const SampleInputs<Scalar> in = body_inputs<Scalar>();
  const SharedModel<Scalar> shared{};
  const BodyRate<Scalar> rate{make_free_body_model(in.body, in.gravity_w), &shared.loads, &shared.constraint};
  RigidBodyState<Scalar> x = in.initial;
  for (auto _ : state) {
    x = rk4_step(rate, x, Scalar(kStep));
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Scalar>
void dopri5_step_bench(benchmark::State& state) {
  const SampleInputs<Scalar> in = body_inputs<Scalar>();
  const SharedModel<Scalar> shared{};
  const BodyRate<Scalar> rate{make_free_body_model(in.body, in.gravity_w), &shared.loads, &shared.constraint};
  StateVector<Scalar> y = pack(in.initial), k1 = pack(rate(in.initial));
  Scalar t = 0;
  for (auto _ : state) {
    const Dopri5Trial<Scalar> trial = dopri5_trial(rate, y, k1, t, Scalar(kStep));
    y = trial.y;
    k1 = trial.k7;  // first same as last, as the integrator does
    t += Scalar(kStep);
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations());
}

// The body in SIMD lanes (host/backend/cpu_lanes.cpp), what the CPU backend runs for this
// workload on one thread: a batch of 64 copies of it, `steps` RK4 steps, in groups of the
// instruction set's width; free, or on the pivot of run_sample_bench below. With an output time
// every 20 steps (as the default scenario's), the states there are stored sample by sample, as
// the backend keeps them.
template <class Scalar>
void rk4_lanes_bench(benchmark::State& state, LaneIsa isa, bool pivot, bool outputs) {
  if (!lane_isa_supported(isa)) {
    state.SkipWithError("this processor lacks the instruction set");
    return;
  }
  constexpr std::size_t n = 64;
  const Rk4Lanes<Scalar> lanes = rk4_lanes<Scalar>(isa);
  const LaneGroupFunction<Scalar> group = pivot ? lanes.gravity : lanes.free_body;
  SampleInputs<double> in = body_inputs<double>();
  SharedModel<Scalar> shared{};
  if (pivot) {
    const Constraint<double> c = bench_pivot();
    shared.constraint = c.cast<Scalar>();
    in.initial.v_w = Vec3<double>::Zero();
    in.initial = project_onto_constraint(c, in.initial);
  }
  std::vector<double> inputs(n * std::size_t(input_column_count(0))), results(n * std::size_t(output_column_count(0)));
  std::vector<std::uint8_t> status(n);
  for (std::size_t i = 0; i < n; ++i) store_sample_inputs(inputs.data(), n, i, in, 0);
  const std::int64_t steps = state.range(0);
  const IntegrationSettings<Scalar> how = fixed_step<Scalar>(Scalar(kStep), steps);
  if (outputs) {
    shared.output_times.n = int(steps / 20) + 1;
    shared.output_times.interval = Scalar(20 * kStep);
  }
  std::vector<double> trajectory(outputs ? n * std::size_t(shared.output_times.n) * kTrajectoryColumns : 0);
  double* kept = outputs ? trajectory.data() : nullptr;
  for (auto _ : state) {
    for (std::size_t first = 0; first < n; first += std::size_t(lanes.width))
      if (!group(inputs.data(), results.data(), kept, status.data(), n, first, shared, how))
        state.SkipWithError("a group left the lanes");
    benchmark::DoNotOptimize(results.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(n) * steps);
  state.SetLabel(std::string(lane_isa_name(isa)) + " lanes of " + std::to_string(lanes.width));
}

// One sample, `steps` RK4 steps through run_sample: what one CPU thread does per sample, with the
// kinds the backends choose (RuntimeKinds), or the general RK4 path with events compiled in.
template <class Scalar, class Kinds = RuntimeKinds>
void run_sample_bench(benchmark::State& state, bool pivot) {
  SampleInputs<Scalar> in = body_inputs<Scalar>();
  SharedModel<Scalar> shared{};
  if (pivot) {
    shared.constraint = bench_pivot().cast<Scalar>();
    in.initial.v_w = Vec3<Scalar>::Zero();
    in.initial = project_onto_constraint(shared.constraint, in.initial);
  }
  const std::int64_t steps = state.range(0);
  const IntegrationSettings<Scalar> how = fixed_step<Scalar>(Scalar(kStep), steps);
  for (auto _ : state) {
    NoTrajectory none;
    const SampleResult<Scalar> r = run_sample<Scalar, Kinds>(in, shared, how, none);
    benchmark::DoNotOptimize(r.final_state);
  }
  state.SetItemsProcessed(state.iterations() * steps);
}

BENCHMARK_TEMPLATE(right_hand_side, float);
BENCHMARK_TEMPLATE(right_hand_side, double);
BENCHMARK_TEMPLATE(rk4_step_bench, float);
BENCHMARK_TEMPLATE(rk4_step_bench, double);
BENCHMARK_TEMPLATE(dopri5_step_bench, float);
BENCHMARK_TEMPLATE(dopri5_step_bench, double);
using GeneralRk4 = SampleKinds<StepperKind::rk4, true>;
void run_sample_free_float(benchmark::State& s) { run_sample_bench<float, GeneralRk4>(s, false); }
void run_sample_free_double(benchmark::State& s) { run_sample_bench<double, GeneralRk4>(s, false); }
void run_sample_pivot_float(benchmark::State& s) { run_sample_bench<float>(s, true); }
void run_sample_pivot_double(benchmark::State& s) { run_sample_bench<double>(s, true); }
void run_sample_free_variant_float(benchmark::State& s) { run_sample_bench<float, FreeBodyRk4Kinds>(s, false); }
void run_sample_free_variant_double(benchmark::State& s) { run_sample_bench<double, FreeBodyRk4Kinds>(s, false); }
template <class Scalar, LaneIsa kIsa, bool kPivot = false, bool kOutputs = false>
void rk4_lanes_run(benchmark::State& s) {
  rk4_lanes_bench<Scalar>(s, kIsa, kPivot, kOutputs);
}
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::sse2)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, false, true)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::sse2)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::avx2)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::avx512)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2, true)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, true)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::avx512, true)->Arg(1000);
BENCHMARK(run_sample_free_variant_float)->Arg(1000);
BENCHMARK(run_sample_free_variant_double)->Arg(1000);
BENCHMARK(run_sample_free_float)->Arg(1000);
BENCHMARK(run_sample_free_double)->Arg(1000);
BENCHMARK(run_sample_pivot_float)->Arg(1000);
BENCHMARK(run_sample_pivot_double)->Arg(1000);

}  // namespace
}  // namespace rbmc::bench



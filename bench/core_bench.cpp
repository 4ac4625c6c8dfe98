// Micro-benchmarks of the math core on the CPU, one core, per precision: the right-hand side,
// one RK4 step, one Dormand–Prince trial step, and one sample's whole integration (free and on a
// pivot), one at a time and in SIMD lanes, on fixed steps and on dopri5. "items" are body-steps
// (or right-hand-side evaluations): Google Benchmark reports them per second.
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

// The loads of the loads benchmarks, spring_mounted_box's kinds: a spring-damper to a world
// point, a body-fixed force at a corner, a world-fixed couple, linear and angular damping.
LoadSet<double> bench_loads() {
  LoadSet<double> l;
  l.n_springs = 1;
  l.springs[0] = {Vec3<double>(0.02, 0, 0.05), Vec3<double>(0, 0, 1.0), 200.0, 0.95, 0.5};
  l.n_point_forces = 1;
  l.point_forces[0] = {Vec3<double>(0.05, 0.05, -0.1), Vec3<double>(0, 0.2, 0), LoadFrame::body};
  l.n_torques = 1;
  l.torques[0] = {Vec3<double>(0, 0, -0.001), LoadFrame::world};
  l.linear_damping = 0.05;
  l.angular_linear_damping = 1e-4;
  return l;
}

// The plane of the planar benchmarks: the body's origin (its centre of mass) stays at z = 0 and
// its z axis vertical, as configs/puck_on_table.toml's puck.
Constraint<double> bench_plane() {
  return {ConstraintKind::planar, Vec3<double>::Zero(), Vec3<double>::Zero(), 0.0, 50.0};
}

// free_body, pivot, planar and loads on RK4; splitting: the loads on the symplectic splitting;
// free_principal and loads_principal: the free body and the loads with the body in its principal
// axes (bench_body.hpp's principal_inertia).
enum class BenchModel { free_body, pivot, planar, loads, splitting, free_principal, loads_principal };

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
  for (auto _ : state) {
    const Dopri5Trial<Scalar> trial = dopri5_trial(rate, y, k1, Scalar(kStep));
    y = trial.y;
    k1 = trial.k7;  // first same as last, as the integrator does
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations());
}

// The body in SIMD lanes (host/backend/cpu_lanes_*.cpp), what the CPU backend runs for this
// workload on one thread: a batch of 64 copies of it, `steps` fixed steps, in groups of the
// instruction set's width; RK4 free, on the pivot of run_sample_bench below, on a plane
// (bench_plane), or under its loads (bench_loads), or the splitting under those loads; free or
// under the loads in its principal axes. With an output time every 20 steps (as the default
// scenario's), the states there are stored sample by sample, as the backend keeps them.
template <class Scalar>
void rk4_lanes_bench(benchmark::State& state, LaneIsa isa, BenchModel model, bool outputs) {
  const bool pivot = model == BenchModel::pivot;
  if (!lane_isa_supported(isa)) {
    state.SkipWithError("this processor lacks the instruction set");
    return;
  }
  constexpr std::size_t n = 64;
  const LaneGroups<Scalar> lanes = lane_groups<Scalar>(isa);
  const bool principal = model == BenchModel::free_principal || model == BenchModel::loads_principal;
  const LaneGroupFunction<Scalar> group = model == BenchModel::free_body || model == BenchModel::free_principal
                                              ? lanes.free_body
                                          : model == BenchModel::splitting ? lanes.splitting
                                                                           : lanes.general;
  SampleInputs<double> in = body_inputs<double>();
  if (principal) in.body.inertia_c_b = principal_inertia();
  SharedModel<Scalar> shared{};
  if (model == BenchModel::loads || model == BenchModel::splitting || model == BenchModel::loads_principal)
    shared.loads = bench_loads().cast<Scalar>();
  if (pivot) {
    const Constraint<double> c = bench_pivot();
    shared.constraint = c.cast<Scalar>();
    in.initial.v_w = Vec3<double>::Zero();
    in.initial = project_onto_constraint(c, in.initial);
  }
  if (model == BenchModel::planar) {
    const Constraint<double> c = bench_plane();
    shared.constraint = c.cast<Scalar>();
    in.initial = project_onto_constraint(c, in.initial);  // sliding at 1 m/s along x, spinning at 0.2 rad/s
  }
  std::vector<double> inputs(n * std::size_t(input_column_count(0))), results(n * std::size_t(output_column_count(0)));
  std::vector<std::uint8_t> status(n);
  for (std::size_t i = 0; i < n; ++i) store_sample_inputs(inputs.data(), n, i, in, 0);
  const std::int64_t steps = state.range(0);
  IntegrationSettings<Scalar> how = fixed_step<Scalar>(Scalar(kStep), steps);
  if (model == BenchModel::splitting) how.kind = IntegratorKind::splitting;
  if (outputs) {
    shared.output_times.n = int(steps / 20) + 1;
    shared.output_times.interval = Scalar(20 * kStep);
  }
  std::vector<double> trajectory(outputs ? n * std::size_t(shared.output_times.n) * kTrajectoryColumns : 0);
  const std::size_t block = std::size_t(shared.output_times.n) * kTrajectoryColumns;  // a sample's states
  for (auto _ : state) {
    for (std::size_t first = 0; first < n; first += std::size_t(lanes.width))
      if (!group(inputs.data(), results.data(), outputs ? trajectory.data() + first * block : nullptr, status.data(), n,
                 first, shared, how))
        state.SkipWithError("a group left the lanes");
    benchmark::DoNotOptimize(results.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(n) * steps);
  state.SetLabel(std::string(lane_isa_name(isa)) + " lanes of " + std::to_string(lanes.width));
}

// dopri5 (rtol 1e-8, atol 1e-9, as the example configs) under the bench loads for `duration_ms`,
// what the CPU backend runs on one thread: 64 copies of the body whose spins differ by up to 13 %,
// so that each takes its own steps, in SIMD lane groups of the instruction set's width, or one
// sample at a time through run_sample (isa off). Items: accepted steps (body-steps), summed over
// the samples (each sample takes the same steps in every iteration).
void dopri5_bench(benchmark::State& state, LaneIsa isa) {
  if (isa != LaneIsa::off && !lane_isa_supported(isa)) {
    state.SkipWithError("this processor lacks the instruction set");
    return;
  }
  constexpr std::size_t n = 64;
  const LaneGroups<double> lanes = lane_groups<double>(isa);
  SharedModel<double> shared{};
  shared.loads = bench_loads();
  IntegrationSettings<double> how = fixed_step<double>(1e-3, state.range(0));
  how.kind = IntegratorKind::dopri5;
  how.rtol = 1e-8;
  how.atol = 1e-9;
  how.min_step = how.duration * 1e-12;
  how.max_step = how.duration;
  how.max_steps = 1000000;
  std::vector<SampleInputs<double>> samples(n, body_inputs<double>());
  std::vector<double> inputs(n * std::size_t(input_column_count(0))), results(n * std::size_t(output_column_count(0)));
  std::vector<std::uint8_t> status(n);
  for (std::size_t i = 0; i < n; ++i) {
    samples[i].initial.omega_b *= 1.0 + 0.002 * double(i);
    store_sample_inputs(inputs.data(), n, i, samples[i], 0);
  }
  std::int64_t accepted = 0;  // per iteration
  for (auto _ : state) {
    accepted = 0;
    for (std::size_t first = 0; first < n; first += std::size_t(lanes.width)) {
      if (isa == LaneIsa::off) {
        NoTrajectory none;
        const SampleResult<double> r = run_sample<double>(samples[first], shared, how, none);
        accepted += r.steps;
        continue;
      }
      if (!lanes.dopri5(inputs.data(), results.data(), nullptr, status.data(), n, first, shared, how))
        state.SkipWithError("a group left the lanes");
      for (std::size_t i = first; i < first + std::size_t(lanes.width); ++i)
        accepted += std::int64_t(results[output_column::steps * n + i]);
    }
    benchmark::DoNotOptimize(results.data());
  }
  state.SetItemsProcessed(state.iterations() * accepted);
  state.SetLabel(isa == LaneIsa::off ? std::string("one sample at a time")
                                     : std::string(lane_isa_name(isa)) + " lanes of " + std::to_string(lanes.width));
}

// One sample, `steps` fixed steps through run_sample: what one CPU thread does per sample, with
// the kinds the backends choose (RuntimeKinds), or the general RK4 path with events compiled in;
// RK4, or the splitting.
template <class Scalar, class Kinds = RuntimeKinds>
void run_sample_bench(benchmark::State& state, bool pivot, bool loads = false, bool splitting = false) {
  SampleInputs<Scalar> in = body_inputs<Scalar>();
  SharedModel<Scalar> shared{};
  if (loads) shared.loads = bench_loads().cast<Scalar>();
  if (pivot) {
    shared.constraint = bench_pivot().cast<Scalar>();
    in.initial.v_w = Vec3<Scalar>::Zero();
    in.initial = project_onto_constraint(shared.constraint, in.initial);
  }
  const std::int64_t steps = state.range(0);
  IntegrationSettings<Scalar> how = fixed_step<Scalar>(Scalar(kStep), steps);
  if (splitting) how.kind = IntegratorKind::splitting;
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
void run_sample_loads_double(benchmark::State& s) { run_sample_bench<double>(s, false, true); }
void run_sample_splitting_loads_double(benchmark::State& s) { run_sample_bench<double>(s, false, true, true); }
template <class Scalar, LaneIsa kIsa, BenchModel kModel = BenchModel::free_body, bool kOutputs = false>
void rk4_lanes_run(benchmark::State& s) {
  rk4_lanes_bench<Scalar>(s, kIsa, kModel, kOutputs);
}
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::sse2)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, BenchModel::free_body, true)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2, BenchModel::free_principal)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, BenchModel::free_principal)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::avx512, BenchModel::free_principal)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::sse2)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::avx2)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::avx512)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2, BenchModel::pivot)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, BenchModel::pivot)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::avx512, BenchModel::pivot)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2, BenchModel::planar)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, BenchModel::planar)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2, BenchModel::loads)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, BenchModel::loads)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, float, LaneIsa::avx512, BenchModel::loads)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2, BenchModel::loads_principal)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, BenchModel::loads_principal)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx2, BenchModel::splitting)->Arg(1000);
BENCHMARK_TEMPLATE(rk4_lanes_run, double, LaneIsa::avx512, BenchModel::splitting)->Arg(1000);
BENCHMARK(run_sample_free_variant_float)->Arg(1000);
BENCHMARK(run_sample_free_variant_double)->Arg(1000);
BENCHMARK(run_sample_free_float)->Arg(1000);
BENCHMARK(run_sample_free_double)->Arg(1000);
BENCHMARK(run_sample_pivot_float)->Arg(1000);
BENCHMARK(run_sample_pivot_double)->Arg(1000);
BENCHMARK(run_sample_loads_double)->Arg(1000);
BENCHMARK(run_sample_splitting_loads_double)->Arg(1000);
void dopri5_one_sample(benchmark::State& s) { dopri5_bench(s, LaneIsa::off); }
void dopri5_avx2_lanes(benchmark::State& s) { dopri5_bench(s, LaneIsa::avx2); }
void dopri5_avx512_lanes(benchmark::State& s) { dopri5_bench(s, LaneIsa::avx512); }
BENCHMARK(dopri5_one_sample)->Arg(1000);
BENCHMARK(dopri5_avx2_lanes)->Arg(1000);
BENCHMARK(dopri5_avx512_lanes)->Arg(1000);

}  // namespace
}  // namespace rbmc::bench



// Micro-benchmarks of the math core on the CPU, one core, per precision: the right-hand side,
// one RK4 step, one Dormand–Prince trial step, and one sample's whole integration (free and on a
// pivot). "items" are body-steps (or right-hand-side evaluations): Google Benchmark reports them
// per second.
#include <benchmark/benchmark.h>

#include "bench/bench_body.hpp"
#include "rbmc/integrate/dopri5.hpp"
#include "rbmc/integrate/rk4.hpp"
#include "rbmc/sample/run_sample.hpp"

namespace rbmc::bench {
namespace {

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

// One sample, `steps` RK4 steps through run_sample: what one CPU thread does per sample, with the
// kinds the backends choose (RuntimeKinds), or the general RK4 path with events compiled in.
template <class Scalar, class Kinds = RuntimeKinds>
void run_sample_bench(benchmark::State& state, bool pivot) {
  SampleInputs<Scalar> in = body_inputs<Scalar>();
  SharedModel<Scalar> shared{};
  if (pivot) {
    shared.constraint.kind = ConstraintKind::pivot;
    shared.constraint.point_b = Vec3<Scalar>(0, 0, Scalar(0.05));
    shared.constraint.anchor_w = Vec3<Scalar>(0, 0, Scalar(0.05));
    shared.constraint.stabilization = Scalar(50);
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
BENCHMARK(run_sample_free_variant_float)->Arg(1000);
BENCHMARK(run_sample_free_variant_double)->Arg(1000);
BENCHMARK(run_sample_free_float)->Arg(1000);
BENCHMARK(run_sample_free_double)->Arg(1000);
BENCHMARK(run_sample_pivot_float)->Arg(1000);
BENCHMARK(run_sample_pivot_double)->Arg(1000);

}  // namespace
}  // namespace rbmc::bench



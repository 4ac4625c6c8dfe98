// Kernel-only throughput on the GPU: N samples of bench_body.hpp's body, `steps` steps each, one
// thread per sample (kernels/run_batch.cu), timed with CUDA events after a warm-up; the median of
// several launches, in body-steps per second (the adaptive integrator's accepted steps). Each
// load and constraint kind, dopri5, the splitting, Euler angles and events, in float and double:
// issue 13's table; the free body in its principal axes too (a diagonal inertia). Beside them,
// kernels no run takes, for comparison: the general RK4 kernel's, the pivot's with its model held
// in registers, and the free body's and the loads' compiled for three blocks an SM
// (kernel_bench_variants.cu). The inputs are a dispersed copy of the body so that
// samples differ.
//   rbmc_kernel_bench [N] [steps] [repetitions]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/bench_body.hpp"
#include "host/backend/cuda_check.hpp"
#include "host/backend/device_buffer.hpp"
#include "kernels/run_batch.cuh"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc::bench {

// kernel_bench_variants.cu, double kernels only: the pivot's RK4 kernel as it was before the model
// was read in place (the float kernels hold their model either way), and the free body's or the
// loads' RK4 kernel at three blocks an SM (the float ones take four already, or would spill more).
cudaError_t launch_pivot_rk4_model_held(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n,
                                        const SharedModel<double>& shared, const IntegrationSettings<double>& how);
cudaError_t launch_rk4_three_blocks(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n,
                                    const SharedModel<double>& shared, const IntegrationSettings<double>& how);

namespace {

// One workload of the table: the free body with one load, constraint, integrator or event added.
// The *_general ones run the general RK4 kernel (any constraint, dispatched at each evaluation),
// which no run takes since RK4 is compiled for each constraint kind (sample_kinds.hpp): the two
// compared in one run.
enum class Workload {
  free_body, free_body_principal, free_body_three_blocks, pivot, pivot_model_held, pivot_general, planar, planar_general, point_force,
  spring, spring_three_blocks, spring_general, damping, central_body,
  dopri5, splitting, euler_zxz, events, dopri5_events, splitting_events, euler_zxz_events
};
// The workloads with one event (never met: their kernels' event machinery at every step).
bool has_event(Workload w) {
  return w == Workload::events || w == Workload::dopri5_events || w == Workload::splitting_events ||
         w == Workload::euler_zxz_events;
}
bool takes_the_general_kernel(Workload w) {
  return w == Workload::pivot_general || w == Workload::planar_general || w == Workload::spring_general;
}
// The variants of kernel_bench_variants.cu, which have a double kernel alone.
bool double_only(Workload w) {
  return w == Workload::pivot_model_held || w == Workload::free_body_three_blocks ||
         w == Workload::spring_three_blocks;
}
const char* name_of(Workload w) {
  switch (w) {
    case Workload::free_body: return "free body (uniform gravity), RK4";
    case Workload::free_body_principal: return "free body, RK4, in its principal axes (diagonal inertia, 49th session)";
    case Workload::free_body_three_blocks: return "free body, RK4, three blocks an SM (168 registers, 45th session)";
    case Workload::pivot: return "pivot, RK4";
    case Workload::pivot_model_held: return "pivot, RK4, the model held in registers (before 2026-11-29's 38th session)";
    case Workload::pivot_general: return "pivot, RK4, the general kernel (constraint dispatch)";
    case Workload::planar: return "planar, RK4";
    case Workload::planar_general: return "planar, RK4, the general kernel (constraint dispatch)";
    case Workload::point_force: return "point force (body frame), RK4";
    case Workload::spring: return "spring-damper, RK4";
    case Workload::spring_three_blocks: return "spring-damper, RK4, three blocks an SM (168 registers, 45th session)";
    case Workload::spring_general: return "spring-damper, RK4, the general kernel (constraint dispatch)";
    case Workload::damping: return "linear and quadratic damping, RK4";
    case Workload::central_body: return "central body's gravity gradient, RK4";
    case Workload::dopri5: return "free body, dopri5 (per accepted step)";
    case Workload::splitting: return "free body, splitting";
    case Workload::euler_zxz: return "free body, RK4 on ZXZ Euler angles";
    case Workload::events: return "free body, RK4, one event";
    case Workload::dopri5_events: return "free body, dopri5, one event (tossed_box's kernel; per accepted step)";
    case Workload::splitting_events: return "free body, splitting, one event";
    case Workload::euler_zxz_events: return "free body, RK4 on ZXZ Euler angles, one event";
  }
  return "?";
}

// The kernel a workload runs: the one a run of its model takes, or one named for comparison.
template <class Scalar>
cudaError_t launch_workload(Workload w, const Scalar* inputs, Scalar* outputs, std::uint8_t* status, std::size_t n,
                            const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how) {
  if constexpr (sizeof(Scalar) == 8) {
    if (w == Workload::pivot_model_held) return launch_pivot_rk4_model_held(inputs, outputs, status, n, shared, how);
    if (w == Workload::free_body_three_blocks || w == Workload::spring_three_blocks)
      return launch_rk4_three_blocks(inputs, outputs, status, n, shared, how);
  }
  if (takes_the_general_kernel(w))
    return kernels::launch_run_batch_for<Scalar, SampleKinds<StepperKind::rk4, false>>(inputs, outputs, nullptr, status,
                                                                                       n, shared, how, nullptr, 0, n);
  return kernels::launch_run_batch<Scalar>(inputs, outputs, nullptr, status, n, shared, how, nullptr);
}

template <class Scalar>
double median_seconds(std::size_t n, std::int64_t steps, int repetitions, Workload w, double& body_steps) {
  SharedModel<Scalar> shared{};
  SampleInputs<double> base = body_inputs<double>();
  IntegrationSettings<Scalar> how = fixed_step<Scalar>(Scalar(kStep), steps);
  LoadSet<Scalar>& loads = shared.loads;
  switch (w) {
    case Workload::pivot:
    case Workload::pivot_model_held:
    case Workload::pivot_general:
      shared.constraint.kind = ConstraintKind::pivot;
      shared.constraint.point_b = Vec3<Scalar>(0, 0, Scalar(0.05));
      shared.constraint.anchor_w = Vec3<Scalar>(0, 0, Scalar(0.05));
      shared.constraint.stabilization = Scalar(50);
      base.initial.v_w = Vec3<double>::Zero();
      break;
    case Workload::planar:
    case Workload::planar_general:
      shared.constraint.kind = ConstraintKind::planar;
      shared.constraint.stabilization = Scalar(50);
      break;
    case Workload::point_force:
      loads.n_point_forces = 1;
      loads.point_forces[0] = {Vec3<Scalar>(Scalar(0.05), 0, 0), Vec3<Scalar>(0, Scalar(0.1), 0), LoadFrame::body};
      break;
    case Workload::spring:
    case Workload::spring_three_blocks:
    case Workload::spring_general:
      loads.n_springs = 1;
      loads.springs[0] = {Vec3<Scalar>(Scalar(0.05), 0, 0), Vec3<Scalar>(0, 0, 1), Scalar(40), Scalar(0.5), Scalar(0.2)};
      break;
    case Workload::damping:
      loads.linear_damping = Scalar(0.1);
      loads.quadratic_damping = Scalar(0.01);
      loads.angular_linear_damping = Scalar(0.001);
      break;
    case Workload::central_body:
      loads.has_central_body = true;
      loads.central_mu = Scalar(3.986e14);
      loads.central_center_w = Vec3<Scalar>(0, 0, Scalar(-7e6));
      break;
    case Workload::dopri5:
    case Workload::dopri5_events:
      how.kind = IntegratorKind::dopri5;
      how.rtol = how.atol = Scalar(sizeof(Scalar) == 4 ? 1e-5 : 1e-9);
      how.min_step = Scalar(1e-9);
      how.max_step = how.duration;
      how.max_steps = 100 * steps;
      break;
    case Workload::splitting:
    case Workload::splitting_events: how.kind = IntegratorKind::splitting; break;
    case Workload::euler_zxz:
    case Workload::euler_zxz_events:
      how.euler_zxz = true;
      how.euler_threshold = Scalar(1e-6);
      break;
    case Workload::events: break;
    case Workload::free_body_principal: base.body.inertia_c_b = principal_inertia(); break;
    case Workload::free_body:
    case Workload::free_body_three_blocks: break;
  }
  if (has_event(w)) {
    shared.events.n = 1;
    shared.events.events[0].kind = EventKind::angular_rate_below;
    shared.events.events[0].value = Scalar(1e-3);
  }
  if (w == Workload::planar || w == Workload::planar_general || w == Workload::euler_zxz ||
      w == Workload::euler_zxz_events)
    base.initial.q_wb = {0.9, 0.3, 0.2, 0.24};  // away from θ = 0
  base.initial.q_wb = normalized(base.initial.q_wb);
  // The outputs hold each event's record too (sample_layout.hpp): sized for the run's events.
  const int n_in = input_column_count(0), n_out = output_column_count(shared.events.n);
  std::vector<Scalar> inputs(n * std::size_t(n_in));
  for (std::size_t i = 0; i < n; ++i) {
    SampleInputs<double> in = base;
    in.initial.omega_b += Vec3<double>(1e-3 * double(i % 97), -1e-3 * double(i % 89), 1e-3 * double(i % 83));
    if (shared.constraint.kind != ConstraintKind::none)
      in.initial = project_onto_constraint(shared.constraint.template cast<double>(), in.initial);
    store_sample_inputs(inputs.data(), n, i, in, 0);
  }
  cuda::DeviceBuffer<Scalar> d_in(inputs.size()), d_out(n * std::size_t(n_out));
  cuda::DeviceBuffer<std::uint8_t> d_status(n);
  RBMC_CUDA_CHECK(cudaMemcpy(d_in.data(), inputs.data(), inputs.size() * sizeof(Scalar), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  RBMC_CUDA_CHECK(cudaEventCreate(&start));
  RBMC_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> seconds;
  for (int r = 0; r <= repetitions; ++r) {  // the first launch warms up and is not counted
    RBMC_CUDA_CHECK(cudaEventRecord(start));
    RBMC_CUDA_CHECK(launch_workload(w, d_in.data(), d_out.data(), d_status.data(), n, shared, how));
    RBMC_CUDA_CHECK(cudaEventRecord(stop));
    RBMC_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    RBMC_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r > 0) seconds.push_back(ms / 1e3);
  }
  std::sort(seconds.begin(), seconds.end());
  // Body-steps: the accepted steps the samples took (dopri5 chooses its own).
  std::vector<Scalar> outputs(n * std::size_t(n_out));
  RBMC_CUDA_CHECK(cudaMemcpy(outputs.data(), d_out.data(), outputs.size() * sizeof(Scalar), cudaMemcpyDeviceToHost));
  body_steps = 0;
  for (std::size_t i = 0; i < n; ++i) body_steps += double(outputs[output_column::steps * n + i]);
  return seconds[seconds.size() / 2];
}

}  // namespace
}  // namespace rbmc::bench

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const std::int64_t steps = argc > 2 ? std::strtoll(argv[2], nullptr, 10) : 1000;
  const int repetitions = argc > 3 ? std::atoi(argv[3]) : 5;
  cudaDeviceProp p{};
  RBMC_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: %s, %d SMs; N = %zu samples x %lld steps, median of %d launches\n", p.name,
              p.multiProcessorCount, n, static_cast<long long>(steps), repetitions);
  std::printf("| workload | precision | kernel time (s) | body-steps/s |\n| --- | --- | --- | --- |\n");
  using rbmc::bench::Workload;
  for (const Workload w : {Workload::free_body, Workload::free_body_principal, Workload::free_body_three_blocks,
                           Workload::pivot, Workload::pivot_model_held, Workload::pivot_general, Workload::planar,
                           Workload::planar_general, Workload::point_force, Workload::spring,
                           Workload::spring_three_blocks, Workload::spring_general, Workload::damping,
                           Workload::central_body, Workload::dopri5, Workload::splitting, Workload::euler_zxz,
                           Workload::events, Workload::dopri5_events, Workload::splitting_events,
                           Workload::euler_zxz_events}) {
    double steps64 = 0, steps32 = 0;
    const double t64 = rbmc::bench::median_seconds<double>(n, steps, repetitions, w, steps64);
    std::printf("| %s | double | %.4f | %.3g |\n", rbmc::bench::name_of(w), t64, steps64 / t64);
    if (double_only(w)) continue;  // the float kernel is the row's above
    const double t32 = rbmc::bench::median_seconds<float>(n, steps, repetitions, w, steps32);
    std::printf("| %s | float | %.4f | %.3g |\n", rbmc::bench::name_of(w), t32, steps32 / t32);
    std::fflush(stdout);
  }
  return 0;
}

// Kernel-only throughput on the GPU: N samples of bench_body.hpp's body, `steps` fixed RK4 steps
// each, one thread per sample (kernels/run_batch.cu), timed with CUDA events after a warm-up;
// the median of several launches, in body-steps per second. Free body and pivot, float and
// double. The inputs are a dispersed copy of the body so that samples differ.
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
namespace {

template <class Scalar>
double median_seconds(std::size_t n, std::int64_t steps, int repetitions, bool pivot) {
  SharedModel<Scalar> shared{};
  SampleInputs<double> base = body_inputs<double>();
  if (pivot) {
    shared.constraint.kind = ConstraintKind::pivot;
    shared.constraint.point_b = Vec3<Scalar>(0, 0, Scalar(0.05));
    shared.constraint.anchor_w = Vec3<Scalar>(0, 0, Scalar(0.05));
    shared.constraint.stabilization = Scalar(50);
    base.initial.v_w = Vec3<double>::Zero();
  }
  const int n_in = input_column_count(0), n_out = output_column_count(0);
  std::vector<Scalar> inputs(n * std::size_t(n_in));
  for (std::size_t i = 0; i < n; ++i) {
    SampleInputs<double> in = base;
    in.initial.omega_b += Vec3<double>(1e-3 * double(i % 97), -1e-3 * double(i % 89), 1e-3 * double(i % 83));
    if (pivot) in.initial = project_onto_constraint(shared.constraint.template cast<double>(), in.initial);
    store_sample_inputs(inputs.data(), n, i, in, 0);
  }
  cuda::DeviceBuffer<Scalar> d_in(inputs.size()), d_out(n * std::size_t(n_out));
  cuda::DeviceBuffer<std::uint8_t> d_status(n);
  RBMC_CUDA_CHECK(cudaMemcpy(d_in.data(), inputs.data(), inputs.size() * sizeof(Scalar), cudaMemcpyHostToDevice));
  const IntegrationSettings<Scalar> how = fixed_step<Scalar>(Scalar(kStep), steps);
  cudaEvent_t start, stop;
  RBMC_CUDA_CHECK(cudaEventCreate(&start));
  RBMC_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> seconds;
  for (int r = 0; r <= repetitions; ++r) {  // the first launch warms up and is not counted
    RBMC_CUDA_CHECK(cudaEventRecord(start));
    RBMC_CUDA_CHECK(kernels::launch_run_batch<Scalar>(d_in.data(), d_out.data(), nullptr, d_status.data(), n, shared,
                                                      how, nullptr));
    RBMC_CUDA_CHECK(cudaEventRecord(stop));
    RBMC_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    RBMC_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r > 0) seconds.push_back(ms / 1e3);
  }
  std::sort(seconds.begin(), seconds.end());
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
  std::printf("device: %s, %d SMs; N = %zu samples x %lld RK4 steps, median of %d launches\n", p.name,
              p.multiProcessorCount, n, static_cast<long long>(steps), repetitions);
  std::printf("| workload | precision | kernel time (s) | body-steps/s |\n| --- | --- | --- | --- |\n");
  for (const bool pivot : {false, true}) {
    const double t64 = rbmc::bench::median_seconds<double>(n, steps, repetitions, pivot);
    std::printf("| %s | double | %.4f | %.3g |\n", pivot ? "pivot" : "free body", t64, double(n) * double(steps) / t64);
    const double t32 = rbmc::bench::median_seconds<float>(n, steps, repetitions, pivot);
    std::printf("| %s | float | %.4f | %.3g |\n", pivot ? "pivot" : "free body", t32, double(n) * double(steps) / t32);
  }
  return 0;
}

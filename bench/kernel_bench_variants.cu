// Kernels no run takes, which kernel_bench.cu times beside the ones runs take, so that one call on
// an H100 says which of each pair is faster where the compiler's report cannot (bench/RESULTS.md).
// Their own file, so that they compile beside the rest.
// - The pivot's double RK4 kernel with the sample's model held in registers through the loop, as
//   every kernel had it before the thirty-eighth session (SampleKinds::rate_reads_in_place false),
//   beside "pivot, RK4", whose rate reads its model from memory at each evaluation: 116 bytes of
//   spill against none.
// - The free body's and the loads' double RK4 kernels compiled for three blocks of 128 an SM (168
//   registers, 18.75 % occupancy) instead of two (214 and 220 registers, 12.5 %), beside "free
//   body" and "spring-damper": 160 and 188 bytes of spill against none, in exchange for half as many
//   warps again to hide each one's latency (forty-fifth session). In the free body's loop the
//   spill is 7 doubles loaded at each step; the rest lies in a sample's setup and in the rare step
//   that interpolates (tests/tools/sass_local_memory.py).
#include <cstddef>
#include <cstdint>

#include "kernels/run_batch_kernel.cuh"

namespace rbmc::bench {

struct PivotRk4ModelHeldKinds : Rk4KindsFor<false, CompiledConstraint::pivot> {
  template <class Scalar>
  static constexpr bool rate_reads_in_place = false;
};

// The same kinds, compiled for three blocks of kernels::kMaxBlockSize an SM.
template <class Kinds>
struct ThreeBlocksKinds : Kinds {
  static constexpr int min_blocks_per_sm = 3;
};
static_assert(kernels::kMinBlocksPerSm<double, ThreeBlocksKinds<FreeBodyRk4Kinds>> == 3 &&
                  kernels::kMinBlocksPerSm<double, FreeBodyRk4Kinds> == 2,
              "a kinds type's own min_blocks_per_sm decides its kernel's launch bounds");

cudaError_t launch_pivot_rk4_model_held(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n,
                                        const SharedModel<double>& shared, const IntegrationSettings<double>& how) {
  return kernels::launch_run_batch_for<double, PivotRk4ModelHeldKinds>(inputs, outputs, nullptr, status, n, shared,
                                                                       how, nullptr, 0, n);
}

cudaError_t launch_rk4_three_blocks(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n,
                                    const SharedModel<double>& shared, const IntegrationSettings<double>& how) {
  // The kinds a run of this model takes (choose_sample_kinds): the free body or the loads alone.
  const SampleKindsChoice kinds = choose_sample_kinds(shared, how);
  if (kinds.free_body)
    return kernels::launch_run_batch_for<double, ThreeBlocksKinds<FreeBodyRk4Kinds>>(inputs, outputs, nullptr, status,
                                                                                     n, shared, how, nullptr, 0, n);
  if (kinds.stepper != StepperKind::rk4 || kinds.events || kinds.constraint != ConstraintKind::none)
    return cudaErrorInvalidValue;  // no variant compiled for it
  return kernels::launch_run_batch_for<double, ThreeBlocksKinds<UnconstrainedRk4Kinds<false>>>(
      inputs, outputs, nullptr, status, n, shared, how, nullptr, 0, n);
}

}  // namespace rbmc::bench

// The pivot's double RK4 kernel with the sample's model held in registers through the loop, as
// every kernel had it before the thirty-eighth session (SampleKinds::rate_reads_in_place false):
// kernel_bench.cu runs it beside "pivot, RK4", whose rate reads its model from memory at each
// evaluation, so that an H100 says which of the two is faster (the compiler's report: 116 bytes
// of spill against none; bench/RESULTS.md). Its own file, so that it compiles beside the rest.
#include <cstddef>
#include <cstdint>

#include "kernels/run_batch_kernel.cuh"

namespace rbmc::bench {

struct PivotRk4ModelHeldKinds : Rk4KindsFor<false, CompiledConstraint::pivot> {
  template <class Scalar>
  static constexpr bool rate_reads_in_place = false;
};

cudaError_t launch_pivot_rk4_model_held(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n,
                                        const SharedModel<double>& shared, const IntegrationSettings<double>& how) {
  return kernels::launch_run_batch_for<double, PivotRk4ModelHeldKinds>(inputs, outputs, nullptr, status, n, shared,
                                                                       how, nullptr, 0, n);
}

}  // namespace rbmc::bench

// The batch kernels for the rk4 stepper (run_batch_kernel.cuh): the free body and the loads
// without a constraint here, each constraint kind in run_batch_rk4_constrained.cu.
#include "kernels/run_batch_kernel.cuh"

namespace rbmc::kernels {

// Any constraint, dispatched at each evaluation: no run takes these since each kind has its own
// (sample_kinds.hpp), with the same numbers (RunSample.EachConstraintKindCompiledInGivesTheGeneralBits);
// rbmc_kernel_bench times them beside those.
RBMC_INSTANTIATE_RUN_BATCH_STEPPER(rk4)
RBMC_INSTANTIATE_RUN_BATCH(float, FreeBodyRk4Kinds)
RBMC_INSTANTIATE_RUN_BATCH(double, FreeBodyRk4Kinds)
RBMC_INSTANTIATE_RUN_BATCH(float, UnconstrainedRk4Kinds<false>)
RBMC_INSTANTIATE_RUN_BATCH(float, UnconstrainedRk4Kinds<true>)
RBMC_INSTANTIATE_RUN_BATCH(double, UnconstrainedRk4Kinds<false>)
RBMC_INSTANTIATE_RUN_BATCH(double, UnconstrainedRk4Kinds<true>)

}  // namespace rbmc::kernels

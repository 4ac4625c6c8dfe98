// The batch kernels for the rk4 stepper (run_batch_kernel.cuh).
#include "kernels/run_batch_kernel.cuh"

namespace rbmc::kernels {

RBMC_INSTANTIATE_RUN_BATCH_STEPPER(rk4)
RBMC_INSTANTIATE_RUN_BATCH(float, FreeBodyRk4Kinds)
RBMC_INSTANTIATE_RUN_BATCH(double, FreeBodyRk4Kinds)
RBMC_INSTANTIATE_RUN_BATCH(float, UnconstrainedRk4Kinds<false>)
RBMC_INSTANTIATE_RUN_BATCH(float, UnconstrainedRk4Kinds<true>)
RBMC_INSTANTIATE_RUN_BATCH(double, UnconstrainedRk4Kinds<false>)
RBMC_INSTANTIATE_RUN_BATCH(double, UnconstrainedRk4Kinds<true>)

}  // namespace rbmc::kernels

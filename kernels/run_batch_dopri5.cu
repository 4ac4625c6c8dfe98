// The batch kernels for the dopri5 stepper (run_batch_kernel.cuh).
#include "kernels/run_batch_kernel.cuh"

namespace rbmc::kernels {

RBMC_INSTANTIATE_RUN_BATCH_STEPPER(dopri5)

}  // namespace rbmc::kernels

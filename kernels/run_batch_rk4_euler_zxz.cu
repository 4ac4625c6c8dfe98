// The batch kernels for the rk4_euler_zxz stepper (run_batch_kernel.cuh).
#include "kernels/run_batch_kernel.cuh"

namespace rbmc::kernels {

RBMC_INSTANTIATE_RUN_BATCH_STEPPER(rk4_euler_zxz)

}  // namespace rbmc::kernels

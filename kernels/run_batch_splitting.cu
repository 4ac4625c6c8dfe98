// The batch kernels for the splitting stepper (run_batch_kernel.cuh).
#include "kernels/run_batch_kernel.cuh"

namespace rbmc::kernels {

RBMC_INSTANTIATE_RUN_BATCH_STEPPER(splitting)

}  // namespace rbmc::kernels

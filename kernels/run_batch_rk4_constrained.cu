// The batch kernels for the rk4 stepper compiled for one constraint kind, the pivot or the plane
// (run_batch_kernel.cuh); apart from run_batch_rk4.cu so that the two compile in parallel.
#include "kernels/run_batch_kernel.cuh"

namespace rbmc::kernels {

template <bool kEvents>
using PivotRk4Kinds = Rk4KindsFor<kEvents, CompiledConstraint::pivot>;
template <bool kEvents>
using PlanarRk4Kinds = Rk4KindsFor<kEvents, CompiledConstraint::planar>;

RBMC_INSTANTIATE_RUN_BATCH(float, PivotRk4Kinds<false>)
RBMC_INSTANTIATE_RUN_BATCH(float, PivotRk4Kinds<true>)
RBMC_INSTANTIATE_RUN_BATCH(double, PivotRk4Kinds<false>)
RBMC_INSTANTIATE_RUN_BATCH(double, PivotRk4Kinds<true>)
RBMC_INSTANTIATE_RUN_BATCH(float, PlanarRk4Kinds<false>)
RBMC_INSTANTIATE_RUN_BATCH(float, PlanarRk4Kinds<true>)
RBMC_INSTANTIATE_RUN_BATCH(double, PlanarRk4Kinds<false>)
RBMC_INSTANTIATE_RUN_BATCH(double, PlanarRk4Kinds<true>)

}  // namespace rbmc::kernels

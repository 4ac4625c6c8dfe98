// The batch launch: the run's SampleKinds chosen once, then the kernel compiled for them
// (run_batch_kernel.cuh, instantiated in run_batch_<stepper>.cu). Nothing else happens here; the
// physics lives in include/rbmc.
#include "kernels/run_batch.cuh"

#include "rbmc/sample/sample_kinds.hpp"

namespace rbmc::kernels {

template <class Scalar>
cudaError_t launch_run_batch(const Scalar* inputs, Scalar* outputs, Scalar* trajectory, std::uint8_t* status,
                             std::size_t n, const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how,
                             cudaStream_t stream, std::size_t first, std::size_t count) {
  const std::size_t end = count == 0 || first + count > n ? n : first + count;
  if (first >= end) return cudaSuccess;
  return with_sample_kinds(choose_sample_kinds(shared, how), [&](auto kinds) {
    return launch_run_batch_for<Scalar, decltype(kinds)>(inputs, outputs, trajectory, status, n, shared, how, stream,
                                                         first, end);
  });
}

template cudaError_t launch_run_batch<float>(const float*, float*, float*, std::uint8_t*, std::size_t, const SharedModel<float>&,
                                             const IntegrationSettings<float>&, cudaStream_t, std::size_t, std::size_t);
template cudaError_t launch_run_batch<double>(const double*, double*, double*, std::uint8_t*, std::size_t,
                                              const SharedModel<double>&, const IntegrationSettings<double>&,
                                              cudaStream_t, std::size_t, std::size_t);

}  // namespace rbmc::kernels

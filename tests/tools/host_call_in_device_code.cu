// Must not compile (Kernels.HostCallFromDeviceCodeFailsTheBuild): device code that calls a host
// function. Eigen assigns a diagonal to a dense matrix through a host-only function; on the GPU
// the call did nothing and every inertia derived from a shape stayed zero (2026-11-26).
#include "rbmc/hd.hpp"

__global__ void host_call_probe(double* out) {
  const rbmc::Mat3<double> m = rbmc::Vec3<double>(1, 2, 3).asDiagonal();
  out[0] = m(1, 1);
}

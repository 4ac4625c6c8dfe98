// The portable draws on the device, one thread a uniform, for portable_draws_device_test.cpp.
#include "host/backend/cuda_check.hpp"
#include "host/backend/device_buffer.hpp"
#include "portable_draws_device.hpp"
#include "../core/portable_draws.hpp"

namespace rbmc::test {

namespace {
__global__ void portable_draws_kernel(const double* u, int n, double* out) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) portable_draws(u[i], out + std::size_t(i) * kPortableDrawValues);
}
}  // namespace

std::vector<double> portable_draws_on_device(const std::vector<double>& u) {
  const int n = int(u.size());
  std::vector<double> out(u.size() * kPortableDrawValues);
  cuda::DeviceBuffer<double> d_u(u.size()), d_out(out.size());
  RBMC_CUDA_CHECK(cudaMemcpy(d_u.data(), u.data(), u.size() * sizeof(double), cudaMemcpyHostToDevice));
  portable_draws_kernel<<<(n + 127) / 128, 128>>>(d_u.data(), n, d_out.data());
  RBMC_CUDA_CHECK(cudaGetLastError());
  RBMC_CUDA_CHECK(cudaMemcpy(out.data(), d_out.data(), out.size() * sizeof(double), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace rbmc::test

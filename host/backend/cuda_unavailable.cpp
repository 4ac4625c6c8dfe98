// Built instead of the CUDA backend when CMake found no CUDA toolkit.
#include "host/backend/backend.hpp"
#include "host/errors.hpp"

namespace rbmc {

std::unique_ptr<Backend> make_cuda_backend(Precision, int, int) {
  throw NotBuiltWithCuda(
      "this rbmc was built without CUDA (CMake found no nvcc): rebuild on a machine with the CUDA toolkit, "
      "or use --backend cpu");
}

bool cuda_device_available() { return false; }

}  // namespace rbmc

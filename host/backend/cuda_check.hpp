// Every CUDA runtime call is checked, in every build type: a failure throws CudaError naming the
// call, the source location, and CUDA's error name and text.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "host/errors.hpp"

namespace rbmc::cuda {

inline void check(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(code) +
                  " (" + cudaGetErrorString(code) + ")");
}

}  // namespace rbmc::cuda

#define RBMC_CUDA_CHECK(call) ::rbmc::cuda::check((call), #call, __FILE__, __LINE__)

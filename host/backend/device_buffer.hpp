// Owning CUDA allocations: device memory, and page-locked host memory. The destructor frees
// without throwing: a failure there can only be reported, and the error that unwound the stack is
// the one the user needs.
#pragma once

#include <cstddef>
#include <cstdio>

#include "host/backend/cuda_check.hpp"

namespace rbmc::cuda {

namespace detail {
inline cudaError_t allocate_on_device(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t free_on_device(void* p) { return cudaFree(p); }
inline cudaError_t allocate_pinned(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
inline cudaError_t free_pinned(void* p) { return cudaFreeHost(p); }
}  // namespace detail

// An owning allocation of Allocate and Release (a CUDA pair).
template <class T, cudaError_t (*Allocate)(void**, std::size_t), cudaError_t (*Release)(void*)>
class CudaAllocation {
 public:
  CudaAllocation() = default;
  explicit CudaAllocation(std::size_t n) { reserve(n); }
  CudaAllocation(const CudaAllocation&) = delete;
  CudaAllocation& operator=(const CudaAllocation&) = delete;
  ~CudaAllocation() { release(); }

  // Grows to at least n elements; the contents are not kept.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    release();
    RBMC_CUDA_CHECK(Allocate(reinterpret_cast<void**>(&data_), n * sizeof(T)));
    capacity_ = n;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }

 private:
  void release() noexcept {
    if (data_ == nullptr) return;
    const cudaError_t e = Release(data_);
    if (e != cudaSuccess)
      std::fprintf(stderr, "rbmc: warning: freeing CUDA memory failed: %s\n", cudaGetErrorString(e));
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// Device memory.
template <class T>
using DeviceBuffer = CudaAllocation<T, detail::allocate_on_device, detail::free_on_device>;

// Page-locked host memory: the device copies into it at the bus's speed, where a copy into
// pageable memory goes through the driver's own staging buffer.
template <class T>
using PinnedBuffer = CudaAllocation<T, detail::allocate_pinned, detail::free_pinned>;

}  // namespace rbmc::cuda

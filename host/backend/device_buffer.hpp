// An owning device allocation. The destructor frees without throwing: a failure there can only
// be reported, and the error that unwound the stack is the one the user needs.
#pragma once

#include <cstddef>
#include <cstdio>

#include "host/backend/cuda_check.hpp"

namespace rbmc::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { reserve(n); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  // Grows to at least n elements; the contents are not kept.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    release();
    RBMC_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)));
    capacity_ = n;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }

 private:
  void release() noexcept {
    if (data_ == nullptr) return;
    const cudaError_t e = cudaFree(data_);
    if (e != cudaSuccess) std::fprintf(stderr, "rbmc: warning: cudaFree failed: %s\n", cudaGetErrorString(e));
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// An owning page-locked host allocation: the device copies into it at the bus's speed, where a
// copy into pageable memory goes through the driver's own staging buffer. Freed as DeviceBuffer is.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { release(); }

  // Grows to at least n elements; the contents are not kept.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    release();
    RBMC_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), n * sizeof(T)));
    capacity_ = n;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }

 private:
  void release() noexcept {
    if (data_ == nullptr) return;
    const cudaError_t e = cudaFreeHost(data_);
    if (e != cudaSuccess) std::fprintf(stderr, "rbmc: warning: cudaFreeHost failed: %s\n", cudaGetErrorString(e));
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace rbmc::cuda

// An allocator whose blocks start on a cache line (64 bytes). A buffer written a whole line at a
// time with non-temporal stores (the CPU's statistics quantities, rbmc/simd/lane_quantities.hpp)
// must start on one: such a store of a line that is not aligned faults.
#pragma once

#include <cstddef>
#include <new>

namespace rbmc {

inline constexpr std::size_t kCacheLineBytes = 64;

template <class T>
struct CacheLineAllocator {
  using value_type = T;

  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kCacheLineBytes)));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(kCacheLineBytes)); }

  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const noexcept { return false; }
};

}  // namespace rbmc

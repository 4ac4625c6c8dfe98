// The allocator of a batch's large buffers that are written a whole cache line at a time with
// non-temporal stores (the CPU's statistics quantities, rbmc/simd/lane_quantities.hpp). Every
// block starts on a cache line (64 bytes): such a store of a line that is not aligned faults.
//
// A resize leaves new elements default-initialised (a double: unwritten), as DefaultInitAllocator's
// do: the lanes write every element a run reads (each kept column's lines) in parallel, and the
// kernel zeroes a page where a thread first touches it. Value-initialised, one thread zeroed the
// whole buffer at its first resize (the main job's two, 119 MB each) while the other cores waited.
//
// A block of kHugePageBlockMin or more starts on a 2 MiB boundary and asks the kernel for
// transparent huge pages over its whole 2 MiB pages (madvise(MADV_HUGEPAGE); where the kernel has
// none, the request is ignored). Each lane group stores a line into every one of the batch's
// 1,812 columns (the main job's), each column in pages of its own: on 4 KiB pages every store
// missed the TLB. On huge pages the main job's quantities took a fifth fewer of the run's
// samples and its statistics stage 5–12 % less (bench/RESULTS.md, 2026-12-01, fortieth session).
#pragma once

#include <cstddef>
#include <new>

#include "host/util/default_init_allocator.hpp"  // DefaultInitConstruct

namespace rbmc {

inline constexpr std::size_t kCacheLineBytes = 64;
inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;
// Smaller blocks stay on ordinary pages: a huge page's alignment would waste up to 2 MiB of them.
inline constexpr std::size_t kHugePageBlockMin = 2 * kHugePageBytes;

// Asks for transparent huge pages over the whole 2 MiB pages of [block, block + bytes), block
// aligned to 2 MiB; whether the kernel took the advice (it refuses where it has no huge pages).
// Advice: a refusal changes nothing but the pages' size.
bool advise_huge_pages(void* block, std::size_t bytes) noexcept;

template <class T>
struct BufferAllocator : DefaultInitConstruct {
  using value_type = T;

  BufferAllocator() = default;
  template <class U>
  BufferAllocator(const BufferAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator

  // Where a block of `bytes` starts: on a huge page from kHugePageBlockMin up, else on a line.
  static constexpr std::size_t alignment(std::size_t bytes) {
    return bytes >= kHugePageBlockMin ? kHugePageBytes : kCacheLineBytes;
  }

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    void* const block = ::operator new(bytes, std::align_val_t(alignment(bytes)));
    if (alignment(bytes) == kHugePageBytes) (void)advise_huge_pages(block, bytes);
    return static_cast<T*>(block);
  }
  void deallocate(T* p, std::size_t n) noexcept { ::operator delete(p, std::align_val_t(alignment(n * sizeof(T)))); }

  template <class U>
  bool operator==(const BufferAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const BufferAllocator<U>&) const noexcept { return false; }
};

}  // namespace rbmc

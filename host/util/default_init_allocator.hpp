// An allocator whose resize leaves new elements default-initialised (a double: unwritten) rather
// than zeroed. For a buffer that is overwritten whole right after it grows: the compacted columns
// a GPU sends (hundreds of megabytes) are copied in on every core, which then also takes the
// first touch of their pages, instead of one thread zeroing them first (0.23–0.28 s of the
// default scenario's 1.2 s on an H200's host, bench/RESULTS.md 2026-11-27).
#pragma once

#include <memory>
#include <new>
#include <utility>

namespace rbmc {

// An allocator's construct that default-initialises where no value is given (this one and
// BufferAllocator take it).
struct DefaultInitConstruct {
  template <class U>
  void construct(U* p) noexcept(noexcept(::new (static_cast<void*>(p)) U)) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
struct DefaultInitAllocator : std::allocator<T>, DefaultInitConstruct {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using DefaultInitConstruct::construct;  // not std::allocator's, which value-initialises

  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator
};

}  // namespace rbmc

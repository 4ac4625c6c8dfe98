#include "host/util/buffer_allocator.hpp"

#include <sys/mman.h>

namespace rbmc {

void advise_huge_pages(void* block, std::size_t bytes) noexcept {
#if defined(MADV_HUGEPAGE)
  const std::size_t whole = bytes / kHugePageBytes * kHugePageBytes;
  if (whole > 0) (void)madvise(block, whole, MADV_HUGEPAGE);  // advice: a refusal changes nothing
#else
  (void)block;
  (void)bytes;
#endif
}

}  // namespace rbmc

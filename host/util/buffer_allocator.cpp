#include "host/util/buffer_allocator.hpp"

#include <sys/mman.h>

namespace rbmc {

bool advise_huge_pages(void* block, std::size_t bytes) noexcept {
#if defined(MADV_HUGEPAGE)
  const std::size_t whole = bytes / kHugePageBytes * kHugePageBytes;
  return whole > 0 && madvise(block, whole, MADV_HUGEPAGE) == 0;
#else
  (void)block;
  (void)bytes;
  return false;
#endif
}

}  // namespace rbmc

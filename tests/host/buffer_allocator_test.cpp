// The large buffers' allocators (host/util/buffer_allocator.hpp, default_init_allocator.hpp): blocks
// on a cache line, large ones on a huge page with transparent huge pages asked for, as the
// kernel's own record of the mapping shows (/proc/self/smaps: "hg" among a mapping's VmFlags, set
// by madvise(MADV_HUGEPAGE) whether or not huge pages are free to give), and new elements left
// unwritten by a resize (mincore).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "host/util/buffer_allocator.hpp"
#include "host/util/default_init_allocator.hpp"

namespace rbmc {
namespace {

// The VmFlags of the mapping that holds address p, or "" where /proc/self/smaps does not say.
std::string mapping_flags(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (line.find("VmFlags:") == 0) {
      if (inside) return line;
    } else if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = at >= begin && at < end;
    }
  }
  return "";
}

// Whether this kernel takes the advice at all (it refuses without transparent huge pages): asked
// here of a mapping of the test's own, not through the code under test.
bool kernel_takes_huge_page_advice() {
  const std::size_t bytes = 2 * kHugePageBytes;
  void* const map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return false;
  const auto at = (reinterpret_cast<std::uintptr_t>(map) + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const bool taken = madvise(reinterpret_cast<void*>(at), kHugePageBytes, MADV_HUGEPAGE) == 0;
  munmap(map, bytes);
  return taken;
}

TEST(BufferAllocator, EveryBlockStartsOnACacheLine) {
  for (std::size_t n : {1, 7, 100, 4095, 65536}) {
    std::vector<double, BufferAllocator<double>> v(n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kCacheLineBytes, 0u) << n << " doubles";
  }
  EXPECT_EQ(BufferAllocator<double>::alignment(kHugePageBlockMin - 1), kCacheLineBytes);
}

TEST(BufferAllocator, LargeBlocksStartOnAHugePageAndAskForHugePages) {
  const std::size_t n = 3 * kHugePageBytes / sizeof(double) + 5;  // 3 huge pages and a bit
  std::vector<double, BufferAllocator<double>> v(n, 1.0);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kHugePageBytes, 0u);
  EXPECT_EQ(v.back(), 1.0);
  if (!kernel_takes_huge_page_advice()) GTEST_SKIP() << "this kernel takes no advice of transparent huge pages";
  const std::string flags = mapping_flags(v.data());
  ASSERT_NE(flags, "") << "no mapping in /proc/self/smaps holds the block";
  EXPECT_NE((flags + " ").find(" hg "), std::string::npos) << "huge pages not asked for: " << flags;
}

// How many of the pages of [p, p + bytes) are resident (mincore; p on a page).
std::size_t resident_pages(const void* p, std::size_t bytes) {
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((bytes + page - 1) / page);
  if (mincore(const_cast<void*>(p), bytes, resident.data()) != 0) ADD_FAILURE() << "mincore refused the block";
  std::size_t n = 0;
  for (unsigned char r : resident) n += r & 1u;
  return n;
}

// A resize leaves the new elements unwritten, so that the threads that write them first touch
// their pages (buffer_allocator.hpp, default_init_allocator.hpp): a block larger than glibc ever
// serves from its heap (mmap'd whatever its mmap threshold has grown to, at most 32 MiB), so its
// pages are fresh, is still not resident after the resize. Value-initialised, every page was.
template <class Allocator>
void expect_resize_leaves_the_new_elements_unwritten() {
  const std::size_t bytes = std::size_t(64) << 20, page = std::size_t(sysconf(_SC_PAGESIZE));
  std::vector<double, Allocator> v;
  v.resize(bytes / sizeof(double));
  const void* const first_page =
      reinterpret_cast<const void*>((reinterpret_cast<std::uintptr_t>(v.data()) + page - 1) / page * page);
  const std::size_t whole = bytes - page;  // the block's whole pages from first_page on
  EXPECT_EQ(resident_pages(first_page, whole), 0u) << "of " << whole / page << " pages resident after the resize";
  v[v.size() / 2] = 1.0;  // and a write touches its page alone
  const std::size_t touched = resident_pages(first_page, whole);
  EXPECT_GE(touched, 1u);
  EXPECT_LE(touched, kHugePageBytes / page) << "a write made more than its (huge) page resident";
}

TEST(BufferAllocator, ResizeLeavesTheNewElementsUnwritten) {
  expect_resize_leaves_the_new_elements_unwritten<BufferAllocator<double>>();
}
TEST(DefaultInitAllocator, ResizeLeavesTheNewElementsUnwritten) {
  expect_resize_leaves_the_new_elements_unwritten<DefaultInitAllocator<double>>();
}

// advise_huge_pages says what the kernel answered: taken where it takes the advice, and never for
// a block shorter than one huge page (no whole page to advise).
TEST(BufferAllocator, AdviceSaysWhetherTheKernelTookIt) {
  const std::size_t bytes = 2 * kHugePageBytes;
  void* const block = ::operator new(bytes, std::align_val_t(kHugePageBytes));
  EXPECT_EQ(advise_huge_pages(block, bytes), kernel_takes_huge_page_advice());
  EXPECT_FALSE(advise_huge_pages(block, kHugePageBytes - 1));
  ::operator delete(block, std::align_val_t(kHugePageBytes));
}

}  // namespace
}  // namespace rbmc

#include "host/stats/sort_finite.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#ifndef RBMC_HAVE_VQSORT
#define RBMC_HAVE_VQSORT 0
#endif
#if RBMC_HAVE_VQSORT
#include <hwy/contrib/sort/vqsort.h>
#endif

namespace rbmc {

namespace {

// A double's bits as an unsigned key in the same order: negative values with every bit flipped,
// the others with the sign bit set. (Finite values only; -0 sorts before +0.) Branch-free, so
// that the conversion loops vectorise and random signs cost no mispredictions.
// (The sign spreads by 0 − (u >> 63): a logical shift, which AVX2 has for 64-bit lanes.)
inline std::uint64_t ordered_key(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  const std::uint64_t negative = std::uint64_t(0) - (u >> 63);  // all ones or zero
  return u ^ (negative | std::uint64_t(1) << 63);
}

inline double from_ordered_key(std::uint64_t key) {
  const std::uint64_t was_negative = (key >> 63) - std::uint64_t(1);  // all ones where the sign bit is clear
  const std::uint64_t u = key ^ (was_negative | std::uint64_t(1) << 63);
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Sorts keys[0, n) ascending: one counting pass over buckets of equal width between the least
// and the greatest key (about 2n of them, so that most hold a key or none), insertion sort within
// small buckets, and the same again within a crowded one (a few values far from the rest crowd
// the others into few buckets), down to a comparison sort after a few rounds. `out` has room for
// n keys; `depth` counts the rounds.
void bucket_sort_keys(std::uint64_t* keys, std::uint64_t* out, std::size_t n, int depth) {
  std::uint64_t least = ~std::uint64_t(0), greatest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    least = std::min(least, keys[i]);
    greatest = std::max(greatest, keys[i]);
  }
  const std::uint64_t range = greatest - least;
  if (range == 0) return;  // all equal
  int bits = 1;  // 2^bits ≥ 2n buckets, at most 2^13
  while ((std::size_t(1) << bits) < 2 * n && bits < 13) ++bits;
  const int width = 64 - __builtin_clzll(range);  // range < 2^width
  const int shift = std::max(0, width - bits);
  std::vector<std::uint32_t> ends(std::size_t(range >> shift) + 2, 0);
  for (std::size_t i = 0; i < n; ++i) ++ends[((keys[i] - least) >> shift) + 1];
  for (std::size_t b = 1; b < ends.size(); ++b) ends[b] += ends[b - 1];
  for (std::size_t i = 0; i < n; ++i) out[ends[(keys[i] - least) >> shift]++] = keys[i];
  std::copy(out, out + n, keys);
  // ends[b] is now the end of bucket b.
  std::size_t begin = 0;
  for (std::size_t b = 0; b + 1 < ends.size(); ++b) {
    const std::size_t end = ends[b], size = end - begin;
    if (size > 32) {
      if (depth < 3) bucket_sort_keys(keys + begin, out + begin, size, depth + 1);
      else std::sort(keys + begin, keys + end);
    } else {
      for (std::size_t i = begin + 1; i < end; ++i) {
        const std::uint64_t key = keys[i];
        std::size_t j = i;
        for (; j > begin && keys[j - 1] > key; --j) keys[j] = keys[j - 1];
        keys[j] = key;
      }
    }
    begin = end;
  }
}

}  // namespace

// Both sorts go through the values' ordered keys: integers contiguous across exponents, whose
// order is total (-0 before +0). Highway 1.0.3's vqsort on doubles themselves (Debian 12's) is
// not safe: it read out of bounds and corrupted the heap on a column of 5,120 zeros of mixed
// sign, which compare equal as doubles but not bit for bit (tests/host/quantile_sketch_test.cpp,
// SortFinite.SignedZerosAndTies). On the keys it is.
namespace {
// Scratch shared by every sort on a thread (RunStatistics gives each thread whole columns), so
// that it adds nothing to each sketch's memory budget.
thread_local std::vector<std::uint64_t> keys, scratch;

// The conversions compiled for the widest vectors the processor has, chosen when the program
// loads (the build itself targets the baseline x86-64); through plain pointers, which the
// compiler need not reload from the thread-local vector at every value.
RBMC_VECTOR_CLONES void convert_to_keys(const double* values, std::size_t n, std::uint64_t* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = ordered_key(values[i]);
}

RBMC_VECTOR_CLONES void convert_from_keys(const std::uint64_t* in, std::size_t n, double* values) {
  for (std::size_t i = 0; i < n; ++i) values[i] = from_ordered_key(in[i]);
}

void to_keys(const double* values, std::size_t n) {
  keys.resize(n);
  convert_to_keys(values, n, keys.data());
}

void from_keys(double* values, std::size_t n) { convert_from_keys(keys.data(), n, values); }
}  // namespace

// Buckets of equal key width follow the values' own spread. A few operations a value (about
// 12 ns at 2,048 values on the development machine), without the mispredicted branches of a
// comparison sort on random data (std::sort: 46 ns).
void bucket_sort_finite(double* values, std::size_t n) {
  to_keys(values, n);
  scratch.resize(n);
  bucket_sort_keys(keys.data(), scratch.data(), n, 0);
  from_keys(values, n);
}

// Highway's vqsort is a vectorised quicksort with sorting networks, chosen for the processor at
// run time: about 6.5 ns a value at 2,048 values with AVX-512, the keys' conversions included
// (bench/RESULTS.md).
void sort_finite(double* values, std::size_t n) {
#if RBMC_HAVE_VQSORT
  thread_local const hwy::Sorter sorter;
  to_keys(values, n);
  sorter(keys.data(), n, hwy::SortAscending());
  from_keys(values, n);
#else
  bucket_sort_finite(values, n);
#endif
}

namespace {
// How many of in[0, n) are not finite (exponent bits all ones): a count the compiler vectorises.
RBMC_VECTOR_CLONES std::size_t count_non_finite(const double* in, std::size_t n) {
  constexpr std::uint64_t exponent = std::uint64_t(0x7ff) << 52;
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t u;
    std::memcpy(&u, &in[i], sizeof u);
    count += (u & exponent) == exponent ? 1 : 0;
  }
  return count;
}
}  // namespace

std::size_t append_finite(const double* in, std::size_t n, std::vector<double>& out) {
  // Nearly always all of them: one vectorised pass to know, then a block copy (no value
  // initialised first, as resizing would).
  if (count_non_finite(in, n) == 0) {
    out.insert(out.end(), in, in + n);
    return n;
  }
  const std::size_t before = out.size();
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(in[i])) out.push_back(in[i]);
  return out.size() - before;
}

bool sort_finite_uses_vqsort() { return RBMC_HAVE_VQSORT != 0; }

}  // namespace rbmc

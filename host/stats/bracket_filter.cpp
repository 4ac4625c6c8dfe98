#include "host/stats/bracket_filter.hpp"

#include <cstring>

#include "host/stats/bracket_filter_avx2.hpp"
#include "host/stats/bracket_filter_avx512.hpp"
#include "host/stats/double_vectors.hpp"
#include "host/stats/sort_finite.hpp"  // RBMC_VECTOR_CLONES
#include "rbmc/stats/batch_compaction.hpp"

namespace rbmc {

namespace {

// The filter's rows, 8 at a time as two vectors of 4 doubles (double_vectors.hpp).
constexpr std::size_t kHalf = kDoubleVectorLanes;
using Half = DoubleVector;
using HalfMask = DoubleVectorMask;

// A lane's count: each lane of a mask that is set holds −1.
inline std::uint64_t count_of(HalfMask counted) {
  return std::uint64_t(-(counted[0] + counted[1] + counted[2] + counted[3]));
}

// keep_inside_brackets on GCC's vectors of four doubles (double_vectors.hpp), compiled for each
// instruction set (RBMC_VECTOR_CLONES). Each value is stored unconditionally and counted by its
// mask: no branch per value, nor per eight. A test for "none of the eight kept", which passed
// such eights over, went either way in no learnable order at the 5–20 % of values a column keeps
// while its brackets are young: without it the filter runs 1.35 × faster on AVX2 at 5–13 % kept,
// and as fast at 2 % (bench/RESULTS.md, 2026-12-01).
RBMC_VECTOR_CLONES std::size_t keep_inside_brackets_in_fours(const double* values, std::size_t n, const double* lo,
                                                    const double* hi, std::uint64_t* below, std::uint64_t& finite,
                                                    double* kept) {
  Half lo_v[kColumnBrackets], hi_v[kColumnBrackets];
  for (int j = 0; j < kColumnBrackets; ++j)
    for (std::size_t l = 0; l < kHalf; ++l) {
      lo_v[j][l] = lo[j];
      hi_v[j][l] = hi[j];
    }
  HalfMask below_lanes[kColumnBrackets] = {}, finite_lanes = {};
  std::size_t count = 0;
  const auto eight = [&](const Half& a, const Half& b) {
    const BracketMasks<HalfMask> ma = bracket_masks(a, lo_v, hi_v), mb = bracket_masks(b, lo_v, hi_v);
    finite_lanes += ma.finite + mb.finite;
    for (int j = 0; j < kColumnBrackets; ++j) below_lanes[j] += ma.below[j] + mb.below[j];
    for (std::size_t l = 0; l < kHalf; ++l) {
      kept[count] = a[l];
      count += std::size_t(ma.kept[l] & 1);
    }
    for (std::size_t l = 0; l < kHalf; ++l) {
      kept[count] = b[l];
      count += std::size_t(mb.kept[l] & 1);
    }
  };
  std::size_t i = 0;
  for (; i + 2 * kHalf <= n; i += 2 * kHalf) {
    Half a, b;
    std::memcpy(&a, values + i, sizeof a);
    std::memcpy(&b, values + i + kHalf, sizeof b);
    eight(a, b);
  }
  if (i < n) eight(load_rows(values, i, n), load_rows(values, i + kHalf, n));
  for (int j = 0; j < kColumnBrackets; ++j) below[j] += count_of(below_lanes[j]);
  finite += count_of(finite_lanes);
  return count;
}

#if defined(RBMC_FILTER_AVX512)
// The same filter on AVX-512 (bracket_filter_avx512.hpp): eight values a vector, the rule's masks
// in mask registers, each bracket's count and the finite count kept per lane and summed once, the
// kept values compressed into one vector and stored whole (kBracketFilterSlack). The vectors of
// four above spill their twenty edge vectors and counts on the stack and store each kept value
// alone; GCC's vectors of eight compiled lane by lane on AVX2 (double_vectors.hpp), so this is
// written with intrinsics. Whole vectors are loaded unmasked; only the last, short one through its
// mask.
__attribute__((target("avx512f"))) std::size_t keep_inside_brackets_avx512(const double* values, std::size_t n,
                                                                           const double* lo, const double* hi,
                                                                           std::uint64_t* below, std::uint64_t& finite,
                                                                           double* kept) {
  BracketFilterAvx512 filter(lo, hi);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) filter.eight(_mm512_loadu_pd(values + i), 0xFF, kept);
  if (i < n) {
    const __mmask8 present = __mmask8((1u << (n - i)) - 1);
    filter.eight(_mm512_maskz_loadu_pd(present, values + i), present, kept);
  }
  return filter.finish(below, finite);
}
#endif

#if defined(RBMC_FILTER_AVX2)
// The same filter on AVX2 (bracket_filter_avx2.hpp), four values a vector, eight a step.
__attribute__((target("avx2"))) std::size_t keep_inside_brackets_avx2(const double* values, std::size_t n,
                                                                       const double* lo, const double* hi,
                                                                       std::uint64_t* below, std::uint64_t& finite,
                                                                       double* kept) {
  BracketFilterAvx2 filter(lo, hi);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    filter.four(_mm256_loadu_pd(values + i), kept);
    filter.four(_mm256_loadu_pd(values + i + 4), kept);
  }
  for (; i < n; i += 4) filter.four(load_rows_avx2(values, i, n), kept);
  return filter.finish(below, finite);
}
#endif

}  // namespace

std::size_t keep_inside_brackets(const double* values, std::size_t n, const double* lo, const double* hi,
                                 std::uint64_t* below, std::uint64_t& finite, double* kept, BracketFilterWidth width) {
#if defined(RBMC_FILTER_AVX512)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512 && width == BracketFilterWidth::widest)
    return keep_inside_brackets_avx512(values, n, lo, hi, below, finite, kept);
#endif
#if defined(RBMC_FILTER_AVX2)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && width != BracketFilterWidth::vectors_of_four)
    return keep_inside_brackets_avx2(values, n, lo, hi, below, finite, kept);
#endif
  (void)width;
  return keep_inside_brackets_in_fours(values, n, lo, hi, below, finite, kept);
}

}  // namespace rbmc

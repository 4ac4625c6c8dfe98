// The brackets' filter on AVX2, four values at a time (bracket_filter.hpp): shared by the filter
// itself (bracket_filter.cpp) and by the moments' first pass, which filters a column in the same
// read of it (column_moments.hpp's column_moments_filtering). AVX-512 has its own
// (bracket_filter_avx512.hpp); machines with neither take GCC's vectors of four.
//
// Why intrinsics: GCC's vectors of four keep the rule's masks as vectors but store each kept value
// alone, eight scalar stores and eight dependent additions to the count for every eight values.
// Here a vector's kept values are moved to its front by one permutation (a table of 16, one per
// mask) and stored whole, as AVX-512's compress does: 1.2–1.6 × faster on an AVX2 EPYC
// (rbmc_stats_bench's bracket_filter_fresh_columns), the same results (bench/RESULTS.md,
// 2026-12-05, fifty-fourth session).
#pragma once

#include <cstddef>
#include <cstdint>

#include "rbmc/stats/batch_compaction.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <immintrin.h>
#define RBMC_FILTER_AVX2 1
#endif

namespace rbmc {

#if defined(RBMC_FILTER_AVX2)
// For each mask of four kept lanes (bit l: lane l kept), the 32-bit indices that move those lanes'
// doubles, in order, to the front of a vector (VPERMD); the lanes after them repeat lane 0, stored
// but not counted. And how many lanes the mask keeps.
struct Avx2CompressTable {
  alignas(32) std::int32_t indices[16][8];
  std::uint8_t kept[16];

  constexpr Avx2CompressTable() : indices{}, kept{} {
    for (int mask = 0; mask < 16; ++mask) {
      int front = 0;
      for (int lane = 0; lane < 4; ++lane)
        if ((mask >> lane) & 1) {
          indices[mask][2 * front] = 2 * lane;
          indices[mask][2 * front + 1] = 2 * lane + 1;
          ++front;
        }
      kept[mask] = std::uint8_t(front);
      for (; front < 4; ++front) {
        indices[mask][2 * front] = 0;
        indices[mask][2 * front + 1] = 1;
      }
    }
  }
};
inline constexpr Avx2CompressTable kAvx2Compress{};

// The filter's state over a column: the brackets' edges as vectors, and the counts per lane. Four
// values x at a time (four()): the comparisons are the rule's (bracket_masks,
// rbmc/stats/batch_compaction.hpp): a value is finite when x − x == 0, kept when finite and inside
// some [lo_j, hi_j] (ordered comparisons: false for NaN), counted below lo_j otherwise. A lane the
// caller fills with NaN is neither kept nor counted. Without a branch, as on AVX-512: every
// vector's permuted values are stored, none or all of them kept, at kept + count
// (kBracketFilterSlack), and the count moves by how many there were.
struct BracketFilterAvx2 {
  __m256d lo_v[kColumnBrackets], hi_v[kColumnBrackets];
  __m256i below_lanes[kColumnBrackets], finite_lanes;  // counts per lane: each set mask lane is −1
  std::size_t count = 0;                               // values kept so far

  __attribute__((target("avx2"), always_inline)) inline BracketFilterAvx2(const double* lo, const double* hi) {
    for (int j = 0; j < kColumnBrackets; ++j) {
      lo_v[j] = _mm256_set1_pd(lo[j]);
      hi_v[j] = _mm256_set1_pd(hi[j]);
      below_lanes[j] = _mm256_setzero_si256();
    }
    finite_lanes = _mm256_setzero_si256();
  }
  __attribute__((target("avx2"), always_inline)) inline void four(__m256d x, double* kept) {
    const __m256d finite = _mm256_cmp_pd(_mm256_sub_pd(x, x), _mm256_setzero_pd(), _CMP_EQ_OQ);
    __m256d under[kColumnBrackets];
    under[0] = _mm256_cmp_pd(x, lo_v[0], _CMP_LT_OQ);
    __m256d outside = _mm256_or_pd(under[0], _mm256_cmp_pd(x, hi_v[0], _CMP_GT_OQ));
    for (int j = 1; j < kColumnBrackets; ++j) {
      under[j] = _mm256_cmp_pd(x, lo_v[j], _CMP_LT_OQ);
      outside = _mm256_and_pd(outside, _mm256_or_pd(under[j], _mm256_cmp_pd(x, hi_v[j], _CMP_GT_OQ)));
    }
    const __m256d counted = _mm256_and_pd(finite, outside), keep = _mm256_andnot_pd(outside, finite);
    finite_lanes = _mm256_sub_epi64(finite_lanes, _mm256_castpd_si256(finite));
    for (int j = 0; j < kColumnBrackets; ++j)
      below_lanes[j] = _mm256_sub_epi64(below_lanes[j], _mm256_castpd_si256(_mm256_and_pd(counted, under[j])));
    const int mask = _mm256_movemask_pd(keep);
    const __m256i to_front = _mm256_load_si256(reinterpret_cast<const __m256i*>(kAvx2Compress.indices[mask]));
    _mm256_storeu_pd(kept + count, _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(x), to_front)));
    count += kAvx2Compress.kept[mask];
  }
  // The counts into the caller's: below[j] and finite added to; returns the values kept.
  __attribute__((target("avx2"))) std::size_t finish(std::uint64_t* below, std::uint64_t& finite) const {
    alignas(32) std::int64_t lanes[4];
    for (int j = 0; j < kColumnBrackets; ++j) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), below_lanes[j]);
      below[j] += std::uint64_t(lanes[0] + lanes[1] + lanes[2] + lanes[3]);
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), finite_lanes);
    finite += std::uint64_t(lanes[0] + lanes[1] + lanes[2] + lanes[3]);
    return count;
  }
};

// Rows i, ..., i + 3 of a column of n on AVX2, those past its end NaN (as load_rows,
// double_vectors.hpp, gives them): a whole vector unmasked, a short one through its mask.
__attribute__((target("avx2"), always_inline)) inline __m256d load_rows_avx2(const double* x, std::size_t i,
                                                                             std::size_t n) {
  if (i + 4 <= n) return _mm256_loadu_pd(x + i);
  const __m256i lane = _mm256_set_epi64x(3, 2, 1, 0);
  const __m256i present = _mm256_cmpgt_epi64(_mm256_set1_epi64x(i < n ? std::int64_t(n - i) : 0), lane);
  return _mm256_blendv_pd(_mm256_set1_pd(__builtin_nan("")), _mm256_maskload_pd(x + i, present),
                          _mm256_castsi256_pd(present));
}
#endif

}  // namespace rbmc

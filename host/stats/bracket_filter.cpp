#include "host/stats/bracket_filter.hpp"

#include <cstring>

#include "host/stats/double_vectors.hpp"
#include "host/stats/sort_finite.hpp"  // RBMC_VECTOR_CLONES
#include "rbmc/stats/batch_compaction.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <immintrin.h>
#define RBMC_FILTER_AVX512 1
#endif

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
// The same filter on AVX-512: eight values a vector, the rule's masks in mask registers, each
// bracket's count and the finite count kept per lane and summed once, the kept values compressed
// into one vector and stored whole (kBracketFilterSlack). The vectors of four above spill their
// twenty edge vectors and counts on the stack and store each kept value alone; GCC's vectors of
// eight compiled lane by lane on AVX2 (double_vectors.hpp), so this is written with intrinsics.
// The comparisons are the rule's: a value is finite when x − x == 0, kept when finite and inside
// some [lo_j, hi_j] (ordered comparisons: false for NaN), counted below lo_j otherwise.
//
// Without a branch: every vector's compressed kept values are stored, none or all eight of them,
// and the count moves by how many there were. A branch on "some value kept" is taken for about
// two vectors in three of a column that keeps 13 % of its values (the main job's average), in no
// order a predictor can learn: on fresh columns the branch-free loop filters 1.8 × faster
// (bench/RESULTS.md, 2026-12-01). Whole vectors are loaded unmasked; only the last, short one
// through its mask.
__attribute__((target("avx512f"), always_inline)) inline void filter_eight_avx512(
    __m512d x, __mmask8 present, const __m512d* lo_v, const __m512d* hi_v, __m512i* below_lanes, __m512i& finite_lanes,
    double* kept, std::size_t& count) {
  const __m512i one = _mm512_set1_epi64(1);
  const __mmask8 is_finite = _mm512_mask_cmp_pd_mask(present, _mm512_sub_pd(x, x), _mm512_setzero_pd(), _CMP_EQ_OQ);
  __mmask8 under[kColumnBrackets];
  __mmask8 outside = 0xFF;
  for (int j = 0; j < kColumnBrackets; ++j) {
    under[j] = _mm512_cmp_pd_mask(x, lo_v[j], _CMP_LT_OQ);
    outside &= under[j] | _mm512_cmp_pd_mask(x, hi_v[j], _CMP_GT_OQ);
  }
  const __mmask8 counted = is_finite & outside, keep = is_finite & __mmask8(~outside);
  finite_lanes = _mm512_mask_add_epi64(finite_lanes, is_finite, finite_lanes, one);
  for (int j = 0; j < kColumnBrackets; ++j)
    below_lanes[j] = _mm512_mask_add_epi64(below_lanes[j], counted & under[j], below_lanes[j], one);
  _mm512_storeu_pd(kept + count, _mm512_maskz_compress_pd(keep, x));
  count += std::size_t(__builtin_popcount(keep));
}

__attribute__((target("avx512f"))) std::size_t keep_inside_brackets_avx512(const double* values, std::size_t n,
                                                                           const double* lo, const double* hi,
                                                                           std::uint64_t* below, std::uint64_t& finite,
                                                                           double* kept) {
  __m512d lo_v[kColumnBrackets], hi_v[kColumnBrackets];
  for (int j = 0; j < kColumnBrackets; ++j) {
    lo_v[j] = _mm512_set1_pd(lo[j]);
    hi_v[j] = _mm512_set1_pd(hi[j]);
  }
  __m512i below_lanes[kColumnBrackets], finite_lanes = _mm512_setzero_si512();
  for (int j = 0; j < kColumnBrackets; ++j) below_lanes[j] = _mm512_setzero_si512();
  std::size_t count = 0, i = 0;
  for (; i + 8 <= n; i += 8)
    filter_eight_avx512(_mm512_loadu_pd(values + i), 0xFF, lo_v, hi_v, below_lanes, finite_lanes, kept, count);
  if (i < n) {
    const __mmask8 present = __mmask8((1u << (n - i)) - 1);
    filter_eight_avx512(_mm512_maskz_loadu_pd(present, values + i), present, lo_v, hi_v, below_lanes, finite_lanes,
                        kept, count);
  }
  for (int j = 0; j < kColumnBrackets; ++j) below[j] += std::uint64_t(_mm512_reduce_add_epi64(below_lanes[j]));
  finite += std::uint64_t(_mm512_reduce_add_epi64(finite_lanes));
  return count;
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
  (void)width;
  return keep_inside_brackets_in_fours(values, n, lo, hi, below, finite, kept);
}

}  // namespace rbmc

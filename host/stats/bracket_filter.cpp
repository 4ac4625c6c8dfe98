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

inline bool any_lane(HalfMask m) {
  std::uint64_t bits[kHalf];
  std::memcpy(bits, &m, sizeof bits);
  return (bits[0] | bits[1] | bits[2] | bits[3]) != 0;
}

// A lane's count: each lane of a mask that is set holds −1.
inline std::uint64_t count_of(HalfMask counted) {
  return std::uint64_t(-(counted[0] + counted[1] + counted[2] + counted[3]));
}

// keep_inside_brackets on GCC's vectors of four doubles (double_vectors.hpp), compiled for each
// instruction set (RBMC_VECTOR_CLONES). Each kept value is stored unconditionally and counted by its
// mask (no branch per value); past the first brackets most eights keep none and are passed over
// whole.
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
    if (!any_lane(ma.kept | mb.kept)) return;
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
__attribute__((target("avx512f"))) std::size_t keep_inside_brackets_avx512(const double* values, std::size_t n,
                                                                           const double* lo, const double* hi,
                                                                           std::uint64_t* below, std::uint64_t& finite,
                                                                           double* kept) {
  __m512d lo_v[kColumnBrackets], hi_v[kColumnBrackets];
  for (int j = 0; j < kColumnBrackets; ++j) {
    lo_v[j] = _mm512_set1_pd(lo[j]);
    hi_v[j] = _mm512_set1_pd(hi[j]);
  }
  const __m512i one = _mm512_set1_epi64(1);
  __m512i below_lanes[kColumnBrackets], finite_lanes = _mm512_setzero_si512();
  for (int j = 0; j < kColumnBrackets; ++j) below_lanes[j] = _mm512_setzero_si512();
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; i += 8) {
    const __mmask8 present = n - i >= 8 ? __mmask8(0xFF) : __mmask8((1u << (n - i)) - 1);
    const __m512d x = _mm512_maskz_loadu_pd(present, values + i);
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
    if (keep != 0) {
      _mm512_storeu_pd(kept + count, _mm512_maskz_compress_pd(keep, x));
      count += std::size_t(__builtin_popcount(keep));
    }
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

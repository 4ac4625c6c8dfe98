#include "host/stats/column_moments.hpp"

#include <cstdint>
#include <cstring>
#include <limits>

#include "host/stats/bracket_filter.hpp"
#include "host/stats/bracket_filter_avx2.hpp"
#include "host/stats/bracket_filter_avx512.hpp"
#include "host/stats/double_vectors.hpp"
#include "host/stats/sort_finite.hpp"  // RBMC_VECTOR_CLONES

namespace rbmc {

namespace {

// Partial sums a pass keeps: 8 lanes, row i adding to lane i mod 8, so that the result is the
// same bit for bit on every instruction set. Each pass holds them as two vectors of 4 doubles
// (lanes 0–3 and 4–7, double_vectors.hpp), combined in a fixed order. Left to itself, GCC
// vectorised the loop over rows and added the lanes one at a time.
constexpr std::size_t kLanes = 8, kHalf = kDoubleVectorLanes;
using Half = DoubleVector;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The 8 lanes' partial results (lanes 0–3 in low, 4–7 in high) in a fixed order.
inline double sum_of(Half low, Half high) {
  return ((low[0] + low[1]) + (low[2] + low[3])) + ((high[0] + high[1]) + (high[2] + high[3]));
}

// Pass one's partial results in 4 of the lanes: the finite values' count, sum, min and max, and
// the values other than NaN.
struct FirstPassLanes {
  Half count, total, not_nan, lo, hi;

  static FirstPassLanes start() {
    const Half zero = {}, infinity = zero + kInfinity;
    return {zero, zero, zero, infinity, -infinity};
  }
  void add(Half v) {
    const Half zero = {}, one = zero + 1.0, infinity = zero + kInfinity;
    // Each choice with its own comparison, written into the conditional expression: so GCC
    // compiles it to a vector compare and a blend (a comparison kept as a mask and reused, it
    // compiled lane by lane). v − v is 0 for the finite values, NaN for ±∞ and NaN.
    const Half d = v - v;
    count += d == zero ? one : zero;
    total += d == zero ? v : zero;
    const Half low = d == zero ? v : infinity, high = d == zero ? v : -infinity;
    lo = low < lo ? low : lo;
    hi = high > hi ? high : hi;
    not_nan += v == v ? one : zero;  // the infinities are these less the finite ones
  }
};

// Pass one's partial results in its 8 lanes (row i in lane i mod 8), whatever vectors held them,
// and the column's count, non-finite count, min, max and sum from them, in a fixed order.
struct FirstPassTotals {
  double count[kLanes], total[kLanes], not_nan[kLanes], lo[kLanes], hi[kLanes];

  static double sum_of(const double* a) { return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])); }
  Moments moments(double& sum) const {
    Moments m;
    m.count = sum_of(count);
    m.non_finite = sum_of(not_nan) - m.count;
    for (std::size_t j = 0; j < kLanes; ++j) {
      m.min = lo[j] < m.min ? lo[j] : m.min;
      m.max = hi[j] > m.max ? hi[j] : m.max;
    }
    sum = sum_of(total);
    return m;
  }
};

// How far ahead pass one asks for its column: a page. The column comes from memory (the CPU
// backend writes the batch's quantities with non-temporal stores), and the hardware's prefetchers
// stop at each 4 KiB page, so without it every page's first lines were waited for. Asked for in
// advance, pass one took half the time and the statistics stage a tenth less
// (bench/RESULTS.md, 2026-11-27, twenty-fifth session). A prefetch past the column's end faults
// nothing: it reaches the next column, read next.
constexpr std::uintptr_t kPrefetchBytes = 4096;

// Pass one: the finite values' count, sum, min and max, and the infinities. Row i adds to lane
// i mod kLanes: rows i to i + 3 of each 8 to `low`, the next 4 to `high`.
RBMC_VECTOR_CLONES Moments first_pass(const double* x, std::size_t n, double& sum) {
  FirstPassLanes low = FirstPassLanes::start(), high = FirstPassLanes::start();
  for (std::size_t i = 0; i < n; i += kLanes) {
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(x + i) + kPrefetchBytes));
    low.add(load_rows(x, i, n));
    high.add(load_rows(x, i + kHalf, n));
  }
  FirstPassTotals t;
  for (std::size_t j = 0; j < kLanes; ++j) {
    const FirstPassLanes& half = j < kHalf ? low : high;
    const std::size_t l = j % kHalf;
    t.count[j] = half.count[l];
    t.total[j] = half.total[l];
    t.not_nan[j] = half.not_nan[l];
    t.lo[j] = half.lo[l];
    t.hi[j] = half.hi[l];
  }
  return t.moments(sum);
}

// Pass two: Σ (x − mean) and Σ (x − mean)² over the finite values, in the lanes of pass one.
RBMC_VECTOR_CLONES void second_pass(const double* x, std::size_t n, double mean, double& deviation, double& squares) {
  const Half zero = {};
  Half d1[2] = {zero, zero}, d2[2] = {zero, zero};
  for (std::size_t i = 0; i < n; i += kLanes) {
    for (std::size_t h = 0; h < 2; ++h) {
      const Half v = load_rows(x, i + h * kHalf, n);
      const Half d = v - v == zero ? v - mean : zero;
      d1[h] += d;
      d2[h] += d * d;
    }
  }
  deviation = sum_of(d1[0], d1[1]);
  squares = sum_of(d2[0], d2[1]);
}

// The moments from pass one's (m and the sum) and pass two over x[0, n).
Moments with_second_pass(const double* x, std::size_t n, Moments m, double sum) {
  if (m.count > 0) {
    m.mean = sum / m.count;
    double deviation = 0, squares = 0;
    second_pass(x, n, m.mean, deviation, squares);
    // The corrected two-pass sum of squares; never below 0, as rounding could make it.
    const double m2 = squares - deviation * deviation / m.count;
    m.m2 = m2 > 0 ? m2 : 0.0;
  }
  return m;
}

#if defined(RBMC_FILTER_AVX512)
// Pass one on AVX-512: FirstPassLanes' operations on all 8 lanes at once, the same bits. Each
// choice is a blend (maskz_mov: +0 where not taken, as FirstPassLanes adds); min and max as
// VMINPD and VMAXPD define them, (a < b ? a : b) and (a > b ? a : b).
struct FirstPassAvx512 {
  __m512d count, total, not_nan, lo, hi;

  __attribute__((target("avx512f"), always_inline)) inline FirstPassAvx512()
      : count(_mm512_setzero_pd()), total(_mm512_setzero_pd()), not_nan(_mm512_setzero_pd()),
        lo(_mm512_set1_pd(kInfinity)), hi(_mm512_set1_pd(-kInfinity)) {}
  __attribute__((target("avx512f"), always_inline)) inline void add(__m512d v) {
    const __m512d one = _mm512_set1_pd(1.0), infinity = _mm512_set1_pd(kInfinity);
    const __mmask8 finite = _mm512_cmp_pd_mask(_mm512_sub_pd(v, v), _mm512_setzero_pd(), _CMP_EQ_OQ);
    count = _mm512_add_pd(count, _mm512_maskz_mov_pd(finite, one));
    total = _mm512_add_pd(total, _mm512_maskz_mov_pd(finite, v));
    lo = _mm512_min_pd(_mm512_mask_mov_pd(infinity, finite, v), lo);
    hi = _mm512_max_pd(_mm512_mask_mov_pd(-infinity, finite, v), hi);
    not_nan = _mm512_add_pd(not_nan, _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(v, v, _CMP_ORD_Q), one));
  }
  __attribute__((target("avx512f"))) FirstPassTotals totals() const {
    FirstPassTotals t;
    _mm512_storeu_pd(t.count, count);
    _mm512_storeu_pd(t.total, total);
    _mm512_storeu_pd(t.not_nan, not_nan);
    _mm512_storeu_pd(t.lo, lo);
    _mm512_storeu_pd(t.hi, hi);
    return t;
  }
};

// column_moments_filtering on AVX-512: each vector of the column read once, for pass one and,
// in rows [0, filter.rows), the brackets' filter; rows past the column's end NaN, as load_rows
// gives them.
__attribute__((target("avx512f"))) Moments moments_filtering_avx512(const double* x, std::size_t n,
                                                                    ColumnPrefixFilter& filter) {
  FirstPassAvx512 pass;
  BracketFilterAvx512 brackets(filter.lo, filter.hi);
  const std::size_t rows = filter.rows < n ? filter.rows : n;
  double* const kept = filter.kept;  // a local: the stores through it could reach `filter` otherwise
  std::size_t i = 0;
  for (; i + 8 <= rows; i += 8) {
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(x + i) + kPrefetchBytes));
    const __m512d v = _mm512_loadu_pd(x + i);
    pass.add(v);
    brackets.eight(v, 0xFF, kept);
  }
  const __m512d nan = _mm512_set1_pd(std::numeric_limits<double>::quiet_NaN());
  for (; i < n; i += 8) {
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(x + i) + kPrefetchBytes));
    const __mmask8 present = n - i >= 8 ? __mmask8(0xFF) : __mmask8((1u << (n - i)) - 1);
    const __m512d v = _mm512_mask_loadu_pd(nan, present, x + i);
    pass.add(v);
    if (i < rows) brackets.eight(v, __mmask8((1u << (rows - i < 8 ? rows - i : 8)) - 1), kept);
  }
  filter.n_kept = brackets.finish(filter.below, filter.finite);
  double sum = 0;
  const Moments m = pass.totals().moments(sum);
  return with_second_pass(x, n, m, sum);
}
#endif

#if defined(RBMC_FILTER_AVX2)
// Pass one on AVX2: FirstPassLanes' operations on one vector of four lanes, the same bits. Each
// choice is an AND with the mask (+0 where not taken, as FirstPassLanes adds) or a blend; min and
// max as VMINPD and VMAXPD define them, (a < b ? a : b) and (a > b ? a : b).
struct FirstPassAvx2 {
  __m256d count, total, not_nan, lo, hi;

  __attribute__((target("avx2"), always_inline)) inline FirstPassAvx2()
      : count(_mm256_setzero_pd()), total(_mm256_setzero_pd()), not_nan(_mm256_setzero_pd()),
        lo(_mm256_set1_pd(kInfinity)), hi(_mm256_set1_pd(-kInfinity)) {}
  __attribute__((target("avx2"), always_inline)) inline void add(__m256d v) {
    const __m256d one = _mm256_set1_pd(1.0), infinity = _mm256_set1_pd(kInfinity);
    const __m256d finite = _mm256_cmp_pd(_mm256_sub_pd(v, v), _mm256_setzero_pd(), _CMP_EQ_OQ);
    count = _mm256_add_pd(count, _mm256_and_pd(finite, one));
    total = _mm256_add_pd(total, _mm256_and_pd(finite, v));
    lo = _mm256_min_pd(_mm256_blendv_pd(infinity, v, finite), lo);
    hi = _mm256_max_pd(_mm256_blendv_pd(_mm256_set1_pd(-kInfinity), v, finite), hi);
    not_nan = _mm256_add_pd(not_nan, _mm256_and_pd(_mm256_cmp_pd(v, v, _CMP_ORD_Q), one));
  }
  // Its four lanes as lanes first, ..., first + 3 of the totals.
  __attribute__((target("avx2"))) void store_into(FirstPassTotals& t, std::size_t first) const {
    _mm256_storeu_pd(t.count + first, count);
    _mm256_storeu_pd(t.total + first, total);
    _mm256_storeu_pd(t.not_nan + first, not_nan);
    _mm256_storeu_pd(t.lo + first, lo);
    _mm256_storeu_pd(t.hi + first, hi);
  }
};

// column_moments_filtering on AVX2: each vector of the column read once, for pass one and, in
// rows [0, filter.rows), the brackets' filter; rows past the column's end NaN, as load_rows gives
// them. Rows i to i + 3 of each 8 in `low`, the next 4 in `high`: FirstPassLanes' lanes.
__attribute__((target("avx2"))) Moments moments_filtering_avx2(const double* x, std::size_t n,
                                                               ColumnPrefixFilter& filter) {
  FirstPassAvx2 low, high;
  BracketFilterAvx2 brackets(filter.lo, filter.hi);
  const std::size_t rows = filter.rows < n ? filter.rows : n;
  double* const kept = filter.kept;  // a local: the stores through it could reach `filter` otherwise
  std::size_t i = 0;
  for (; i + 8 <= rows; i += 8) {
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(x + i) + kPrefetchBytes));
    const __m256d a = _mm256_loadu_pd(x + i), b = _mm256_loadu_pd(x + i + kHalf);
    low.add(a);
    high.add(b);
    brackets.four(a, kept);
    brackets.four(b, kept);
  }
  for (; i < n; i += 8) {
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(x + i) + kPrefetchBytes));
    const __m256d a = load_rows_avx2(x, i, n), b = load_rows_avx2(x, i + kHalf, n);
    low.add(a);
    high.add(b);
    // The filtered rows' part of this eight (rows ≤ i + 7): the others NaN, neither kept nor counted.
    if (i < rows) brackets.four(i + kHalf <= rows ? a : load_rows_avx2(x, i, rows), kept);
    if (i + kHalf < rows) brackets.four(load_rows_avx2(x, i + kHalf, rows), kept);
  }
  filter.n_kept = brackets.finish(filter.below, filter.finite);
  FirstPassTotals t;
  low.store_into(t, 0);
  high.store_into(t, kHalf);
  double sum = 0;
  const Moments m = t.moments(sum);
  return with_second_pass(x, n, m, sum);
}
#endif

}  // namespace

void column_moments(const double* const* columns, std::size_t n_columns, std::size_t n_rows, Moments* out) {
  for (std::size_t c = 0; c < n_columns; ++c) {
    double sum = 0;
    const Moments m = first_pass(columns[c], n_rows, sum);
    out[c] = with_second_pass(columns[c], n_rows, m, sum);
  }
}

Moments column_moments_filtering(const double* column, std::size_t n_rows, ColumnPrefixFilter& filter,
                                 BracketFilterWidth width) {
#if defined(RBMC_FILTER_AVX512)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512 && width == BracketFilterWidth::widest) return moments_filtering_avx512(column, n_rows, filter);
#endif
#if defined(RBMC_FILTER_AVX2)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && width != BracketFilterWidth::vectors_of_four) return moments_filtering_avx2(column, n_rows, filter);
#endif
  // Elsewhere, two reads: the filter's, and the moments'.
  const std::size_t rows = filter.rows < n_rows ? filter.rows : n_rows;
  filter.n_kept = keep_inside_brackets(column, rows, filter.lo, filter.hi, filter.below, filter.finite, filter.kept,
                                       width);
  Moments m;
  column_moments(&column, 1, n_rows, &m);
  return m;
}

}  // namespace rbmc

#include "host/stats/column_moments.hpp"

#include <cstdint>
#include <cstring>
#include <limits>

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
  Moments m;
  m.count = sum_of(low.count, high.count);
  m.non_finite = sum_of(low.not_nan, high.not_nan) - m.count;
  for (std::size_t j = 0; j < kLanes; ++j) {
    const double lo = j < kHalf ? low.lo[j] : high.lo[j - kHalf], hi = j < kHalf ? low.hi[j] : high.hi[j - kHalf];
    m.min = lo < m.min ? lo : m.min;
    m.max = hi > m.max ? hi : m.max;
  }
  sum = sum_of(low.total, high.total);
  return m;
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

}  // namespace

void column_moments(const double* const* columns, std::size_t n_columns, std::size_t n_rows, Moments* out) {
  for (std::size_t c = 0; c < n_columns; ++c) {
    double sum = 0;
    Moments m = first_pass(columns[c], n_rows, sum);
    if (m.count > 0) {
      m.mean = sum / m.count;
      double deviation = 0, squares = 0;
      second_pass(columns[c], n_rows, m.mean, deviation, squares);
      // The corrected two-pass sum of squares; never below 0, as rounding could make it.
      const double m2 = squares - deviation * deviation / m.count;
      m.m2 = m2 > 0 ? m2 : 0.0;
    }
    out[c] = m;
  }
}

}  // namespace rbmc

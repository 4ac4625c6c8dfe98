#include "host/stats/column_moments.hpp"

#include <cstring>
#include <limits>

#include "host/stats/sort_finite.hpp"  // RBMC_VECTOR_CLONES

namespace rbmc {

namespace {

// Partial sums a pass keeps: one vector of doubles on AVX-512, two on AVX2. Written with GCC's
// vector extension, which every target lowers lane by lane with the same operations, so the
// result is the same bit for bit on every instruction set (left to itself, GCC vectorised the
// loop over rows and added the lanes one at a time).
constexpr std::size_t kLanes = 8;
using Lanes = double __attribute__((vector_size(kLanes * sizeof(double))));
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Rows i, ..., i + kLanes − 1 of a column of n; those past its end as NaN, which no sum counts.
inline Lanes load(const double* x, std::size_t i, std::size_t n) {
  Lanes v;
  if (i + kLanes <= n) {
    std::memcpy(&v, x + i, sizeof v);
  } else {
    for (std::size_t j = 0; j < kLanes; ++j) v[j] = i + j < n ? x[i + j] : std::numeric_limits<double>::quiet_NaN();
  }
  return v;
}

// The lanes' partial results in a fixed order.
inline double sum_of(Lanes lane) {
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Pass one: the finite values' count, sum, min and max, and the infinities. Row i adds to lane
// i mod kLanes.
RBMC_VECTOR_CLONES Moments first_pass(const double* x, std::size_t n, double& sum) {
  const Lanes zero = {}, one = zero + 1.0, infinity = zero + kInfinity;
  Lanes count = zero, total = zero, not_nan = zero, lo = infinity, hi = -infinity;
  for (std::size_t i = 0; i < n; i += kLanes) {
    const Lanes v = load(x, i, n);
    // Each choice with its own comparison, written into the conditional expression: so GCC
    // compiles it to a vector compare and a blend (a comparison kept as a mask and reused, it
    // compiled lane by lane). v − v is 0 for the finite values, NaN for ±∞ and NaN.
    const Lanes d = v - v;
    count += d == zero ? one : zero;
    total += d == zero ? v : zero;
    const Lanes low = d == zero ? v : infinity, high = d == zero ? v : -infinity;
    lo = low < lo ? low : lo;
    hi = high > hi ? high : hi;
    not_nan += v == v ? one : zero;  // the infinities are these less the finite ones
  }
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

// Pass two: Σ (x − mean) and Σ (x − mean)² over the finite values.
RBMC_VECTOR_CLONES void second_pass(const double* x, std::size_t n, double mean, double& deviation, double& squares) {
  const Lanes zero = {};
  Lanes d1 = zero, d2 = zero;
  for (std::size_t i = 0; i < n; i += kLanes) {
    const Lanes v = load(x, i, n);
    const Lanes d = v - v == zero ? v - mean : zero;
    d1 += d;
    d2 += d * d;
  }
  deviation = sum_of(d1);
  squares = sum_of(d2);
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

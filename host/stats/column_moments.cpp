#include "host/stats/column_moments.hpp"

#include "host/stats/sort_finite.hpp"  // RBMC_VECTOR_CLONES

namespace rbmc {

MomentFactors::MomentFactors(std::size_t n_rows) : one_over_next(n_rows), count_over_next(n_rows) {
  // As merge() computes them for a = c values and b = one value: b.count / m.count and
  // a.count · b.count / m.count, m.count = c + 1.
  for (std::size_t c = 0; c < n_rows; ++c) {
    one_over_next[c] = 1.0 / double(c + 1);
    count_over_next[c] = double(c) * 1.0 / double(c + 1);
  }
}

namespace {

// merge(m, Moments::of(x)), its divisions looked up. The same operations on the same operands:
// b.m2 = 0 added to a.m2 ≥ 0 changes nothing, so it is left out. Written out rather than as a call
// of merge() with the factors given: that call, through Moments::of's copy, took 2.6 ns a value
// against 1.6 here (rbmc_stats_bench's moments_of_columns, AVX-512).
inline void merge_value(Moments& m, double x, const MomentFactors& f) {
  if (!(x - x == 0)) {  // not finite
    if (x == x) m.non_finite += 1;  // ±∞; NaN is not counted
    return;
  }
  if (m.count == 0) {
    m.count = 1;
    m.mean = m.min = m.max = x;
    return;
  }
  const std::size_t c = std::size_t(m.count);
  const double delta = x - m.mean;
  m.count = m.count + 1;
  m.mean = m.mean + delta * f.one_over_next[c];
  m.m2 = m.m2 + delta * delta * f.count_over_next[c];
  m.min = m.min < x ? m.min : x;
  m.max = m.max > x ? m.max : x;
}

constexpr std::size_t kTogether = 4;

// kTogether columns at once: four independent chains of latency. Cloned for wider targets for
// their registers (AVX-512 has 32), not for vectors.
RBMC_VECTOR_CLONES void moments_together(const double* const* columns, std::size_t n_rows, const MomentFactors& f,
                                         Moments* out) {
  Moments m[kTogether];
  for (std::size_t i = 0; i < n_rows; ++i)
    for (std::size_t j = 0; j < kTogether; ++j) merge_value(m[j], columns[j][i], f);
  for (std::size_t j = 0; j < kTogether; ++j) out[j] = m[j];
}

}  // namespace

void column_moments(const double* const* columns, std::size_t n_columns, std::size_t n_rows,
                    const MomentFactors& factors, Moments* out) {
  std::size_t j = 0;
  for (; j + kTogether <= n_columns; j += kTogether) moments_together(columns + j, n_rows, factors, out + j);
  for (; j < n_columns; ++j) {
    Moments m;
    for (std::size_t i = 0; i < n_rows; ++i) merge_value(m, columns[j][i], factors);
    out[j] = m;
  }
}

}  // namespace rbmc

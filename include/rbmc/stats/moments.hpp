// Count, mean, sum of squared deviations, min and max of a set of values, mergeable in any
// order: the statistics of a run are merged batch by batch (and, on a GPU, block by block)
// without keeping the values. Chan, Golub and LeVeque's pairwise update ("Updating formulae and
// a pairwise algorithm for computing sample variances", 1979) keeps the variance accurate where
// the naive Σx² − n x̄² would cancel. NaN values (a sample that stopped) are not counted;
// infinities (a sample whose quantity overflowed) are counted apart and never reach the moments.
#pragma once

#include <limits>

#include "rbmc/hd.hpp"

namespace rbmc {

struct Moments {
  double count = 0;
  double mean = 0;
  double m2 = 0;  // Σ (x − mean)²
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double non_finite = 0;  // infinite values left out

  RBMC_HD static Moments of(double x) {
    Moments m;
    if (x - x == 0) {  // finite: x − x is NaN for ±∞ and NaN
      m.count = 1;
      m.mean = m.min = m.max = x;
    } else if (x == x) {
      m.non_finite = 1;
    }
    return m;
  }

  // Sample variance (n − 1 in the denominator); 0 for fewer than two values.
  RBMC_HD double variance() const { return count > 1 ? m2 / (count - 1) : 0.0; }
};

// m with one more value: Welford's update ("Note on a method for calculating corrected sums of
// squares and products", Technometrics 4, 1962), the same as merge(m, Moments::of(x)) to rounding
// at one division instead of two. For reductions that take their values one at a time.
RBMC_HD inline Moments add_value(Moments m, double x) {
  if (!(x - x == 0)) {  // not finite: as Moments::of
    if (x == x) m.non_finite += 1;
    return m;
  }
  if (m.count == 0) {
    m.count = 1;
    m.mean = m.min = m.max = x;
    return m;
  }
  m.count += 1;
  const double delta = x - m.mean;
  m.mean += delta / m.count;
  m.m2 += delta * (x - m.mean);
  m.min = x < m.min ? x : m.min;
  m.max = x > m.max ? x : m.max;
  return m;
}

RBMC_HD inline Moments merge(const Moments& a, const Moments& b) {
  if (a.count == 0 || b.count == 0) {
    Moments m = a.count == 0 ? b : a;
    m.non_finite = a.non_finite + b.non_finite;
    return m;
  }
  Moments m;
  m.non_finite = a.non_finite + b.non_finite;
  m.count = a.count + b.count;
  const double delta = b.mean - a.mean;
  m.mean = a.mean + delta * (b.count / m.count);
  m.m2 = a.m2 + b.m2 + delta * delta * (a.count * b.count / m.count);
  m.min = a.min < b.min ? a.min : b.min;
  m.max = a.max > b.max ? a.max : b.max;
  return m;
}

}  // namespace rbmc

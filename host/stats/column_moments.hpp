// The moments of a batch's columns of values (one column per output time and quantity), which the
// run's statistics then merge batch by batch (rbmc/stats/moments.hpp).
//
// Each column by the corrected two-pass algorithm (Chan, Golub and LeVeque, "Algorithms for
// computing the sample variance: analysis and recommendations", The American Statistician 37,
// 1983): the mean from the sum, then Σ (x − mean)² less (Σ (x − mean))² / n, which removes the
// first order of the mean's rounding. Both passes run in vectors (8 partial sums, combined in a
// fixed order), where merging value after value waits on the mean before each value: 1.6 ns a
// value against about 0.3 (bench/RESULTS.md, 2026-11-26). The partial sums make the result the
// same bit for bit on every instruction set; it agrees with merging value by value to rounding.
// Non-finite values as Moments::of counts them: ±∞ in non_finite, NaN not at all.
#pragma once

#include <cstddef>

#include "rbmc/stats/moments.hpp"

namespace rbmc {

// out[j] = the moments of column j's n_rows values, columns[j][0, n_rows) (j < n_columns).
void column_moments(const double* const* columns, std::size_t n_columns, std::size_t n_rows, Moments* out);

}  // namespace rbmc

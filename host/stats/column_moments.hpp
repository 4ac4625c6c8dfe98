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
#include <cstdint>

#include "host/stats/bracket_filter.hpp"
#include "rbmc/stats/batch_compaction.hpp"
#include "rbmc/stats/moments.hpp"

namespace rbmc {

// out[j] = the moments of column j's n_rows values, columns[j][0, n_rows) (j < n_columns).
void column_moments(const double* const* columns, std::size_t n_columns, std::size_t n_rows, Moments* out);

// The first rows of a column to pass through the brackets' filter (keep_inside_brackets,
// bracket_filter.hpp) while column_moments_filtering reads the column for its moments.
struct ColumnPrefixFilter {
  const double* lo = nullptr;  // (kColumnBrackets) the brackets' edges
  const double* hi = nullptr;  // (kColumnBrackets)
  std::size_t rows = 0;        // rows [0, rows) filtered (at most the column's); 0: none
  double* kept = nullptr;      // their kept values, in order: room for rows + kBracketFilterSlack
  std::size_t n_kept = 0;      // set: how many
  std::uint64_t below[kColumnBrackets] = {};  // added to: the others below each lo_j
  std::uint64_t finite = 0;                   // added to: the finite values of those rows
};

// column_moments of one column, and keep_inside_brackets of its first filter.rows rows into
// filter: the same results, bit for bit, as the two apart. On AVX-512 (width widest) and AVX2
// (width widest on a machine without AVX-512, or avx2) one read of the column serves both: the
// column comes from memory (the CPU backend writes a batch's quantities with non-temporal stores),
// and the moments' first pass waits on it while the filter computes. Elsewhere (vectors_of_four)
// the two run one after the other.
Moments column_moments_filtering(const double* column, std::size_t n_rows, ColumnPrefixFilter& filter,
                                 BracketFilterWidth width = BracketFilterWidth::widest);

}  // namespace rbmc

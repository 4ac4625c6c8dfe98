// The moments of a batch's columns of values (one column per output time and quantity), as the
// run's statistics merge them: value after value in sample order, merge(m, Moments::of(x))
// (rbmc/stats/moments.hpp), bit for bit, at a fraction of its cost.
#pragma once

#include <cstddef>
#include <vector>

#include "rbmc/stats/moments.hpp"

namespace rbmc {

// The factors that merging one value into the moments of c values divides by, for every c below
// a column's length: 1 / (c + 1) and c / (c + 1). They depend on the count alone, so one table
// serves every column.
struct MomentFactors {
  explicit MomentFactors(std::size_t n_rows);
  std::vector<double> one_over_next, count_over_next;  // (n_rows)
};

// out[j] = the moments of column j's n_rows values, columns[j][0, n_rows) (j < n_columns).
// Several columns are merged together: merging a value waits on the mean before it, so one
// column alone is bound by that latency.
void column_moments(const double* const* columns, std::size_t n_columns, std::size_t n_rows,
                    const MomentFactors& factors, Moments* out);

}  // namespace rbmc

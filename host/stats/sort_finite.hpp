// Sorting finite doubles, the quantile sketch's main cost: its lowest level sorts every value of
// a run's statistics once (quantile_sketch.hpp).
#pragma once

#include <cstddef>

namespace rbmc {

// Sorts values[0, n), all finite, ascending: with Highway's vqsort where the build found it
// (libhwy-dev; sort_finite_uses_vqsort()), otherwise bucket_sort_finite. Both give the same
// order bit for bit: the values', -0 before +0.
void sort_finite(double* values, std::size_t n);
bool sort_finite_uses_vqsort();

// The portable sort, always built (and tested): one counting pass over buckets of equal width
// in the values' ordered keys, insertion sort within small buckets.
void bucket_sort_finite(double* values, std::size_t n);

}  // namespace rbmc

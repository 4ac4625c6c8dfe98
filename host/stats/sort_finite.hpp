// Sorting finite doubles, the quantile sketch's main cost: its lowest level sorts every value of
// a run's statistics once (quantile_sketch.hpp).
#pragma once

#include <cstddef>
#include <vector>

// A loop worth compiling for wider vectors than the build's baseline (x86-64: SSE2): GCC and
// Clang compile the function once per target and pick one for the processor when the program
// loads. Elsewhere, the build's own target.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define RBMC_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RBMC_VECTOR_CLONES
#endif

namespace rbmc {

// Sorts values[0, n), all finite, ascending: with Highway's vqsort where the build found it
// (libhwy-dev; sort_finite_uses_vqsort()), otherwise bucket_sort_finite. Both give the same
// order bit for bit: the values', -0 before +0.
void sort_finite(double* values, std::size_t n);
bool sort_finite_uses_vqsort();

// The portable sort, always built (and tested): one counting pass over buckets of equal width
// in the values' ordered keys, insertion sort within small buckets.
void bucket_sort_finite(double* values, std::size_t n);

// Appends the finite ones of in[0, n) to out, in order, and returns how many: the values a
// sketch takes (non-finite ones are counted apart).
std::size_t append_finite(const double* in, std::size_t n, std::vector<double>& out);

}  // namespace rbmc

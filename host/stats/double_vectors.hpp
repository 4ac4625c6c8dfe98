// Four doubles as one vector in GCC's vector extension, as the statistics' passes over a column
// use them (column_moments.cpp, bracketed_sketch.cpp). Four, not eight: on AVX2 (32-byte
// registers) GCC 12 lowered a vector of 8's comparisons and blends lane by lane, with a scalar
// comparison, branch and move each (bench/RESULTS.md, 2026-11-27, nineteenth session). Every
// target lowers a vector of 4 with the same operations per lane, so the results are the same bits
// on every instruction set.
#pragma once

#include <cstddef>
#include <cstring>
#include <limits>

namespace rbmc {

constexpr std::size_t kDoubleVectorLanes = 4;
using DoubleVector = double __attribute__((vector_size(kDoubleVectorLanes * sizeof(double))));
using DoubleVectorMask = decltype(DoubleVector{} < DoubleVector{});  // all bits or none per lane

// Rows i, ..., i + 3 of a column of n; those past its end NaN, which no sum counts and no bracket
// keeps. Inlined into each vector clone of its callers (RBMC_VECTOR_CLONES); the units that use
// it build with -Wno-psabi (CMakeLists.txt), as GCC otherwise notes that a vector of 32 bytes
// would be returned otherwise from a copy built without AVX.
inline DoubleVector load_rows(const double* x, std::size_t i, std::size_t n) {
  DoubleVector v;
  if (i + kDoubleVectorLanes <= n) {
    std::memcpy(&v, x + i, sizeof v);
  } else {
    for (std::size_t j = 0; j < kDoubleVectorLanes; ++j)
      v[j] = i + j < n ? x[i + j] : std::numeric_limits<double>::quiet_NaN();
  }
  return v;
}

}  // namespace rbmc

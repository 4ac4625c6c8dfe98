// The brackets' filter (bracketed_sketch.hpp): which of a column's values enter the sketch, and how
// many of the others lie below each bracket. Most of the sketched statistics' time past the
// quantities themselves: every value of every column passes it once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rbmc {

// Room a caller leaves in `kept` past n values: the filter stores whole vectors.
inline constexpr std::size_t kBracketFilterSlack = 8;

// How the filter runs: the widest this processor has (AVX-512's eight doubles and mask registers
// where it has them, else AVX2's intrinsics where it has those); AVX2's intrinsics where it has
// them (on an AVX-512 machine too); or GCC's vectors of four doubles on any. The tests compare
// the three.
enum class BracketFilterWidth { widest, avx2, vectors_of_four };
inline constexpr BracketFilterWidth kBracketFilterWidths[] = {BracketFilterWidth::widest, BracketFilterWidth::avx2,
                                                              BracketFilterWidth::vectors_of_four};
inline const char* bracket_filter_width_name(BracketFilterWidth width) {
  switch (width) {
    case BracketFilterWidth::widest: return "widest";
    case BracketFilterWidth::avx2: return "avx2";
    case BracketFilterWidth::vectors_of_four: return "vectors of four";
  }
  return "?";
}

// values[0, n) against the brackets [lo_j, hi_j], j < kColumnBrackets, by the core's rule
// (bracket_masks, rbmc/stats/batch_compaction.hpp): the kept values, in order, into kept (room for
// n + kBracketFilterSlack), returned how many; adds how many of the others lie below each lo_j to
// below[j], and how many of the values are finite to finite. The same results every width.
std::size_t keep_inside_brackets(const double* values, std::size_t n, const double* lo, const double* hi,
                                 std::uint64_t* below, std::uint64_t& finite, double* kept,
                                 BracketFilterWidth width = BracketFilterWidth::widest);

}  // namespace rbmc

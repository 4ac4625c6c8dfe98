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
// where it has them), or GCC's vectors of four doubles on any (the tests compare the two).
enum class BracketFilterWidth { widest, vectors_of_four };

// values[0, n) against the brackets [lo_j, hi_j], j < kColumnBrackets, by the core's rule
// (bracket_masks, rbmc/stats/batch_compaction.hpp): the kept values, in order, into kept (room for
// n + kBracketFilterSlack), returned how many; adds how many of the others lie below each lo_j to
// below[j], and how many of the values are finite to finite. The same results either width.
std::size_t keep_inside_brackets(const double* values, std::size_t n, const double* lo, const double* hi,
                                 std::uint64_t* below, std::uint64_t& finite, double* kept,
                                 BracketFilterWidth width = BracketFilterWidth::widest);

}  // namespace rbmc

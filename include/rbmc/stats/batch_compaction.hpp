// A batch's column of quantity values compacted where it was computed, before it reaches the
// run's quantile sketch (host/stats/quantile_sketch.hpp): the GPU's way of sending the host a few
// thousand values a column instead of every sample's.
//
// The sketch is Karnin, Lang and Liberty's KLL: a compaction sorts a level's values and moves
// every other one, the odd or the even ones by a fair coin, a level up with twice the weight;
// an odd value out stays where it is. A batch's column of m₀ finite values, sorted, takes h such
// compactions in a row at once: level l holds m_l values, keeps one back when m_l is odd (the
// largest), and sends m_{l+1} = ⌊m_l / 2⌋ up. In the sorted column, level l's values are
// base_l + stride_l · j for j < m_l, with base₀ = 0, stride₀ = 1 and
//   base_{l+1} = base_l + coin_l · stride_l,   stride_{l+1} = 2 stride_l,
// so the compacted column is a strided gather: no level is ever built. Each compaction at level l
// moves the estimated rank of any point by 0 or ±2^l with equal probability, as the sketch's own
// do, so the sketch counts them with its own (rank_error_95 stays a true bound).
//
// How many levels: compactions continue while a level holds at least 2 · keep values, so that
// at least `keep` values of each batch's column reach the sketch. The run's statistics ask for
// keep = 2k (k the sketch's), which bounds the rank error these compactions add, over every batch
// of a run of N samples in batches of B ≤ N, by √(2 ln(2/δ) · N B / (12 k²)) / N ≤ 0.78 / k at
// δ = 0.05: 1.5e-4 for the default k, against the sketch's own 1e-3.
//
// Which values are compacted: those a column's brackets keep (host/stats/bracketed_sketch.hpp).
// Past its first values, a run's sketch takes only the values near its quantiles and counts the
// others below each bracket; a backend classifies a batch's column against the brackets as they
// stood after the batches merged so far (ColumnBrackets, tally_value), and compacts only the kept
// ones. A bracket only ever narrows, so a value outside an older bracket lies outside the newer
// one on the same side: the counts stay exact. Before any bracket (−∞, +∞) every finite value is
// kept, and the compaction is of the whole column.
//
// The compacted column, as a backend sends it: the m_h values of level h (ascending), then each
// value kept back, from level 0 up (only the levels where m_l was odd). Its length and layout
// follow from m₀ (the column's kept count) and keep alone.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rbmc/hd.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc {

// What a backend needs to compact a batch's columns: keep (0: send every value, as exact
// quantiles need), the run's seed, and the batch's key (the global index of its first sample, so
// that no two batches of a run, on any MPI rank, draw the same coins).
struct BatchCompactionRequest {
  std::uint64_t keep = 0;
  std::uint64_t seed = 0;
  std::uint64_t batch_key = 0;
};

// A column's brackets, as its sketch holds them: lo_j and hi_j for each of the run's quantile
// probabilities. A value is kept when it is finite and inside some [lo_j, hi_j]. (−∞, +∞): every
// finite value; (+∞, −∞): none (a column whose statistics the run does not keep).
inline constexpr int kColumnBrackets = 5;
struct ColumnBrackets {
  double lo[kColumnBrackets];
  double hi[kColumnBrackets];
};

// What the classification of a batch's column gives besides its kept values: how many were kept
// (m₀ of the compaction), and of the other finite values, how many lie below each lo_j.
struct ColumnTally {
  std::uint64_t kept;
  std::uint64_t below[kColumnBrackets];
};

// The bracket rule, written once for one value (V = double: the device's kernel, the tests'
// reference) and for several at once (V a vector of doubles in GCC's vector extension: the CPU's
// filter, host/stats/bracketed_sketch.cpp). A value is kept when it is finite and inside some
// closed bracket [lo_j, hi_j]; every other finite value is counted below each lo_j it is under;
// non-finite values are neither (the moments count them). The masks are what V's comparisons
// give, combined with & | ^: 0 or 1 for one value, all bits or none per lane for a vector.
// Branch-free, so that a vector's rule is one instruction per operation: for a finite x,
// "outside every bracket" (x < lo_j or x > hi_j, for each j) is the complement of "inside
// some", so the kept values are the finite ones less the counted ones, an exclusive or.
template <class Mask>
struct BracketMasks {
  Mask finite, kept, below[kColumnBrackets];  // below[j]: counted, and under lo_j
};
template <class V>
RBMC_HD inline auto bracket_masks(V x, const V* lo, const V* hi) {
  using Mask = decltype((x < x) | (x < x));
  BracketMasks<Mask> m;
  const V d = x - x;  // 0 for a finite value, NaN for ±∞ and NaN
  m.finite = d == d;
  Mask outside = (x < lo[0]) | (x > hi[0]);
  for (int j = 1; j < kColumnBrackets; ++j) outside = outside & ((x < lo[j]) | (x > hi[j]));
  const Mask counted = m.finite & outside;
  m.kept = m.finite ^ counted;
  for (int j = 0; j < kColumnBrackets; ++j) m.below[j] = counted & (x < lo[j]);
  return m;
}

// Classifies x against b into t (bracket_masks): true when x is kept.
RBMC_HD inline bool tally_value(double x, const ColumnBrackets& b, ColumnTally& t) {
  const BracketMasks<int> m = bracket_masks(x, b.lo, b.hi);
  t.kept += std::uint64_t(m.kept);
  for (int j = 0; j < kColumnBrackets; ++j) t.below[j] += std::uint64_t(m.below[j]);
  return m.kept != 0;
}

// The seed of column c's sketch and coins: every (time, quantity) column draws from its own streams.
RBMC_HD inline std::uint64_t statistics_column_seed(std::uint64_t run_seed, std::size_t column) {
  return run_seed * std::uint64_t(0x9E3779B97F4A7C15) + column;
}

// The compactions a column of m₀ finite values takes (h): while a level holds 2 · keep or more.
RBMC_HD inline int batch_compaction_levels(std::uint64_t m0, std::uint64_t keep) {
  if (keep == 0) return 0;
  int h = 0;
  for (std::uint64_t m = m0; m >= 2 * keep; m /= 2) ++h;
  return h;
}

// The length of the compacted column: m_h values, and one value kept back for each odd m_l, l < h.
RBMC_HD inline std::uint64_t compacted_count(std::uint64_t m0, int levels) {
  std::uint64_t m = m0, kept_back = 0;
  for (int l = 0; l < levels; ++l, m /= 2) kept_back += m % 2;
  return m + kept_back;
}

// The most values a compacted column of at most n values holds: fewer than 2 · keep at the top,
// and at most one kept back per level (64 levels is beyond any count).
RBMC_HD inline std::uint64_t compacted_capacity(std::uint64_t n, std::uint64_t keep) {
  return keep == 0 || n < 2 * keep ? n : 2 * keep - 1 + 64;
}

// The coins of one column's h compactions in one batch: bit l is level l's (1: the odd values
// move up). The same draw as the sketch's coins (uniform ≤ ½ keeps the even ones), from a stream
// of their own keyed by the column's seed and the batch.
RBMC_HD inline std::uint64_t batch_compaction_coins(std::uint64_t column_seed, std::uint64_t batch_key, int levels) {
  const PhiloxStream coins(column_seed, batch_key, stream_id("statistics.batch_compaction"));
  std::uint64_t bits = 0;
  for (int l = 0; l < levels; ++l)
    if (!(coins.uniform(std::uint32_t(l)) <= 0.5)) bits |= std::uint64_t(1) << l;
  return bits;
}

// Where, in the column's sorted finite values, the compacted column's element j lies (j <
// compacted_count(m0, levels)).
RBMC_HD inline std::uint64_t compacted_position(std::uint64_t m0, int levels, std::uint64_t coins, std::uint64_t j) {
  std::uint64_t m = m0, base = 0, stride = 1;
  for (int l = 0; l < levels; ++l, m /= 2) {
    base += ((coins >> l) & 1) * stride;
    stride *= 2;
  }
  if (j < m) return base + stride * j;  // level h
  // A value kept back: the (j − m_h)-th level with an odd count, from level 0 up; its largest.
  std::uint64_t skip = j - m;
  m = m0, base = 0, stride = 1;
  for (int l = 0; l < levels; ++l, m /= 2) {
    if (m % 2 == 1) {
      if (skip == 0) return base + stride * (m - 1);
      --skip;
    }
    base += ((coins >> l) & 1) * stride;
    stride *= 2;
  }
  return base;  // not reached for j in range
}

// The level of the compacted column's element j: h for the first m_h, else the level it was kept
// back at.
RBMC_HD inline int compacted_level(std::uint64_t m0, int levels, std::uint64_t j) {
  std::uint64_t m = m0;
  for (int l = 0; l < levels; ++l) m /= 2;
  if (j < m) return levels;
  std::uint64_t skip = j - m;
  m = m0;
  for (int l = 0; l < levels; ++l, m /= 2)
    if (m % 2 == 1 && skip-- == 0) return l;
  return levels;
}

}  // namespace rbmc

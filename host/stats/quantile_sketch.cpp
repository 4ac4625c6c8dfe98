#include "host/stats/quantile_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "host/stats/sort_finite.hpp"
#include "rbmc/stats/batch_compaction.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc {

namespace {
constexpr double kCapacityDecay = 2.0 / 3.0;  // KLL's c
constexpr std::size_t kMinCapacity = 64;
// The lowest level compacts at no fewer values than this (or k): by the formula alone it would
// compact every 64 values at large counts, and each compaction merges its half into the whole
// level above. Sorting and merging 2,048 values at a time costs a few moves a value instead of
// tens; the bound stays what the compactions that happen make it (fewer at level 0).
constexpr std::size_t kLowestCapacity = 2048;
std::size_t lowest_capacity(int k) { return std::min(std::size_t(k), kLowestCapacity); }

}  // namespace

QuantileSketch::QuantileSketch(int k, std::uint64_t seed) : k_(std::max(k, 8)), seed_(seed) { add_level(); }

std::size_t QuantileSketch::capacity(int level) const { return capacities_[std::size_t(level)]; }

void QuantileSketch::add_level() {
  levels_.emplace_back();
  compactions_.push_back(0);
  // Every level's capacity: k at the top, (2/3) less a level down, at least kMinCapacity; the
  // lowest at least lowest_capacity(k).
  capacities_.resize(levels_.size());
  for (std::size_t h = 0; h < levels_.size(); ++h) {
    const double depth = double(levels_.size() - 1 - h);
    capacities_[h] = std::max<std::size_t>(kMinCapacity, std::size_t(std::ceil(double(k_) * std::pow(kCapacityDecay, depth))));
  }
  capacities_[0] = std::max(capacities_[0], lowest_capacity(k_));
  // The most the new level will hold: its capacity, which only falls as levels are added, and the
  // kept half of a compaction below it (level 0 receives single values). Reserved once, so that
  // the level does not grow by copies into fresh pages, which took about a fifth of the run's page
  // faults (bench/RESULTS.md, 2026-11-25, ninth session); pages not reached are never touched.
  const std::size_t top = levels_.size() - 1;
  levels_.back().reserve(capacities_[top] + (top > 0 ? capacities_[top - 1] / 2 + 1 : 0));
}

std::size_t QuantileSketch::max_retained(int k, std::uint64_t count) {
  // Σ_h k (2/3)^h ≤ 3k, plus the lowest level's floor, plus, on each level that count values can fill, the minimum capacity and a
  // value left over. Level h holds values of weight 2^h: no more than log2(count / kMinCapacity) + 2.
  const double levels = std::min(double(kMaxLevels), std::log2(double(std::max<std::uint64_t>(count, 1)) / kMinCapacity) + 2);
  return 3 * std::size_t(k) + lowest_capacity(k) + (kMinCapacity + 1) * std::size_t(std::max(1.0, std::ceil(levels)));
}

int QuantileSketch::largest_k(double values, std::uint64_t count) {
  // max_retained grows with k: the largest k within the budget, by bisection over [8, default].
  int lo = 8, hi = kDefaultK;
  if (double(max_retained(hi, count)) <= values) return hi;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (double(max_retained(mid, count)) <= values ? lo : hi) = mid;
  }
  return lo;
}

std::size_t QuantileSketch::retained() const {
  std::size_t n = 0;
  for (const std::vector<double>& level : levels_) n += level.size();
  return n;
}

void QuantileSketch::add(double value) {
  levels_[0].push_back(value);
  lowest_in_order_ = false;
  ++count_;
  if (levels_[0].size() >= capacity(0)) compress();
}

void QuantileSketch::add(const double* values, std::size_t n) {
  // Fill the lowest level to its capacity, then compress, as value-by-value adding would. (Its
  // capacity changes when a level is added, and compress() may move the level: look both up again.)
  // A block of values examined at a time is at most the room left: the level fills exactly at the
  // value that fills it one by one, and the block is short of it only by non-finite values.
  for (std::size_t i = 0; i < n;) {
    std::vector<double>& lowest = levels_[0];
    const std::size_t full = capacity(0), before = lowest.size();
    const std::size_t examined = std::min(n - i, full - before);
    const std::size_t kept = append_finite(values + i, examined, lowest);
    lowest_in_order_ = lowest_in_order_ && kept == 0;
    i += examined;
    count_ += kept;
    if (lowest.size() >= full) compress();
  }
}

void QuantileSketch::compact(int level) {
  if (level + 1 == int(levels_.size())) {
    if (int(levels_.size()) == kMaxLevels) throw std::runtime_error("quantile sketch: more levels than kMaxLevels");
    add_level();
  }
  // Levels above the lowest are kept sorted (each receives sorted halves, merged in), so only the
  // lowest, where values arrive, is sorted here: the same order, without sorting again.
  if (level == 0) sort_lowest();
  std::vector<double>& from = levels_[std::size_t(level)];
  // An odd value out stays (the largest, unweighted by the coin): no rank moves for it.
  const bool odd = from.size() % 2 == 1;
  const double left_over = odd ? from.back() : 0.0;
  if (odd) from.pop_back();
  // Coin n of level h: draw n mod 2^32 of stream (seed, (n / 2^32) · kMaxLevels + h).
  const std::uint64_t n = compactions_[std::size_t(level)];
  const PhiloxStream coins(seed_, (n >> 32) * kMaxLevels + std::uint64_t(level), stream_id("statistics.quantile_sketch"));
  const std::size_t offset = coins.uniform(std::uint32_t(n)) <= 0.5 ? 0 : 1;
  std::vector<double>& to = levels_[std::size_t(level) + 1];
  // The kept half merged into the sorted level above, in place from the back (the level grows by
  // the half, and no value is overwritten before it is read). Stable as std::inplace_merge: among
  // equal values the level's own come first, so from the back the kept half's go first.
  // Branch-free: on random data a branch per value is mispredicted half the time. The choice is
  // made by masks on the values' bits, since GCC 12 compiled it written as conditional expressions
  // to a branch after all (where perf put most of the compaction's samples; without the branch the
  // merge measured no faster, its chain of dependent loads bounding it: bench/RESULTS.md,
  // 2026-11-25, ninth session).
  const std::size_t kept = (from.size() - offset + 1) / 2;
  std::size_t a = to.size(), b = kept;  // unmerged: to[0, a) and the kept half's first b
  to.resize(a + kept);
  double* const out = to.data();
  const double* const half = from.data() + offset;  // the kept half: half[2j]
  while (a > 0 && b > 0) {
    const double x = half[2 * (b - 1)], y = out[a - 1];
    const std::uint64_t take_half = std::uint64_t(!(x < y));  // 1: the half's value goes first
    const std::uint64_t mask = 0 - take_half;
    std::uint64_t x_bits, y_bits;
    std::memcpy(&x_bits, &x, sizeof x_bits);
    std::memcpy(&y_bits, &y, sizeof y_bits);
    const std::uint64_t chosen = (x_bits & mask) | (y_bits & ~mask);
    std::memcpy(&out[a + b - 1], &chosen, sizeof chosen);
    b -= take_half;
    a -= 1 - take_half;
  }
  for (; b > 0; --b) out[b - 1] = half[2 * (b - 1)];  // what is left of to[0, a) is in place
  from.clear();
  if (odd) from.push_back(left_over);
  if (level == 0) lowest_in_order_ = true;  // one value at most
  ++compactions_[std::size_t(level)];
}

void QuantileSketch::keep_in_lowest(const double* kept, std::size_t n) {
  std::vector<double>& lowest = levels_[0];
  if (n > lowest.size()) throw std::logic_error("QuantileSketch::keep_in_lowest: more values kept than the level holds");
  count_ -= lowest.size() - n;
  lowest.assign(kept, kept + n);  // in order if the level was
}

void QuantileSketch::sort_lowest() {
  if (lowest_in_order_) return;
  sort_finite(levels_[0].data(), levels_[0].size());
  lowest_in_order_ = true;
}

void QuantileSketch::compress() {
  // Lazy KLL: compact the lowest level over its capacity until every level is within its own.
  for (int level = 0; level < int(levels_.size()); ++level)
    if (levels_[std::size_t(level)].size() >= capacity(level)) compact(level);
}

void QuantileSketch::merge(const QuantileSketch& other) { merge_levels(other.levels_, other.compactions_, other.count_); }

void QuantileSketch::merge_compacted(const double* values, std::uint64_t m0, int levels) {
  // The compacted column's layout (rbmc/stats/batch_compaction.hpp): level h's values, then each
  // kept back value from level 0 up.
  std::vector<std::vector<double>> added(std::size_t(levels) + 1);
  const std::uint64_t n = compacted_count(m0, levels);
  for (std::uint64_t j = 0; j < n; ++j) added[std::size_t(compacted_level(m0, levels, j))].push_back(values[j]);
  merge_levels(added, std::vector<std::uint64_t>(std::size_t(levels), 1), m0);
}

void QuantileSketch::merge_levels(const std::vector<std::vector<double>>& levels,
                                  const std::vector<std::uint64_t>& compactions, std::uint64_t count) {
  while (levels_.size() < levels.size()) add_level();
  for (std::size_t h = 0; h < levels.size(); ++h) {
    std::vector<double>& mine = levels_[h];
    const std::size_t before = mine.size();
    mine.insert(mine.end(), levels[h].begin(), levels[h].end());
    if (h == 0 && !levels[h].empty()) lowest_in_order_ = false;
    if (h > 0) std::inplace_merge(mine.begin(), mine.begin() + std::ptrdiff_t(before), mine.end());  // sorted above 0
  }
  for (std::size_t h = 0; h < compactions.size(); ++h) compactions_[h] += compactions[h];
  count_ += count;
  // Compacting a level can overfill the next and adds levels, which lowers every capacity: repeat.
  for (bool over = true; over;) {
    compress();
    over = false;
    for (int level = 0; level < int(levels_.size()); ++level) over = over || levels_[std::size_t(level)].size() >= capacity(level);
  }
}

std::vector<std::pair<double, double>> QuantileSketch::weighted_values() const {
  // The levels above the lowest are sorted, so the lowest is sorted and the levels merged in one
  // by one.
  const auto by_value = [](const std::pair<double, double>& a, const std::pair<double, double>& b) {
    return a.first < b.first;
  };
  std::vector<std::pair<double, double>> weighted, level, merged;  // (value, weight)
  weighted.reserve(retained());
  std::vector<double> lowest = levels_[0];
  if (!lowest_in_order_) sort_finite(lowest.data(), lowest.size());
  for (double v : lowest) weighted.emplace_back(v, 1.0);
  for (std::size_t h = 1; h < levels_.size(); ++h) {
    level.clear();
    const double weight = std::ldexp(1.0, int(h));
    for (double v : levels_[h]) level.emplace_back(v, weight);
    merged.resize(weighted.size() + level.size());
    std::merge(weighted.begin(), weighted.end(), level.begin(), level.end(), merged.begin(), by_value);
    weighted.swap(merged);
  }
  return weighted;
}

namespace {

// The sorted values of one level and the weight of each.
struct SortedLevel {
  const double* values;
  std::size_t size;
  double weight;
};

// How many of a[0, n) (ascending) are at or below x: a binary search without branches, whose
// loads the processor can run ahead of the comparisons (Khuong and Morin's layout-free form).
std::size_t count_at_or_below(const double* a, std::size_t n, double x) {
  if (n == 0) return 0;
  const double* base = a;
  while (n > 1) {
    const std::size_t half = n / 2;
    base = base[half] <= x ? base + half : base;
    n -= half;
  }
  return std::size_t(base - a) + (*base <= x ? 1 : 0);
}

// W(≤ x): the summed weight of the retained values at or below x. The levels' searches are
// independent, so they overlap.
double weight_at_or_below(const SortedLevel* levels, std::size_t n_levels, double x) {
  double w = 0;
  for (std::size_t h = 0; h < n_levels; ++h) w += levels[h].weight * double(count_at_or_below(levels[h].values, levels[h].size, x));
  return w;
}

// The least index i in [first, last) of `level` with W(≤ level[i]) > t, or last: W(≤ ·) grows
// along a sorted level.
std::size_t first_exceeding(const SortedLevel& level, std::size_t first, std::size_t last, const SortedLevel* levels,
                            std::size_t n_levels, double t) {
  while (first < last) {
    const std::size_t mid = first + (last - first) / 2;
    if (weight_at_or_below(levels, n_levels, level.values[mid]) > t) last = mid;
    else first = mid + 1;
  }
  return first;
}

// The sketch's levels as sorted runs, into levels[0, levels_in.size()): level 0 as it is where
// it is in order (QuantileSketch::sort_lowest), else sorted into a buffer of the thread's own,
// the others as they are. Each level is read once in order first, so that the searches'
// scattered loads find it in the core's cache: a run's sketches are far more than the caches
// hold, and each search's chain of loads from memory took several times the reading
// (bench/RESULTS.md, 2026-11-27, twentieth session).
void sorted_levels(const std::vector<std::vector<double>>& levels_in, bool in_order, SortedLevel* levels) {
  thread_local std::vector<double> lowest;
  if (!in_order) {
    lowest.assign(levels_in[0].begin(), levels_in[0].end());
    sort_finite(lowest.data(), lowest.size());
  }
  double touched = 0;
  for (std::size_t h = 0; h < levels_in.size(); ++h) {
    const std::vector<double>& level = h == 0 && !in_order ? lowest : levels_in[h];
    levels[h] = {level.data(), level.size(), std::ldexp(1.0, int(h))};
    for (std::size_t i = 0; h > 0 && i < level.size(); i += 8) touched += level[i];  // a line at a time
  }
  volatile double sink = touched;  // the reads are kept
  (void)sink;
}

}  // namespace

void QuantileSketch::values_at_ranks(const double* t, std::size_t m, double* out) const {
  // Counted, not merged: W(≤ x) is a binary search in each sorted level, and W(≤ ·) grows with
  // x, so the value at rank t is found by bisection. First among the largest level's values, which
  // leaves it between two neighbours lo < x ≤ hi there; then, in each other level, among its
  // values in (lo, hi], a few. A handful of ranks costs a few hundred searches. Merging the
  // levels, as weighted_values does, took most of a bracket update's time.
  SortedLevel levels[kMaxLevels];
  sorted_levels(levels_, lowest_in_order_, levels);
  const std::size_t n_levels = levels_.size();
  std::size_t largest = 0;
  for (std::size_t h = 1; h < n_levels; ++h)
    if (levels[h].size > levels[largest].size) largest = h;
  const SortedLevel& widest = levels[largest];
  for (std::size_t j = 0; j < m; ++j) {
    if (t[j] < 0) {
      out[j] = -INFINITY;
      continue;
    }
    const std::size_t i = first_exceeding(widest, 0, widest.size, levels, n_levels, t[j]);
    const double lo = i > 0 ? widest.values[i - 1] : -INFINITY;
    double x = i < widest.size ? widest.values[i] : INFINITY;  // +∞: t is at or past the count
    for (std::size_t h = 0; h < n_levels; ++h) {
      if (h == largest) continue;
      const SortedLevel& level = levels[h];
      // This level's values in (lo, x]: the least of them past t, if any, is the answer's rival.
      const std::size_t first = lo == -INFINITY ? 0 : count_at_or_below(level.values, level.size, lo);
      const std::size_t last = x == INFINITY ? level.size : count_at_or_below(level.values, level.size, x);
      const std::size_t k = first_exceeding(level, first, last, levels, n_levels, t[j]);
      if (k < last) x = std::min(x, level.values[k]);
    }
    out[j] = x;
  }
}

void QuantileSketch::weights_at_or_below(const double* x, std::size_t m, double* out) const {
  SortedLevel levels[kMaxLevels];
  sorted_levels(levels_, lowest_in_order_, levels);
  for (std::size_t j = 0; j < m; ++j) out[j] = weight_at_or_below(levels, levels_.size(), x[j]);
}

std::vector<double> QuantileSketch::quantiles(const std::vector<double>& p) const {
  std::vector<double> q(p.size(), NAN);
  if (count_ == 0) return q;
  std::vector<double> rank(p.size());
  for (std::size_t j = 0; j < p.size(); ++j) rank[j] = p[j] * double(count_ - 1);
  values_at_ranks(rank.data(), rank.size(), q.data());
  return q;
}

double QuantileSketch::quantile(double p) const { return quantiles({p})[0]; }

double QuantileSketch::rank_error_95() const {
  if (count_ == 0) return 0.0;
  double sum = 0;  // Σ over compactions of (2^h)²
  for (std::size_t h = 0; h < compactions_.size(); ++h) sum += double(compactions_[h]) * std::ldexp(1.0, 2 * int(h));
  return std::sqrt(2 * std::log(2 / 0.05) * sum) / double(count_);
}

QuantileSketch::State QuantileSketch::save() const {
  State s;
  s.level_sizes.assign(kMaxLevels, 0);
  s.compactions.assign(kMaxLevels, 0);
  for (std::size_t h = 0; h < levels_.size(); ++h) {
    s.values.insert(s.values.end(), levels_[h].begin(), levels_[h].end());
    s.level_sizes[h] = levels_[h].size();
    s.compactions[h] = compactions_[h];
  }
  return s;
}

void QuantileSketch::restore(const State& s) {
  if (s.level_sizes.size() != std::size_t(kMaxLevels) || s.compactions.size() != std::size_t(kMaxLevels))
    throw std::runtime_error("the saved quantile sketch has the wrong number of levels");
  std::size_t top = 0;
  for (std::size_t h = 0; h < std::size_t(kMaxLevels); ++h)
    if (s.level_sizes[h] > 0 || s.compactions[h] > 0) top = h;
  levels_.clear();
  compactions_.clear();
  lowest_in_order_ = false;
  while (levels_.size() < top + 1) add_level();
  compactions_.assign(s.compactions.begin(), s.compactions.begin() + std::ptrdiff_t(top + 1));
  std::size_t at = 0;
  count_ = 0;
  for (std::size_t h = 0; h <= top; ++h) {
    if (at + s.level_sizes[h] > s.values.size()) throw std::runtime_error("the saved quantile sketch is truncated");
    levels_[h].assign(s.values.begin() + std::ptrdiff_t(at), s.values.begin() + std::ptrdiff_t(at + s.level_sizes[h]));
    at += s.level_sizes[h];
    count_ += std::uint64_t(s.level_sizes[h]) << h;  // compaction keeps the total weight
  }
  if (at != s.values.size()) throw std::runtime_error("the saved quantile sketch has values left over");
}

}  // namespace rbmc

#include "host/stats/bracketed_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "host/stats/sort_finite.hpp"  // RBMC_VECTOR_CLONES

namespace rbmc {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Values classified at a time: the block and its flags stay in the core's cache.
constexpr std::size_t kFilterBlock = 4096;

// One pass over a block, in vectors: keep[i] = 1 for the finite values inside some bracket (to be
// sketched), how many of the others lie below each lo_j (counted), and how many are finite. (Comparisons with NaN are
// false; ±∞ lie outside every finite bracket, and −∞ is kept out of below_j by the finite mask.)
RBMC_VECTOR_CLONES void classify(const double* values, std::size_t n, const double* lo, const double* hi,
                                 std::uint64_t* below, std::uint64_t& finite, unsigned char* keep) {
  const double l0 = lo[0], l1 = lo[1], l2 = lo[2], l3 = lo[3], l4 = lo[4];
  const double h0 = hi[0], h1 = hi[1], h2 = hi[2], h3 = hi[3], h4 = hi[4];
  std::uint64_t b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, f = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = values[i];
    const bool is_finite = x - x == 0;
    const bool kept = is_finite & (((x >= l0) & (x <= h0)) | ((x >= l1) & (x <= h1)) | ((x >= l2) & (x <= h2)) |
                                   ((x >= l3) & (x <= h3)) | ((x >= l4) & (x <= h4)));
    const bool counted = is_finite & !kept;
    b0 += counted & (x < l0);
    b1 += counted & (x < l1);
    b2 += counted & (x < l2);
    b3 += counted & (x < l3);
    b4 += counted & (x < l4);
    f += is_finite;
    keep[i] = kept;
  }
  below[0] += b0;
  below[1] += b1;
  below[2] += b2;
  below[3] += b3;
  below[4] += b4;
  finite += f;
}

}  // namespace

BracketedSketch::BracketedSketch(const Probabilities& p, bool bracketed, int k, std::uint64_t seed)
    : p_(p), bracketed_(bracketed), sketch_(k, seed) {
  lo_.fill(-kInfinity);
  hi_.fill(kInfinity);
}

std::uint64_t BracketedSketch::next_update() const {
  std::uint64_t next = kFirstBrackets;
  while (next <= offered_) next *= 4;
  return next;
}

void BracketedSketch::note_filters() {
  filters_ = false;
  for (std::size_t j = 0; j < kProbabilities; ++j) filters_ = filters_ || lo_[j] > -kInfinity || hi_[j] < kInfinity;
}

void BracketedSketch::add(const double* values, std::size_t n) {
  // The brackets change exactly when the values offered reach next_update(), however the values
  // are split into calls.
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t next = bracketed_ ? next_update() : ~std::uint64_t(0);
    const std::size_t end = std::size_t(std::min<std::uint64_t>(n, i + (next - offered_)));
    if (filters_) {
      filter(values + i, end - i);
    } else {
      const std::uint64_t before = sketch_.count();
      sketch_.add(values + i, end - i);
      count_ += sketch_.count() - before;
    }
    offered_ += end - i;
    i = end;
    if (offered_ == next) update_brackets();
  }
}

void BracketedSketch::filter(const double* values, std::size_t n) {
  // On the stack (36 KB), not in the sketch: a run holds a sketch for each of thousands of columns.
  unsigned char keep[kFilterBlock];
  double kept_values[kFilterBlock];
  for (std::size_t from = 0; from < n; from += kFilterBlock) {
    const std::size_t m = std::min(kFilterBlock, n - from);
    classify(values + from, m, lo_.data(), hi_.data(), below_.data(), count_, keep);
    // The kept values, in order, stored unconditionally and counted by their flag (no branch),
    // eight flags at a time: past the first brackets most values are counted, so most eights keep
    // none and are passed over whole.
    std::size_t kept = 0, i = 0;
    for (; i + 8 <= m; i += 8) {
      std::uint64_t flags;
      std::memcpy(&flags, keep + i, sizeof flags);
      if (flags == 0) continue;
      for (std::size_t j = i; j < i + 8; ++j) {
        kept_values[kept] = values[from + j];
        kept += keep[j];
      }
    }
    for (; i < m; ++i) {
      kept_values[kept] = values[from + i];
      kept += keep[i];
    }
    sketch_.add(kept_values, kept);
  }
}

double BracketedSketch::sketch_error() const { return sketch_.rank_error_95() * double(sketch_.count()); }

void BracketedSketch::update_brackets() {
  if (count_ < 2) return;
  const double n = double(count_), error = sketch_error() / n;
  // The values at p_j ∓ margin_j, read through bracket j (valid only inside it), narrow it: lo_j
  // from rank t[j], hi_j from rank t[kProbabilities + j], where `narrows` says so.
  std::array<double, 2 * kProbabilities> t{}, x;
  std::array<bool, 2 * kProbabilities> narrows{};
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    if (lo_[j] > hi_[j]) continue;  // lost in a merge
    const double p = p_[j], margin = kMarginSigmas * std::sqrt(p * (1 - p) / n) + 2 * error;
    if ((narrows[j] = p - margin > 0)) t[j] = (p - margin) * (n - 1) - double(below_[j]);
    if ((narrows[kProbabilities + j] = p + margin < 1)) t[kProbabilities + j] = (p + margin) * (n - 1) - double(below_[j]);
  }
  sketch_.values_at_ranks(t.data(), t.size(), x.data());
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    const double low = x[j], high = x[kProbabilities + j];
    if (narrows[j] && low >= lo_[j] && low <= hi_[j]) lo_[j] = low;
    if (narrows[kProbabilities + j] && high >= lo_[j] && high <= hi_[j]) hi_[j] = high;
  }
  note_filters();
}

void BracketedSketch::merge_compacted(const double* values, int levels, const ColumnTally& tally, std::uint64_t finite,
                                      std::uint64_t offered) {
  if (tally.kept > finite) throw std::logic_error("BracketedSketch::merge_compacted: more values kept than finite");
  sketch_.merge_compacted(values, tally.kept, levels);
  count_ += finite;
  for (std::size_t j = 0; j < kProbabilities; ++j) below_[j] += tally.below[j];
  const std::uint64_t next = bracketed_ ? next_update() : ~std::uint64_t(0);
  offered_ += offered;
  if (offered_ >= next) update_brackets();
}

ColumnBrackets BracketedSketch::brackets() const {
  ColumnBrackets b;
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    b.lo[j] = lo_[j];
    b.hi[j] = hi_[j];
  }
  return b;
}

void BracketedSketch::merge(const BracketedSketch& other) {
  sketch_.merge(other.sketch_);
  count_ += other.count_;
  offered_ += other.offered_;
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    below_[j] += other.below_[j];
    lo_[j] = std::max(lo_[j], other.lo_[j]);
    hi_[j] = std::min(hi_[j], other.hi_[j]);
  }
  note_filters();
}

BracketedSketch::Probabilities BracketedSketch::quantiles() const {
  Probabilities q;
  q.fill(NAN);
  if (count_ == 0) return q;
  // Each probability's rank among the sketched values, and the sketch's least and greatest values
  // (ranks 0 and its count less a half: every retained value weighs at least 1).
  std::array<double, kProbabilities + 2> t, x;
  for (std::size_t j = 0; j < kProbabilities; ++j) t[j] = p_[j] * double(count_ - 1) - double(below_[j]);
  const double sketched = double(sketch_.count());
  t[kProbabilities] = 0;
  t[kProbabilities + 1] = sketched - 0.5;
  sketch_.values_at_ranks(t.data(), t.size(), x.data());
  const double least = x[kProbabilities], greatest = x[kProbabilities + 1];
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    double v = x[j];
    if (lo_[j] <= hi_[j]) v = std::clamp(v, lo_[j], hi_[j]);  // the bracket's edge where it missed
    // Past an infinite edge (a bracket lost in a merge): the sketch's nearest value.
    if (std::isinf(v) && sketched > 0) v = v < 0 ? least : greatest;
    q[j] = std::isinf(v) ? NAN : v;
  }
  return q;
}

double BracketedSketch::rank_error_95() const {
  if (count_ == 0) return 0.0;
  // Where the estimate was clamped to lo_j, its rank falls short of the target t by W(< lo_j) − t
  // (the sketch's weights below lo_j); clamped to hi_j, it passes it by t − W(≤ hi_j) + 1. W(< x)
  // is W(≤ the double before x): the retained values are finite, and an infinite edge weighs 0
  // below (−∞) or the whole count (+∞).
  for (std::size_t j = 0; j < kProbabilities; ++j)
    if (lo_[j] > hi_[j]) return 1.0;
  std::array<double, 2 * kProbabilities> edge, w;
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    edge[j] = std::nextafter(lo_[j], -kInfinity);
    edge[kProbabilities + j] = hi_[j];
  }
  sketch_.weights_at_or_below(edge.data(), edge.size(), w.data());
  double miss = 0;
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    const double t = p_[j] * double(count_ - 1) - double(below_[j]);
    const double under = w[j], upto = w[kProbabilities + j];
    if (under > t) miss = std::max(miss, under - t);
    else if (upto <= t) miss = std::max(miss, t - upto + 1);
  }
  // The sketch's own bound scaled to the whole count (exactly its own when it holds every value).
  const double sketched = double(sketch_.count()) / double(count_);
  return std::min(1.0, sketch_.rank_error_95() * sketched + miss / double(count_));
}

BracketedSketch::State BracketedSketch::save() const {
  State s;
  s.sketch = sketch_.save();
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    s.brackets[j] = lo_[j];
    s.brackets[kProbabilities + j] = hi_[j];
    s.counts[2 + j] = below_[j];
  }
  s.counts[0] = offered_;
  s.counts[1] = count_;
  return s;
}

void BracketedSketch::restore(const State& s) {
  sketch_.restore(s.sketch);
  offered_ = s.counts[0];
  count_ = s.counts[1];
  std::uint64_t counted = 0;  // values below some bracket: never more than were counted
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    lo_[j] = s.brackets[j];
    hi_[j] = s.brackets[kProbabilities + j];
    below_[j] = s.counts[2 + j];
    counted = std::max(counted, below_[j]);
  }
  if (count_ < sketch_.count() || count_ - sketch_.count() < counted)
    throw std::runtime_error("the saved quantile sketch's counts do not add up");
  note_filters();
}

}  // namespace rbmc

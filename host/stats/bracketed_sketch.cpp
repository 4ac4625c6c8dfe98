#include "host/stats/bracketed_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "host/stats/bracket_filter.hpp"

namespace rbmc {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Values filtered at a time: their kept ones gather on the stack before the sketch takes them.
constexpr std::size_t kFilterBlock = 4096;

}  // namespace

BracketedSketch::BracketedSketch(const Probabilities& p, bool bracketed, int k, std::uint64_t seed, HoldBack hold_back)
    : p_(p), bracketed_(bracketed), sketch_(k, seed), holds_back_(hold_back == HoldBack::uniform_runs) {
  uniform_ = holds_back_;
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

namespace {

// How many of values[0, n) from the start equal x: eight at a time while they all do.
std::size_t equal_prefix(const double* values, std::size_t n, double x) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    bool all = true;
    for (std::size_t l = 0; l < 8; ++l) all = all & (values[i + l] == x);
    if (!all) break;
  }
  while (i < n && values[i] == x) ++i;
  return i;
}

}  // namespace

void BracketedSketch::add(const double* values, std::size_t n) {
  if (uniform_ && n > 0) {
    if (offered_ + held_ == 0) {
      const double first = values[0];
      if (first - first != 0) {  // not finite: nothing to hold back
        uniform_ = false;
        offer(values, n);
        return;
      }
      uniform_value_ = first;
    }
    const std::size_t same = equal_prefix(values, n, uniform_value_);
    held_ += same;
    if (same == n) return;
    // Another value: the ones held back first, in their place.
    uniform_ = false;
    release_held();
    values += same;
    n -= same;
  }
  offer(values, n);
}

void BracketedSketch::release_held() {
  if (held_ == 0) return;
  double copies[kFilterBlock];
  std::fill(std::begin(copies), std::end(copies), uniform_value_);
  std::uint64_t left = held_;
  held_ = 0;
  while (left > 0) {
    const std::size_t m = std::size_t(std::min<std::uint64_t>(left, kFilterBlock));
    offer(copies, m);
    left -= m;
  }
}

void BracketedSketch::note_uniform() {
  // Every value offered was finite, sketched (none counted), and the sketch holds one number.
  uniform_ = holds_back_ && offered_ == count_ && count_ == sketch_.count();
  if (!uniform_ || count_ == 0) return;
  const std::vector<std::pair<double, double>> held = sketch_.weighted_values();
  uniform_value_ = held.front().first;
  for (const auto& value : held) uniform_ = uniform_ && value.first == uniform_value_;
}

void BracketedSketch::offer(const double* values, std::size_t n) {
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

std::size_t BracketedSketch::filterable(std::size_t n) const {
  if (uniform_ || !filters_) return 0;  // offer() would not filter them (add() holds them back)
  if (!bracketed_) return n;
  return std::size_t(std::min<std::uint64_t>(n, next_update() - offered_));
}

void BracketedSketch::take_filtered(const double* kept, std::size_t n_kept, const std::uint64_t* below,
                                    std::uint64_t finite, std::size_t offered) {
  if (offered == 0) return;
  if (offered > filterable(offered) || n_kept > finite || finite > offered)
    throw std::logic_error("BracketedSketch::take_filtered: values the filter did not take, or counts that do not fit");
  // One step of offer()'s loop, with filter()'s work done by the caller: the sketch takes the
  // kept values in one call, the same sketch as filter()'s blocks give (QuantileSketch::add).
  const std::uint64_t next = bracketed_ ? next_update() : ~std::uint64_t(0);
  sketch_.add(kept, n_kept);
  count_ += finite;
  for (std::size_t j = 0; j < kProbabilities; ++j) below_[j] += below[j];
  offered_ += offered;
  if (offered_ == next) update_brackets();
}

void BracketedSketch::filter(const double* values, std::size_t n) {
  // On the stack (32 KB), not in the sketch: a run holds a sketch for each of thousands of columns.
  double kept[kFilterBlock + kBracketFilterSlack];
  for (std::size_t from = 0; from < n; from += kFilterBlock) {
    const std::size_t m = std::min(kFilterBlock, n - from);
    sketch_.add(kept, keep_inside_brackets(values + from, m, lo_.data(), hi_.data(), below_.data(), count_, kept));
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
  sketch_.sort_lowest();  // in place: the estimates read it as it is, and the count below keeps it so
  sketch_.values_at_ranks(t.data(), t.size(), x.data());
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    const double low = x[j], high = x[kProbabilities + j];
    if (narrows[j] && low >= lo_[j] && low <= hi_[j]) lo_[j] = low;
    if (narrows[kProbabilities + j] && high >= lo_[j] && high <= hi_[j]) hi_[j] = high;
  }
  note_filters();
  if (filters_) count_out_of_brackets();
}

void BracketedSketch::count_out_of_brackets() {
  // The values the sketch holds alone, each of weight 1 (its lowest level: at the first brackets,
  // every value offered), filtered as a value offered now would be. A value counted now lies
  // outside every later bracket on the same side, as the header's argument asks of every counted
  // one. At the first brackets about four in five of the main job's values lie outside them, and
  // the sketch carried them into its compactions (bench/RESULTS.md, 2026-12-05, fifty-fifth
  // session). Values of more weight stay: each stands for several samples only by its
  // compactions' coins.
  const std::vector<double>& lowest = sketch_.lowest();
  thread_local std::vector<double> kept;
  kept.resize(lowest.size() + kBracketFilterSlack);
  std::uint64_t finite = 0;  // counted in count_ already
  const std::size_t n_kept =
      keep_inside_brackets(lowest.data(), lowest.size(), lo_.data(), hi_.data(), below_.data(), finite, kept.data());
  sketch_.keep_in_lowest(kept.data(), n_kept);
}

void BracketedSketch::merge_compacted(const double* values, int levels, const ColumnTally& tally, std::uint64_t finite,
                                      std::uint64_t offered) {
  if (tally.kept > finite) throw std::logic_error("BracketedSketch::merge_compacted: more values kept than finite");
  // The backend's values are not compared with the ones held back: they enter the sketch.
  release_held();
  uniform_ = false;
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
  if (other.held_ > 0) {  // its values held back after its sketched ones, as its save() gives them
    BracketedSketch released = other;
    released.release_held();
    merge(released);
    return;
  }
  release_held();
  const bool both_uniform = uniform_ && other.uniform_;
  sketch_.merge(other.sketch_);
  count_ += other.count_;
  offered_ += other.offered_;
  for (std::size_t j = 0; j < kProbabilities; ++j) {
    below_[j] += other.below_[j];
    lo_[j] = std::max(lo_[j], other.lo_[j]);
    hi_[j] = std::min(hi_[j], other.hi_[j]);
  }
  note_filters();
  if (both_uniform) note_uniform();  // one number in both, or none in one
  else uniform_ = false;
}

BracketedSketch::Probabilities BracketedSketch::quantiles() const {
  Probabilities q;
  q.fill(NAN);
  if (count() == 0) return q;
  if (uniform_) {  // every value is this one: each quantile, exactly
    q.fill(uniform_value_);
    return q;
  }
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
  if (count() == 0 || uniform_) return 0.0;
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

BracketedSketch::State BracketedSketch::save() {
  release_held();
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
  held_ = 0;
  note_filters();
  note_uniform();
}

}  // namespace rbmc

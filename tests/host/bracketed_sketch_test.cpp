// The bracketed sketch (host/stats/bracketed_sketch.hpp): without brackets the plain KLL sketch bit
// for bit; with them, each estimate's rank within the bound it states, for values in random order
// (where it sketches a small share of them and states a smaller bound) and in orders chosen to
// misplace its brackets (where the bound must grow to cover the miss); the same sketch whatever
// the chunks; exact save and restore; merges.
#include "host/stats/bracketed_sketch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/stats/bracket_filter.hpp"
#include "quantile_rank_error.hpp"

namespace rbmc {
namespace {

const BracketedSketch::Probabilities kP = {0.01, 0.05, 0.5, 0.95, 0.99};

// The 95 % bound scaled to 99.99 % (the same Hoeffding bound at δ = 1e-4): each of a test's few
// hundred estimates must meet it unless something is wrong (a 1e-4 chance each). The part of the
// bound that covers a bracket's miss is exact and only grows by the scaling.
double bound_9999(double bound_95) { return bound_95 * std::sqrt(std::log(2 / 1e-4) / std::log(40.0)); }

using test::rank_error;

enum class Order { random, ascending, descending, shifting };
const char* name_of(Order o) {
  return o == Order::random ? "random" : o == Order::ascending ? "ascending" : o == Order::descending ? "descending" : "shifting";
}

// n values of a distribution (0 normal, 1 heavy-tailed log-normal, 2 ten tied values) in an order.
// "shifting": the first half drawn from the distribution, the second shifted by three of its
// spreads, so that the brackets set on the first half miss the quantiles of the whole.
std::vector<double> draws(int distribution, std::size_t n, Order order, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = distribution == 0 ? normal(rng) : distribution == 1 ? std::exp(3 * normal(rng)) : std::floor(10 * uniform(rng));
    if (order == Order::shifting && i >= n / 2) v[i] += distribution == 1 ? 1e3 : 3.0;
  }
  if (order == Order::ascending) std::sort(v.begin(), v.end());
  if (order == Order::descending) std::sort(v.rbegin(), v.rend());
  return v;
}

// Fed in chunks of `chunk` (a batch's column at a time, as RunStatistics feeds it).
void feed(BracketedSketch& s, const std::vector<double>& v, std::size_t chunk) {
  for (std::size_t at = 0; at < v.size(); at += chunk) s.add(v.data() + at, std::min(chunk, v.size() - at));
}

void expect_within_stated_bound(const BracketedSketch& s, std::vector<double> values, const std::string& what) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double x) { return !std::isfinite(x); }), values.end());
  std::sort(values.begin(), values.end());
  ASSERT_EQ(s.count(), values.size()) << what;
  const double bound = bound_9999(s.rank_error_95());
  const BracketedSketch::Probabilities q = s.quantiles();
  for (std::size_t j = 0; j < kP.size(); ++j)
    EXPECT_LE(rank_error(values, q[j], kP[j]), bound + 1 / double(values.size())) << what << ", p = " << kP[j];
}

std::vector<std::uint64_t> bits_of(const std::vector<double>& v) {
  std::vector<std::uint64_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
  return b;
}

void expect_same_state(BracketedSketch& a, BracketedSketch& b, const std::string& what) {
  const BracketedSketch::State x = a.save(), y = b.save();
  EXPECT_EQ(bits_of(x.sketch.values), bits_of(y.sketch.values)) << what;
  EXPECT_EQ(x.sketch.level_sizes, y.sketch.level_sizes) << what;
  EXPECT_EQ(x.sketch.compactions, y.sketch.compactions) << what;
  EXPECT_EQ(bits_of({x.brackets.begin(), x.brackets.end()}), bits_of({y.brackets.begin(), y.brackets.end()})) << what;
  EXPECT_EQ(x.counts, y.counts) << what;
}

// Without brackets (a grid's or a table's values, or a GPU's compacted batches) it is the plain
// sketch: the same values retained, the same estimates and the same bound, bit for bit.
TEST(BracketedSketch, WithoutBracketsItIsThePlainSketch) {
  for (int distribution = 0; distribution < 3; ++distribution) {
    const std::vector<double> v = draws(distribution, 150000, Order::random, 3);
    BracketedSketch bracketed(kP, false, 1000, 9);
    QuantileSketch plain(1000, 9);
    feed(bracketed, v, 8192);
    plain.add(v.data(), v.size());
    EXPECT_FALSE(bracketed.filters());
    EXPECT_EQ(bits_of(bracketed.sketch().save().values), bits_of(plain.save().values));
    const BracketedSketch::Probabilities q = bracketed.quantiles();
    EXPECT_EQ(bits_of({q.begin(), q.end()}), bits_of(plain.quantiles({kP.begin(), kP.end()})));
    EXPECT_EQ(bracketed.rank_error_95(), plain.rank_error_95());
  }
}

// Values in random order, with a few non-finite ones (not counted): every estimate within the
// stated bound; that bound at most the plain sketch's (the sketch holds fewer values, so its
// compactions move fewer ranks), and most values counted, not sketched (what makes it cheap).
TEST(BracketedSketch, RandomOrderStaysWithinASmallerBoundSketchingFewValues) {
  for (int distribution = 0; distribution < 3; ++distribution)
    for (std::size_t n : {std::size_t(3000), std::size_t(200000), std::size_t(1000000)}) {
      std::vector<double> v = draws(distribution, n, Order::random, unsigned(n) + distribution);
      for (std::size_t i = 17; i < v.size(); i += 9973) v[i] = i % 2 == 0 ? INFINITY : NAN;
      const std::string what = "distribution " + std::to_string(distribution) + ", n " + std::to_string(n);
      BracketedSketch bracketed(kP, true, QuantileSketch::kDefaultK, 5), plain(kP, false, QuantileSketch::kDefaultK, 5);
      feed(bracketed, v, 8192);
      feed(plain, v, 8192);
      expect_within_stated_bound(bracketed, v, what);
      EXPECT_LE(bracketed.rank_error_95(), plain.rank_error_95()) << what;
      EXPECT_LE(bracketed.rank_error_95(), 1e-3) << what;
      if (n < BracketedSketch::kFirstBrackets) {
        EXPECT_FALSE(bracketed.filters()) << what;  // too few values for brackets: every one sketched
        continue;
      }
      EXPECT_TRUE(bracketed.filters()) << what;
      // Ten tied values: the brackets hold whole ties (a tenth of the values each, or two tenths
      // where the value at 0.5 meets its neighbour's), so more stays.
      const double most = distribution == 2 ? 0.6 : 0.2;
      EXPECT_LT(double(bracketed.sketch().count()), most * double(bracketed.count())) << what;
    }
}

// At each update of the brackets the values the sketch holds alone (its lowest level) that lie
// outside every new bracket are counted and leave it, as a value offered then would be: at the
// first brackets that is most of what it holds. Before its first compaction the sketch then
// holds exactly the values inside the brackets, and every estimate is the exact order statistic
// with a bound of 0; after the next update, only values inside the narrower brackets remain.
TEST(BracketedSketch, AnUpdateCountsTheSketchedValuesOutsideTheNewBrackets) {
  for (int distribution = 0; distribution < 3; ++distribution) {
    const std::string what = "distribution " + std::to_string(distribution);
    const std::vector<double> v = draws(distribution, 20000, Order::random, 30 + unsigned(distribution));
    const std::size_t first = BracketedSketch::kFirstBrackets, some = 6000;  // updates at 4,096 and 16,384
    BracketedSketch s(kP, true, QuantileSketch::kDefaultK, 3);
    feed(s, {v.begin(), v.begin() + std::ptrdiff_t(first + some)}, 1000);
    ASSERT_TRUE(s.filters()) << what;
    const auto inside_some_bracket = [](const ColumnBrackets& b, double x) {
      for (int j = 0; j < kColumnBrackets; ++j)
        if (x >= b.lo[j] && x <= b.hi[j]) return true;
      return false;
    };
    ColumnBrackets b = s.brackets();
    std::uint64_t inside = 0;
    for (std::size_t i = 0; i < first + some; ++i) inside += inside_some_bracket(b, v[i]) ? 1 : 0;
    EXPECT_EQ(s.sketch().count(), inside) << what;
    EXPECT_LT(double(inside), (distribution == 2 ? 0.6 : 0.4) * double(first + some)) << what;
    EXPECT_EQ(s.rank_error_95(), 0.0) << what;
    std::vector<double> sorted(v.begin(), v.begin() + std::ptrdiff_t(first + some));
    std::sort(sorted.begin(), sorted.end());
    const BracketedSketch::Probabilities q = s.quantiles();
    for (std::size_t j = 0; j < kP.size(); ++j)
      EXPECT_EQ(q[j], sorted[std::size_t(std::floor(kP[j] * double(sorted.size() - 1)))]) << what << ", p = " << kP[j];
    // Past the update at 16,384: whatever the sketch holds alone lies inside a new bracket.
    feed(s, {v.begin() + std::ptrdiff_t(first + some), v.end()}, 1000);
    b = s.brackets();
    for (double x : s.sketch().lowest()) EXPECT_TRUE(inside_some_bracket(b, x)) << what << ", " << x;
    expect_within_stated_bound(s, v, what);
  }
}

// Values in orders that misplace the brackets (sorted either way; a distribution that shifts
// halfway): the estimates may be poor, but the bound says so, and each lies within it.
TEST(BracketedSketch, OrderedValuesStayWithinTheBoundTheyState) {
  for (Order order : {Order::ascending, Order::descending, Order::shifting})
    for (int distribution = 0; distribution < 3; ++distribution) {
      const std::vector<double> v = draws(distribution, 200000, order, 7);
      BracketedSketch s(kP, true, QuantileSketch::kDefaultK, 2);
      feed(s, v, 5000);
      expect_within_stated_bound(s, v, std::string(name_of(order)) + ", distribution " + std::to_string(distribution));
    }
  // The bound is not merely large: a sorted column misses badly and says so.
  const std::vector<double> sorted = draws(0, 200000, Order::ascending, 7);
  BracketedSketch s(kP, true, QuantileSketch::kDefaultK, 2);
  feed(s, sorted, 5000);
  EXPECT_GT(s.rank_error_95(), 0.1);
}

// The brackets change at fixed counts of values offered: the same values in any chunks make the
// same sketch, bit for bit (a run's statistics do not depend on its batch size or threads).
TEST(BracketedSketch, TheSameValuesInAnyChunksMakeTheSameSketch) {
  const std::vector<double> v = draws(1, 120000, Order::random, 4);
  BracketedSketch whole(kP, true, 2000, 1);
  whole.add(v.data(), v.size());
  for (std::size_t chunk : {std::size_t(1), std::size_t(1000), std::size_t(4096), std::size_t(8192), std::size_t(30001)}) {
    BracketedSketch chunked(kP, true, 2000, 1);
    feed(chunked, v, chunk);
    expect_same_state(chunked, whole, "chunks of " + std::to_string(chunk));
  }
}

// A backend classifies a batch's column with the core's tally_value against brackets() and sends
// the kept values (here uncompacted: levels 0) with its tally: the sketch counts, keeps and
// narrows exactly as its own filter does with the same values, edge values, zeros of both signs
// and non-finite ones included.
TEST(BracketedSketch, ABatchTalliedAgainstItsBracketsCountsAsItsOwnFilterDoes) {
  const std::vector<double> first = draws(0, 20000, Order::random, 6);
  BracketedSketch filtered(kP, true, 1000, 9);
  filtered.add(first.data(), first.size());
  ASSERT_TRUE(filtered.filters());
  std::vector<double> batch = draws(0, 8192, Order::random, 7);
  const ColumnBrackets edges = filtered.brackets();
  for (int j = 0; j < kColumnBrackets; ++j) {
    batch[10 * std::size_t(j)] = edges.lo[j];
    batch[10 * std::size_t(j) + 1] = edges.hi[j];
    batch[10 * std::size_t(j) + 2] = std::nextafter(edges.lo[j], -INFINITY);
    batch[10 * std::size_t(j) + 3] = std::nextafter(edges.hi[j], INFINITY);
  }
  batch[100] = INFINITY;
  batch[101] = -INFINITY;
  batch[102] = NAN;
  batch[103] = 0.0;
  batch[104] = -0.0;
  const auto tally_and_merge = [&batch](BracketedSketch& s) {
    ColumnTally tally{};
    std::vector<double> kept;
    std::uint64_t finite = 0;
    for (double x : batch) {
      finite += std::isfinite(x) ? 1 : 0;
      if (tally_value(x, s.brackets(), tally)) kept.push_back(x);
    }
    ASSERT_EQ(tally.kept, kept.size());
    s.merge_compacted(kept.data(), 0, tally, finite, batch.size());
  };
  BracketedSketch own(kP, true, 1000, 9), tallied(kP, true, 1000, 9);
  own.restore(filtered.save());
  tallied.restore(filtered.save());
  own.add(batch.data(), batch.size());
  tally_and_merge(tallied);
  const BracketedSketch::State a = own.save(), b = tallied.save();
  EXPECT_EQ(a.counts, b.counts);  // offered, count, and below each bracket
  EXPECT_EQ(own.sketch().count(), tallied.sketch().count());
  EXPECT_EQ(bits_of({a.brackets.begin(), a.brackets.end()}), bits_of({b.brackets.begin(), b.brackets.end()}));
  // A batch that takes the values offered past the next update (65,536) narrows the brackets at
  // its end: inside the old ones, and narrower.
  BracketedSketch crossing(kP, true, 1000, 9);
  feed(crossing, draws(0, 60000, Order::random, 8), 8192);
  const ColumnBrackets old_edges = crossing.brackets();
  tally_and_merge(crossing);
  const ColumnBrackets new_edges = crossing.brackets();
  double old_width = 0, new_width = 0;
  for (int j = 0; j < kColumnBrackets; ++j) {
    EXPECT_GE(new_edges.lo[j], old_edges.lo[j]) << j;
    EXPECT_LE(new_edges.hi[j], old_edges.hi[j]) << j;
    old_width += old_edges.hi[j] - old_edges.lo[j];
    new_width += new_edges.hi[j] - new_edges.lo[j];
  }
  EXPECT_LT(new_width, 0.9 * old_width);  // from 16,384 values to 68,192: half the standard deviations
}

// What RunStatistics does while it reads a column for its moments (column_moments_filtering): the
// values add() would filter, filtered by the caller (keep_inside_brackets against brackets()) and
// handed over (take_filtered), then the rest by add(): the same sketch as add() of them all, in
// every state a sketch can be in when a batch comes. Before the first brackets, while a run of one
// number is held back and without brackets there is nothing to filter; with brackets, all of the
// batch, or the part before an update that comes inside it.
TEST(BracketedSketch, ValuesTheCallerFilteredMakeTheSketchAddMakes) {
  struct Case {
    const char* what;
    std::vector<double> before;  // fed first, in batches of 8,192
    bool bracketed;
    std::size_t filterable;  // of the next batch
  };
  const std::vector<double> one_number(5000, 2.5);
  const std::vector<Case> cases = {
      {"fresh", {}, true, 0},
      {"before the first brackets", draws(0, 3000, Order::random, 11), true, 0},
      {"with brackets", draws(0, 20000, Order::random, 12), true, 8192},
      {"an update inside the batch", draws(0, 60000, Order::random, 13), true, 65536 - 60000},
      {"a run of one number held back", one_number, true, 0},
      {"without brackets", draws(1, 20000, Order::random, 14), false, 0},
  };
  std::vector<double> batch = draws(0, 8192, Order::random, 15);
  batch[3] = INFINITY;
  batch[4] = NAN;
  batch[5] = 0.0;
  batch[6] = -0.0;
  std::vector<double> kept(batch.size() + kBracketFilterSlack);
  for (const Case& c : cases) {
    BracketedSketch whole(kP, c.bracketed, 1000, 9), filtered(kP, c.bracketed, 1000, 9);
    feed(whole, c.before, 8192);
    feed(filtered, c.before, 8192);
    const std::size_t rows = filtered.filterable(batch.size());
    ASSERT_EQ(rows, c.filterable) << c.what;
    const ColumnBrackets b = filtered.brackets();
    std::uint64_t below[kColumnBrackets] = {}, finite = 0;
    const std::size_t n_kept = keep_inside_brackets(batch.data(), rows, b.lo, b.hi, below, finite, kept.data());
    if (rows > 0) {
      EXPECT_LT(n_kept, rows / 2) << c.what;  // the filter has work to do
      // Past the next update, or more finite values than offered: refused.
      const std::size_t to_update = filtered.filterable(std::numeric_limits<std::size_t>::max());
      EXPECT_THROW(filtered.take_filtered(kept.data(), n_kept, below, finite, to_update + 1), std::logic_error) << c.what;
      EXPECT_THROW(filtered.take_filtered(kept.data(), n_kept, below, rows + 1, rows), std::logic_error) << c.what;
    }
    filtered.take_filtered(kept.data(), n_kept, below, finite, rows);
    filtered.add(batch.data() + rows, batch.size() - rows);
    whole.add(batch.data(), batch.size());
    EXPECT_EQ(filtered.uniform(), whole.uniform()) << c.what;
    EXPECT_EQ(filtered.quantiles(), whole.quantiles()) << c.what;
    expect_same_state(filtered, whole, c.what);
  }
}

TEST(BracketedSketch, SaveAndRestoreAreExact) {
  const std::vector<double> v = draws(0, 100000, Order::random, 5);
  const std::size_t half = 50000;
  BracketedSketch a(kP, true, 1000, 9), b(kP, true, 1000, 9);
  a.add(v.data(), half);
  ASSERT_TRUE(a.filters());
  b.restore(a.save());
  expect_same_state(b, a, "restored");
  EXPECT_EQ(b.rank_error_95(), a.rank_error_95());
  a.add(v.data() + half, v.size() - half);
  b.add(v.data() + half, v.size() - half);
  expect_same_state(b, a, "continued");
  const BracketedSketch::Probabilities qa = a.quantiles(), qb = b.quantiles();
  EXPECT_EQ(bits_of({qa.begin(), qa.end()}), bits_of({qb.begin(), qb.end()}));
  // Counts that cannot be (more counted below a bracket than were ever counted) are refused.
  BracketedSketch::State bad = a.save();
  bad.counts[2] = bad.counts[1];
  EXPECT_THROW(b.restore(bad), std::runtime_error);
}

// Runs of one number held back (a column no dispersion reaches, or every sample at t = 0): while
// every value is the same, each quantile is that value exactly, with rank error 0, and nothing is
// sketched; once another value comes, or the state is saved, the sketch is the one that never
// holds back, bit for bit, across the brackets' updates (at 4,096, 16,384 and 65,536 values
// offered), in any chunks, with and without brackets.
TEST(BracketedSketch, ValuesHeldBackMakeTheSketchThatNeverHoldsBack) {
  const std::vector<double> random = draws(0, 60000, Order::random, 11);
  std::vector<double> run(20000, 2.5);  // a run past two of the brackets' updates
  const auto then = [](std::vector<double> v, const std::vector<double>& more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  std::vector<double> nan_after(100, 2.5);
  nan_after.push_back(NAN);
  struct Case {
    const char* name;
    std::vector<double> values;
  };
  const std::vector<Case> cases = {
      {"a run, then other values", then(run, random)},
      {"a run alone", run},
      {"a run, then a NaN", then(nan_after, random)},
      {"a non-finite value first", then({INFINITY}, then(run, random))},
      {"a run, another value, the run's value again", then(then(run, {3.0}), run)},
      {"no run", random},
  };
  for (const bool bracketed : {true, false})
    for (const Case& c : cases)
      for (const std::size_t chunk : {std::size_t(1), std::size_t(4096), std::size_t(8192), std::size_t(30001)}) {
        const std::string what = std::string(c.name) + (bracketed ? ", bracketed" : ", plain") + ", chunks of " +
                                 std::to_string(chunk);
        BracketedSketch held(kP, bracketed, 1000, 9), never(kP, bracketed, 1000, 9, BracketedSketch::HoldBack::never);
        feed(held, c.values, chunk);
        feed(never, c.values, chunk);
        EXPECT_EQ(held.count(), never.count()) << what;
        if (held.uniform()) {
          EXPECT_EQ(held.sketch().count(), 0u) << what << ": nothing sketched while the values are one number";
          const BracketedSketch::Probabilities q = held.quantiles();
          for (double x : q) EXPECT_EQ(x, 2.5) << what;
          EXPECT_EQ(held.rank_error_95(), 0.0) << what;
          EXPECT_GT(never.rank_error_95(), 0.0) << what << ": the sketch that takes every value compacted them";
        } else {
          const BracketedSketch::Probabilities a = held.quantiles(), b = never.quantiles();
          EXPECT_EQ(bits_of({a.begin(), a.end()}), bits_of({b.begin(), b.end()})) << what;
          EXPECT_EQ(held.rank_error_95(), never.rank_error_95()) << what;
        }
        expect_same_state(held, never, what);  // save() sketches what was held back
      }
  // Without brackets the sketch that never holds back is the plain one (above): so is this one.
  const std::vector<double> v = then(run, random);
  BracketedSketch held(kP, false, 1000, 9);
  QuantileSketch plain(1000, 9);
  feed(held, v, 8192);
  plain.add(v.data(), v.size());
  EXPECT_EQ(bits_of(held.sketch().save().values), bits_of(plain.save().values));
}

// Zeros of both signs are one number (−0 == +0): held back, they are sketched with the first one's
// sign, and the estimates and counts are those of the sketch that never holds back, as numbers.
TEST(BracketedSketch, ZerosOfBothSignsAreHeldBackAsOne) {
  std::vector<double> v(20000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i % 3 == 0 ? -0.0 : 0.0;  // free space's potential energy
  BracketedSketch held(kP, true, 1000, 9), never(kP, true, 1000, 9, BracketedSketch::HoldBack::never);
  feed(held, v, 8192);
  EXPECT_TRUE(held.uniform());
  EXPECT_EQ(held.rank_error_95(), 0.0);
  for (double x : held.quantiles()) EXPECT_EQ(x, 0.0);
  const std::vector<double> more = draws(0, 30000, Order::random, 12);
  feed(held, more, 8192);
  feed(never, v, 8192);
  feed(never, more, 8192);
  EXPECT_FALSE(held.uniform());
  const BracketedSketch::Probabilities a = held.quantiles(), b = never.quantiles();
  for (std::size_t j = 0; j < kP.size(); ++j) EXPECT_EQ(a[j], b[j]) << kP[j];
  EXPECT_EQ(held.rank_error_95(), never.rank_error_95());
  const BracketedSketch::State x = held.save(), y = never.save();
  EXPECT_EQ(x.counts, y.counts);
  EXPECT_EQ(x.sketch.values, y.sketch.values);  // as numbers: −0 == +0
}

// A saved run of one number restores into a sketch that holds the same number back: the run goes
// on exactly as the uninterrupted one (a resumed run equals it), and parts of one number merge
// into one number; parts of two do not.
TEST(BracketedSketch, ARunOfOneNumberSurvivesSaveRestoreAndMerge) {
  const std::vector<double> run(20000, -1.25), random = draws(0, 50000, Order::random, 13);
  BracketedSketch whole(kP, true, 1000, 9), first(kP, true, 1000, 9), resumed(kP, true, 1000, 9);
  feed(whole, run, 8192);
  feed(first, run, 8192);
  resumed.restore(first.save());
  EXPECT_TRUE(resumed.uniform());
  EXPECT_EQ(resumed.rank_error_95(), 0.0);
  feed(whole, run, 8192);
  feed(resumed, run, 8192);
  EXPECT_TRUE(resumed.uniform());
  for (double x : resumed.quantiles()) EXPECT_EQ(x, -1.25);
  feed(whole, random, 8192);
  feed(resumed, random, 8192);
  expect_same_state(resumed, whole, "resumed");

  BracketedSketch a(kP, true, 1000, 9), b(kP, true, 1000, 9), c(kP, true, 1000, 9), empty(kP, true, 1000, 9);
  feed(a, run, 8192);
  feed(b, run, 8192);
  a.merge(b);
  EXPECT_TRUE(a.uniform());
  EXPECT_EQ(a.count(), 2 * run.size());
  EXPECT_EQ(a.rank_error_95(), 0.0);
  a.merge(empty);
  EXPECT_TRUE(a.uniform());
  const std::vector<double> other(5000, 7.0);
  feed(c, other, 8192);
  a.merge(c);
  EXPECT_FALSE(a.uniform());
  EXPECT_EQ(a.count(), 2 * run.size() + other.size());
  std::vector<double> all = run;
  all.insert(all.end(), run.begin(), run.end());
  all.insert(all.end(), other.begin(), other.end());
  expect_within_stated_bound(a, all, "parts of two numbers");
}

// Parts of one random sample merge into a sketch of the whole within its bound (their brackets
// intersect); parts whose values do not overlap lose the brackets' guarantee, and say so.
TEST(BracketedSketch, MergedPartsStayWithinTheirBound) {
  const std::vector<double> v = draws(1, 450000, Order::random, 8);
  BracketedSketch whole(kP, true, QuantileSketch::kDefaultK, 3);
  for (std::size_t part = 0; part < 3; ++part) {
    BracketedSketch s(kP, true, QuantileSketch::kDefaultK, 3);
    feed(s, std::vector<double>(v.begin() + std::ptrdiff_t(part * 150000), v.begin() + std::ptrdiff_t((part + 1) * 150000)), 8192);
    EXPECT_TRUE(s.filters());
    whole.merge(s);
  }
  whole.merge(BracketedSketch(kP, true, QuantileSketch::kDefaultK, 3));  // an empty part changes nothing
  expect_within_stated_bound(whole, v, "three parts");
  EXPECT_LE(whole.rank_error_95(), 1e-3);

  BracketedSketch low(kP, true, 1000, 1), high(kP, true, 1000, 1);
  std::vector<double> lows = draws(0, 50000, Order::random, 1), highs = lows;
  for (double& x : highs) x += 100;
  feed(low, lows, 8192);
  feed(high, highs, 8192);
  low.merge(high);
  EXPECT_EQ(low.rank_error_95(), 1.0);
  for (double q : low.quantiles()) EXPECT_TRUE(std::isfinite(q));
  lows.insert(lows.end(), highs.begin(), highs.end());
  expect_within_stated_bound(low, lows, "disjoint parts");
}

}  // namespace
}  // namespace rbmc

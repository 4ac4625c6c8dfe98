// Statistics at the output times (host/stats/run_statistics.cpp, written by the run) against the
// same numbers computed directly from every sample's trajectory in the file; retained subsets of
// trajectories by each rule.
#include "host/stats/run_statistics.hpp"

#include <cstring>
#include <random>

#include <algorithm>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "host/analysis/results_info.hpp"
#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/run/run_driver.hpp"
#include "host/stats/bracket_filter.hpp"
#include "host/stats/column_moments.hpp"
#include "rbmc/stats/output_quantities.hpp"
#include "compaction_reference.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

const std::string kThrown = R"([run]
samples = 1500
seed = 5
duration = 2.0
step = 0.01
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
angular_velocity = [0.1, 3.0, 0.1]
velocity = [1.0, 0.0, 3.0]
[gravity]
acceleration = [0.0, 0.0, -9.81]
[dispersions]
initial.angular_velocity = { distribution = "normal", sigma = 0.1 }
initial.velocity = { distribution = "normal", sigma = 0.2 }
body.mass = { distribution = "uniform", half_width = 0.2 }
[[events]]
name = "high"
type = "point_crossing"
axis = "z"
value = 0.5
direction = "rising"
)";

std::string run(const test::TempDir& dir, const std::string& name, const std::string& output, std::size_t batch = 0) {
  RunOptions o;
  o.output = dir.file(name);
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.batch_size = batch;
  o.overwrite = true;
  run_scenario(parse_scenario(kThrown + output, name + ".toml"), o);
  return o.output;
}

// Column j of a (N, T, dim) array at time k.
std::vector<double> slice(const Array<double>& a, std::size_t k, std::size_t j) {
  const std::size_t n = a.shape[0], t = a.shape[1], dim = a.shape[2];
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(a.data[(i * t + k) * dim + j]);
  return out;
}

TEST(QuantileOfSorted, IsNumpysLinearInterpolation) {
  const std::vector<double> x = {1, 2, 3, 4};
  EXPECT_EQ(quantile_of_sorted(x, 0.5), 2.5);
  EXPECT_NEAR(quantile_of_sorted(x, 0.01), 1.03, 1e-15);  // numpy.quantile([1,2,3,4], 0.01)
  EXPECT_EQ(quantile_of_sorted(x, 1.0), 4);
  EXPECT_EQ(quantile_of_sorted({7.0}, 0.3), 7);
  EXPECT_TRUE(std::isnan(quantile_of_sorted({}, 0.5)));
}

// Mean, sd, min, max and quantiles of position and velocity at every output time equal the
// values computed from all trajectories: moments to rounding (a few ε of the spread), order
// statistics exactly. Batch size changes moments only at rounding and order statistics not at all.
std::uint64_t bits_of(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Every field of two moments, bit for bit.
void expect_same_moments(const Moments& a, const Moments& b, const std::string& where) {
  const double x[] = {a.count, a.mean, a.m2, a.min, a.max, a.non_finite};
  const double y[] = {b.count, b.mean, b.m2, b.min, b.max, b.non_finite};
  for (int f = 0; f < 6; ++f) EXPECT_EQ(bits_of(x[f]), bits_of(y[f])) << where << ", field " << f;
}

// Columns of every kind the quantities give: spread, huge and tiny magnitudes, constant, ±0,
// stopped samples (NaN) and overflowed ones (±∞) anywhere, the first value among them.
std::vector<std::vector<double>> awkward_columns(std::size_t n_rows) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> columns;
  for (int kind = 0; kind < 11; ++kind) {
    std::vector<double> v(n_rows);
    for (std::size_t i = 0; i < n_rows; ++i) {
      const double x = normal(rng);
      switch (kind % 6) {
        case 0: v[i] = 3.0 + 0.5 * x; break;
        case 1: v[i] = std::ldexp(x, int(rng() % 600) - 300); break;  // squares stay finite
        case 2: v[i] = 7.25; break;
        case 3: v[i] = rng() % 2 == 0 ? 0.0 : -0.0; break;
        case 4: v[i] = rng() % 5 == 0 ? (rng() % 3 == 0 ? NAN : rng() % 2 == 0 ? INFINITY : -INFINITY) : x; break;
        default: v[i] = i < n_rows / 3 ? NAN : 1e90 * x; break;
      }
    }
    if (kind >= 6 && n_rows > 0) v[0] = kind % 2 == 0 ? INFINITY : NAN;
    columns.push_back(v);
  }
  return columns;
}

// column_moments of the columns, each of n_rows values.
std::vector<Moments> moments_of(const std::vector<std::vector<double>>& columns, std::size_t n_rows) {
  std::vector<const double*> pointers;
  for (const std::vector<double>& c : columns) pointers.push_back(c.data());
  std::vector<Moments> moments(columns.size());
  column_moments(pointers.data(), columns.size(), n_rows, moments.data());
  return moments;
}

// The batch's column moments (column_moments.hpp: the corrected two-pass algorithm in vectors)
// against the same sums in long double (64-bit significands: exact enough to be the reference).
// Count, infinities, min and max exactly. The mean within (n/8 + 4) ε of the mean magnitude: each
// of the 8 lanes adds n/8 values one after another, three additions combine them and one division
// makes the mean. The sum of squares within 4 (n/8 + 8) ε of itself: each squared deviation is
// within 3 ε, the sums add n/8 + 3 roundings, and the correction term removes the first order of
// the mean's error (Chan, Golub and LeVeque 1983), whose square is the allowance added.
TEST(ColumnMoments, AgreeWithALongDoubleReference) {
  const double eps = std::numeric_limits<double>::epsilon();
  for (std::size_t n_rows : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(13), std::size_t(1000),
                             std::size_t(4099)}) {
    const std::vector<std::vector<double>> columns = awkward_columns(n_rows);
    const std::vector<Moments> moments = moments_of(columns, n_rows);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string where = "rows " + std::to_string(n_rows) + ", column " + std::to_string(c);
      long double count = 0, sum = 0, magnitude = 0, infinite = 0;
      double lo = INFINITY, hi = -INFINITY;
      for (double x : columns[c]) {
        if (std::isfinite(x)) {
          count += 1;
          sum += x;
          magnitude += std::fabs(x);
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        } else if (!std::isnan(x)) {
          infinite += 1;
        }
      }
      const Moments& m = moments[c];
      EXPECT_EQ(m.count, double(count)) << where;
      EXPECT_EQ(m.non_finite, double(infinite)) << where;
      EXPECT_EQ(m.min, lo) << where;
      EXPECT_EQ(m.max, hi) << where;
      if (count == 0) continue;
      const long double mean = sum / count;
      long double m2 = 0;
      for (double x : columns[c])
        if (std::isfinite(x)) m2 += (x - mean) * (x - mean);
      const double lanes = double(n_rows) / 8 + 1;
      const double mean_tolerance = (lanes + 4) * eps * double(magnitude / count);
      EXPECT_LE(std::fabs(m.mean - double(mean)), mean_tolerance) << where;
      EXPECT_LE(std::fabs(m.m2 - double(m2)), 4 * (lanes + 8) * eps * double(m2) + double(count) * mean_tolerance * mean_tolerance)
          << where;
      EXPECT_GE(m.m2, 0.0) << where;
    }
  }
}

// The same moments bit for bit on every instruction set (column_moments.hpp): the vectors' lanes
// written out one value at a time, row i in lane i mod 8, the lanes combined in column_moments'
// fixed order. A vector lowered in another order (rows to other lanes, a sum or min taken across
// lanes early) moves the sums in their last bits and fails; so does an instruction set that
// compiles the passes differently, since the test runs on whichever the processor has.
TEST(ColumnMoments, AreTheirEightLanesWrittenOutOneValueAtATime) {
  constexpr std::size_t kLanes = 8;
  const auto combined = [](const double (&lane)[kLanes]) {
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  };
  for (std::size_t n_rows : {std::size_t(1), std::size_t(7), std::size_t(13), std::size_t(1000), std::size_t(4099)}) {
    const std::vector<std::vector<double>> columns = awkward_columns(n_rows);
    const std::vector<Moments> moments = moments_of(columns, n_rows);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::vector<double>& x = columns[c];
      double count[kLanes] = {}, total[kLanes] = {}, not_nan[kLanes] = {}, d1[kLanes] = {}, d2[kLanes] = {};
      double lo[kLanes], hi[kLanes];
      std::fill_n(lo, kLanes, INFINITY);
      std::fill_n(hi, kLanes, -INFINITY);
      for (std::size_t i = 0; i < n_rows; ++i) {
        const std::size_t lane = i % kLanes;
        const bool finite = x[i] - x[i] == 0;
        count[lane] += finite ? 1.0 : 0.0;
        total[lane] += finite ? x[i] : 0.0;
        not_nan[lane] += x[i] == x[i] ? 1.0 : 0.0;
        if (finite && x[i] < lo[lane]) lo[lane] = x[i];  // of equal ones (±0) the first stays
        if (finite && x[i] > hi[lane]) hi[lane] = x[i];
      }
      Moments want;
      for (std::size_t lane = 0; lane < kLanes; ++lane) {
        if (lo[lane] < want.min) want.min = lo[lane];
        if (hi[lane] > want.max) want.max = hi[lane];
      }
      want.count = combined(count);
      want.non_finite = combined(not_nan) - want.count;
      if (want.count > 0) {
        want.mean = combined(total) / want.count;
        for (std::size_t i = 0; i < n_rows; ++i) {
          const double d = x[i] - x[i] == 0 ? x[i] - want.mean : 0.0;
          d1[i % kLanes] += d;
          d2[i % kLanes] += d * d;
        }
        const double deviation = combined(d1), squares = combined(d2);
        want.m2 = std::max(0.0, squares - deviation * deviation / want.count);
      }
      const std::string where = "rows " + std::to_string(n_rows) + ", column " + std::to_string(c);
      expect_same_moments(moments[c], want, where);
    }
  }
}

// column_moments_filtering (column_moments.hpp): the moments and the filter of the column's first
// rows in one read, against column_moments and keep_inside_brackets apart, bit for bit: every
// column kind, lengths around a vector's, the filtered rows none, some (ending inside a vector),
// all and more than the column has; brackets that overlap, with values on and beside their edges;
// every width; nothing written past the room the header asks for. A pass that took a lane's value
// in another order, or filtered a row past `rows`, fails.
TEST(ColumnMoments, FilteringTheFirstRowsInTheSameReadChangesNeither) {
  const double lo[kColumnBrackets] = {-2.0, -1.0, -0.25, 0.5, 0.5};
  const double hi[kColumnBrackets] = {-1.5, -0.5, 0.25, 1.0, 0.75};
  std::size_t kept_somewhere = 0;
  for (std::size_t n_rows : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(8), std::size_t(9),
                             std::size_t(13), std::size_t(1000), std::size_t(4099)}) {
    std::vector<std::vector<double>> columns = awkward_columns(n_rows);
    std::vector<double> edges(n_rows);  // a bracket's edge, or the double beside it, in every row
    for (std::size_t i = 0; i < n_rows; ++i) {
      const double e = i % 2 == 0 ? lo[i / 2 % kColumnBrackets] : hi[i / 2 % kColumnBrackets];
      edges[i] = i % 3 == 0 ? e : std::nextafter(e, i % 3 == 1 ? -INFINITY : INFINITY);
    }
    columns.push_back(edges);
    const std::vector<Moments> apart = moments_of(columns, n_rows);
    for (std::size_t c = 0; c < columns.size(); ++c)
      for (std::size_t rows : {std::size_t(0), std::size_t(1), n_rows / 2 + 3, n_rows, n_rows + 9}) {
        for (BracketFilterWidth width : kBracketFilterWidths) {
          const std::string where = "rows " + std::to_string(n_rows) + ", column " + std::to_string(c) +
                                    ", filtered " + std::to_string(rows) +
                                    ", " + std::string(bracket_filter_width_name(width));
          const std::size_t filtered = std::min(rows, n_rows);
          std::uint64_t below[kColumnBrackets] = {1, 2, 3, 4, 5}, finite = 10;  // added to
          std::vector<double> want_kept(filtered + kBracketFilterSlack);
          const std::size_t want_n =
              keep_inside_brackets(columns[c].data(), filtered, lo, hi, below, finite, want_kept.data(), width);
          constexpr double kGuard = 7.0;
          std::vector<double> kept(filtered + kBracketFilterSlack + 16, kGuard);
          ColumnPrefixFilter f;
          f.lo = lo;
          f.hi = hi;
          f.rows = rows;
          f.kept = kept.data();
          for (int j = 0; j < kColumnBrackets; ++j) f.below[j] = std::uint64_t(j + 1);
          f.finite = 10;
          const Moments m = column_moments_filtering(columns[c].data(), n_rows, f, width);
          expect_same_moments(m, apart[c], where);
          ASSERT_EQ(f.n_kept, want_n) << where;
          for (std::size_t i = 0; i < want_n; ++i) EXPECT_EQ(bits_of(kept[i]), bits_of(want_kept[i])) << where << ", kept " << i;
          for (std::size_t i = filtered + kBracketFilterSlack; i < kept.size(); ++i)
            ASSERT_EQ(kept[i], kGuard) << where << ": written past the room at " << i;
          EXPECT_EQ(f.finite, finite) << where;
          for (int j = 0; j < kColumnBrackets; ++j) EXPECT_EQ(f.below[j], below[j]) << where << ", bracket " << j;
          kept_somewhere += want_n;
        }
      }
  }
  EXPECT_GT(kept_somewhere, 1000u);
}

// A batch handed over without its moments (the CPU backend's way) gives the run the same
// statistics as with them, and hands the moments back for the journal.
TEST(RunStatistics, MomentsFromTheValuesEqualTheBackendsMoments) {
  const Scenario scenario = parse_scenario(kThrown + "[output]\ninterval = 0.25\n", "t.toml");
  const std::size_t n_rows = 777, columns = std::size_t(scenario.output_times.n) * quantity::count;
  const std::vector<std::vector<double>> kinds = awkward_columns(n_rows);
  std::vector<double> values;
  for (std::size_t c = 0; c < columns; ++c) values.insert(values.end(), kinds[c % kinds.size()].begin(), kinds[c % kinds.size()].end());
  // The backend's moments: the CPU backend's reduction of the same columns.
  std::vector<Moments> given(columns);
  std::vector<const double*> pointers;
  for (std::size_t c = 0; c < columns; ++c) pointers.push_back(values.data() + c * n_rows);
  column_moments(pointers.data(), columns, n_rows, given.data());
  RunStatistics with(scenario, 2 * n_rows, 2), without(scenario, 2 * n_rows, 2);
  std::vector<Moments> none;
  for (int batch = 0; batch < 2; ++batch) {
    with.add(given, values, n_rows);
    none.clear();
    without.add(none, values, n_rows);
    ASSERT_EQ(none.size(), columns);
    for (std::size_t c = 0; c < columns; ++c) expect_same_moments(none[c], given[c], "handed back, column " + std::to_string(c));
  }
  for (std::size_t c = 0; c < columns; ++c) {
    expect_same_moments(without.moments()[c], with.moments()[c], "run, column " + std::to_string(c));
    EXPECT_EQ(without.quantiles(c), with.quantiles(c)) << c;
  }
  // Moments from values that are not every row's cannot be.
  std::vector<double> short_values(values.begin(), values.end() - 1);
  none.clear();
  EXPECT_THROW(without.add(none, short_values, n_rows), std::logic_error);
}

// The same with sketches: a batch without its moments is filtered against the sketches' brackets
// in the moments' read of it (column_moments_filtering, take_filtered), one with them as add()
// filters it. The same moments, quantiles, bounds and saved state, bit for bit, over batches
// before the first brackets (4,096 values, inside the second batch, which add() takes), with
// them, and across their update at 16,384 inside the sixth (which take_filtered reaches); columns
// of every kind, each batch's kinds turned by one column.
TEST(RunStatistics, ColumnsFilteredInTheirMomentsReadMakeTheSameSketches) {
  // 9 times × 12 quantities × 3,000 rows: 2.6 MB a batch against a 1 MiB budget.
  const Scenario scenario = parse_scenario(kThrown + "[output]\ninterval = 0.25\nquantile_memory_mb = 1\n", "t.toml");
  const std::size_t n_rows = 3000, batches = 6, columns = std::size_t(scenario.output_times.n) * quantity::count;
  RunStatistics with(scenario, batches * n_rows, 2), without(scenario, batches * n_rows, 2);
  ASSERT_FALSE(without.exact());
  ASSERT_TRUE(without.bracketed());
  const std::vector<std::vector<double>> kinds = awkward_columns(n_rows);
  std::size_t filtering = 0;  // columns with a finite bracket, batch after batch
  for (std::size_t batch = 0; batch < batches; ++batch) {
    std::vector<double> values;
    for (std::size_t c = 0; c < columns; ++c) {
      const std::vector<double>& kind = kinds[(c + batch) % kinds.size()];
      values.insert(values.end(), kind.begin(), kind.end());
    }
    std::vector<Moments> given(columns), none;
    std::vector<const double*> pointers;
    for (std::size_t c = 0; c < columns; ++c) pointers.push_back(values.data() + c * n_rows);
    column_moments(pointers.data(), columns, n_rows, given.data());
    with.add(given, values, n_rows);
    without.add(none, values, n_rows);
    for (std::size_t c = 0; c < columns; ++c) expect_same_moments(none[c], given[c], "handed back, column " + std::to_string(c));
    std::vector<ColumnBrackets> brackets;
    without.compaction_brackets(brackets);
    for (const ColumnBrackets& b : brackets) filtering += std::isfinite(b.lo[2]) ? 1 : 0;
  }
  EXPECT_GT(filtering, columns);  // the later batches were filtered
  for (std::size_t c = 0; c < columns; ++c) {
    expect_same_moments(without.moments()[c], with.moments()[c], "run, column " + std::to_string(c));
    const auto a = without.quantiles(c), b = with.quantiles(c);
    for (std::size_t p = 0; p < a.size(); ++p) EXPECT_EQ(bits_of(a[p]), bits_of(b[p])) << c << ", p " << p;
    EXPECT_EQ(without.rank_error_95(c), with.rank_error_95(c)) << c;
  }
  const StatisticsState x = without.save(), y = with.save();
  EXPECT_EQ(x.value_counts, y.value_counts);
  EXPECT_EQ(x.sketch_level_sizes, y.sketch_level_sizes);
  EXPECT_EQ(x.sketch_counts, y.sketch_counts);
  ASSERT_EQ(x.values.size(), y.values.size());
  for (std::size_t i = 0; i < x.values.size(); ++i) ASSERT_EQ(bits_of(x.values[i]), bits_of(y.values[i])) << i;
}

// Exact quantiles (each column sorted by sort_finite) equal those of the finite values sorted by
// std::sort (numpy's linear interpolation, quantile_of_sorted) bit for bit: columns of every
// kind, of sizes where the probabilities' positions coincide (1, 2, 3 values) or fall next to
// each other, in batches.
TEST(RunStatistics, ExactQuantilesEqualThoseOfTheSortedValues) {
  const Scenario scenario = parse_scenario(kThrown + "[output]\ninterval = 0.25\n", "t.toml");
  const std::size_t columns = std::size_t(scenario.output_times.n) * quantity::count;
  for (const std::size_t n_rows : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(5), std::size_t(20),
                                   std::size_t(101), std::size_t(1000), std::size_t(4099)}) {
    const std::vector<std::vector<double>> kinds = awkward_columns(n_rows);
    std::vector<double> values;
    for (std::size_t c = 0; c < columns; ++c)
      values.insert(values.end(), kinds[c % kinds.size()].begin(), kinds[c % kinds.size()].end());
    RunStatistics exact(scenario, 2 * n_rows, 2);
    ASSERT_TRUE(exact.exact());
    std::vector<Moments> none;
    for (int batch = 0; batch < 2; ++batch) {
      none.clear();
      exact.add(none, values, n_rows);
    }
    const auto all = exact.all_quantiles();
    for (std::size_t c = 0; c < columns; ++c) {
      std::vector<double> sorted;
      for (int batch = 0; batch < 2; ++batch)
        for (double x : kinds[c % kinds.size()])
          if (std::isfinite(x)) sorted.push_back(x);
      std::sort(sorted.begin(), sorted.end());
      for (std::size_t p = 0; p < kQuantileProbabilities.size(); ++p) {
        const double want = quantile_of_sorted(sorted, kQuantileProbabilities[p]);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(all[c][p])) << n_rows << " rows, column " << c << ", p " << p;
        } else {
          EXPECT_EQ(all[c][p], want) << n_rows << " rows, column " << c << ", p " << p;
        }
      }
    }
  }
}

// A resume restores exact values into the columns lend_exact_columns gave out, filled where they
// are: the restored columns keep the room reserved for the run's values, so that the batches
// after it neither copy nor grow them (grown, a column is copied whole and its old memory is not
// given back: a resume's peak was the values twice), and the run goes on as an uninterrupted one.
TEST(RunStatistics, RestoredExactColumnsKeepTheirRoom) {
  const Scenario scenario = parse_scenario(kThrown + "[output]\ninterval = 0.25\n", "t.toml");
  const std::size_t columns = std::size_t(scenario.output_times.n) * quantity::count, n_rows = 500;
  std::vector<double> values(columns * n_rows);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  for (double& x : values) x = normal(rng);
  RunStatistics run(scenario, 4 * n_rows), resumed(scenario, 4 * n_rows);
  ASSERT_TRUE(run.exact());
  std::vector<Moments> none;
  run.add(none, values, n_rows);
  const StatisticsState state = run.save_without_exact_values();
  std::vector<std::vector<double>> lent = resumed.lend_exact_columns();
  ASSERT_EQ(lent.size(), columns);
  for (std::size_t c = 0; c < columns; ++c) {
    EXPECT_GE(lent[c].capacity(), 4 * n_rows) << c;
    lent[c].assign(run.exact_values()[c].begin(), run.exact_values()[c].end());  // as a reader fills them
  }
  resumed.restore(state, &lent);
  for (std::size_t c = 0; c < columns; ++c) {
    EXPECT_GE(resumed.exact_values()[c].capacity(), 4 * n_rows) << c;
    EXPECT_EQ(resumed.exact_values()[c], run.exact_values()[c]) << c;
  }
  for (int batch = 0; batch < 3; ++batch) {
    none.clear();
    run.add(none, values, n_rows);
    none.clear();
    resumed.add(none, values, n_rows);
  }
  EXPECT_EQ(resumed.all_quantiles(), run.all_quantiles());
  EXPECT_THROW(RunStatistics(scenario, 4 * n_rows).save(), std::logic_error);  // exact: never copied whole
}

TEST(RunStatistics, EqualTheValuesComputedFromEveryTrajectory) {
  test::TempDir dir;
  const std::string path = run(dir, "a.h5", "[output]\ninterval = 0.25\n", 400);
  const ResultsReader r(path);
  for (const char* q : {"position", "velocity"}) {
    const Array<double> x = r.doubles(std::string("trajectories/") + q);
    const Array<double> mean = r.doubles(std::string("statistics/") + q + "/mean"),
                        sd = r.doubles(std::string("statistics/") + q + "/sd"),
                        lo = r.doubles(std::string("statistics/") + q + "/min"),
                        quantiles = r.doubles(std::string("statistics/") + q + "/quantiles");
    ASSERT_EQ(quantiles.shape, (std::vector<std::uint64_t>{9, 5, 3}));
    for (std::size_t k = 0; k < 9; ++k)
      for (std::size_t j = 0; j < 3; ++j) {
        std::vector<double> v = slice(x, k, j);
        double m = 0, s = 0;
        for (double e : v) m += e / double(v.size());
        for (double e : v) s += (e - m) * (e - m) / double(v.size() - 1);
        const double spread = std::sqrt(s) + std::abs(m);
        EXPECT_NEAR(mean.data[k * 3 + j], m, 1e-13 * spread) << q << k << j;
        EXPECT_NEAR(sd.data[k * 3 + j], std::sqrt(s), 1e-12 * spread) << q << k << j;
        std::sort(v.begin(), v.end());
        EXPECT_EQ(lo.data[k * 3 + j], v.front());
        for (std::size_t p = 0; p < 5; ++p)
          EXPECT_EQ(quantiles.data[(k * 5 + p) * 3 + j], quantile_of_sorted(v, kQuantileProbabilities[p]));
      }
  }
  EXPECT_EQ(r.doubles("statistics/kinetic_energy/count").data.front(), 1500);
  // The nominal sample's attitude angle from itself is zero at t = 0 for every sample (no attitude dispersion).
  EXPECT_EQ(r.doubles("statistics/attitude_angle/max").data.front(), 0.0);
  const std::string other = run(dir, "b.h5", "[output]\ninterval = 0.25\n", 1500);
  const ResultsReader b(other);
  const auto m1 = r.doubles("statistics/angular_velocity/sd").data, m2 = b.doubles("statistics/angular_velocity/sd").data;
  for (std::size_t i = 0; i < m1.size(); ++i) EXPECT_NEAR(m1[i], m2[i], 1e-13 * m1[i]);
  EXPECT_EQ(r.doubles("statistics/position/quantiles").data, b.doubles("statistics/position/quantiles").data);
}

// [output] statistics = [names] keeps only those quantities' groups, with the same numbers bit for
// bit as a run that keeps every quantity (exact quantiles in both).
TEST(RunStatistics, NamedQuantitiesKeepTheirNumbersAndNoOthers) {
  test::TempDir dir;
  const std::string all_path = run(dir, "all.h5", "[output]\ninterval = 0.25\n", 400);
  const std::string some_path =
      run(dir, "some.h5", "[output]\ninterval = 0.25\nstatistics = [\"attitude_angle\", \"velocity\"]\n", 400);
  const ResultsReader all(all_path), some(some_path);
  for (const char* q : {"velocity", "attitude_angle"})
    for (const char* d : {"count", "non_finite_count", "mean", "sd", "min", "max", "quantiles"}) {
      const std::string path = std::string("statistics/") + q + "/" + d;
      EXPECT_EQ(some.doubles(path).data, all.doubles(path).data) << path;
      EXPECT_EQ(some.doubles(path).shape, all.doubles(path).shape) << path;
    }
  for (const char* q : {"position", "angular_velocity", "kinetic_energy", "potential_energy"}) {
    EXPECT_TRUE(all.has(std::string("statistics/") + q)) << q;
    EXPECT_FALSE(some.has(std::string("statistics/") + q)) << q;
  }
  EXPECT_EQ(some.doubles("statistics/velocity/count").data.front(), 1500);
  // rbmc info lists them, in the schema's order.
  EXPECT_EQ(read_results_info(some_path).statistics_quantities, (std::vector<std::string>{"velocity", "attitude_angle"}));
  EXPECT_EQ(read_results_info(all_path).statistics_quantities.size(), kStatisticsQuantities.size());
}

// The quantile budget is the kept columns': 1500 samples × 9 times × 12 quantities overrun 1 MiB
// and are sketched; the 4 columns of velocity and attitude_angle fit it and stay exact. With a
// sketch in both (k capped at the default for a run of 10^6 samples, so the same k), the kept
// columns' sketches are the same bit for bit as when every column is kept: each column draws its
// own coins.
TEST(RunStatistics, TheBudgetAndTheSketchesAreTheKeptColumns) {
  const std::string times = "[output]\ninterval = 0.25\nquantile_memory_mb = ";
  const std::string named = "statistics = [\"attitude_angle\", \"velocity\"]\n";
  EXPECT_FALSE(RunStatistics(parse_scenario(kThrown + times + "1\n", "a.toml"), 1500).exact());
  EXPECT_TRUE(RunStatistics(parse_scenario(kThrown + times + "1\n" + named, "s.toml"), 1500).exact());
  RunStatistics all(parse_scenario(kThrown + times + "64\n", "a.toml"), 1000000, 2);
  RunStatistics some(parse_scenario(kThrown + times + "64\n" + named, "s.toml"), 1000000, 2);
  ASSERT_FALSE(all.exact());
  ASSERT_EQ(all.sketch_k(), QuantileSketch::kDefaultK);
  ASSERT_EQ(some.sketch_k(), QuantileSketch::kDefaultK);
  // Enough rows that each column's sketch compacts (more values inside its brackets than its k),
  // so that its bound is not 0: below that it holds every value it was not able to count exactly.
  const std::size_t columns = all.n_columns(), rows = 20000;
  ASSERT_EQ(columns, 9u * quantity::count);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  for (int batch = 0; batch < 3; ++batch) {
    std::vector<double> values(columns * rows);
    for (double& v : values) v = normal(rng);
    std::vector<Moments> m_all, m_some;
    all.add(m_all, values, rows);
    some.add(m_some, values, rows);
  }
  const auto q_all = all.all_quantiles(), q_some = some.all_quantiles();
  // The file's bounds, every column's at once on the run's threads: each column's own.
  const std::vector<double> e_all = all.all_rank_errors_95(), e_some = some.all_rank_errors_95();
  ASSERT_EQ(e_all.size(), columns);
  ASSERT_EQ(e_some.size(), columns);
  for (std::size_t c = 0; c < columns; ++c) {
    const int q = int(c % quantity::count);
    const bool kept = (q >= quantity::velocity && q < quantity::velocity + 3) || q == quantity::attitude_angle;
    EXPECT_EQ(all.moments()[c].count, 3.0 * rows) << c;
    EXPECT_EQ(e_all[c], all.rank_error_95(c)) << c;
    EXPECT_GT(e_all[c], 0.0) << c;
    EXPECT_EQ(e_some[c], kept ? some.rank_error_95(c) : 0.0) << c;
    if (kept) {
      expect_same_moments(some.moments()[c], all.moments()[c], "column " + std::to_string(c));
      for (std::size_t p = 0; p < q_all[c].size(); ++p) EXPECT_EQ(bits_of(q_some[c][p]), bits_of(q_all[c][p])) << c;
      EXPECT_EQ(some.rank_error_95(c), all.rank_error_95(c)) << c;
    } else {
      EXPECT_EQ(some.moments()[c].count, 0.0) << c;
      for (double v : q_some[c]) EXPECT_TRUE(std::isnan(v)) << c;
    }
  }
}

// The sketches count the values far from the quantiles (bracketed_sketch.hpp) only where the
// design's samples come in no order: Monte Carlo, Latin hypercube and Sobol designs, not a grid.
TEST(RunStatistics, BracketsOnlyWhereTheSamplesComeInNoOrder) {
  const std::string sketched = "[output]\ninterval = 0.25\nquantile_memory_mb = 1\n";
  EXPECT_TRUE(RunStatistics(parse_scenario(kThrown + sketched, "mc.toml"), 100000).bracketed());
  for (const char* design : {"latin_hypercube", "sobol"})
    EXPECT_TRUE(RunStatistics(parse_scenario(kThrown + sketched + "[design]\ntype = \"" + design + "\"\n", "d.toml"), 100000)
                    .bracketed())
        << design;
  // 3 masses × 500 replicates: the run's 1,500 samples, the mass's dispersion replaced by the axis.
  const std::string grid = "[design]\ntype = \"grid\"\nreplicates = 500\n[design.axes]\nbody.mass = { linspace = [1.0, 3.0, 3] }\n";
  const std::string dispersed_mass = "body.mass = { distribution = \"uniform\", half_width = 0.2 }\n";
  const std::string swept = std::string(kThrown).replace(kThrown.find(dispersed_mass), dispersed_mass.size(), "");
  EXPECT_FALSE(RunStatistics(parse_scenario(swept + sketched + grid, "g.toml"), 100000).bracketed());
}

// A state saved before brackets (a part or a partial file from an earlier build: no
// sketch_brackets) restores as sketches that fed every value, and continues as the run that saved
// it: the same statistics bit for bit after more batches, brackets set on the way.
TEST(RunStatistics, AStateSavedBeforeBracketsContinuesTheRun) {
  const Scenario scenario = parse_scenario(kThrown + "[output]\ninterval = 0.25\nquantile_memory_mb = 1\n", "t.toml");
  const std::size_t columns = std::size_t(scenario.output_times.n) * quantity::count, rows = 3000;
  RunStatistics run(scenario, 5 * rows), resumed(scenario, 5 * rows);
  ASSERT_TRUE(run.bracketed());
  std::mt19937_64 rng(13);
  std::normal_distribution<double> normal;
  const auto batch = [&] {
    std::vector<double> values(columns * rows);
    for (double& v : values) v = normal(rng);
    return values;
  };
  std::vector<Moments> none;
  run.add(none, batch(), rows);  // fewer values than the first brackets need
  StatisticsState saved = run.save();
  ASSERT_FALSE(saved.sketch_brackets.empty());
  saved.sketch_brackets.clear();
  saved.sketch_counts.clear();
  resumed.restore(saved);
  for (int b = 0; b < 4; ++b) {
    const std::vector<double> values = batch();
    none.clear();
    run.add(none, values, rows);
    none.clear();
    resumed.add(none, values, rows);
  }
  for (std::size_t c = 0; c < columns; ++c) {
    const auto a = run.quantiles(c), b = resumed.quantiles(c);
    for (std::size_t p = 0; p < a.size(); ++p) EXPECT_EQ(bits_of(a[p]), bits_of(b[p])) << c;
    EXPECT_EQ(run.rank_error_95(c), resumed.rank_error_95(c)) << c;
  }
  // Brackets with the wrong number of columns are refused, naming what is wrong.
  StatisticsState short_brackets = run.save();
  short_brackets.sketch_brackets.pop_back();
  EXPECT_THROW(resumed.restore(short_brackets), std::runtime_error);
}

// Over the memory budget, quantiles come from a sketch per column, fed every sample; each
// estimate's rank in the full set lies within the recorded 95 % bound. Checked with the same
// Hoeffding bound at 99.99 % (√(ln(2/1e-4) / ln 40) times the 95 % one), which every one of the
// 135 estimates meets unless something is wrong (a 1e-4 chance each).
// Settling the sketches before the writer's estimates (RunStatistics::settle_sketches: each
// lowest level sorted in place) moves no estimate and no bound, then or after more batches, against
// a twin never settled.
TEST(RunStatistics, SettlingTheSketchesMovesNoEstimate) {
  const Scenario scenario = parse_scenario(kThrown + "[output]\ninterval = 0.25\nquantile_memory_mb = 64\n", "a.toml");
  RunStatistics settled(scenario, 1000000, 2), twin(scenario, 1000000, 2);
  ASSERT_FALSE(settled.exact());
  const std::size_t columns = settled.n_columns(), rows = 7000;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  const auto add_batch = [&] {
    std::vector<double> values(columns * rows);
    for (double& v : values) v = normal(rng);
    std::vector<Moments> m;
    settled.add(m, values, rows);
    twin.add(m, values, rows);
  };
  const auto expect_same_estimates = [&](const char* what) {
    const auto q_settled = settled.all_quantiles(), q_twin = twin.all_quantiles();
    const std::vector<double> e_settled = settled.all_rank_errors_95(), e_twin = twin.all_rank_errors_95();
    for (std::size_t c = 0; c < columns; ++c) {
      for (std::size_t p = 0; p < q_twin[c].size(); ++p) EXPECT_EQ(bits_of(q_settled[c][p]), bits_of(q_twin[c][p])) << what << c;
      EXPECT_EQ(e_settled[c], e_twin[c]) << what << c;
    }
  };
  add_batch();  // past the first brackets (4,096 values a column), which sort the lowest levels
  add_batch();
  settled.settle_sketches();
  expect_same_estimates("settled, column ");
  add_batch();  // past the update at 16,384: values added to sorted levels, then sorted again
  settled.settle_sketches();
  settled.settle_sketches();
  add_batch();
  expect_same_estimates("added to, column ");
}

TEST(RunStatistics, SketchedQuantilesStayWithinTheirRankBound) {
  test::TempDir dir;
  // 1500 samples × 9 times × 12 quantities × 8 bytes = 1.3 MB against a 1 MiB budget.
  const std::string path = run(dir, "q.h5", "[output]\ninterval = 0.25\nquantile_memory_mb = 1\n");
  const ResultsReader r(path);
  EXPECT_EQ(r.number_attribute("statistics", "quantile_samples"), 1500);
  EXPECT_NE(r.string_attribute("statistics", "quantile_method").find("sketch"), std::string::npos);
  const Array<double> x = r.doubles("trajectories/position"), est = r.doubles("statistics/position/quantiles");
  const std::vector<double> recorded = r.doubles("statistics/position/quantile_rank_error_95").data;
  ASSERT_EQ(recorded.size(), 27u);
  // The bound depends on the compactions alone, so on the count: the same for every column here,
  // but those whose values are all one number (each sample's position at t = 0), which are exact
  // (bracketed_sketch.hpp: held back, not sketched).
  const double common = recorded.back();
  EXPECT_GT(common, 0.0);
  for (std::size_t k = 0; k < 9; ++k)
    for (std::size_t j = 0; j < 3; ++j) {
      const std::vector<double> v = slice(x, k, j);
      const bool one_number = std::all_of(v.begin(), v.end(), [&](double e) { return e == v[0]; });
      EXPECT_EQ(recorded[k * 3 + j], one_number ? 0.0 : common) << k << j;
      EXPECT_EQ(one_number, k == 0) << k << j;
      const double bound = recorded[k * 3 + j] * std::sqrt(std::log(2 / 1e-4) / std::log(40.0));
      EXPECT_LT(recorded[k * 3 + j], 0.1);
      for (std::size_t p = 0; p < 5; ++p) {
        const double q = est.data[(k * 5 + p) * 3 + j];
        // The rank of q is the interval [F(q−), F(q)] (ties); the sketch aims at p (n − 1) / n.
        const double n = double(v.size()), target = kQuantileProbabilities[p] * (n - 1) / n;
        const double below = double(std::count_if(v.begin(), v.end(), [&](double e) { return e < q; })) / n;
        const double at_or_below = double(std::count_if(v.begin(), v.end(), [&](double e) { return e <= q; })) / n;
        EXPECT_GE(target, below - bound - 1 / n) << k << j << p;
        EXPECT_LE(target, at_or_below + bound) << k << j << p;
      }
    }
}

// Batches compacted where they lie (a GPU's way: rbmc/stats/batch_compaction.hpp), here by the
// CPU's reference: the same moments as every value gives, and each quantile's rank within the
// recorded 95 % bound, checked at 99.99 % as above (the bound counts the batches' compactions).
// From the second batch on, only the values inside the brackets the first left are compacted;
// the others are counted.
TEST(RunStatistics, CompactedBatchesStayWithinTheirRankBound) {
  // 9 times × 12 quantities; a 1 MiB budget gives sketches of k near 300 (keep 2k), so that each
  // batch of 20,000 is compacted several levels.
  const Scenario scenario = parse_scenario(kThrown + "[output]\ninterval = 0.25\nquantile_memory_mb = 1\n", "t.toml");
  constexpr std::size_t kRows = 20000, kBatches = 5, kOneNumber = 7;
  const std::size_t columns = std::size_t(scenario.output_times.n) * quantity::count;
  RunStatistics compacted(scenario, kRows * kBatches, 2), every_value(scenario, kRows * kBatches, 2);
  ASSERT_FALSE(compacted.exact());
  ASSERT_TRUE(compacted.bracketed());
  ASSERT_GT(batch_compaction_levels(kRows, compacted.compaction_request(0).keep), 2);
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> all(columns);
  for (std::size_t b = 0; b < kBatches; ++b) {
    std::vector<double> values(columns * kRows);
    for (std::size_t c = 0; c < columns; ++c)
      for (std::size_t r = 0; r < kRows; ++r) {
        // Normal, log-normal and tied columns, with a few non-finite values, counted apart.
        const double z = normal(rng);
        double& v = values[c * kRows + r];
        v = c % 3 == 0 ? z : c % 3 == 1 ? std::exp(2 * z) : std::floor(4 * z);
        if (c == kOneNumber) v = 2.5;  // as free space's potential energy: its estimates exact
        if (r % 4999 == 17) v = r % 2 == 0 ? INFINITY : NAN;
        if (std::isfinite(v)) all[c].push_back(v);
      }
    std::vector<Moments> moments, none;
    every_value.add(none, values, kRows);  // the moments of every value, handed back
    moments = none;
    std::vector<double> sent;
    std::vector<ColumnBrackets> brackets;
    std::vector<ColumnTally> tallies;
    std::vector<std::uint64_t> offsets;
    compacted.compaction_brackets(brackets);
    const BatchCompactionRequest request = compacted.compaction_request(b * kRows);
    test::compact_columns_for_reference(values, kRows, columns, request, brackets, tallies, offsets, sent);
    EXPECT_LT(sent.size() * 10, values.size());  // a tenth of the values cross, at most
    for (std::size_t c = 0; c < columns; ++c) {
      const auto finite = std::uint64_t(moments[c].count);
      // Before any bracket every finite value is compacted. After 20,000 values each bracket spans
      // 12 standard deviations of its quantile's estimate (0.017–0.085 of the values for p = 0.01
      // to 0.5) and four times the sketch's error (k ≈ 300): about a third of the values are kept.
      // A column of one number keeps every value inside its one-point brackets.
      if (b == 0 || c == kOneNumber) {
        EXPECT_EQ(tallies[c].kept, finite) << c;
      } else {
        EXPECT_LT(2 * tallies[c].kept, finite) << b << " " << c;
      }
    }
    compacted.add_compacted(moments, tallies, offsets, sent, kRows);
  }
  EXPECT_EQ(compacted.quantile_samples(), kRows * kBatches);
  for (std::size_t c = 0; c < columns; ++c) {
    expect_same_moments(compacted.moments()[c], every_value.moments()[c], "column " + std::to_string(c));
    // The batches' compactions count in the bound; at most 0.78 / k more than a plain sketch fed
    // every value (batch_compaction.hpp), and fewer low-level compactions usually make it less.
    // (The run's own sketch of every value is bracketed, with a smaller bound still.)
    std::vector<double>& v = all[c];
    QuantileSketch plain(compacted.sketch_k(), statistics_column_seed(5, c));
    plain.add(v.data(), v.size());
    if (c == kOneNumber) {  // compacted like any other column, but every value is one number
      EXPECT_EQ(compacted.rank_error_95(c), 0.0);
      EXPECT_EQ(compacted.all_rank_errors_95()[c], 0.0);
      for (double x : compacted.quantiles(c)) EXPECT_EQ(x, 2.5);
      continue;
    }
    EXPECT_GT(compacted.rank_error_95(c), 0.0) << c;
    EXPECT_LE(compacted.rank_error_95(c), plain.rank_error_95() + 0.78 / compacted.sketch_k()) << c;
    EXPECT_LE(every_value.rank_error_95(c), plain.rank_error_95()) << c;
    std::sort(v.begin(), v.end());
    const double n = double(v.size()), bound = compacted.rank_error_95(c) * std::sqrt(std::log(2 / 1e-4) / std::log(40.0));
    const auto q = compacted.quantiles(c);
    for (std::size_t p = 0; p < q.size(); ++p) {
      const double target = kQuantileProbabilities[p] * (n - 1) / n;
      const double below = double(std::lower_bound(v.begin(), v.end(), q[p]) - v.begin()) / n;
      const double at_or_below = double(std::upper_bound(v.begin(), v.end(), q[p]) - v.begin()) / n;
      EXPECT_GE(target, below - bound - 1 / n) << c << " " << p;
      EXPECT_LE(target, at_or_below + bound) << c << " " << p;
    }
  }
  // Offsets that do not match a column's tally are the caller's error, found before anything is
  // merged.
  std::vector<Moments> moments = compacted.moments();
  std::vector<ColumnTally> tallies(columns, ColumnTally{});
  std::vector<std::uint64_t> offsets(columns + 1);
  for (std::size_t c = 0; c < columns; ++c) offsets[c + 1] = offsets[c] + 1;
  tallies[0].kept = 2;  // one value sent, two kept: no compaction below 2 · keep
  EXPECT_THROW(compacted.add_compacted(moments, tallies, offsets, std::vector<double>(columns), kRows),
               std::logic_error);
}

// Each retention rule keeps the samples it names, in index order, and statistics still cover all.
TEST(TrajectoryRetention, EachRuleKeepsItsSamples) {
  test::TempDir dir;
  const auto kept = [&](const std::string& rule) {
    const std::string path = run(dir, "r.h5", "[output]\ninterval = 0.5\ntrajectories = " + rule + "\n", 256);
    const ResultsReader r(path);
    EXPECT_EQ(r.doubles("statistics/position/count").data.front(), 1500) << rule;
    const auto index = r.uint64s("trajectories/sample_index").data;
    EXPECT_EQ(r.number_attribute("", "n_trajectories"), double(index.size()));
    EXPECT_EQ(r.doubles("trajectories/position").shape.front(), index.size());
    return index;
  };
  EXPECT_EQ(kept("{ every = 500 }"), (std::vector<std::uint64_t>{0, 500, 1000}));
  EXPECT_EQ(kept("{ samples = [1499, 3, 700] }"), (std::vector<std::uint64_t>{3, 700, 1499}));
  EXPECT_EQ(kept("{ limit = 4 }"), (std::vector<std::uint64_t>{0, 1, 2, 3}));
  // The event "high" (z rising through 0.5 m): samples launched fast enough, which the file says.
  const std::string all = run(dir, "all.h5", "[output]\ninterval = 0.5\n", 256);
  const ResultsReader a(all);
  const auto count = a.doubles("samples/events/high/count").data;
  const auto vz = a.doubles("samples/initial/velocity").data, pz = a.doubles("samples/final/position").data;
  std::vector<std::uint64_t> with_event, low_final;
  for (std::size_t i = 0; i < count.size(); ++i) {
    if (count[i] > 0) with_event.push_back(i);
    if (pz[3 * i + 2] >= -1.0 && pz[3 * i + 2] <= 0.0) low_final.push_back(i);
  }
  ASSERT_FALSE(with_event.empty());
  EXPECT_EQ(kept("{ event = \"high\" }"), with_event);
  EXPECT_EQ(kept("{ final = \"position.z\", min = -1.0, max = 0.0 }"), low_final);
  EXPECT_EQ(kept("{ event = \"high\", limit = 2 }"), (std::vector<std::uint64_t>{with_event[0], with_event[1]}));
  EXPECT_TRUE(kept("{ status = \"terminal_event\" }").empty());
  EXPECT_EQ(kept("{ status = \"ok\" }").size(), 1500u);
  (void)vz;
  // A rule by index names its rows before they are integrated, and the CPU backend then keeps only
  // their states (BatchNeeds::state_rows); a rule on outcomes, or "all", keeps every row's.
  // The same samples' trajectories either way, bit for bit, in batches of 256 samples.
  const auto trajectories_of = [&](const std::string& path, const std::vector<std::uint64_t>& samples) {
    const ResultsReader r(path);
    const auto index = r.uint64s("trajectories/sample_index").data;
    std::vector<double> values;
    for (const char* name : {"position", "orientation", "velocity", "angular_velocity"}) {
      const Array<double> a = r.doubles(std::string("trajectories/") + name);
      const std::size_t per_sample = a.data.size() / a.shape.front();
      for (std::uint64_t sample : samples) {
        const auto at = std::find(index.begin(), index.end(), sample);
        EXPECT_NE(at, index.end()) << path << " keeps no trajectory of sample " << sample;
        if (at == index.end()) return values;
        const auto from = a.data.begin() + std::ptrdiff_t(std::size_t(at - index.begin()) * per_sample);
        values.insert(values.end(), from, from + std::ptrdiff_t(per_sample));
      }
    }
    return values;
  };
  const std::vector<std::uint64_t> listed = {3, 700, 1499};
  const std::vector<double> by_index = trajectories_of(
      run(dir, "l.h5", "[output]\ninterval = 0.5\ntrajectories = { samples = [1499, 3, 700] }\n", 256), listed);
  const std::vector<double> every_row = trajectories_of(all, listed);
  ASSERT_EQ(by_index.size(), every_row.size());
  EXPECT_EQ(std::memcmp(by_index.data(), every_row.data(), by_index.size() * sizeof(double)), 0);
  const std::vector<std::uint64_t> first = {0, 1, 2, 3};
  const std::vector<double> limited =
      trajectories_of(run(dir, "f.h5", "[output]\ninterval = 0.5\ntrajectories = { limit = 4 }\n", 256), first);
  const std::vector<double> limited_by_outcome = trajectories_of(
      run(dir, "s.h5", "[output]\ninterval = 0.5\ntrajectories = { status = \"ok\", limit = 4 }\n", 256), first);
  ASSERT_EQ(limited.size(), limited_by_outcome.size());
  EXPECT_EQ(std::memcmp(limited.data(), limited_by_outcome.data(), limited.size() * sizeof(double)), 0);
  // "none": no trajectories at all, statistics still there.
  const std::string none = run(dir, "n.h5", "[output]\ninterval = 0.5\ntrajectories = \"none\"\n");
  const ResultsReader n(none);
  EXPECT_FALSE(n.has("trajectories/position"));
  EXPECT_TRUE(n.has("statistics/position/mean"));
  const std::string off = run(dir, "o.h5", "[output]\ninterval = 0.5\nstatistics = false\n");
  EXPECT_FALSE(ResultsReader(off).has("statistics"));
}

TEST(TrajectoryRetention, BadRulesNameTheKey) {
  const auto key_of = [](const std::string& output) {
    try {
      parse_scenario(kThrown + "[output]\ninterval = 0.5\n" + output, "bad.toml");
    } catch (const ScenarioError& e) {
      return e.key_path();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(key_of("trajectories = \"some\"\n"), "output.trajectories");
  EXPECT_EQ(key_of("trajectories = { every = 0 }\n"), "output.trajectories.every");
  EXPECT_EQ(key_of("trajectories = { event = \"low\" }\n"), "output.trajectories.event");
  EXPECT_EQ(key_of("trajectories = { status = \"fine\" }\n"), "output.trajectories.status");
  EXPECT_EQ(key_of("trajectories = { final = \"position.w\", min = 0.0, max = 1.0 }\n"), "output.trajectories.final");
  EXPECT_EQ(key_of("trajectories = { final = \"position.z\", min = 0.0 }\n"), "output.trajectories.max");
  EXPECT_EQ(key_of("trajectories = { every = 2, limit = 3, colour = 1 }\n"), "output.trajectories.colour");
  EXPECT_EQ(key_of("trajectories = { every = 2, samples = [1] }\n"), "output.trajectories.every");
  EXPECT_EQ(key_of("statistics = 1\n"), "output.statistics");
  EXPECT_EQ(key_of("quantile_memory_mb = 0\n"), "output.quantile_memory_mb");
  EXPECT_EQ(key_of("trajectories = { every = 2, limit = 3 }\nstatistics = false\n"), "(accepted)");
}

}  // namespace
}  // namespace rbmc

// The brackets' filter (host/stats/bracket_filter.hpp), every width, against the core's rule
// value by value (tally_value, rbmc/stats/batch_compaction.hpp, what the GPU's kernel applies):
// the kept values in order, the counts below each bracket and the finite count, for every length
// around a vector's and edge values on and beside every bracket's edges, zeros of both signs, the
// infinities and NaN; and nothing written past the room the header asks for.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "host/stats/bracket_filter.hpp"
#include "rbmc/stats/batch_compaction.hpp"

namespace rbmc {
namespace {

std::vector<std::uint64_t> bits_of(const double* v, std::size_t n) {
  std::vector<std::uint64_t> b(n);
  std::memcpy(b.data(), v, n * sizeof(double));
  return b;
}

TEST(BracketFilter, EveryWidthKeepsAndCountsAsTheRuleDoes) {
  ColumnBrackets b;
  const double lo[kColumnBrackets] = {-2.0, -1.0, -0.25, 0.5, 0.5};  // the last two overlap
  const double hi[kColumnBrackets] = {-1.5, -0.5, 0.25, 1.0, 0.75};
  for (int j = 0; j < kColumnBrackets; ++j) {
    b.lo[j] = lo[j];
    b.hi[j] = hi[j];
  }
  std::vector<double> special = {0.0, -0.0, INFINITY, -INFINITY, NAN, 3.0, -3.0};
  for (int j = 0; j < kColumnBrackets; ++j)
    for (double edge : {lo[j], hi[j]})
      special.insert(special.end(), {edge, std::nextafter(edge, -INFINITY), std::nextafter(edge, INFINITY)});
  std::mt19937_64 rng(21);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<std::size_t> pick(0, special.size() - 1);
  std::size_t kept_somewhere = 0, counted_somewhere = 0;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(8), std::size_t(9), std::size_t(15),
                        std::size_t(16), std::size_t(17), std::size_t(31), std::size_t(100), std::size_t(4096)}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> v(n);
      for (double& x : v) x = trial % 2 == 0 ? special[pick(rng)] : normal(rng);
      // The rule, value by value.
      ColumnTally expected{};
      std::uint64_t expected_finite = 0;
      std::vector<double> expected_kept;
      for (double x : v) {
        expected_finite += std::isfinite(x) ? 1 : 0;
        if (tally_value(x, b, expected)) expected_kept.push_back(x);
      }
      kept_somewhere += expected_kept.size();
      counted_somewhere += expected_finite - expected_kept.size();
      for (BracketFilterWidth width : kBracketFilterWidths) {
        const std::string what = "n = " + std::to_string(n) + ", trial " + std::to_string(trial) +
                                 ", " + std::string(bracket_filter_width_name(width));
        // The room the header promises to need, and a guard past it: every width stores whole
        // vectors whether or not any value of them is kept, so a store beyond n + slack would
        // overwrite the caller's next value.
        constexpr double kGuard = 7.0;
        std::vector<double> kept(n + kBracketFilterSlack + 16, kGuard);
        std::uint64_t below[kColumnBrackets] = {1, 2, 3, 4, 5}, finite = 10;  // added to
        const std::size_t m = keep_inside_brackets(v.data(), n, lo, hi, below, finite, kept.data(), width);
        for (std::size_t i = n + kBracketFilterSlack; i < kept.size(); ++i)
          ASSERT_EQ(kept[i], kGuard) << what << ": written past the room at " << i;
        ASSERT_EQ(m, expected_kept.size()) << what;
        EXPECT_EQ(bits_of(kept.data(), m), bits_of(expected_kept.data(), m)) << what;  // −0 and +0 told apart
        EXPECT_EQ(finite, 10 + expected_finite) << what;
        for (int j = 0; j < kColumnBrackets; ++j) EXPECT_EQ(below[j], std::uint64_t(j + 1) + expected.below[j]) << what << ", bracket " << j;
      }
    }
  }
  EXPECT_GT(kept_somewhere, 1000u);
  EXPECT_GT(counted_somewhere, 1000u);
}

}  // namespace
}  // namespace rbmc

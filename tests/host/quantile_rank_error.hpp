// How far an estimated quantile's rank lies from the rank asked for: the quantile tests' measure.
#pragma once

#include <algorithm>
#include <vector>

namespace rbmc::test {

// How far (as a fraction of the count) the ranks of x in the sorted values lie from p (n − 1): 0
// when some copy of x sits at that rank.
inline double rank_error(const std::vector<double>& sorted, double x, double p) {
  const double n = double(sorted.size());
  const double first = double(std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin());
  const double last = double(std::upper_bound(sorted.begin(), sorted.end(), x) - sorted.begin()) - 1;
  const double rank = p * (n - 1);
  return (rank < first ? first - rank : rank > last ? rank - last : 0.0) / n;
}

}  // namespace rbmc::test

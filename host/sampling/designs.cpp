#include "host/sampling/designs.hpp"

#include <boost/random/sobol.hpp>

namespace rbmc {

SobolPoints::SobolPoints(int dimensions) : dimensions_(dimensions), directions_(std::size_t(dimensions) * 32) {
  if (dimensions <= 0) return;
  // Boost's engine starts after the origin: seed(i) gives the point of Gray code g(i + 1). The
  // direction number v_b is the point whose Gray code is 2^b, i.e. seed(2^(b+1) − 2).
  boost::random::sobol_engine<std::uint32_t, 32> engine(static_cast<std::size_t>(dimensions));
  for (int b = 0; b < 32; ++b) {
    engine.seed((std::uint64_t(2) << b) - 2);
    for (int j = 0; j < dimensions; ++j) directions_[std::size_t(j) * 32 + std::size_t(b)] = engine();
  }
}

std::string sobol_balance_note(std::uint64_t n) {
  if (n == 0 || (n & (n - 1)) == 0) return "";
  std::uint64_t below = 1;
  while (below * 2 < n) below *= 2;
  return std::to_string(n) + " samples are not a power of two, at which Sobol points stay balanced (" +
         std::to_string(below) + " or " + std::to_string(below * 2) + " would be)";
}

}  // namespace rbmc

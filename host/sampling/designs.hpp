// The uniform points behind each sampling design. Every distribution is drawn by inversion from
// uniforms in (0, 1), so Monte Carlo, Latin hypercube and Sobol designs share one transform
// (sampling_plan.cpp) and differ only in where their uniforms come from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rbmc/random/design_points.hpp"

namespace rbmc {

// Sobol points (Joe–Kuo direction numbers, taken from Boost.Random so that rbmc carries no table
// of its own): the direction numbers of each dimension, for sobol_coordinate (design_points.hpp).
class SobolPoints {
 public:
  static constexpr int kMaxDimensions = 3667;  // Boost.Random's table
  explicit SobolPoints(int dimensions);
  int dimensions() const { return dimensions_; }
  std::uint32_t coordinate(std::uint64_t k, int dimension) const { return sobol_coordinate(directions(dimension), k); }
  // The direction numbers of this dimension and the next ones, (dimensions − dimension, 32).
  const std::uint32_t* directions(int dimension) const { return directions_.data() + std::size_t(dimension) * 32; }

 private:
  int dimensions_;
  std::vector<std::uint32_t> directions_;  // (dimensions, 32)
};

// Sobol points stay balanced (every dyadic box holds its share of them, which is what makes their
// means converge faster than Monte Carlo's) at a power-of-two count: empty for such an n, else a
// note naming the powers of two either side (docs/scenario.md, "Sobol").
std::string sobol_balance_note(std::uint64_t n);

}  // namespace rbmc

// The uniform points behind each sampling design. Every distribution is drawn by inversion from
// uniforms in (0, 1), so Monte Carlo, Latin hypercube and Sobol designs share one transform
// (sampling_plan.cpp) and differ only in where their uniforms come from.
#pragma once

#include <cstdint>
#include <vector>

namespace rbmc {

// A pseudo-random permutation of [0, n), n ≤ 2^32, keyed by (seed, stream, component): a
// four-round Feistel network whose round function is Philox, on the smallest power of four
// ≥ n, with values ≥ n walked back into range ("cycle walking", Black & Rogaway 2002). It is a
// bijection for any key, costs O(1) per index and needs no memory, so any sample's stratum can
// be found without building the permutation.
std::uint64_t keyed_permutation(std::uint64_t index, std::uint64_t n, std::uint64_t seed, std::uint32_t stream,
                                std::uint32_t component);

// Owen's nested uniform scrambling of a 32-bit fixed-point coordinate, by Burley's hash-based
// construction ("Practical Hash-based Owen Scrambling", JCGT 9(4), 2020): reverse the bits, apply
// the Laine–Karras permutation (each bit flipped by a hash of the bits below it), reverse back.
std::uint32_t owen_scramble(std::uint32_t x, std::uint32_t seed);

// Sobol points (Joe–Kuo direction numbers, taken from Boost.Random so that rbmc carries no table
// of its own), point k in Gray-code order starting with the origin: x_j(k) = ⊕_b v_j,b over the
// bits b set in k ⊕ (k >> 1). Unscrambled, as 32-bit fixed-point fractions.
class SobolPoints {
 public:
  static constexpr int kMaxDimensions = 3667;  // Boost.Random's table
  explicit SobolPoints(int dimensions);
  int dimensions() const { return dimensions_; }
  std::uint32_t coordinate(std::uint64_t k, int dimension) const;

 private:
  int dimensions_;
  std::vector<std::uint32_t> directions_;  // (dimensions, 32)
};

}  // namespace rbmc

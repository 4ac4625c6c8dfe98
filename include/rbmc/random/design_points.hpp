// Where a sampling design's uniforms come from: the stratum of a Latin hypercube, the scrambled
// coordinate of a Sobol point, each jittered within its cell by a draw of the sample's own
// Philox stream. Integer arithmetic and one rounded operation each: the same bits on any
// compiler, machine and backend (rbmc/math/portable_math.hpp).
#pragma once

#include <cstdint>

#include <Random123/philox.h>

#include "rbmc/hd.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc {

// A pseudo-random permutation of [0, n), n ≤ 2^32, keyed by (seed, stream, component): a
// four-round Feistel network whose round function is Philox, on the smallest power of four
// ≥ n, with values ≥ n walked back into range ("cycle walking", Black & Rogaway 2002). It is a
// bijection for any key, costs O(1) per index and needs no memory, so any sample's stratum can
// be found without building the permutation.
RBMC_HD inline std::uint64_t keyed_permutation(std::uint64_t index, std::uint64_t n, std::uint64_t seed,
                                               std::uint32_t stream, std::uint32_t component) {
  int half = 1;  // bits in each half of the Feistel block: 4^half ≥ n
  while ((std::uint64_t(1) << (2 * half)) < n) ++half;
  const std::uint64_t mask = (std::uint64_t(1) << half) - 1;
  const r123::Philox4x32::key_type key{{std::uint32_t(seed), std::uint32_t(seed >> 32)}};
  std::uint64_t x = index;
  do {
    std::uint64_t left = x >> half, right = x & mask;
    for (std::uint32_t round = 0; round < 4; ++round) {
      const r123::Philox4x32::ctr_type ctr{{std::uint32_t(right), stream, component, 0x4c480000u | round}};
      const std::uint64_t f = r123::Philox4x32()(ctr, key)[0] & mask;
      const std::uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    x = (left << half) | right;
  } while (x >= n);  // at most 4n / n = 4 walks expected
  return x;
}

RBMC_HD inline std::uint32_t reverse_bits(std::uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}

// Owen's nested uniform scrambling of a 32-bit fixed-point coordinate, by Burley's hash-based
// construction ("Practical Hash-based Owen Scrambling", JCGT 9(4), 2020): reverse the bits, apply
// the Laine–Karras permutation (each bit flipped by a hash of the bits below it), reverse back.
RBMC_HD inline std::uint32_t owen_scramble(std::uint32_t x, std::uint32_t seed) {
  x = reverse_bits(x);
  // Burley's improved Laine–Karras hash: each step changes bits only from lower bits upward.
  x += seed;
  x ^= x * 0x6c50b47cu;
  x ^= x * 0xb82f1e52u;
  x ^= x * 0xc7afe638u;
  x ^= x * 0x8d22f6e6u;
  return reverse_bits(x);
}

// Coordinate of Sobol point k (Gray-code order, starting with the origin) in one dimension, as a
// 32-bit fixed-point fraction: x(k) = ⊕_b v_b over the bits b set in k ⊕ (k >> 1).
// directions: that dimension's 32 direction numbers v_b.
RBMC_HD inline std::uint32_t sobol_coordinate(const std::uint32_t* directions, std::uint64_t k) {
  std::uint64_t gray = k ^ (k >> 1);
  std::uint32_t x = 0;
  for (int b = 0; gray != 0; ++b, gray >>= 1)
    if (gray & 1) x ^= directions[b];
  return x;
}

// The key of a design dimension's scrambling: (seed, the draw unit's stream, its component).
RBMC_HD inline std::uint32_t scramble_seed(std::uint64_t seed, std::uint32_t stream, int component) {
  const r123::Philox4x32::key_type key{{std::uint32_t(seed), std::uint32_t(seed >> 32)}};
  const r123::Philox4x32::ctr_type ctr{{stream, std::uint32_t(component), 0x50b01000u, 0}};
  return r123::Philox4x32()(ctr, key)[0];
}

// Where a draw's uniforms come from: the sample's own Philox stream, or a design's point.
enum class UniformSource : std::uint8_t { philox, latin_hypercube, sobol };

// What one draw unit (a dispersion, or a correlation group, drawn from one stream) needs to give
// sample k its uniforms.
struct DrawUnitKey {
  std::uint64_t seed;            // the run's
  std::uint64_t n_samples;       // the run's: a Latin hypercube's strata
  std::uint32_t stream;          // the unit's Philox stream id
  const std::uint32_t* sobol;    // Sobol: the direction numbers of the unit's dimensions, (n_uniforms, 32)
};

// Draw indices a unit may take per attempt: attempt a takes [a · kMaxUniformsPerAttempt, …), so a
// redraw never reuses a number.
constexpr int kMaxUniformsPerAttempt = 64;

// Uniform j in (0, 1) of a draw unit for sample k. Attempt 0 takes the design's point; a redraw
// (attempt > 0) comes from the Philox stream whatever the design, as a design point cannot be
// drawn twice. Latin hypercube: stratum π(k) of n, jittered within it; Sobol: the Owen-scrambled
// coordinate's cell of width 2^-32, jittered within it.
RBMC_HD inline double design_uniform(UniformSource source, const DrawUnitKey& unit, std::uint64_t k, int attempt,
                                     int j) {
  const double jitter =
      PhiloxStream(unit.seed, k, unit.stream).uniform_open(std::uint32_t(attempt * kMaxUniformsPerAttempt + j));
  if (attempt > 0) source = UniformSource::philox;
  switch (source) {
    case UniformSource::latin_hypercube: {
      const std::uint64_t stratum = keyed_permutation(k, unit.n_samples, unit.seed, unit.stream, std::uint32_t(j));
      return (double(stratum) + jitter) / double(unit.n_samples);
    }
    case UniformSource::sobol: {
      const std::uint32_t x = owen_scramble(sobol_coordinate(unit.sobol + 32 * j, k), scramble_seed(unit.seed, unit.stream, j));
      return (double(x) + jitter) * 0x1p-32;  // exact scaling
    }
    default: return jitter;
  }
}

}  // namespace rbmc

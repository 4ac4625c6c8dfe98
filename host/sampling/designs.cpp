#include "host/sampling/designs.hpp"

#include <boost/random/sobol.hpp>
#include <Random123/philox.h>

namespace rbmc {

std::uint64_t keyed_permutation(std::uint64_t index, std::uint64_t n, std::uint64_t seed, std::uint32_t stream,
                                std::uint32_t component) {
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

namespace {
std::uint32_t reverse_bits(std::uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
}  // namespace

std::uint32_t owen_scramble(std::uint32_t x, std::uint32_t seed) {
  x = reverse_bits(x);
  // Burley's improved Laine–Karras hash: each step changes bits only from lower bits upward.
  x += seed;
  x ^= x * 0x6c50b47cu;
  x ^= x * 0xb82f1e52u;
  x ^= x * 0xc7afe638u;
  x ^= x * 0x8d22f6e6u;
  return reverse_bits(x);
}

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

std::uint32_t SobolPoints::coordinate(std::uint64_t k, int dimension) const {
  std::uint64_t gray = k ^ (k >> 1);
  const std::uint32_t* v = &directions_[std::size_t(dimension) * 32];
  std::uint32_t x = 0;
  for (int b = 0; gray != 0; ++b, gray >>= 1)
    if (gray & 1) x ^= v[b];
  return x;
}

}  // namespace rbmc

// Counter-based random numbers keyed so that any sample can be recomputed anywhere.
//
// Philox4x32-10 (Random123) with key = the run's 64-bit seed and counter = (sample index,
// stream id, draw index). The stream id is a hash of the parameter's key path, so the draws of
// one parameter do not depend on which other parameters a scenario disperses, on the batch
// size, on the thread count or on the backend.
#pragma once

#include <cstdint>

#include <Random123/boxmuller.hpp>
#include <Random123/philox.h>
#include <Random123/uniform.hpp>

#include "rbmc/hd.hpp"

namespace rbmc {

// FNV-1a, 32 bits: a stable id for a key path such as "body.mass".
RBMC_HD constexpr std::uint32_t stream_id(const char* key_path) {
  std::uint32_t h = 2166136261u;
  for (; *key_path != '\0'; ++key_path) {
    h ^= static_cast<std::uint8_t>(*key_path);
    h *= 16777619u;
  }
  return h;
}

class PhiloxStream {
 public:
  RBMC_HD PhiloxStream(std::uint64_t seed, std::uint64_t sample, std::uint32_t stream)
      : key_{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}},
        sample_(sample),
        stream_(stream) {}

  // Four independent 32-bit words for draw index `draw`.
  RBMC_HD r123::Philox4x32::ctr_type block(std::uint32_t draw) const {
    const r123::Philox4x32::ctr_type ctr{
        {static_cast<std::uint32_t>(sample_), static_cast<std::uint32_t>(sample_ >> 32), stream_, draw}};
    return r123::Philox4x32()(ctr, key_);
  }

  // A uniform double in (0, 1] from draw `draw` (53 random bits).
  RBMC_HD double uniform(std::uint32_t draw) const {
    const auto r = block(draw);
    return r123::u01<double>(join(r[0], r[1]));
  }

  // A uniform double in the open interval (0, 1) from draw `draw`: 53 random bits, centred in
  // their cell, so that inverse CDFs (Φ⁻¹ at 0 or 1 is infinite) stay finite.
  RBMC_HD double uniform_open(std::uint32_t draw) const {
    const auto r = block(draw);
    return (static_cast<double>(join(r[0], r[1]) >> 11) + 0.5) * 0x1p-53;
  }

  // A standard normal double from draw `draw` (Box–Muller on the block's two 64-bit words).
  RBMC_HD double normal(std::uint32_t draw) const {
    const auto r = block(draw);
    return r123::boxmuller(join(r[0], r[1]), join(r[2], r[3])).x;
  }

 private:
  RBMC_HD static std::uint64_t join(std::uint32_t lo, std::uint32_t hi) {
    return static_cast<std::uint64_t>(lo) | (static_cast<std::uint64_t>(hi) << 32);
  }

  r123::Philox4x32::key_type key_;
  std::uint64_t sample_;
  std::uint32_t stream_;
};

}  // namespace rbmc

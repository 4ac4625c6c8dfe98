// Which instruction set's lane groups run (each set's are compiled in their own unit,
// cpu_lanes_isa.hpp), chosen at run time.
#include "host/backend/cpu_lanes.hpp"

#include <cstdlib>
#include <string>

#include "host/backend/cpu_lanes_isa.hpp"
#include "host/errors.hpp"

namespace rbmc {

namespace {

LaneIsa widest_supported() {
  for (const LaneIsa isa : {LaneIsa::avx512, LaneIsa::avx2, LaneIsa::sse2})
    if (lane_isa_supported(isa)) return isa;
  return LaneIsa::off;
}

}  // namespace

const char* lane_isa_name(LaneIsa isa) {
  switch (isa) {
    case LaneIsa::off: return "off";
    case LaneIsa::sse2: return "sse2";
    case LaneIsa::avx2: return "avx2";
    case LaneIsa::avx512: return "avx512";
  }
  return "off";
}

bool lane_isa_supported(LaneIsa isa) {
  if (isa == LaneIsa::off) return true;
#if defined(RBMC_X86_LANES)
  __builtin_cpu_init();
  switch (isa) {
    case LaneIsa::sse2: return true;
    case LaneIsa::avx2: return __builtin_cpu_supports("avx2");
    case LaneIsa::avx512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    case LaneIsa::off: break;
  }
#endif
  return false;
}

LaneIsa chosen_lane_isa() {
  const char* asked = std::getenv("RBMC_CPU_SIMD");
  if (asked == nullptr || *asked == '\0') return widest_supported();
  for (const LaneIsa isa : {LaneIsa::off, LaneIsa::sse2, LaneIsa::avx2, LaneIsa::avx512}) {
    if (std::string(asked) != lane_isa_name(isa)) continue;
    if (!lane_isa_supported(isa))
      throw UsageError(std::string("RBMC_CPU_SIMD=") + asked + ": this processor (or this build) cannot run it; " +
                       "the widest it can is " + lane_isa_name(widest_supported()));
    return isa;
  }
  throw UsageError(std::string("RBMC_CPU_SIMD=") + asked + ": not one of off, sse2, avx2, avx512");
}

// Widths: one vector register's worth of lanes. Two registers' worth gave no more on AVX2 and
// AVX-512 (bench/RESULTS.md, 2026-11-23, fourth session): the right-hand side's temporaries
// then outgrow the register file.
template <class Scalar>
LaneGroups<Scalar> lane_groups(LaneIsa isa) {
#if defined(RBMC_X86_LANES)
  switch (isa) {
    case LaneIsa::sse2: return sse2_lanes<Scalar>();
    case LaneIsa::avx2: return avx2_lanes<Scalar>();
    case LaneIsa::avx512: return avx512_lanes<Scalar>();
    case LaneIsa::off: break;
  }
#endif
  (void)isa;
  return {};
}

template LaneGroups<double> lane_groups<double>(LaneIsa);
template LaneGroups<float> lane_groups<float>(LaneIsa);

}  // namespace rbmc

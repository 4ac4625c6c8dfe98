// The RK4 lane groups compiled once per instruction set. Each is a function with GCC's
// target attribute and flatten: the whole group (the core's loop, stepper and right-hand side on
// Lanes) is inlined into it and compiled for that instruction set alone, while everything outside
// stays baseline x86-64, so the program runs on any x86-64 and takes the widest lanes it finds.
// The unit builds with -ffp-contract=off (CMakeLists.txt), so that no compiler fuses a * b + c
// into one of AVX-512's fused multiply-adds: a fused lane would differ from the one-sample path in
// its last bit. (GCC 12 fuses nothing under these targets either way; the flag keeps it so.)
#include "host/backend/cpu_lanes.hpp"

#include <cstdlib>
#include <string>
#include <type_traits>

#include "host/errors.hpp"
#include "rbmc/simd/lane_quantities.hpp"
#include "rbmc/simd/rk4_lanes.hpp"

namespace rbmc {

namespace {

#if defined(__x86_64__) && defined(__GNUC__)
#define RBMC_X86_LANES 1
#endif

#if defined(RBMC_X86_LANES)
template <class Scalar, int W, class Kinds>
__attribute__((flatten)) bool group_sse2(const double* inputs, double* outputs, double* group_states,
                                         std::uint8_t* status, std::size_t n, std::size_t first,
                                         const SharedModel<Scalar>& shared, const IntegrationSettings<Scalar>& how) {
  return run_rk4_lanes<Scalar, W, Kinds>(inputs, outputs, group_states, status, n, first, shared, how);
}
template <class Scalar, int W, class Kinds>
__attribute__((target("avx2"), flatten)) bool group_avx2(const double* inputs, double* outputs, double* group_states,
                                                         std::uint8_t* status, std::size_t n, std::size_t first,
                                                         const SharedModel<Scalar>& shared,
                                                         const IntegrationSettings<Scalar>& how) {
  return run_rk4_lanes<Scalar, W, Kinds>(inputs, outputs, group_states, status, n, first, shared, how);
}
template <class Scalar, int W, class Kinds>
__attribute__((target("avx512f,avx512dq"), flatten)) bool group_avx512(const double* inputs, double* outputs,
                                                                       double* group_states, std::uint8_t* status,
                                                                       std::size_t n, std::size_t first,
                                                                       const SharedModel<Scalar>& shared,
                                                                       const IntegrationSettings<Scalar>& how) {
  return run_rk4_lanes<Scalar, W, Kinds>(inputs, outputs, group_states, status, n, first, shared, how);
}
template <class Scalar, int W, int G = 1>
__attribute__((flatten)) bool quantities_sse2(const double* inputs, const double* group_states, std::size_t n,
                                              std::size_t first, const SharedModel<Scalar>& shared,
                                              const Quaternion<Scalar>* nominal_q, double* quantities,
                                              QuantityColumns kept) {
  return lane_quantities<Scalar, W, G>(inputs, group_states, n, first, shared, nominal_q, quantities, kept);
}
template <class Scalar, int W, int G = 1>
__attribute__((target("avx2"), flatten)) bool quantities_avx2(const double* inputs, const double* group_states,
                                                              std::size_t n, std::size_t first,
                                                              const SharedModel<Scalar>& shared,
                                                              const Quaternion<Scalar>* nominal_q, double* quantities,
                                                              QuantityColumns kept) {
  return lane_quantities<Scalar, W, G>(inputs, group_states, n, first, shared, nominal_q, quantities, kept);
}
template <class Scalar, int W, int G = 1>
__attribute__((target("avx512f,avx512dq"), flatten)) bool quantities_avx512(
    const double* inputs, const double* group_states, std::size_t n, std::size_t first,
    const SharedModel<Scalar>& shared, const Quaternion<Scalar>* nominal_q, double* quantities, QuantityColumns kept) {
  return lane_quantities<Scalar, W, G>(inputs, group_states, n, first, shared, nominal_q, quantities, kept);
}
#endif

// An instruction set's lane functions; groups_a_line of them fill a cache line with quantities,
// in_lines computing that many at once (unused for 1).
template <class Scalar>
Rk4Lanes<Scalar> lanes_of(int width, LaneGroupFunction<Scalar> free_body, LaneGroupFunction<Scalar> general,
                          LaneGroupFunction<Scalar> general_events, LaneQuantitiesFunction<Scalar> quantities,
                          int groups_a_line, LaneQuantitiesFunction<Scalar> in_lines) {
  return {width,    free_body, general, general_events, quantities, width * groups_a_line,
          groups_a_line > 1 ? in_lines : nullptr};
}

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
Rk4Lanes<Scalar> rk4_lanes(LaneIsa isa) {
#if defined(RBMC_X86_LANES)
  using General = SampleKinds<StepperKind::rk4, false>;  // loads, constraint
  using Events = SampleKinds<StepperKind::rk4, true>;    // the same with events
  constexpr int k = std::is_same_v<Scalar, float> ? 2 : 1;  // floats per double
  // Lane groups whose quantities fill a cache line (lane_quantities.hpp): more than one where a
  // group's doubles fill less.
  constexpr int sse2_lines = lines_of_lanes<2 * k>(), avx2_lines = lines_of_lanes<4 * k>();
  switch (isa) {
    case LaneIsa::sse2:
      return lanes_of<Scalar>(2 * k, &group_sse2<Scalar, 2 * k, FreeBodyRk4Kinds>, &group_sse2<Scalar, 2 * k, General>,
                              &group_sse2<Scalar, 2 * k, Events>, &quantities_sse2<Scalar, 2 * k>, sse2_lines,
                              &quantities_sse2<Scalar, 2 * k, sse2_lines>);
    case LaneIsa::avx2:
      return lanes_of<Scalar>(4 * k, &group_avx2<Scalar, 4 * k, FreeBodyRk4Kinds>, &group_avx2<Scalar, 4 * k, General>,
                              &group_avx2<Scalar, 4 * k, Events>, &quantities_avx2<Scalar, 4 * k>, avx2_lines,
                              &quantities_avx2<Scalar, 4 * k, avx2_lines>);
    case LaneIsa::avx512:  // a group's doubles fill a line, or two
      return lanes_of<Scalar>(8 * k, &group_avx512<Scalar, 8 * k, FreeBodyRk4Kinds>,
                              &group_avx512<Scalar, 8 * k, General>, &group_avx512<Scalar, 8 * k, Events>,
                              &quantities_avx512<Scalar, 8 * k>, 1, nullptr);
    case LaneIsa::off: break;
  }
#endif
  (void)isa;
  return {};
}

template Rk4Lanes<double> rk4_lanes<double>(LaneIsa);
template Rk4Lanes<float> rk4_lanes<float>(LaneIsa);

}  // namespace rbmc

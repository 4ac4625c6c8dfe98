// The lane groups compiled for AVX2: vectors of 4 doubles or 8 floats (cpu_lanes_isa.hpp).
// Each is a function with GCC's target attribute and flatten: the whole group (the core's loop,
// stepper and right-hand side on Lanes) is inlined into it and compiled for that instruction set
// alone, while everything outside stays baseline x86-64, so the program runs on any x86-64 and
// takes the widest lanes it finds. The unit builds with -ffp-contract=off (CMakeLists.txt), so
// that no compiler fuses a * b + c into a fused multiply-add: a fused lane would differ from the
// one-sample path in its last bit.
#include <type_traits>

#include "host/backend/cpu_lanes_isa.hpp"
#include "rbmc/simd/fixed_step_lanes.hpp"
#include "rbmc/simd/lane_quantities.hpp"

namespace rbmc {

#if defined(RBMC_X86_LANES)
namespace {

struct Avx2 {
  template <class Scalar, int W, class Kinds>
  __attribute__((target("avx2"), flatten))
  static bool group(const double* inputs, double* outputs, double* group_states,
      std::uint8_t* status, std::size_t n, std::size_t first, const SharedModel<Scalar>& shared,
      const IntegrationSettings<Scalar>& how) {
    return run_fixed_step_lanes<Scalar, W, Kinds>(inputs, outputs, group_states, status, n, first, shared, how);
  }
  template <class Scalar, int W, int G>
  __attribute__((target("avx2"), flatten))
  static bool quantities(const double* inputs, const double* group_states,
      std::size_t n, std::size_t first, const SharedModel<Scalar>& shared, const Quaternion<Scalar>* nominal_q,
      double* quantities, QuantityColumns kept) {
    return lane_quantities<Scalar, W, G>(inputs, group_states, n, first, shared, nominal_q, quantities, kept);
  }
};

}  // namespace

template <class Scalar>
FixedStepLanes<Scalar> avx2_lanes() {
  constexpr int w = 4 * (std::is_same_v<Scalar, float> ? 2 : 1);  // one vector register's worth
  return lanes_table<Scalar, w, Avx2, lines_of_lanes<w>()>();
}

template FixedStepLanes<double> avx2_lanes<double>();
template FixedStepLanes<float> avx2_lanes<float>();
#endif

}  // namespace rbmc

// SIMD lanes on the CPU: which instruction set integrates several samples at once, and the lane
// groups compiled for each: RK4 on the free body, RK4 under any loads with a constraint or none
// (on quaternions or on ZXZ Euler angles), and the symplectic splitting under any loads
// (rbmc/simd/fixed_step_lanes.hpp), and the adaptive Dormand–Prince under any loads and
// constraint (rbmc/simd/dopri5_lanes.hpp), each without events and with them; and the
// statistics' quantities of several samples at once after any kind (rbmc/simd/lane_quantities.hpp).
//
// The instruction set is chosen at run time, the widest this processor has, or by the
// environment variable RBMC_CPU_SIMD (off, sse2, avx2, avx512). Every choice gives the same
// results bit for bit: each lane runs the one-sample path's operations, and nothing is fused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "rbmc/integrate/integration_settings.hpp"
#include "rbmc/sample/shared_model.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

enum class LaneIsa : std::uint8_t {
  off,     // one sample at a time
  sse2,    // 128-bit vectors (every x86-64)
  avx2,    // 256-bit
  avx512,  // 512-bit (AVX-512 F and DQ)
};

const char* lane_isa_name(LaneIsa isa);
// Whether this processor (and this build) can run it.
bool lane_isa_supported(LaneIsa isa);
// The widest supported one, or RBMC_CPU_SIMD's; UsageError for a name that is not one of them or
// that this processor lacks.
LaneIsa chosen_lane_isa();

// Integrates samples first, ..., first + width − 1 of a batch together, or returns false when
// the group must go sample by sample (fixed_step_lanes.hpp, dopri5_lanes.hpp); their states into
// group_states (the group's block, TrajectoryLayout::by_group with groups of width), or nowhere
// when null.
template <class Scalar>
using LaneGroupFunction = bool (*)(const double* inputs, double* outputs, double* group_states, std::uint8_t* status,
                                   std::size_t n, std::size_t first, const SharedModel<Scalar>& shared,
                                   const IntegrationSettings<Scalar>& how);

// Computes samples first, ..., first + width − 1's quantities at every output time from their
// states in group_states (their group's block, as LaneGroupFunction and the one-sample path store
// them; rbmc/simd/lane_quantities.hpp), only
// the columns in `kept`, or returns false when the group must go sample by sample; any kind of run.
template <class Scalar>
using LaneQuantitiesFunction = bool (*)(const double* inputs, const double* group_states, std::size_t n,
                                        std::size_t first, const SharedModel<Scalar>& shared,
                                        const Quaternion<Scalar>* nominal_q, double* quantities, QuantityColumns kept);

template <class Scalar>
struct LaneGroups {
  int width = 1;                                 // samples per group; 1: no lanes
  LaneGroupFunction<Scalar> free_body = nullptr;  // FreeBodyRk4Kinds
  LaneGroupFunction<Scalar> general = nullptr;    // RK4 without events: any loads, any constraint
  LaneGroupFunction<Scalar> general_events = nullptr;  // the same with events (rbmc/simd/lane_events.hpp)
  LaneGroupFunction<Scalar> euler_zxz = nullptr;       // RK4 on Euler angles without events: any loads, any constraint
  LaneGroupFunction<Scalar> euler_zxz_events = nullptr;  // the same with events
  LaneGroupFunction<Scalar> splitting = nullptr;       // the splitting without events: any loads
  LaneGroupFunction<Scalar> splitting_events = nullptr;  // the same with events
  LaneGroupFunction<Scalar> dopri5 = nullptr;            // dopri5 without events: any loads and constraint
  LaneGroupFunction<Scalar> dopri5_events = nullptr;     // the same with events (rbmc/simd/dopri5_lanes.hpp)
  LaneQuantitiesFunction<Scalar> quantities = nullptr;  // the statistics' quantities, after any kind
  // The same for line_width samples, several groups, so that each column's values fill whole
  // cache lines from a line's start (AVX2's and SSE2's double lanes fill half and a quarter of one
  // a group); null where one group fills them.
  int line_width = 1;
  LaneQuantitiesFunction<Scalar> quantities_in_lines = nullptr;
};

// The lane groups for the instruction set (width 1 for off).
template <class Scalar>
LaneGroups<Scalar> lane_groups(LaneIsa isa);

}  // namespace rbmc

// The lane groups of each instruction set, one translation unit apiece (cpu_lanes_sse2.cpp,
// cpu_lanes_avx2.cpp, cpu_lanes_avx512.cpp), so that the build compiles them in parallel: each
// group function inlines the whole loop, stepper and right-hand side for its set, and together
// they were the build's longest unit. Internal to cpu_lanes.cpp, which chooses among them.
#pragma once

#include "host/backend/cpu_lanes.hpp"
#include "rbmc/sample/sample_kinds.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define RBMC_X86_LANES 1
#endif

namespace rbmc {

#if defined(RBMC_X86_LANES)
template <class Scalar>
LaneGroups<Scalar> sse2_lanes();
template <class Scalar>
LaneGroups<Scalar> avx2_lanes();
template <class Scalar>
LaneGroups<Scalar> avx512_lanes();
#endif

// An instruction set's table: Isa::group<Scalar, W, Kinds> integrates a group of one kind and
// Isa::quantities<Scalar, W, G> computes G groups' quantities, each compiled for that set (its
// target attribute). G > 1 fills a cache line with a column's values where one group's doubles
// fill less (lane_quantities.hpp).
template <class Scalar, int W, class Isa, int G>
LaneGroups<Scalar> lanes_table() {
  using S = StepperKind;
  LaneGroups<Scalar> t;
  t.width = W;
  t.free_body = &Isa::template group<Scalar, W, FreeBodyRk4Kinds>;
  t.general = &Isa::template group<Scalar, W, SampleKinds<S::rk4, false>>;
  t.general_events = &Isa::template group<Scalar, W, SampleKinds<S::rk4, true>>;
  t.euler_zxz = &Isa::template group<Scalar, W, SampleKinds<S::rk4_euler_zxz, false>>;
  t.euler_zxz_events = &Isa::template group<Scalar, W, SampleKinds<S::rk4_euler_zxz, true>>;
  t.splitting = &Isa::template group<Scalar, W, SampleKinds<S::splitting, false>>;
  t.splitting_events = &Isa::template group<Scalar, W, SampleKinds<S::splitting, true>>;
  t.dopri5 = &Isa::template group<Scalar, W, SampleKinds<S::dopri5, false>>;
  t.dopri5_events = &Isa::template group<Scalar, W, SampleKinds<S::dopri5, true>>;
  t.quantities = &Isa::template quantities<Scalar, W, 1>;
  t.line_width = W * G;
  if constexpr (G > 1) t.quantities_in_lines = &Isa::template quantities<Scalar, W, G>;
  return t;
}

}  // namespace rbmc

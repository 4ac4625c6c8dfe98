// The quantities of W samples at every output time (rbmc/stats/output_quantities.hpp) computed
// together in SIMD lanes on the CPU, from their group's states: the same function as one
// sample's, computed_quantities_at, instantiated on Lanes<Scalar, W>, so every value equals the
// one-sample path's bit for bit (tests/host/fixed_step_lanes_test.cpp). Every operation is one vector
// instruction, the attitude angle's atan2 included (a polynomial, portable_math.hpp; the C
// library's atan2 lane by lane took about a third of their time). Each (time, quantity) column
// receives the W samples' values together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "rbmc/simd/fixed_step_lanes.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

// mark_overflowed_quantities (output_quantities.hpp) in every lane at once, with the same
// comparisons: a lane whose state is finite and whose quantity overflowed (or is NaN) gets +∞.
// Where every lane's every quantity is within the limit (nearly always) none is marked, whatever
// the states, and the marks are skipped after one test: they were about a third of the
// quantities' arithmetic (AVX2, the main job's: 15.9 → 14.65 ns a sample and output time without
// the stores; bench/RESULTS.md, 2026-12-05, fifty-fourth session). Otherwise each quantity is
// marked without a branch.
template <class S, int W>
inline void mark_overflowed_quantities(const RigidBodyState<Lanes<S, W>>& x, Lanes<S, W>* q) {
  using V = typename Lanes<S, W>::Vector;
  using Bits = decltype(V{} < V{});  // the signed integers of the lanes' width
  const V limit = V{} + S(kOverflowingQuantity);
  const V negative_zero = -V{};  // the sign bit alone in each lane
  Bits sign;
  std::memcpy(&sign, &negative_zero, sizeof sign);
  Bits within = ~Bits{};
  for (int c = 0; c < quantity::count; ++c) {
    Bits bits;
    std::memcpy(&bits, &q[c].v, sizeof bits);
    bits &= ~sign;
    V magnitude;  // |q|, as the marks' comparison takes it (NaN stays NaN, and fails it)
    std::memcpy(&magnitude, &bits, sizeof magnitude);
    within &= magnitude <= limit;
  }
  bool none_marked = true;
  for (int lane = 0; lane < W; ++lane) none_marked = none_marked && within[lane] != 0;
  if (none_marked) return;
  const V sum = component_sum(x).v;
  const V finite_state = sum - sum;  // +0 where the state is finite, NaN where not
  Bits state_bits;
  std::memcpy(&state_bits, &finite_state, sizeof state_bits);
  // All ones where the state is not finite: a NaN's bits are not zero, so x | −x has its sign set.
  const Bits keep = (state_bits | (0 - state_bits)) >> (8 * sizeof(S) - 1);
  const V infinity = V{} + Eigen::NumTraits<S>::infinity();
  for (int c = 0; c < quantity::count; ++c) {
    const V v = q[c].v;
    const V magnitude = v < S(0) ? -v : v;
    const V marked = magnitude <= S(kOverflowingQuantity) ? v : infinity;  // NaN overflowed too
    // The state's choice by masks: GCC 12 merges two conditional expressions into one on the AND
    // of their comparisons, which in this header (compiled for the baseline, then inlined into a
    // function for AVX-512) it lowers to a scalar comparison, set and insert per lane.
    Bits v_bits, marked_bits;
    std::memcpy(&v_bits, &v, sizeof v_bits);
    std::memcpy(&marked_bits, &marked, sizeof marked_bits);
    const Bits chosen = (v_bits & keep) | (marked_bits & ~keep);
    std::memcpy(&q[c].v, &chosen, sizeof chosen);
  }
}

// Samples first, ..., first + G W − 1 of a batch of n, G lane groups of W: their inputs
// (sample_layout.hpp), their states at the output times in group_states (their groups' blocks, one
// after another, TrajectoryLayout::by_group), the nominal attitude at each output time, into
// quantities ((times × quantity::count, n)): the columns in `kept` (quantity_columns_of the run's
// [output] statistics), the others untouched. Returns false, having written nothing, where the
// lanes cannot take the samples (their bodies disagree on their centre of mass lying at the
// origin, a branch of the kinetic energy).
//
// G groups at once so that each column's G W values fill a whole cache line (8 doubles): AVX2's
// 4 double lanes take 2 groups, SSE2's 2 take 4 (lines_of_lanes).
template <class Scalar, int W, int G = 1>
inline bool lane_quantities(const double* inputs, const double* group_states, std::size_t n, std::size_t first,
                            const SharedModel<Scalar>& shared, const Quaternion<Scalar>* nominal_q, double* quantities,
                            QuantityColumns kept) {
  using L = Lanes<Scalar, W>;
  // Stage: each lane's model and loads with its own values, as the lanes integrate them.
  FreeBodyModel<L> model[G];
  LoadSet<L> loads[G];
  bool com_at_origin = false;
  for (int lane = 0; lane < G * W; ++lane) {
    const std::size_t i = first + std::size_t(lane);
    const SampleInputs<Scalar> in = load_sample_inputs<Scalar>(inputs, n, i, 0);
    const FreeBodyModel<Scalar> one = make_free_body_model(in.body, in.gravity_w);
    if (lane == 0) com_at_origin = one.com_at_origin;
    if (one.com_at_origin != com_at_origin) return false;
    set_lane(model[lane / W], lane % W, one);
    LoadSet<Scalar> own_loads = shared.loads;
    Constraint<Scalar> own_constraint = shared.constraint;
    apply_own_values(own_values_in_batch(shared.parameters, inputs, n, i), own_loads, own_constraint);
    set_lane(loads[lane / W], lane % W, own_loads);
  }
  // Stage: at each output time, the lanes' states, their quantities, each column's G W values.
  // Each state component's W values lie together in its group's block, one vector load. Each
  // column's values leave in G vector stores, and where they fill whole lines, through
  // non-temporal stores, which do not read the line first: the batch's columns, each in its own
  // pages, are far more than the caches hold, so each line written was a miss to memory
  // (bench/RESULTS.md, 2026-11-25, ninth session; 2026-11-27 for AVX2, whose half lines had been
  // written with plain stores).
  const int n_times = shared.output_times.n;
  const std::size_t block = std::size_t(n_times) * kTrajectoryColumns * W;  // a group's states
  // Whole cache lines where the columns allow (quantities' and each column's start on a line).
  const bool whole_lines = (G * W) % 8 == 0 && reinterpret_cast<std::uintptr_t>(quantities) % 64 == 0 && n % 8 == 0 &&
                           first % 8 == 0;
  for (int k = 0; k < n_times; ++k) {
    const Quaternion<Scalar>& one_nominal = nominal_q[k];
    const Quaternion<L> nominal{L(one_nominal.w), L(one_nominal.x), L(one_nominal.y), L(one_nominal.z)};
    L q[G][quantity::count];
    for (int g = 0; g < G; ++g) {
      const double* const x_k = group_states + std::size_t(g) * block + std::size_t(k) * kTrajectoryColumns * W;
      StateVector<L> y;
      for (int c = 0; c < kTrajectoryColumns; ++c) y(c) = load_lanes<Scalar, W>(x_k + std::size_t(c) * W);
      const RigidBodyState<L> x = unpack(y);
      computed_quantities_at(loads[g], SharedValuesOnly{}, model[g], x, nominal, q[g]);
      mark_overflowed_quantities(x, q[g]);
    }
    for (int c = 0; c < quantity::count; ++c) {
      if (((kept >> c) & 1u) == 0) continue;  // the stores, not the arithmetic, are the cost
      double* const column = quantities + (std::size_t(k) * quantity::count + std::size_t(c)) * n + first;
      for (int g = 0; g < G; ++g) {  // one line's parts one after another
        if (whole_lines)
          stream_lanes(q[g][c], column + g * W);
        else
          store_lanes(q[g][c], column + g * W);
      }
    }
  }
  if (whole_lines) stream_fence();
  return true;
}

// Lane groups of W lanes whose quantities, stored as doubles whatever the lanes' precision, fill a
// cache line: lane_quantities' G.
template <int W>
constexpr int lines_of_lanes() {
  return W >= 8 ? 1 : 8 / W;
}

}  // namespace rbmc

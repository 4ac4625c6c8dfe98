// The quantities of W samples at every output time (rbmc/stats/output_quantities.hpp) computed
// together in SIMD lanes on the CPU, from their states by sample: the same function as one
// sample's, computed_quantities_at, instantiated on Lanes<Scalar, W>, so every value equals the
// one-sample path's bit for bit (tests/host/rk4_lanes_test.cpp). Every operation is one vector
// instruction, the attitude angle's atan2 included (a polynomial, portable_math.hpp; the C
// library's atan2 lane by lane took about a third of their time). Each (time, quantity) column
// receives the W samples' values together.
#pragma once

#include <cstddef>

#include "rbmc/simd/rk4_lanes.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

// Samples first, ..., first + W − 1 of a batch of n: their inputs (sample_layout.hpp), their
// states at the output times in a by-sample trajectory buffer (TrajectoryLayout::by_sample), the
// nominal attitude at each output time, into quantities ((times × quantity::count, n)). Returns
// false, having written nothing, where the lanes cannot take the group (its bodies disagree on
// their centre of mass lying at the origin, a branch of the kinetic energy).
template <class Scalar, int W>
inline bool lane_quantities(const double* inputs, const double* trajectory, std::size_t n, std::size_t first,
                            const SharedModel<Scalar>& shared, const Quaternion<Scalar>* nominal_q, double* quantities) {
  using L = Lanes<Scalar, W>;
  // Stage: each lane's model and loads with its own values, as the lanes integrate them.
  FreeBodyModel<L> model;
  LoadSet<L> loads;
  for (int lane = 0; lane < W; ++lane) {
    const std::size_t i = first + std::size_t(lane);
    const SampleInputs<Scalar> in = load_sample_inputs<Scalar>(inputs, n, i, 0);
    const FreeBodyModel<Scalar> one = make_free_body_model(in.body, in.gravity_w);
    if (lane > 0 && one.com_at_origin != model.com_at_origin) return false;
    set_lane(model, lane, one);
    LoadSet<Scalar> own_loads = shared.loads;
    Constraint<Scalar> own_constraint = shared.constraint;
    apply_own_values(own_values_in_batch(shared.parameters, inputs, n, i), own_loads, own_constraint);
    set_lane(loads, lane, own_loads);
  }
  // Stage: at each output time, the lanes' states, their quantities, each column's W values.
  const int n_times = shared.output_times.n;
  const std::size_t block = std::size_t(n_times) * kTrajectoryColumns;
  for (int k = 0; k < n_times; ++k) {
    StateVector<L> y;
    for (int lane = 0; lane < W; ++lane) {
      const double* x = trajectory + (first + std::size_t(lane)) * block + std::size_t(k) * kTrajectoryColumns;
      for (int c = 0; c < kTrajectoryColumns; ++c) y(c).set(lane, Scalar(x[c]));
    }
    const RigidBodyState<L> x = unpack(y);
    const Quaternion<Scalar>& one_nominal = nominal_q[k];
    const Quaternion<L> nominal{L(one_nominal.w), L(one_nominal.x), L(one_nominal.y), L(one_nominal.z)};
    L q[quantity::count];
    computed_quantities_at(loads, SharedValuesOnly{}, model, x, nominal, q);
    const L sum = component_sum(x);
    for (int lane = 0; lane < W; ++lane) {
      Scalar one[quantity::count];
      for (int c = 0; c < quantity::count; ++c) one[c] = q[c][lane];
      mark_overflowed_quantities(isfinite_hd(sum[lane]), one);
      for (int c = 0; c < quantity::count; ++c)
        quantities[(std::size_t(k) * quantity::count + std::size_t(c)) * n + first + std::size_t(lane)] = one[c];
    }
  }
  return true;
}

}  // namespace rbmc

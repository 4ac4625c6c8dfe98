// Structure-of-arrays layout of a batch of samples, shared by the CPU backend and the kernels.
//
// A batch of capacity n stores column c of every sample contiguously at data[c * n + i], so
// consecutive threads read consecutive addresses. The host fills input columns in double; a
// backend running in float converts with load_sample_inputs<float>, the same rounding on CPU and GPU.
#pragma once

#include <cstddef>
#include <type_traits>

#include "rbmc/sample/run_sample.hpp"

namespace rbmc {

namespace input_column {
enum : int {
  mass = 0,
  com_b = 1,        // 3 columns: x, y, z
  inertia_c_b = 4,  // 6 columns: xx, yy, zz, xy, xz, yz
  initial = 10,     // 13: the initial state, as the state's own offsets (state_offset)
  p_w = initial + state_offset::p_w,          // 3
  q_wb = initial + state_offset::q_wb,        // 4: w, x, y, z
  v_w = initial + state_offset::v_w,          // 3
  omega_b = initial + state_offset::omega_b,  // 3
  gravity_w = initial + state_offset::count,  // 3
  count = gravity_w + 3  // then one column per dispersed load or constraint parameter (model_parameters.hpp)
};
}  // namespace input_column
static_assert(input_column::p_w == 10 && input_column::q_wb == 13 && input_column::v_w == 17 &&
                  input_column::omega_b == 20 && input_column::gravity_w == 23 && input_column::count == 26,
              "the inputs' columns are the journal's and the device's layout: moving one is a format change");

RBMC_HD inline int input_column_count(int n_model_parameters) { return input_column::count + n_model_parameters; }

namespace output_column {
enum : int {
  p_w = state_offset::p_w,          // 3: the final state, as the state's own offsets
  q_wb = state_offset::q_wb,        // 4
  v_w = state_offset::v_w,          // 3
  omega_b = state_offset::omega_b,  // 3
  time = state_offset::count,
  reaction_force_w = 14,  // 3
  reaction_torque_b = 17, // 3
  energy_drift = 20,
  momentum_drift = 21,
  steps = 22,
  rejected_steps = 23,
  stopping_event = 24,
  count = 25  // then kEventColumns for each event: count, time, and the state at the first occurrence
};
}  // namespace output_column

// Columns of one event, from its first (output_column::count + kEventColumns · e on): how often it
// occurred, when first, and the state then (its parts at state_offset from `state`).
namespace event_column {
enum : int { count = 0, time = 1, state = 2 };
}  // namespace event_column
inline constexpr int kEventColumns = event_column::state + state_offset::count;

RBMC_HD inline int output_column_count(int n_events) { return output_column::count + kEventColumns * n_events; }

template <class Scalar, class Stored>
RBMC_HD inline Vec3<Scalar> load_vec3(const Stored* data, std::size_t n, int column, std::size_t i) {
  return Vec3<Scalar>(Scalar(data[column * n + i]), Scalar(data[(column + 1) * n + i]),
                      Scalar(data[(column + 2) * n + i]));
}

template <class Scalar, class Stored>
RBMC_HD inline void store_vec3(Stored* data, std::size_t n, int column, std::size_t i, const Vec3<Scalar>& v) {
  data[column * n + i] = Stored(v.x());
  data[(column + 1) * n + i] = Stored(v.y());
  data[(column + 2) * n + i] = Stored(v.z());
}

template <class Scalar, class Stored>
RBMC_HD inline Quaternion<Scalar> load_quaternion(const Stored* data, std::size_t n, int column, std::size_t i) {
  return {Scalar(data[column * n + i]), Scalar(data[(column + 1) * n + i]), Scalar(data[(column + 2) * n + i]),
          Scalar(data[(column + 3) * n + i])};
}

template <class Scalar, class Stored>
RBMC_HD inline void store_quaternion(Stored* data, std::size_t n, int column, std::size_t i,
                                     const Quaternion<Scalar>& q) {
  data[column * n + i] = Stored(q.w);
  data[(column + 1) * n + i] = Stored(q.x);
  data[(column + 2) * n + i] = Stored(q.y);
  data[(column + 3) * n + i] = Stored(q.z);
}

template <class Scalar, class Stored>
RBMC_HD inline SampleInputs<Scalar> load_sample_inputs(const Stored* data, std::size_t n, std::size_t i,
                                                       int n_model_parameters) {
  namespace c = input_column;
  const auto at = [&](int column) { return Scalar(data[column * n + i]); };
  SampleInputs<Scalar> in;
  in.body.mass = at(c::mass);
  in.body.com_b = load_vec3<Scalar>(data, n, c::com_b, i);
  const Scalar xx = at(c::inertia_c_b), yy = at(c::inertia_c_b + 1), zz = at(c::inertia_c_b + 2);
  const Scalar xy = at(c::inertia_c_b + 3), xz = at(c::inertia_c_b + 4), yz = at(c::inertia_c_b + 5);
  in.body.inertia_c_b << xx, xy, xz, xy, yy, yz, xz, yz, zz;
  in.initial.p_w = load_vec3<Scalar>(data, n, c::p_w, i);
  in.initial.q_wb = load_quaternion<Scalar>(data, n, c::q_wb, i);
  in.initial.v_w = load_vec3<Scalar>(data, n, c::v_w, i);
  in.initial.omega_b = load_vec3<Scalar>(data, n, c::omega_b, i);
  in.gravity_w = load_vec3<Scalar>(data, n, c::gravity_w, i);
  for (int j = 0; j < n_model_parameters; ++j) in.model_values[j] = at(c::count + j);
  return in;
}

template <class Scalar, class Stored>
RBMC_HD inline void store_sample_inputs(Stored* data, std::size_t n, std::size_t i, const SampleInputs<Scalar>& in,
                                        int n_model_parameters) {
  namespace c = input_column;
  data[c::mass * n + i] = Stored(in.body.mass);
  store_vec3(data, n, c::com_b, i, in.body.com_b);
  const Mat3<Scalar>& I = in.body.inertia_c_b;
  const Scalar six[6] = {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)};
  for (int k = 0; k < 6; ++k) data[(c::inertia_c_b + k) * n + i] = Stored(six[k]);
  store_vec3(data, n, c::p_w, i, in.initial.p_w);
  store_quaternion(data, n, c::q_wb, i, in.initial.q_wb);
  store_vec3(data, n, c::v_w, i, in.initial.v_w);
  store_vec3(data, n, c::omega_b, i, in.initial.omega_b);
  store_vec3(data, n, c::gravity_w, i, in.gravity_w);
  for (int j = 0; j < n_model_parameters; ++j) data[(c::count + j) * n + i] = Stored(in.model_values[j]);
}

// The result but its event records, which StoredEventRecords writes as they happen.
template <class Scalar, class Stored>
RBMC_HD inline void store_sample_result(Stored* data, std::size_t n, std::size_t i, const SampleResult<Scalar>& r) {
  namespace c = output_column;
  store_vec3(data, n, c::p_w, i, r.final_state.p_w);
  store_quaternion(data, n, c::q_wb, i, r.final_state.q_wb);
  store_vec3(data, n, c::v_w, i, r.final_state.v_w);
  store_vec3(data, n, c::omega_b, i, r.final_state.omega_b);
  data[c::time * n + i] = Stored(r.time);
  store_vec3(data, n, c::reaction_force_w, i, r.reaction_force_w);
  store_vec3(data, n, c::reaction_torque_b, i, r.reaction_torque_b);
  data[c::energy_drift * n + i] = Stored(r.energy_drift);
  data[c::momentum_drift * n + i] = Stored(r.momentum_drift);
  data[c::steps * n + i] = Stored(r.steps);  // exact in either precision below 2^24 steps
  data[c::rejected_steps * n + i] = Stored(r.rejected_steps);
  data[c::stopping_event * n + i] = Stored(r.stopping_event);
}

// Sample i's event records written into its output columns as they happen (the target of
// events.hpp's EventTracker), so that the thread holds none of them: event e's columns from
// output_column::count + kEventColumns e on, [count, time, p (3), q (4), v (3), ω (3)].
template <class Scalar, class Stored>
struct StoredEventRecords {
  Stored* data;
  std::size_t n, i;

  RBMC_HD static int first_column(int e) { return output_column::count + kEventColumns * e; }
  RBMC_HD void start(int e) const {
    count(e, 0);
    first(e, Eigen::NumTraits<Scalar>::quiet_NaN(), no_state<Scalar>());
  }
  RBMC_HD void first(int e, Scalar t, const RigidBodyState<Scalar>& x) const {
    const int base = first_column(e), state = base + event_column::state;
    data[(base + event_column::time) * n + i] = Stored(t);
    store_vec3(data, n, state + state_offset::p_w, i, x.p_w);
    store_quaternion(data, n, state + state_offset::q_wb, i, x.q_wb);
    store_vec3(data, n, state + state_offset::v_w, i, x.v_w);
    store_vec3(data, n, state + state_offset::omega_b, i, x.omega_b);
  }
  RBMC_HD void count(int e, std::int64_t count) const {
    data[(first_column(e) + event_column::count) * n + i] = Stored(count);
  }
};

// Element (r, c) of a row-major gather of the given rows of a structure-of-arrays buffer:
// out[r · columns + c] = data[c · n + rows[r]]. Trajectories (columns = times × 13) and
// quantities (times × quantity::count) come back to the host this way, row by row.
template <class Stored, class Out>
RBMC_HD inline void gather_element(const Stored* data, std::size_t n, std::size_t columns, const std::uint32_t* rows,
                                   std::size_t r, std::size_t c, Out* out) {
  out[r * columns + c] = Out(data[c * n + rows[r]]);
}

// Element (r, c) of a column-major gather of the given rows: out[c · n_rows + r] = data[c · n +
// rows[r]]. The quantities' values for the quantiles come back this way, column by column, so
// each (time, quantity) column reaches the host contiguous.
template <class Stored, class Out>
RBMC_HD inline void gather_column_element(const Stored* data, std::size_t n, const std::uint32_t* rows, std::size_t n_rows,
                                          std::size_t r, std::size_t c, Out* out) {
  out[c * n_rows + r] = Out(data[c * n + rows[r]]);
}

// How a batch's states at the output times lie in memory. By column (the GPU's, coalesced): the
// output_times.hpp layout, component c at time k of sample i at [(k · 13 + c) · n + i]. By group
// (the CPU's): each group of g consecutive samples, from a multiple of g, in a block of its own,
// laid out by column within it as a batch of g: [(k · 13 + c) · g + l] for the group's sample l.
// A group's stores and loads stay within a few pages, and with g the CPU's SIMD lanes each
// component's g values are one vector (rbmc/simd/). g = 1: by sample, [k · 13 + c].
enum class TrajectoryLayout { by_column, by_group };

// Sample i's own values of the dispersed load and constraint fields, read from its input columns
// where the loads use them (dynamics/model_values.hpp): nothing is copied per sample.
template <class Scalar, class StoredIn>
RBMC_HD inline OwnModelValues<Scalar, StoredIn> own_values_in_batch(const ModelParameters<Scalar>& table,
                                                                    const StoredIn* inputs, std::size_t n,
                                                                    std::size_t i) {
  return {&table, inputs + std::size_t(input_column::count) * n + i, n};
}

// How a sample's own values of the dispersed load and constraint fields reach its loads. Read in
// place (the GPU's): each load's evaluation looks its fields up in the sample's input columns, and
// nothing is copied. Copied (the CPU's): the sample integrates its own copy of the shared model
// with its values set, about 3 KB copied once against lookups in every evaluation. The same
// numbers bit for bit (ModelParametersTest.ValuesReadInPlaceEqualACopiedModel).
enum class ModelValuesAccess { read_in_place, copied };

// Loads sample i, integrates it and stores its result: the whole per-sample path of a batch.
// trajectory, when not null, receives the states at the output times, in the given layout (a
// compile-time choice: the GPU's kernels carry nothing of the CPU's): by column, the batch's
// buffer; by group, the block of sample i's group of `group` samples, wherever its caller keeps it.
// Kinds: the run's SampleKinds (choose_sample_kinds), or RuntimeKinds to choose them here.
template <class Scalar, class Kinds = RuntimeKinds, TrajectoryLayout Layout = TrajectoryLayout::by_column,
          ModelValuesAccess Access = ModelValuesAccess::read_in_place, class StoredIn, class StoredOut>
RBMC_HD_KERNEL_INLINE void run_sample_in_batch(const StoredIn* inputs, StoredOut* outputs, StoredOut* trajectory,
                                               std::uint8_t* status, std::size_t n, std::size_t i,
                                               const SharedModel<Scalar>& shared,
                                               const IntegrationSettings<Scalar>& how, std::size_t group = 1) {
  if constexpr (std::is_same_v<Kinds, RuntimeKinds>) {
    with_sample_kinds(choose_sample_kinds(shared, how), [&](auto kinds) {
      run_sample_in_batch<Scalar, decltype(kinds), Layout, Access>(inputs, outputs, trajectory, status, n, i, shared,
                                                                   how, group);
    });
    return;
  } else {
    // By group: the group's block, written as a batch of `group` samples.
    std::size_t sink_n = n, sink_i = i;
    if constexpr (Layout == TrajectoryLayout::by_group) {
      sink_n = group;
      sink_i = i % group;
    }
    TrajectorySink<Scalar, StoredOut> sink{&shared.output_times, trajectory, sink_n, sink_i, 0};
    // The model values stay in their columns (none loaded here): own_values_in_batch reads them.
    const SampleInputs<Scalar> in = load_sample_inputs<Scalar>(inputs, n, i, 0);
    const OwnModelValues<Scalar, StoredIn> own = own_values_in_batch(shared.parameters, inputs, n, i);
    const StoredEventRecords<Scalar, StoredOut> records{outputs, n, i};
    SampleResult<Scalar> r;
    if constexpr (Access == ModelValuesAccess::copied) {
      if (shared.parameters.n > 0) {
        SharedModel<Scalar> copy = shared;
        apply_own_values(own, copy.loads, copy.constraint);
        copy.parameters.n = 0;
        r = run_sample<Scalar, Kinds>(in, SharedValuesOnly{own.physical()}, copy, how, sink, records);
      } else {
        r = run_sample<Scalar, Kinds>(in, SharedValuesOnly{}, shared, how, sink, records);
      }
    } else {
      r = run_sample<Scalar, Kinds>(in, own, shared, how, sink, records);
    }
    store_sample_result(outputs, n, i, r);
    status[i] = static_cast<std::uint8_t>(r.status);
  }
}

}  // namespace rbmc

// The quantities whose statistics a run keeps at each output time, computed per sample from its
// state there: position, velocity, angular velocity, the attitude's angle from the nominal
// sample's attitude at the same time, and the energies. The same function serves the CPU backend
// and the CUDA kernel.
#pragma once

#include <array>
#include <cstddef>

#include "rbmc/dynamics/invariants.hpp"
#include "rbmc/integrate/output_times.hpp"
#include "rbmc/math/rotation.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

namespace quantity {
enum : int {
  position = 0,          // 3, m, world
  velocity = 3,          // 3, m/s, world
  angular_velocity = 6,  // 3, rad/s, body
  attitude_angle = 9,    // rad: angle of q q_nominal⁻¹, the rotation from the nominal sample's attitude
  kinetic_energy = 10,   // J
  potential_energy = 11, // J: uniform gravity and the conservative loads (load_set.hpp)
  count = 12
};
}  // namespace quantity

// The quantities as /statistics stores them, one group each: name, first column, components, unit
// and meaning. Declared here once for the writer, the scenario's [output] statistics (which names
// them) and the statistics, which keep only the columns of the quantities a scenario names.
struct QuantityInfo {
  const char* name;
  int first, dim;
  const char* units;
  const char* description;
};
inline constexpr std::array<QuantityInfo, 6> kStatisticsQuantities = {{
    {"position", quantity::position, 3, "m", "position of the body origin, world frame"},
    {"velocity", quantity::velocity, 3, "m/s", "velocity of the body origin, world frame"},
    {"angular_velocity", quantity::angular_velocity, 3, "rad/s", "angular velocity, body frame"},
    {"attitude_angle", quantity::attitude_angle, 1, "rad",
     "angle of the rotation from the nominal (undispersed) sample's attitude at the same time"},
    {"kinetic_energy", quantity::kinetic_energy, 1, "J", "kinetic energy"},
    {"potential_energy", quantity::potential_energy, 1, "J", "potential energy of uniform gravity and the conservative loads"},
}};
// A set of them, bit i for kStatisticsQuantities[i].
using QuantitySet = unsigned;
inline constexpr QuantitySet kAllQuantities = (1u << kStatisticsQuantities.size()) - 1;

// Whether the quantity column c (quantity::*, one component) belongs to a quantity of the set.
constexpr bool quantity_column_in(QuantitySet set, int c) {
  for (std::size_t i = 0; i < kStatisticsQuantities.size(); ++i)
    if (c >= kStatisticsQuantities[i].first && c < kStatisticsQuantities[i].first + kStatisticsQuantities[i].dim)
      return ((set >> i) & 1u) != 0;
  return false;
}
// The set's columns as bits (bit c: quantity column c), for the code that stores them.
using QuantityColumns = unsigned;
constexpr QuantityColumns quantity_columns_of(QuantitySet set) {
  QuantityColumns columns = 0;
  for (int c = 0; c < quantity::count; ++c)
    if (quantity_column_in(set, c)) columns |= 1u << c;
  return columns;
}
inline constexpr QuantityColumns kAllQuantityColumns = quantity_columns_of(kAllQuantities);

// Beyond this magnitude a quantity counts as overflowed: N squares of it must still sum in double
// (1e100² × 1e9 samples = 1e209). A float quantity overflows at its own range first.
inline constexpr double kOverflowingQuantity = 1e100;

// One sample's quantities in its state x at one output time, into q[quantity::count], as
// computed, before any is marked overflowed: own and model are the sample's own values of the
// dispersed loads (model_values.hpp) and its mass properties, nominal_q the nominal sample's
// attitude then. Straight-line arithmetic, so that the CPU's SIMD lanes compute it for several
// samples at once (rbmc/simd/lane_quantities.hpp).
template <class Scalar, class Own>
RBMC_HD inline void computed_quantities_at(const LoadSet<Scalar>& loads, const Own& own, const FreeBodyModel<Scalar>& model,
                                           const RigidBodyState<Scalar>& x, const Quaternion<Scalar>& nominal_q, Scalar* q) {
  for (int c = 0; c < 3; ++c) {
    q[quantity::position + c] = x.p_w(c);
    q[quantity::velocity + c] = x.v_w(c);
    q[quantity::angular_velocity + c] = x.omega_b(c);
  }
  q[quantity::attitude_angle] = angle_between(x.q_wb, nominal_q);
  q[quantity::kinetic_energy] = kinetic_energy(model, x);
  q[quantity::potential_energy] = potential_energy(loads, own, model, x);
}

// A finite state whose quantity overflowed (ω² of a diverging sample: ∞, or ∞ · 0 = NaN), or
// is so large that its square cannot be summed into a variance (beyond kOverflowingQuantity),
// is marked +∞: the statistics count it apart. NaN stays "the sample had stopped".
template <class Scalar>
RBMC_HD inline void mark_overflowed_quantities(bool state_finite, Scalar* q) {
  for (int c = 0; c < quantity::count; ++c) {
    const Scalar magnitude = q[c] < Scalar(0) ? -q[c] : q[c];
    const bool overflowed = !(magnitude <= Scalar(kOverflowingQuantity));  // NaN too
    if (state_finite && overflowed) q[c] = Eigen::NumTraits<Scalar>::infinity();
  }
}

// One sample's quantities in its state x at one output time, into q[quantity::count] (as
// computed_quantities_at, then marked). A NaN state (the sample had stopped) gives NaN; a
// quantity that overflowed from a finite state gives +∞.
template <class Scalar, class Own>
RBMC_HD inline void sample_quantities_at(const LoadSet<Scalar>& loads, const Own& own, const FreeBodyModel<Scalar>& model,
                                         const RigidBodyState<Scalar>& x, const Quaternion<Scalar>& nominal_q,
                                         Scalar* q) {
  computed_quantities_at(loads, own, model, x, nominal_q, q);
  mark_overflowed_quantities(is_finite(x), q);
}

// Sample i's quantities at each of n_times output times, from its trajectory (output_times.hpp
// layout: component c at time k at trajectory[(k · 13 + c) · n + i]) into quantities[(k ·
// quantity::count + c) · n + i]. nominal_q: the nominal sample's attitude at each output time.
template <class Scalar, class Own, class Stored>
RBMC_HD inline void compute_sample_quantities(const SampleInputs<Scalar>& in, const Own& own,
                                              const SharedModel<Scalar>& shared,
                                              const Stored* trajectory, const Quaternion<Scalar>* nominal_q,
                                              int n_times, std::size_t n, std::size_t i, Stored* quantities) {
  const FreeBodyModel<Scalar> model = make_free_body_model(in.body, in.gravity_w);
  for (int k = 0; k < n_times; ++k) {
    StateVector<Scalar> y;
    for (int c = 0; c < kTrajectoryColumns; ++c) y(c) = Scalar(trajectory[(std::size_t(k) * kTrajectoryColumns + c) * n + i]);
    Scalar q[quantity::count];
    sample_quantities_at(shared.loads, own, model, unpack(y), nominal_q[k], q);
    for (int c = 0; c < quantity::count; ++c) quantities[(std::size_t(k) * quantity::count + c) * n + i] = Stored(q[c]);
  }
}

}  // namespace rbmc

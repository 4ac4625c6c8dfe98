// Per-sample values of load and constraint parameters, read where they are used.
//
// Loads and the constraint are shared by every sample of a run (SharedModel). When a scenario
// disperses one of their parameters, each sample carries its own value of it (an input column,
// sample_layout.hpp). Nothing copies the shared loads per sample: each load's evaluation asks the
// sample's values for its own fields (OwnModelValues::apply), so a kernel reads a per-sample value
// from its input column where the load uses it and everything else from the shared model.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rbmc/hd.hpp"

namespace rbmc {

// Scalar values per sample (a 3-vector takes three).
inline constexpr int kMaxModelParameters = 16;

enum class ModelField : std::uint8_t {
  point_force_point,          // LoadSet::point_forces[index].point_b, component (m)
  point_force_force,          // .force, component (N)
  torque,                     // LoadSet::torques[index].torque, component (N m)
  spring_point,               // LoadSet::springs[index].point_b, component (m)
  spring_anchor,              // .anchor_w, component (m)
  spring_stiffness,           // .stiffness (N/m)
  spring_rest_length,         // .rest_length (m)
  spring_damping,             // .damping (N s/m)
  linear_damping,             // the run's total; `offset` holds the other damping entries' sum
  quadratic_damping,          //   "
  angular_linear_damping,     //   "
  angular_quadratic_damping,  //   "
  central_mu,                 // m³/s²
  central_center,             // component (m)
  pivot_point,                // Constraint::point_b, component (m)
  pivot_anchor,               // Constraint::anchor_w, component (m)
  plane_height,               // Constraint::plane_height (m)
};
inline constexpr int kModelFieldCount = int(ModelField::plane_height) + 1;  // plane_height is the last

// Whether a drawn value of the field is physical: the rule the scenario's nominal value obeys too
// (read_loads, host/scenario/parse_scenario.cpp). A spring's stiffness, rest length and damping and each
// damping entry's coefficients are non-negative (a damping target's value is its entry's own,
// before the other entries' offset); a central body's μ is positive; positions, forces and
// couples may be anything. A NaN is not physical wherever a rule applies.
template <class T>
RBMC_HD inline bool model_value_physical(ModelField field, T value) {
  switch (field) {
    case ModelField::spring_stiffness:
    case ModelField::spring_rest_length:
    case ModelField::spring_damping:
    case ModelField::linear_damping:
    case ModelField::quadratic_damping:
    case ModelField::angular_linear_damping:
    case ModelField::angular_quadratic_damping: return value >= T(0);
    case ModelField::central_mu: return value > T(0);
    default: return true;
  }
}

// Whether a field's values can be unphysical at all (a draw of it may need redrawing).
RBMC_HD inline bool model_field_bounded(ModelField field) { return !model_value_physical(field, -1.0); }

// The rule in words, for the host's errors about the scenario's values (its nominal ones and those
// given outright), or nullptr for a field without one.
inline const char* model_value_rule(ModelField field) {
  if (!model_field_bounded(field)) return nullptr;
  return model_value_physical(field, 0.0) ? "must be non-negative" : "must be positive";
}

// One per-sample value's destination: field = value + offset.
template <class Scalar>
struct ModelParameter {
  ModelField field;
  std::uint8_t index;      // which point force, torque or spring
  std::uint8_t component;  // of a vector field
  Scalar offset;           // damping: what the entries not dispersed contribute to the total

  template <class Other>
  ModelParameter<Other> cast() const {
    return {field, index, component, Other(offset)};
  }
};

// The table of per-sample values: targets[j] is where value j goes. Entries are added with add(),
// which also keeps `indices`.
template <class Scalar>
struct ModelParameters {
  int n = 0;
  ModelParameter<Scalar> targets[kMaxModelParameters];
  // Bit i of indices[f]: some target sets field f of load i. A lookup of a field that no target
  // sets, most of them, returns at once instead of scanning the table. The scan for every field
  // of every load at every evaluation made spring_mounted_box's kernel execute 2.9 × the
  // instructions of the same loads without per-sample values (bench/RESULTS.md, 2026-11-26).
  // Setting n to 0 empties the table; bits left here then only send a lookup to an empty scan.
  std::uint16_t indices[kModelFieldCount] = {};

  void add(const ModelParameter<Scalar>& t) {
    targets[n++] = t;
    indices[int(t.field)] = std::uint16_t(indices[int(t.field)] | (1u << t.index));
  }
  RBMC_HD bool sets(ModelField field, int index) const { return ((indices[int(field)] >> index) & 1u) != 0; }

  template <class Other>
  ModelParameters<Other> cast() const {
    ModelParameters<Other> o;
    o.n = n;
    for (int i = 0; i < n; ++i) o.targets[i] = targets[i].template cast<Other>();
    for (int f = 0; f < kModelFieldCount; ++f) o.indices[f] = indices[f];
    return o;
  }
};

// No per-sample values: every field as the scenario declares it, or as a copy of the shared
// model has them set. `values_physical` is the verdict on the sample's own values made before
// they were copied (run_sample_in_batch): true for the scenario's, which its reader checked.
struct SharedValuesOnly {
  bool values_physical = true;
  template <class T>
  RBMC_HD void apply(ModelField, int, T&) const {}
  RBMC_HD bool physical() const { return values_physical; }
};

// One sample's values of the dispersed fields: value j (for table->targets[j]) at
// values[j * stride], converted to Scalar, so that the same view reads a SampleInputs' array
// (stride 1) or a batch's input columns in place (stride n).
template <class Scalar, class Stored = Scalar>
struct OwnModelValues {
  const ModelParameters<Scalar>* table = nullptr;
  const Stored* values = nullptr;
  std::size_t stride = 1;

  // Sets v (a scalar field, or one component of a vector field) to the sample's value where
  // (field, index) is dispersed; leaves it as it is otherwise.
  template <class T>
  RBMC_HD void apply(ModelField field, int index, T& v) const {
    if (!table->sets(field, index)) return;
    for (int j = 0; j < table->n; ++j) {
      const ModelParameter<Scalar>& t = table->targets[j];
      if (t.field == field && t.index == index) set(v, t.component, Scalar(values[std::size_t(j) * stride]) + t.offset);
    }
  }

  // Whether every value is physical (model_value_physical): a sample with a negative stiffness
  // drawn is flagged invalid_load, not integrated (run_sample).
  RBMC_HD bool physical() const {
    for (int j = 0; j < table->n; ++j)
      if (!model_value_physical(table->targets[j].field, values[std::size_t(j) * stride])) return false;
    return true;
  }

 private:
  RBMC_HD static void set(Scalar& v, int, Scalar value) { v = value; }
  // Each component by name: v(component) with a run-time index would put v in local memory.
  template <class Vector>
  RBMC_HD static void set(Vector& v, int component, Scalar value) {
    if (component == 0) v.x() = value;
    else if (component == 1) v.y() = value;
    else v.z() = value;
  }
};

template <class Scalar>
RBMC_HD inline OwnModelValues<Scalar> own_values(const ModelParameters<Scalar>& table, const Scalar* values) {
  return {&table, values, 1};
}

}  // namespace rbmc

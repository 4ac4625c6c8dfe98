// A group of W samples of a batch as SIMD lanes on the CPU: each lane's inputs, model, loads and
// constraint as the one-sample path makes them, the lanes' right-hand side (LaneRate) and each
// lane's end finished and stored as that path finishes it (run_sample.hpp). What the lanes'
// integrations share: the fixed steps (fixed_step_lanes.hpp) and the adaptive Dormand–Prince
// (dopri5_lanes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "rbmc/math/euler.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/simd/lanes.hpp"

namespace rbmc {

// The lanes always give pivot_rate its K_b⁻¹ (LaneRate). Its fallback is a call on the host
// (constraints.hpp); in the lanes' code a call that is never taken still cost 10–25 % (it
// clobbers every vector register), so for lanes the fallback is inline.
template <class S, int W>
RBMC_HD_INLINE Mat3<Lanes<S, W>> pivot_k_inverse_call(const Constraint<Lanes<S, W>>& c,
                                                      const FreeBodyModel<Lanes<S, W>>& model) {
  return pivot_k_inverse(c, model);
}

// BodyRate's right-hand side for lanes whose own values are in the load set and constraint
// already. Two things BodyRate's general form costs the lanes (bench/RESULTS.md, 2026-11-23 fifth
// session: a pivot at 16 M body-steps/s against 22 M): the constraint is held by value, since
// through a pointer every store of the stepper's may alias it (both are lanes of one type) and its
// values are loaded again at each use; and a run without loads takes gravity's wrench directly,
// which is what evaluate_loads returns for an empty set, bit for bit, without its loop and
// branches in the way of scheduling.
template <class L, bool kFreeBody>
struct LaneRate {
  FreeBodyModel<L> model;
  const LoadSet<L>* loads;
  Constraint<L> constraint;
  Mat3<L> pivot_k_inv;  // a pivot's K_b⁻¹ (constraints.hpp's pivot_k_inverse), each lane its sample's
  bool gravity_alone;   // no load in the set: no force, couple, spring, damping or central body

  BodyRate<L, SharedValuesOnly, kFreeBody> body_rate() const { return {model, loads, &constraint, {}, &pivot_k_inv}; }
  ConstrainedRate<L> evaluate(const RigidBodyState<L>& x) const {
    if constexpr (kFreeBody) {
      return body_rate().evaluate(x);
    } else {
      const Wrench<L> applied = gravity_alone ? uniform_gravity_wrench(model.mass, model.gravity_w) : body_rate().wrench(x);
      return constrained_rate(constraint, model, x, applied, &pivot_k_inv);
    }
  }
  RigidBodyStateRate<L> operator()(const RigidBodyState<L>& x) const { return evaluate(x).rate; }
  // The applied wrench alone: the splitting's kicks (its stepper asks for it).
  Wrench<L> wrench(const RigidBodyState<L>& x) const {
    return gravity_alone ? uniform_gravity_wrench(model.mass, model.gravity_w) : body_rate().wrench(x);
  }
};

// The splitting's principal frame of W bodies: each lane's by the one-sample path's Jacobi
// iteration on its own inertia (its sweeps stop when that lane's converge, a branch the lanes
// cannot take together), so each lane's frame is its sample's bit for bit. Found by
// SplittingStepper::start through argument-dependent lookup, before splitting.hpp's.
template <class S, int W>
inline SplittingFrame<Lanes<S, W>> splitting_frame(const FreeBodyModel<Lanes<S, W>>& model) {
  SplittingFrame<Lanes<S, W>> f;
  for (int lane = 0; lane < W; ++lane) {
    Mat3<S> inertia;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) inertia(r, c) = model.inertia_c_b(r, c)[lane];
    FreeBodyModel<S> one{};
    one.inertia_c_b = inertia;
    const SplittingFrame<S> frame = splitting_frame(one);
    set_lane(f.axes, lane, frame.axes);
    set_lane(f.moments, lane, frame.moments);
  }
  return f;
}

// The ZXZ Euler angles of W attitudes, where RK4 on Euler angles starts (fixed_step.hpp): each
// lane's by the one-sample path's conversion (its atan2s and its branch at the singularity), so
// each lane's angles are its sample's bit for bit; *singular when any lane is at the singularity
// (the group then goes sample by sample). Found through argument-dependent lookup, before
// euler.hpp's.
template <class S, int W>
inline EulerAngles<Lanes<S, W>> euler_zxz_from_quaternion(const Quaternion<Lanes<S, W>>& q, bool* singular = nullptr) {
  EulerAngles<Lanes<S, W>> a;
  bool any = false;
  for (int lane = 0; lane < W; ++lane) {
    bool at_singularity = false;
    const Quaternion<S> one{q.w[lane], q.x[lane], q.y[lane], q.z[lane]};
    set_lane(a, lane, EulerAngles<S>(euler_zxz_from_quaternion(one, &at_singularity)));
    any = any || at_singularity;
  }
  if (singular != nullptr) *singular = any;
  return a;
}

// A load set of W samples, lane by lane, from each sample's own copy (apply_own_values): the
// counts and frames are the run's, the same in every lane.
template <class S, int W>
inline void set_lane(LoadSet<Lanes<S, W>>& l, int lane, const LoadSet<S>& one) {
  l.n_point_forces = one.n_point_forces;
  l.n_torques = one.n_torques;
  l.n_springs = one.n_springs;
  for (int i = 0; i < one.n_point_forces; ++i) {
    set_lane(l.point_forces[i].point_b, lane, one.point_forces[i].point_b);
    set_lane(l.point_forces[i].force, lane, one.point_forces[i].force);
    l.point_forces[i].frame = one.point_forces[i].frame;
  }
  for (int i = 0; i < one.n_torques; ++i) {
    set_lane(l.torques[i].torque, lane, one.torques[i].torque);
    l.torques[i].frame = one.torques[i].frame;
  }
  for (int i = 0; i < one.n_springs; ++i) {
    set_lane(l.springs[i].point_b, lane, one.springs[i].point_b);
    set_lane(l.springs[i].anchor_w, lane, one.springs[i].anchor_w);
    l.springs[i].stiffness.set(lane, one.springs[i].stiffness);
    l.springs[i].rest_length.set(lane, one.springs[i].rest_length);
    l.springs[i].damping.set(lane, one.springs[i].damping);
  }
  l.linear_damping.set(lane, one.linear_damping);
  l.quadratic_damping.set(lane, one.quadratic_damping);
  l.angular_linear_damping.set(lane, one.angular_linear_damping);
  l.angular_quadratic_damping.set(lane, one.angular_quadratic_damping);
  l.has_central_body = one.has_central_body;
  l.central_mu.set(lane, one.central_mu);
  set_lane(l.central_center_w, lane, one.central_center_w);
}

// A model of W samples, lane by lane; com_at_origin and inertia_diagonal, branches, are lane 0's
// (the callers check that every lane agrees).
template <class S, int W>
inline void set_lane(FreeBodyModel<Lanes<S, W>>& m, int lane, const FreeBodyModel<S>& one) {
  m.mass.set(lane, one.mass);
  set_lane(m.com_b, lane, one.com_b);
  set_lane(m.inertia_c_b, lane, one.inertia_c_b);
  set_lane(m.inertia_inv_c_b, lane, one.inertia_inv_c_b);
  set_lane(m.gravity_w, lane, one.gravity_w);
  if (lane == 0) {
    m.com_at_origin = one.com_at_origin;
    m.inertia_diagonal = one.inertia_diagonal;
  }
}

// Samples first, ..., first + W − 1 of a batch (the layout of sample_layout.hpp) as lanes of a
// kind: each lane's values (the CPU's copied model values: run_sample_in_batch), then the lanes'.
// It holds what its LaneRate points to: it stays where it was made.
template <class Scalar, int W, class Kinds>
struct LaneGroup {
  using L = Lanes<Scalar, W>;
  using Rate = LaneRate<L, Kinds::free_body>;

  RigidBodyState<Scalar> x0[W];
  FreeBodyModel<Scalar> model[W];
  Constraint<Scalar> constraint[W];
  LoadSet<Scalar> loads[Kinds::free_body ? 1 : W];  // each sample's own copy (the free body has none)
  Mat3<Scalar> k_inv[W];                            // a pivot's K_b⁻¹, once per sample (constraints.hpp)
  FreeBodyModel<L> lanes_model;
  Constraint<L> lanes_constraint;
  LoadSet<L> lanes_loads;
  Mat3<L> lanes_k_inv;
  RigidBodyState<L> lanes_x0;
  bool gravity_alone = false;

  LaneGroup() = default;
  LaneGroup(const LaneGroup&) = delete;
  LaneGroup& operator=(const LaneGroup&) = delete;

  // Stages: each lane's inputs, model and constraint, as the one-sample path makes them; then the
  // lanes'. False when the group must go sample by sample: inputs run_sample does not integrate
  // (inputs_status: it flags them), bodies that disagree on their centre of mass lying at the
  // origin or on their body axes being principal, or samples on which damping terms they have
  // (branches of the right-hand side).
  template <class StoredIn>
  bool load(const StoredIn* inputs, std::size_t n, std::size_t first, const SharedModel<Scalar>& shared) {
    for (int lane = 0; lane < W; ++lane) {
      const std::size_t i = first + std::size_t(lane);
      const SampleInputs<Scalar> in = load_sample_inputs<Scalar>(inputs, n, i, 0);
      const auto own = own_values_in_batch(shared.parameters, inputs, n, i);
      if (inputs_status(in, own) != SampleStatus::ok) return false;
      x0[lane] = in.initial;
      model[lane] = make_free_body_model(in.body, in.gravity_w);
      if (model[lane].com_at_origin != model[0].com_at_origin ||
          model[lane].inertia_diagonal != model[0].inertia_diagonal)
        return false;
      constraint[lane] = shared.constraint;
      if constexpr (!Kinds::free_body) {
        loads[lane] = shared.loads;
        apply_own_values(own, loads[lane], constraint[lane]);
        // Each damping term is evaluated or not for the whole group (Damping::terms, branches).
        if (damping_of(loads[lane], SharedValuesOnly{}).terms() != damping_of(loads[0], SharedValuesOnly{}).terms())
          return false;
      }
      k_inv[lane] = shared.constraint.kind == ConstraintKind::pivot ? pivot_k_inverse(constraint[lane], model[lane])
                                                                     : Mat3<Scalar>::Zero();
    }
    lanes_constraint.kind = shared.constraint.kind;
    for (int lane = 0; lane < W; ++lane) {
      set_lane(lanes_model, lane, model[lane]);
      set_lane(lanes_constraint.point_b, lane, constraint[lane].point_b);
      set_lane(lanes_constraint.anchor_w, lane, constraint[lane].anchor_w);
      lanes_constraint.plane_height.set(lane, constraint[lane].plane_height);
      lanes_constraint.stabilization.set(lane, constraint[lane].stabilization);
      set_lane(lanes_k_inv, lane, k_inv[lane]);
      if constexpr (!Kinds::free_body) set_lane(lanes_loads, lane, loads[lane]);
      set_lane(lanes_x0, lane, x0[lane]);
    }
    const LoadSet<Scalar>& loads0 = loads[0];
    gravity_alone = Kinds::free_body || (loads0.n_point_forces == 0 && loads0.n_torques == 0 && loads0.n_springs == 0 &&
                                         !loads0.has_central_body && !damping_of(loads0, SharedValuesOnly{}).any());
    return true;
  }

  // The lanes' right-hand side: their own values are in lanes_loads and lanes_constraint already,
  // nothing to look up.
  Rate rate() const { return {lanes_model, &lanes_loads, lanes_constraint, lanes_k_inv, gravity_alone}; }

  // Stage: lane `lane`'s end, reaction, drifts and guard, as the one-sample path finishes it
  // (run_sample.hpp), with that path's right-hand side; stored as its sample's result.
  template <class StoredOut>
  void finish(int lane, const IntegrationEnd<Scalar>& end, const SharedModel<Scalar>& shared,
              const IntegrationSettings<Scalar>& how, StoredOut* outputs, std::uint8_t* status, std::size_t n,
              std::size_t first) const {
    const BodyRate<Scalar, SharedValuesOnly, Kinds::free_body> one{
        model[lane], Kinds::free_body ? &shared.loads : &loads[lane], &constraint[lane], {}, &k_inv[lane]};
    SampleResult<Scalar> r = started_result(x0[lane]);
    finish_sample<Kinds>(one, drift_reference(one, x0[lane]), end, how, r);
    const std::size_t i = first + std::size_t(lane);
    store_sample_result(outputs, n, i, r);
    status[i] = static_cast<std::uint8_t>(r.status);
  }
};

}  // namespace rbmc

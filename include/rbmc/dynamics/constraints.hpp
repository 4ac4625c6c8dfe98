// Constraints on one body, solved with Lagrange multipliers.
//
// A constraint imposes three acceleration-level conditions c̈(ẍ) = target. The right-hand side is
// affine in the reaction λ it applies, so the constrained accelerations satisfy c̈₀ + K λ = target,
// K the constraint's apparent inverse inertia (002, "apparent inverse inertia"; 004's
// A = Lᵀ M⁻¹ L, eq. 100). This is the Schur complement of 002's [H Kᵀ; K 0] system and 004's
// λ = −A⁻¹ (Lᵀ B) (eqs 96–103). multiplier_rate finds K by superposition: column j is the change
// of c̈ under the unit reaction e_j, from the linear part of the rate (free_body_rate_change).
// pivot_rate and planar_rate, which the integrations use, write each kind's K out, and are tested
// against it.
// Drift off the constraint is stabilised (Baumgarte): target = −2α ċ − α² c, a critically
// damped return at rate α (default_stabilization()).
#pragma once

#include <cstdint>

#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/dynamics/newton_euler.hpp"
#include "rbmc/math/mat3_vec3.hpp"

namespace rbmc {

enum class ConstraintKind : std::uint8_t {
  none = 0,
  pivot = 1,   // a spherical joint: the body point point_b stays at the world point anchor_w
  planar = 2,  // plane motion (004 §5): the body z axis stays along world z and the origin at z = plane_height
};

// The constraint a right-hand side is compiled for (BodyRate, SampleKinds): one kind, whose kind
// is then never looked at, or any, the run's kind dispatched at each evaluation. A GPU kernel
// compiled for one holds only its registers (the compiler's report, bench/RESULTS.md).
enum class CompiledConstraint : std::uint8_t { any, none, pivot, planar };

template <class Scalar>
struct Constraint {
  ConstraintKind kind = ConstraintKind::none;
  Vec3<Scalar> point_b = Vec3<Scalar>::Zero();   // pivot: body point, body frame, from the origin (m)
  Vec3<Scalar> anchor_w = Vec3<Scalar>::Zero();  // pivot: world point (m)
  Scalar plane_height = 0;                       // planar: z of the body origin (m)
  Scalar stabilization = 0;                      // Baumgarte rate α (1/s); 0 turns it off

  template <class Other>
  Constraint<Other> cast() const {
    return {kind, point_b.template cast<Other>(), anchor_w.template cast<Other>(), Other(plane_height),
            Other(stabilization)};
  }
};

// The default Baumgarte rate α for a run of the given duration and step (docs/physics.md,
// "Constraints"). The stabilised equations c̈ = −2α ċ − α² c have the constrained motion as
// their exact solution whatever α, so an integrator converges at its own order only if α does
// not change with the step: by default α = 10 / duration, ten e-folds of return over the run.
// α h is capped at 0.05 (a return over about 20 steps, far inside RK4's stability region), which
// binds only for runs of fewer than 200 steps.
template <class Scalar>
RBMC_HD inline Scalar default_stabilization(Scalar duration, Scalar step) {
  const Scalar over_run = Scalar(10) / duration, step_limit = Scalar(0.05) / step;
  return over_run < step_limit ? over_run : step_limit;
}

// The reaction as a wrench. Pivot: λ is the force (world) the joint applies at the body point.
// Planar: λ₀ is a force along world z at the body origin, (λ₁, λ₂) a couple about body x and y.
template <class Scalar>
RBMC_HD_INLINE Wrench<Scalar> reaction_wrench(const Constraint<Scalar>& c, const FreeBodyModel<Scalar>& model,
                                              const RigidBodyState<Scalar>& x, const Vec3<Scalar>& lambda) {
  if (c.kind == ConstraintKind::pivot) return point_force_wrench(x.q_wb, model.com_b, c.point_b, lambda, LoadFrame::world);
  Wrench<Scalar> w = point_force_wrench<Scalar>(x.q_wb, model.com_b, Vec3<Scalar>::Zero(), Vec3<Scalar>(0, 0, lambda(0)),
                                                LoadFrame::world);
  w.torque_c_b += Vec3<Scalar>(lambda(1), lambda(2), Scalar(0));
  return w;
}

// The constrained quantities' second derivatives, from the state and its rate.
// Pivot: a_P = a_O + R (ω̇ × p + ω × (ω × p)) (000 eq. 1.9). Planar: (a_O,z, ω̇_x, ω̇_y).
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> constraint_acceleration(const Constraint<Scalar>& c, const RigidBodyState<Scalar>& x,
                                                    const RigidBodyStateRate<Scalar>& xd) {
  if (c.kind == ConstraintKind::pivot) {
    const Vec3<Scalar>& p = c.point_b;
    return xd.v_dot_w + rotate(x.q_wb, Vec3<Scalar>(xd.omega_dot_b.cross(p) + x.omega_b.cross(x.omega_b.cross(p))));
  }
  return Vec3<Scalar>(xd.v_dot_w.z(), xd.omega_dot_b.x(), xd.omega_dot_b.y());
}

// How the constrained quantities' second derivatives change with the rate change dxd at fixed
// position and velocity: constraint_acceleration's linear part (the ω × (ω × p) term is fixed).
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> constraint_acceleration_change(const Constraint<Scalar>& c, const RigidBodyState<Scalar>& x,
                                                           const RigidBodyStateRate<Scalar>& dxd) {
  if (c.kind == ConstraintKind::pivot) return dxd.v_dot_w + rotate(x.q_wb, Vec3<Scalar>(dxd.omega_dot_b.cross(c.point_b)));
  return Vec3<Scalar>(dxd.v_dot_w.z(), dxd.omega_dot_b.x(), dxd.omega_dot_b.y());
}

// Position- and velocity-level errors (c, ċ). Planar: e = Rᵀ e_z is world z in body components;
// the tilt errors are (e_y, −e_x), whose rates are (ω_x, ω_y) to first order.
template <class Scalar>
RBMC_HD_INLINE void constraint_errors(const Constraint<Scalar>& c, const RigidBodyState<Scalar>& x,
                                      Vec3<Scalar>& position, Vec3<Scalar>& velocity) {
  if (c.kind == ConstraintKind::pivot) {
    position = x.p_w + rotate(x.q_wb, c.point_b) - c.anchor_w;
    velocity = x.v_w + rotate(x.q_wb, Vec3<Scalar>(x.omega_b.cross(c.point_b)));
    return;
  }
  const Vec3<Scalar> e = rotate_inverse<Scalar>(x.q_wb, Vec3<Scalar>::UnitZ());
  position = Vec3<Scalar>(x.p_w.z() - c.plane_height, e.y(), -e.x());
  velocity = Vec3<Scalar>(x.v_w.z(), x.omega_b.x(), x.omega_b.y());
}

template <class Scalar>
struct ConstrainedRate {
  RigidBodyStateRate<Scalar> rate;
  Vec3<Scalar> lambda;  // the multipliers: see reaction_wrench for their meaning
};

// The stabilised target of the constrained quantities' second derivatives: −2α ċ − α² c.
template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> stabilised_target(const Constraint<Scalar>& c, const RigidBodyState<Scalar>& x) {
  Vec3<Scalar> error, error_rate;
  constraint_errors(c, x, error, error_rate);
  const Scalar a = c.stabilization;
  return -Scalar(2) * a * error_rate - a * a * error;
}

// ẋ under the applied wrench and any constraint's reaction, by the multipliers: K from three
// rate changes, then λ = K⁻¹ (target − c̈₀). Valid for every kind: the reference the pivot's and the
// plane's own solutions (pivot_rate, planar_rate) are tested against.
template <class Scalar>
RBMC_HD_INLINE ConstrainedRate<Scalar> multiplier_rate(const Constraint<Scalar>& c, const FreeBodyModel<Scalar>& model,
                                                       const RigidBodyState<Scalar>& x, const Wrench<Scalar>& applied) {
  const RigidBodyStateRate<Scalar> free = free_body_rate(model, x, applied);
  if (c.kind == ConstraintKind::none) return {free, Vec3<Scalar>::Zero()};
  const Vec3<Scalar> c0 = constraint_acceleration(c, x, free);
  Mat3<Scalar> k;
  for (int j = 0; j < 3; ++j)
    k.col(j) = constraint_acceleration_change(
        c, x, free_body_rate_change(model, x, reaction_wrench<Scalar>(c, model, x, Vec3<Scalar>::Unit(j))));
  const Vec3<Scalar> lambda = mat3_times(mat3_inverse(k), Vec3<Scalar>(stabilised_target(c, x) - c0));
  // The free rate plus the reaction's change of it (the rate is affine in the wrench).
  RigidBodyStateRate<Scalar> rate = free;
  const RigidBodyStateRate<Scalar> reaction = free_body_rate_change(model, x, reaction_wrench(c, model, x, lambda));
  rate.v_dot_w += reaction.v_dot_w;
  rate.omega_dot_b += reaction.omega_dot_b;
  return {rate, lambda};
}

// The pivot's multipliers with K written out in body components: a unit force e at P (the body
// point p) changes a_C by e/m and ω̇ by I⁻¹ (d × e), d = p − r_C, so P's acceleration changes by
//   K_b e = e/m − d × (I⁻¹ (d × e))      (002's apparent inverse inertia at P; 000 eq. 1.9)
// K_b depends on the body alone, and R K_b Rᵀ λ = target − c̈₀ is solved in body components. The
// same solution as multiplier_rate's (the same equations, K by superposition), without its three
// rates of change and six rotations, and as well conditioned: it works with I_C⁻¹ as the free body
// does (the inertia about P, J_P = I_C − m d^× d^×, is far worse conditioned for a thin rod hanging
// from its end, and lost float the rod's spin).
template <class Scalar>
RBMC_HD_INLINE Mat3<Scalar> pivot_apparent_inverse_inertia(const Constraint<Scalar>& c, const FreeBodyModel<Scalar>& model) {
  const Vec3<Scalar> d = c.point_b - model.com_b;
  const Scalar inv_m = Scalar(1) / model.mass;
  Mat3<Scalar> k;
  for (int j = 0; j < 3; ++j) {
    const Vec3<Scalar> e = Vec3<Scalar>::Unit(j);
    k.col(j) = e * inv_m - d.cross(mat3_times(model.inertia_inv_c_b, Vec3<Scalar>(d.cross(e))));
  }
  return k;
}

// K_b⁻¹ (kg): it depends on the body and the joint alone, so it is computed once per sample and
// passed to pivot_rate (run_sample), on the GPU too where the rate reads its model from memory
// (BodyRate's kReadsInPlace). The GPU's other kernels let pivot_rate compute it at each
// evaluation: registers are scarcer there than arithmetic, and nine more values held through the
// loop grew their spills (sm_90). The same operations either way, so the same numbers.
template <class Scalar>
RBMC_HD_INLINE Mat3<Scalar> pivot_k_inverse(const Constraint<Scalar>& c, const FreeBodyModel<Scalar>& model) {
  return mat3_inverse(pivot_apparent_inverse_inertia(c, model));
}

#ifndef __CUDA_ARCH__
template <class Scalar>
__attribute__((noinline)) Mat3<Scalar> pivot_k_inverse_call(const Constraint<Scalar>& c, const FreeBodyModel<Scalar>& model) {
  return pivot_k_inverse(c, model);
}
#endif

// λ_b = K_b⁻¹ Rᵀ (target − c̈₀); k_inv: pivot_k_inverse(c, model) computed once, or null to
// compute it here.
//
// Every term is taken to body components, where p, r_C and ω are given, and the world's terms are
// summed before they turn: the attitude rotates two vectors an evaluation, where
// stabilised_target, constraint_acceleration and the free and reaction rates computed apart
// rotated seven, each about 30 operations (the lanes ran 1.2 × faster: bench/RESULTS.md,
// 2026-11-29). With a_C = F/m, a_O = a_C − R a_rel (a_rel = ω̇ × r_C + ω × (ω × r_C),
// com_relative_acceleration_b), c = r_O + R p − A and ċ = v_O + R (ω × p):
//   Rᵀ (target − c̈₀) = Rᵀ (−2α v_O − α² (r_O − A) − a_C) − 2α ω × p − α² p
//                      + a_rel − ω̇ × p − ω × (ω × p),
// and with the reaction (the force λ at P: ω̇ changes by Δω̇ = I⁻¹ (d × λ_b), d = p − r_C)
//   a_O = a_C + R (λ_b / m − Δω̇ × r_C − a_rel).
// The same equations as multiplier_rate's to rounding (tests/core/constraints_test.cpp).
template <class Scalar>
RBMC_HD_INLINE ConstrainedRate<Scalar> pivot_rate(const Constraint<Scalar>& c, const FreeBodyModel<Scalar>& model,
                                                  const RigidBodyState<Scalar>& x, const Wrench<Scalar>& applied,
                                                  const Mat3<Scalar>* k_inv = nullptr) {
  const Vec3<Scalar>& w = x.omega_b;
  const Vec3<Scalar>& p = c.point_b;
  const Scalar alpha = c.stabilization;
  const Vec3<Scalar> omega_dot_free = euler_angular_acceleration(model, w, applied.torque_c_b);
  const Vec3<Scalar> a_c_w = applied.force_w / model.mass;
  // a_rel, zero where the centre of mass is the origin (a branch the lanes take alike).
  Vec3<Scalar> a_rel_b = Vec3<Scalar>::Zero();
  if (!model.com_at_origin) a_rel_b = com_relative_acceleration_b(model, w, omega_dot_free);
  const Vec3<Scalar> w_cross_p = w.cross(p);
  const Vec3<Scalar> world_terms_b = rotate_inverse(
      x.q_wb, Vec3<Scalar>(-Scalar(2) * alpha * x.v_w - alpha * alpha * Vec3<Scalar>(x.p_w - c.anchor_w) - a_c_w));
  const Vec3<Scalar> wanted_b = world_terms_b - Scalar(2) * alpha * w_cross_p - alpha * alpha * p + a_rel_b -
                                Vec3<Scalar>(omega_dot_free.cross(p) + w.cross(w_cross_p));
#ifdef __CUDA_ARCH__
  const Vec3<Scalar> lambda_b = mat3_times(k_inv != nullptr ? *k_inv : pivot_k_inverse(c, model), wanted_b);
#else
  // On the host the inverse, when not given, comes from a call: written inline, its arithmetic in
  // every right-hand side (four per RK4 step) made the one-sample path 1.7 × slower for every
  // kind of run, pivot or not (bench/RESULTS.md, 2026-11-23 fifth session).
  const Vec3<Scalar> lambda_b = mat3_times(k_inv != nullptr ? *k_inv : pivot_k_inverse_call(c, model), wanted_b);
#endif
  const Vec3<Scalar> d = p - model.com_b;
  const Vec3<Scalar> delta_omega_dot =
      inertia_matrix_times(model, model.inertia_inv_c_b, Vec3<Scalar>(d.cross(lambda_b)));
  Vec3<Scalar> origin_b = lambda_b / model.mass;  // a_O − a_C, body components
  if (!model.com_at_origin) origin_b -= Vec3<Scalar>(delta_omega_dot.cross(model.com_b) + a_rel_b);
  RigidBodyStateRate<Scalar> rate;
  rate.p_dot_w = x.v_w;
  rate.q_dot_wb = quaternion_rate(x.q_wb, w);
  rate.omega_dot_b = omega_dot_free + delta_omega_dot;
  rate.v_dot_w = a_c_w + rotate(x.q_wb, origin_b);
  return {rate, rotate(x.q_wb, lambda_b)};
}

// Plane motion's multipliers with K written out (004 §5; K as in 002's apparent inverse inertia).
// The reaction is the force λ₀ along world z at the body origin O and the couple (λ₁, λ₂, 0) in body
// components; the constrained quantities are (a_O,z, ω̇_x, ω̇_y). With e = Rᵀ e_z (world z in body
// components) and g = e × r_C (the moment about C of a unit λ₀, body components), the reaction
// changes ω̇ by Δω̇ = I⁻¹ (λ₀ g + (λ₁, λ₂, 0)) and a_O by λ₀ e_z / m − R (Δω̇ × r_C), whose z
// component is λ₀ / m + g · Δω̇. With u = I⁻¹ g (I⁻¹ symmetric), so
//   K = [1/m + g · u, u_x, u_y;  u_x, I⁻¹_xx, I⁻¹_xy;  u_y, I⁻¹_yx, I⁻¹_yy],
// symmetric as 004's A = Lᵀ M⁻¹ L (eq. 100), and c̈₀ = (a_C,z − e · a_rel, ω̇_x, ω̇_y) of the free
// rates (a_rel = ω̇ × r_C + ω × (ω × r_C), com_relative_acceleration_b). Then λ = K⁻¹ (target − c̈₀)
// and a_O = a_C + λ₀ e_z / m − R (Δω̇ × r_C + a_rel). An evaluation rotates two vectors (e and the
// last), one where the centre of mass is the origin (g = 0, and λ₀ = m (target₀ − a_C,z) apart from
// the couple), where multiplier_rate's rate changes and reaction wrenches rotated ten, or five. The
// same equations as multiplier_rate's to rounding (tests/core/constraints_test.cpp).
template <class Scalar>
RBMC_HD_INLINE ConstrainedRate<Scalar> planar_rate(const Constraint<Scalar>& c, const FreeBodyModel<Scalar>& model,
                                                   const RigidBodyState<Scalar>& x, const Wrench<Scalar>& applied) {
  const Vec3<Scalar>& w = x.omega_b;
  const Mat3<Scalar>& i_inv = model.inertia_inv_c_b;
  const Scalar alpha = c.stabilization;
  const Vec3<Scalar> omega_dot_free = euler_angular_acceleration(model, w, applied.torque_c_b);
  const Vec3<Scalar> a_c_w = applied.force_w / model.mass;
  const Vec3<Scalar> e = rotate_inverse<Scalar>(x.q_wb, Vec3<Scalar>::UnitZ());
  // constraint_errors' planar errors (z − height, e_y, −e_x) and their rates (v_z, ω_x, ω_y).
  const Vec3<Scalar> target = -Scalar(2) * alpha * Vec3<Scalar>(x.v_w.z(), w.x(), w.y()) -
                              alpha * alpha * Vec3<Scalar>(x.p_w.z() - c.plane_height, e.y(), -e.x());
  Mat3<Scalar> k;
  k << Scalar(1) / model.mass, Scalar(0), Scalar(0),  //
      Scalar(0), i_inv(0, 0), i_inv(0, 1),           //
      Scalar(0), i_inv(1, 0), i_inv(1, 1);
  Vec3<Scalar> a_rel_b = Vec3<Scalar>::Zero(), g = Vec3<Scalar>::Zero();
  Scalar a_o_z = a_c_w.z();
  if (!model.com_at_origin) {  // a branch the lanes take alike
    a_rel_b = com_relative_acceleration_b(model, w, omega_dot_free);
    a_o_z -= dot3(e, a_rel_b);
    g = e.cross(model.com_b);
    const Vec3<Scalar> u = inertia_matrix_times(model, i_inv, g);
    k(0, 0) += dot3(g, u);
    k(0, 1) = k(1, 0) = u.x();
    k(0, 2) = k(2, 0) = u.y();
  }
  const Vec3<Scalar> lambda =
      mat3_times(mat3_inverse(k), Vec3<Scalar>(target - Vec3<Scalar>(a_o_z, omega_dot_free.x(), omega_dot_free.y())));
  const Vec3<Scalar> delta_omega_dot =
      inertia_matrix_times(model, i_inv, Vec3<Scalar>(lambda(0) * g + Vec3<Scalar>(lambda(1), lambda(2), Scalar(0))));
  RigidBodyStateRate<Scalar> rate;
  rate.p_dot_w = x.v_w;
  rate.q_dot_wb = quaternion_rate(x.q_wb, w);
  rate.omega_dot_b = omega_dot_free + delta_omega_dot;
  rate.v_dot_w = a_c_w;
  rate.v_dot_w.z() += lambda(0) / model.mass;
  if (!model.com_at_origin)
    rate.v_dot_w -= rotate(x.q_wb, Vec3<Scalar>(delta_omega_dot.cross(model.com_b) + a_rel_b));
  return {rate, lambda};
}

// ẋ under the applied wrench and the constraint's reaction. pivot_k_inv: a pivot's
// pivot_k_inverse, computed once (or null: computed here). kCompiled: c's kind when known at
// compile time (c.kind is then not read; the caller ensures it is that kind), or any.
template <CompiledConstraint kCompiled = CompiledConstraint::any, class Scalar>
RBMC_HD_INLINE ConstrainedRate<Scalar> constrained_rate(const Constraint<Scalar>& c, const FreeBodyModel<Scalar>& model,
                                                        const RigidBodyState<Scalar>& x, const Wrench<Scalar>& applied,
                                                        const Mat3<Scalar>* pivot_k_inv = nullptr) {
  using C = CompiledConstraint;
  if constexpr (kCompiled == C::pivot) {
    return pivot_rate(c, model, x, applied, pivot_k_inv);
  } else if constexpr (kCompiled == C::planar) {
    return planar_rate(c, model, x, applied);
  } else if constexpr (kCompiled == C::none) {
    return {free_body_rate(model, x, applied), Vec3<Scalar>::Zero()};
  } else {
    if (c.kind == ConstraintKind::pivot) return pivot_rate(c, model, x, applied, pivot_k_inv);
    if (c.kind == ConstraintKind::planar) return planar_rate(c, model, x, applied);
    return {free_body_rate(model, x, applied), Vec3<Scalar>::Zero()};
  }
}

// The state moved onto the constraint (a consistent initial condition): pivot, the origin placed
// so that the body point is at the anchor and moving with zero velocity; planar, the tilt and the
// out-of-plane velocities removed, the heading and in-plane motion kept.
template <class Scalar>
RBMC_HD inline RigidBodyState<Scalar> project_onto_constraint(const Constraint<Scalar>& c,
                                                              const RigidBodyState<Scalar>& x) {
  RigidBodyState<Scalar> y = x;
  if (c.kind == ConstraintKind::pivot) {
    y.p_w = c.anchor_w - rotate(x.q_wb, c.point_b);
    y.v_w = -rotate(x.q_wb, Vec3<Scalar>(x.omega_b.cross(c.point_b)));
  } else if (c.kind == ConstraintKind::planar) {
    // Keep the heading: the rotation about world z that takes body x nearest to where it points.
    const Vec3<Scalar> ex = rotate<Scalar>(x.q_wb, Vec3<Scalar>::UnitX());
    const Scalar half = Scalar(0.5) * atan2_hd<Scalar>(ex.y(), ex.x());
    y.q_wb = {Eigen::numext::cos(half), Scalar(0), Scalar(0), Eigen::numext::sin(half)};
    y.p_w.z() = c.plane_height;
    y.v_w.z() = Scalar(0);
    y.omega_b = Vec3<Scalar>(Scalar(0), Scalar(0), x.omega_b.z());
  }
  return y;
}

}  // namespace rbmc

// The loads a scenario declares, shared by all its samples, and their evaluation at a state.
// Fixed capacities keep the set a plain value that a kernel takes as an argument.
#pragma once

#include "rbmc/dynamics/invariants.hpp"
#include "rbmc/dynamics/loads.hpp"
#include "rbmc/dynamics/model_values.hpp"
#include "rbmc/dynamics/newton_euler.hpp"

namespace rbmc {

template <class Scalar>
struct LoadSet {
  static constexpr int kMaxPointForces = 8;
  static constexpr int kMaxTorques = 4;
  static constexpr int kMaxSprings = 8;
  static_assert(kMaxPointForces <= 16 && kMaxTorques <= 16 && kMaxSprings <= 16,
                "ModelParameters::indices has one bit per load of a kind");

  struct PointForce {
    Vec3<Scalar> point_b;  // application point, body frame, from the body origin (m)
    Vec3<Scalar> force;    // N, in `frame`
    LoadFrame frame;
  };
  struct Torque {
    Vec3<Scalar> torque;  // N m, in `frame`
    LoadFrame frame;
  };
  struct Spring {
    Vec3<Scalar> point_b;   // body point, body frame (m)
    Vec3<Scalar> anchor_w;  // world point (m)
    Scalar stiffness;       // N/m
    Scalar rest_length;     // m
    Scalar damping;         // N s/m
  };

  int n_point_forces = 0, n_torques = 0, n_springs = 0;
  PointForce point_forces[kMaxPointForces];
  Torque torques[kMaxTorques];
  Spring springs[kMaxSprings];
  Scalar linear_damping = 0, quadratic_damping = 0;                  // N s/m, N s²/m²
  Scalar angular_linear_damping = 0, angular_quadratic_damping = 0;  // N m s, N m s²
  bool has_central_body = false;
  Scalar central_mu = 0;                                  // m³/s²
  Vec3<Scalar> central_center_w = Vec3<Scalar>::Zero();  // m

  // The same loads in another precision (a float run converts once, on the host).
  template <class Other>
  LoadSet<Other> cast() const {
    LoadSet<Other> o;
    o.n_point_forces = n_point_forces;
    o.n_torques = n_torques;
    o.n_springs = n_springs;
    for (int i = 0; i < n_point_forces; ++i)
      o.point_forces[i] = {point_forces[i].point_b.template cast<Other>(), point_forces[i].force.template cast<Other>(),
                           point_forces[i].frame};
    for (int i = 0; i < n_torques; ++i) o.torques[i] = {torques[i].torque.template cast<Other>(), torques[i].frame};
    for (int i = 0; i < n_springs; ++i)
      o.springs[i] = {springs[i].point_b.template cast<Other>(), springs[i].anchor_w.template cast<Other>(),
                      Other(springs[i].stiffness), Other(springs[i].rest_length), Other(springs[i].damping)};
    o.linear_damping = Other(linear_damping);
    o.quadratic_damping = Other(quadratic_damping);
    o.angular_linear_damping = Other(angular_linear_damping);
    o.angular_quadratic_damping = Other(angular_quadratic_damping);
    o.has_central_body = has_central_body;
    o.central_mu = Other(central_mu);
    o.central_center_w = central_center_w.template cast<Other>();
    return o;
  }

  // True when every load derives from a potential, so that T + V is conserved: no damping, no
  // spring damping, no force or torque that turns with the body, no world-fixed couple.
  RBMC_HD bool is_conservative() const {
    if (linear_damping != Scalar(0) || quadratic_damping != Scalar(0) || angular_linear_damping != Scalar(0) ||
        angular_quadratic_damping != Scalar(0) || n_torques > 0)
      return false;
    for (int i = 0; i < n_point_forces; ++i)
      if (point_forces[i].frame == LoadFrame::body) return false;
    for (int i = 0; i < n_springs; ++i)
      if (springs[i].damping != Scalar(0)) return false;
    return true;
  }
};

// True when no load has a moment about the centre of mass, so that the angular momentum about it
// is conserved (uniform gravity and translational damping act at the centre of mass).
template <class Scalar>
RBMC_HD inline bool conserves_angular_momentum(const LoadSet<Scalar>& loads) {
  return loads.n_point_forces == 0 && loads.n_torques == 0 && loads.n_springs == 0 &&
         loads.angular_linear_damping == Scalar(0) && loads.angular_quadratic_damping == Scalar(0) &&
         !loads.has_central_body;
}

// The body point point_b's world position and velocity (000 eqs 1.1, 1.4), with the attitude as
// the quaternion or its matrix (loads.hpp's Rotation).
template <class Scalar, class Rotation>
RBMC_HD_INLINE Vec3<Scalar> point_position_w(const RigidBodyState<Scalar>& x, const Rotation& rotation_wb,
                                             const Vec3<Scalar>& point_b) {
  return x.p_w + rotate(rotation_wb, point_b);
}
template <class Scalar, class Rotation>
RBMC_HD_INLINE Vec3<Scalar> point_velocity_w(const RigidBodyState<Scalar>& x, const Rotation& rotation_wb,
                                             const Vec3<Scalar>& point_b) {
  return x.v_w + rotate(rotation_wb, Vec3<Scalar>(x.omega_b.cross(point_b)));
}
template <class Scalar>
RBMC_HD inline Vec3<Scalar> point_position_w(const RigidBodyState<Scalar>& x, const Vec3<Scalar>& point_b) {
  return point_position_w(x, x.q_wb, point_b);
}

// One load as a sample sees it: the shared load with the sample's own values of its dispersed
// fields (model_values.hpp). Own is SharedValuesOnly or OwnModelValues.
template <class Scalar, class Own>
RBMC_HD_INLINE typename LoadSet<Scalar>::PointForce point_force_of(const LoadSet<Scalar>& loads, const Own& own, int i) {
  typename LoadSet<Scalar>::PointForce f = loads.point_forces[i];
  own.apply(ModelField::point_force_point, i, f.point_b);
  own.apply(ModelField::point_force_force, i, f.force);
  return f;
}
template <class Scalar, class Own>
RBMC_HD_INLINE typename LoadSet<Scalar>::Torque torque_of(const LoadSet<Scalar>& loads, const Own& own, int i) {
  typename LoadSet<Scalar>::Torque t = loads.torques[i];
  own.apply(ModelField::torque, i, t.torque);
  return t;
}
template <class Scalar, class Own>
RBMC_HD_INLINE typename LoadSet<Scalar>::Spring spring_of(const LoadSet<Scalar>& loads, const Own& own, int i) {
  typename LoadSet<Scalar>::Spring s = loads.springs[i];
  own.apply(ModelField::spring_point, i, s.point_b);
  own.apply(ModelField::spring_anchor, i, s.anchor_w);
  own.apply(ModelField::spring_stiffness, i, s.stiffness);
  own.apply(ModelField::spring_rest_length, i, s.rest_length);
  own.apply(ModelField::spring_damping, i, s.damping);
  return s;
}
// The damping coefficients (linear, quadratic, angular linear, angular quadratic) and the central
// body (μ, centre).
template <class Scalar>
struct Damping {
  Scalar linear, quadratic, angular_linear, angular_quadratic;
  // Whether evaluate_loads adds the translational and the angular damping.
  RBMC_HD bool translational() const { return nonzero_hd(linear) || nonzero_hd(quadratic); }
  RBMC_HD bool angular() const { return nonzero_hd(angular_linear) || nonzero_hd(angular_quadratic); }
  RBMC_HD bool any() const { return translational() || angular(); }
  // The terms evaluate_loads evaluates, which are branches of the right-hand side: one bit each
  // for the translational and the angular damping, and for their quadratic terms (a square root).
  // Lanes of a group agree on them (lane_group.hpp).
  RBMC_HD unsigned terms() const {
    return (translational() ? 1u : 0u) | (nonzero_hd(quadratic) ? 2u : 0u) | (angular() ? 4u : 0u) |
           (nonzero_hd(angular_quadratic) ? 8u : 0u);
  }
};
template <class Scalar, class Own>
RBMC_HD_INLINE Damping<Scalar> damping_of(const LoadSet<Scalar>& loads, const Own& own) {
  Damping<Scalar> d{loads.linear_damping, loads.quadratic_damping, loads.angular_linear_damping,
                    loads.angular_quadratic_damping};
  own.apply(ModelField::linear_damping, 0, d.linear);
  own.apply(ModelField::quadratic_damping, 0, d.quadratic);
  own.apply(ModelField::angular_linear_damping, 0, d.angular_linear);
  own.apply(ModelField::angular_quadratic_damping, 0, d.angular_quadratic);
  return d;
}
template <class Scalar, class Own>
RBMC_HD_INLINE void central_body_of(const LoadSet<Scalar>& loads, const Own& own, Scalar& mu, Vec3<Scalar>& center_w) {
  mu = loads.central_mu;
  center_w = loads.central_center_w;
  own.apply(ModelField::central_mu, 0, mu);
  own.apply(ModelField::central_center, 0, center_w);
}

// The damping's force and torque (damping_force, damping_torque) added to w.
template <class Scalar, class Rotation>
RBMC_HD_INLINE void add_damping(Wrench<Scalar>& w, const Damping<Scalar>& d, const FreeBodyModel<Scalar>& model,
                                const RigidBodyState<Scalar>& x, const Rotation& rotation_wb) {
  if (d.translational()) w.force_w += damping_force(com_velocity_w(model, x, rotation_wb), d.linear, d.quadratic);
  if (d.angular()) w.torque_c_b += damping_torque(x.omega_b, d.angular_linear, d.angular_quadratic);
}

// w plus every load of the set and the damping, in evaluate_loads's order, each vector turned by
// rotation_wb (the quaternion or its matrix).
template <class Scalar, class Own, class Rotation>
RBMC_HD_INLINE Wrench<Scalar> add_loads(Wrench<Scalar> w, const LoadSet<Scalar>& loads, const Own& own,
                                        const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x,
                                        const Rotation& rotation_wb) {
  for (int i = 0; i < loads.n_point_forces; ++i) {
    const auto f = point_force_of(loads, own, i);
    w += point_force_wrench(rotation_wb, model.com_b, f.point_b, f.force, f.frame);
  }
  for (int i = 0; i < loads.n_torques; ++i) {
    const auto t = torque_of(loads, own, i);
    w += pure_torque_wrench(rotation_wb, t.torque, t.frame);
  }
  add_damping(w, damping_of(loads, own), model, x, rotation_wb);
  for (int i = 0; i < loads.n_springs; ++i) {
    const auto s = spring_of(loads, own, i);
    w += spring_damper_wrench(rotation_wb, model.com_b, s.point_b, point_position_w(x, rotation_wb, s.point_b),
                              point_velocity_w(x, rotation_wb, s.point_b), s.anchor_w, s.stiffness, s.rest_length,
                              s.damping);
  }
  if (loads.has_central_body) {
    Scalar mu;
    Vec3<Scalar> center_w;
    central_body_of(loads, own, mu, center_w);
    w += central_gravity_wrench(rotation_wb, model.inertia_c_b, model.mass, com_position_w(model, x, rotation_wb),
                                center_w, mu);
  }
  return w;
}

// The resultant wrench of uniform gravity (from the model) and every load in the set, with the
// sample's own values of the dispersed fields.
//
// The loads turn vectors between body and world components: a spring three, a central body two, a
// point force, a couple or the damping of a centre of mass off the origin one each. On the host,
// a set with any load but the damping turns them by R(q) formed once (RotationMatrix): fewer
// operations where it turns three or more, up to 15 more where it turns one or two. On AVX2 the
// lanes ran 1.23 x faster under spring_mounted_box's loads (five turns), 1.22 x under a central
// body and 1.04 x under one world couple (bench/RESULTS.md, fifty-seventh session).
// Damping alone, or no load (a pivot's gravity), forms nothing: an early return, since a matrix
// formed in one branch and not the other was held in memory (the AVX2 lanes 0.8 x as fast). On
// the device every load is turned by the quaternion: the matrix's nine values held through the
// loads took 12 more registers in the double RK4 kernel under loads (a warp less an SM) and 72
// more bytes of spill in double dopri5 with events. The two ways agree to rounding, as the
// device's fused products do. Which loads there are is the run's, so every sample (and every
// lane of the CPU's groups) takes the same branch.
template <class Scalar, class Own>
RBMC_HD_INLINE Wrench<Scalar> evaluate_loads(const LoadSet<Scalar>& loads, const Own& own,
                                             const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x) {
  const Wrench<Scalar> gravity = uniform_gravity_wrench(model.mass, model.gravity_w);
#ifdef __CUDA_ARCH__
  return add_loads(gravity, loads, own, model, x, x.q_wb);
#else
  if (loads.n_point_forces == 0 && loads.n_torques == 0 && loads.n_springs == 0 && !loads.has_central_body) {
    Wrench<Scalar> w = gravity;  // add_loads's sum with its loops empty, not compiled a second time
    add_damping(w, damping_of(loads, own), model, x, x.q_wb);
    return w;
  }
  return add_loads(gravity, loads, own, model, x, rotation_matrix_of(x.q_wb));
#endif
}

template <class Scalar>
RBMC_HD_INLINE Wrench<Scalar> evaluate_loads(const LoadSet<Scalar>& loads, const FreeBodyModel<Scalar>& model,
                                             const RigidBodyState<Scalar>& x) {
  return evaluate_loads(loads, SharedValuesOnly{}, model, x);
}

// The potential energy of the conservative loads: uniform and central gravity, springs, and
// world-fixed point forces (V = −F · r_P). Meaningful as T + V only when is_conservative().
template <class Scalar, class Own>
RBMC_HD inline Scalar potential_energy(const LoadSet<Scalar>& loads, const Own& own,
                                       const FreeBodyModel<Scalar>& model, const RigidBodyState<Scalar>& x) {
  Scalar v = potential_energy(model, x);  // uniform gravity
  for (int i = 0; i < loads.n_point_forces; ++i) {
    const auto f = point_force_of(loads, own, i);
    if (f.frame == LoadFrame::world) v -= f.force.dot(point_position_w(x, f.point_b));
  }
  for (int i = 0; i < loads.n_springs; ++i) {
    const auto s = spring_of(loads, own, i);
    v += spring_potential(point_position_w(x, s.point_b), s.anchor_w, s.stiffness, s.rest_length);
  }
  if (loads.has_central_body) {
    Scalar mu;
    Vec3<Scalar> center_w;
    central_body_of(loads, own, mu, center_w);
    v += central_gravity_potential(x.q_wb, model.inertia_c_b, model.mass, com_position_w(model, x), center_w, mu);
  }
  return v;
}

template <class Scalar>
RBMC_HD inline Scalar potential_energy(const LoadSet<Scalar>& loads, const FreeBodyModel<Scalar>& model,
                                       const RigidBodyState<Scalar>& x) {
  return potential_energy(loads, SharedValuesOnly{}, model, x);
}

}  // namespace rbmc

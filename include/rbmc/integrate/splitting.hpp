// A geometric integrator for long runs: the symplectic Lie–Poisson splitting of the rigid body
// (kick–drift–kick with the free rotation split into exact rotations about the principal axes;
// McLachlan 1993, Dullweber, Leimkuhler & McLachlan 1997, "symplectic splitting of the free body").
//
// One step of size h, second order and time-symmetric:
//   kick  h/2: v_C += h/2 F/m, Π += h/2 τ_C      (the wrench at the current configuration)
//   drift h:   r_C += h v_C, and the free rotation R₁(h/2) R₂(h/2) R₃(h) R₂(h/2) R₁(h/2)
//   kick  h/2
// where R_i(t) is the exact flow of T_i = Π_i² / (2 I_i): the body turns about principal axis i by
// θ = t Π_i / I_i and Π turns about it by −θ. Every sub-flow keeps the attitude on SO(3) and |Π|
// exactly; for conservative loads the map is symplectic, so the energy error stays bounded
// (no secular drift) over long runs. It does not handle constraints.
//
// Its products are written out (mat3_vec3.hpp) so that the CPU's SIMD lanes compute each sample's
// step bit for bit as one sample does (rbmc/simd/fixed_step_lanes.hpp).
#pragma once

#include "rbmc/dynamics/invariants.hpp"
#include "rbmc/math/jacobi_eigen.hpp"
#include "rbmc/math/mat3_vec3.hpp"
#include "rbmc/math/sincos.hpp"

namespace rbmc {

// The body's principal frame, computed once per sample.
template <class Scalar>
struct SplittingFrame {
  Mat3<Scalar> axes;      // principal axes in body components (columns), det = +1
  Vec3<Scalar> moments;   // principal moments
};

template <class Scalar>
RBMC_HD inline SplittingFrame<Scalar> splitting_frame(const FreeBodyModel<Scalar>& model) {
  const SymmetricEigen<Scalar> e = jacobi_eigen(model.inertia_c_b);
  return {e.vectors, e.values};
}

// wrench(x) returns the applied wrench at the state x. Inlined into the kernel on the device, or
// kept one call (SplittingStepper, fixed_step.hpp, chooses by precision).
template <class Scalar, class WrenchOf>
RBMC_HD_KERNEL_INLINE RigidBodyState<Scalar> splitting_step(const FreeBodyModel<Scalar>& model,
                                                           const SplittingFrame<Scalar>& f, const WrenchOf& wrench_of,
                                                           const RigidBodyState<Scalar>& x, Scalar h) {
  const Scalar half = Scalar(0.5) * h;
  // To centre-of-mass variables and principal-frame angular momentum Π = I_p ω_p.
  Vec3<Scalar> r_c = com_position_w(model, x), v_c = com_velocity_w(model, x);
  Quaternion<Scalar> q = x.q_wb;
  Vec3<Scalar> pi = f.moments.cwiseProduct(mat3_transpose_times(f.axes, x.omega_b));
  const auto state_of = [&]() {
    const Vec3<Scalar> omega_b = mat3_times(f.axes, Vec3<Scalar>(pi.cwiseQuotient(f.moments)));
    RigidBodyState<Scalar> s;
    s.q_wb = q;
    s.omega_b = omega_b;
    s.p_w = r_c - rotate(q, model.com_b);
    s.v_w = v_c - rotate(q, Vec3<Scalar>(omega_b.cross(model.com_b)));
    return s;
  };
  const auto kick = [&](Scalar dt) {
    const Wrench<Scalar> w = wrench_of(state_of());
    v_c += dt / model.mass * w.force_w;
    pi += dt * mat3_transpose_times(f.axes, w.torque_c_b);
  };
  const auto rotate_about = [&](int i, Scalar dt) {
    // One sine and cosine, of θ/2: the body's turn is the quaternion (cos θ/2, sin θ/2 e_i), and
    // Π's turn takes cos θ = 1 − 2 sin² θ/2 and sin θ = 2 sin θ/2 cos θ/2 from them (half the
    // calls of the sub-flow's sin θ, cos θ and the quaternion's own of θ/2; cos θ so written keeps
    // its error absolute near θ = 0, where most sub-flows' angles lie).
    const Scalar half_theta = Scalar(0.5) * (dt * pi(i) / f.moments(i));
    Scalar s_half, c_half;
    sincos_hd(half_theta, s_half, c_half);
    const Scalar c = Scalar(1) - Scalar(2) * (s_half * s_half), s = Scalar(2) * (s_half * c_half);
    // Π turns by −θ about e_i (in principal components).
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const Scalar pj = pi(j), pk = pi(k);
    pi(j) = c * pj + s * pk;
    pi(k) = -s * pj + c * pk;
    // The body turns by θ about its principal axis i (a unit column of f.axes).
    const Vec3<Scalar> axis = f.axes.col(i);
    q = normalized(q * Quaternion<Scalar>{c_half, s_half * axis.x(), s_half * axis.y(), s_half * axis.z()});
  };
  kick(half);
  r_c += h * v_c;
  rotate_about(0, half);
  rotate_about(1, half);
  rotate_about(2, h);
  rotate_about(1, half);
  rotate_about(0, half);
  kick(half);
  return state_of();
}

}  // namespace rbmc

// Euler angles: the proper ZXZ sequence of 004 (ψ, θ, φ; eqs 56–59) and the Tait–Bryan ZYX
// sequence (yaw, pitch, roll), their conversions, and the maps between angle rates and the
// body-frame angular velocity (G of 000 eq. 1.5; T of 004 eq. 60).
#pragma once

#include "rbmc/hd.hpp"
#include "rbmc/math/quaternion.hpp"

namespace rbmc {

// Angles in rad, in the order of the sequence: ZXZ (ψ, θ, φ), ZYX (yaw ψ, pitch θ, roll φ).
template <class Scalar>
using EulerAngles = Vec3<Scalar>;

// How close to the sequence's singularity the conversions and rate maps call it singular:
// |sin θ| (ZXZ) or |cos θ| (ZYX) below this, where the rate map's condition number exceeds 1e6.
template <class Scalar>
RBMC_HD inline Scalar euler_singularity_threshold() {
  return Scalar(1e-6);
}

namespace detail {
template <class Scalar>
RBMC_HD inline Quaternion<Scalar> axis_rotation(int axis, Scalar angle) {
  const Scalar c = Eigen::numext::cos(Scalar(0.5) * angle), s = Eigen::numext::sin(Scalar(0.5) * angle);
  return {c, axis == 0 ? s : Scalar(0), axis == 1 ? s : Scalar(0), axis == 2 ? s : Scalar(0)};
}
}  // namespace detail

// ---- ZXZ (004): R = Ψ(ψ) Θ(θ) Φ(φ) = R_z(ψ) R_x(θ) R_z(φ), θ in [0, π] ---------------------------

template <class Scalar>
RBMC_HD inline Quaternion<Scalar> quaternion_from_euler_zxz(const EulerAngles<Scalar>& a) {
  return detail::axis_rotation(2, a(0)) * detail::axis_rotation(0, a(1)) * detail::axis_rotation(2, a(2));
}

// Angles in ψ, φ ∈ (−π, π], θ ∈ [0, π]. At the singularity (θ = 0 or π) only ψ ± φ is defined:
// φ is set to 0 and the whole rotation about z goes into ψ; *singular reports it.
template <class Scalar>
RBMC_HD inline EulerAngles<Scalar> euler_zxz_from_quaternion(const Quaternion<Scalar>& q, bool* singular = nullptr) {
  const Mat3<Scalar> r = to_rotation_matrix(q);
  // atan2 of (sin θ, cos θ), not acos(cos θ), which loses half the digits near θ = 0 and π.
  const Scalar sin_theta = sqrt_hd(r(2, 0) * r(2, 0) + r(2, 1) * r(2, 1));
  const Scalar theta = atan2_hd<Scalar>(sin_theta, r(2, 2));
  const bool at_singularity = sin_theta < euler_singularity_threshold<Scalar>();
  if (singular != nullptr) *singular = at_singularity;
  if (at_singularity) {
    // R = R_z(ψ ± φ) R_x(θ) with θ = 0 or π: r(1,0), r(0,0) carry the combined angle.
    return EulerAngles<Scalar>(atan2_hd<Scalar>(r(1, 0), r(0, 0)), theta, Scalar(0));
  }
  // Third column R e_z = (sinψ sinθ, −cosψ sinθ, cosθ); third row e_zᵀ R = (sinθ sinφ, sinθ cosφ, cosθ).
  return EulerAngles<Scalar>(atan2_hd<Scalar>(r(0, 2), -r(1, 2)), theta, atan2_hd<Scalar>(r(2, 0), r(2, 1)));
}

// G(θ) of 000 eq. 1.5 for ZXZ: ω_b = G [ψ̇, θ̇, φ̇]ᵀ. It equals T₁ T₂ of 004 eqs 61–62.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> euler_zxz_rate_matrix(const EulerAngles<Scalar>& a) {
  const Scalar st = Eigen::numext::sin(a(1)), ct = Eigen::numext::cos(a(1));
  const Scalar sp = Eigen::numext::sin(a(2)), cp = Eigen::numext::cos(a(2));
  Mat3<Scalar> g;
  g << sp * st, cp, Scalar(0),  //
      cp * st, -sp, Scalar(0),   //
      ct, Scalar(0), Scalar(1);
  return g;
}

// T ω_b (004 eq. 60) from the sines and cosines of θ and φ (st, ct, sp, cp), for a caller that
// has them already: [ψ̇, θ̇, φ̇]ᵀ, not finite at sin θ = 0.
template <class Scalar>
RBMC_HD inline Vec3<Scalar> euler_zxz_rates_of(Scalar st, Scalar ct, Scalar sp, Scalar cp,
                                               const NonDeduced<Vec3<Scalar>>& omega_b) {
  const Scalar psi_dot = (sp * omega_b.x() + cp * omega_b.y()) / st;
  const Scalar theta_dot = cp * omega_b.x() - sp * omega_b.y();
  const Scalar phi_dot = omega_b.z() - ct * psi_dot;
  return Vec3<Scalar>(psi_dot, theta_dot, phi_dot);
}

// T of 004 eq. 60: [ψ̇, θ̇, φ̇]ᵀ = T ω_b, T = (T₁ T₂)⁻¹. Singular at sin θ = 0; *singular says so
// (the rates returned there are not finite).
template <class Scalar>
RBMC_HD inline Vec3<Scalar> euler_zxz_rates(const EulerAngles<Scalar>& a, const NonDeduced<Vec3<Scalar>>& omega_b,
                                            bool* singular = nullptr) {
  const Scalar st = Eigen::numext::sin(a(1)), ct = Eigen::numext::cos(a(1));
  const Scalar sp = Eigen::numext::sin(a(2)), cp = Eigen::numext::cos(a(2));
  if (singular != nullptr) *singular = Eigen::numext::abs(st) < euler_singularity_threshold<Scalar>();
  return euler_zxz_rates_of(st, ct, sp, cp, omega_b);
}

// ---- ZYX Tait–Bryan: R = R_z(yaw) R_y(pitch) R_x(roll), pitch in [−π/2, π/2] -----------------------

template <class Scalar>
RBMC_HD inline Quaternion<Scalar> quaternion_from_euler_zyx(const EulerAngles<Scalar>& a) {
  return detail::axis_rotation(2, a(0)) * detail::axis_rotation(1, a(1)) * detail::axis_rotation(0, a(2));
}

// At gimbal lock (pitch = ±π/2) only yaw ∓ roll is defined: roll is set to 0; *singular reports it.
template <class Scalar>
RBMC_HD inline EulerAngles<Scalar> euler_zyx_from_quaternion(const Quaternion<Scalar>& q, bool* singular = nullptr) {
  const Mat3<Scalar> r = to_rotation_matrix(q);
  // Third row e_zᵀ R = (−sin θ, cos θ sin φ, cos θ cos φ); first column R e_x = (cψ cθ, sψ cθ, −sθ).
  const Scalar cos_pitch = sqrt_hd(r(0, 0) * r(0, 0) + r(1, 0) * r(1, 0));
  const Scalar pitch = atan2_hd<Scalar>(-r(2, 0), cos_pitch);
  const bool at_singularity = cos_pitch < euler_singularity_threshold<Scalar>();
  if (singular != nullptr) *singular = at_singularity;
  if (at_singularity) {
    // R = R_z(yaw ∓ roll) R_y(±π/2): the second row's (0, 1) entries give the combined angle.
    return EulerAngles<Scalar>(atan2_hd<Scalar>(-r(0, 1), r(1, 1)), pitch, Scalar(0));
  }
  return EulerAngles<Scalar>(atan2_hd<Scalar>(r(1, 0), r(0, 0)), pitch, atan2_hd<Scalar>(r(2, 1), r(2, 2)));
}

// ω_b = G [yaẇ, pitcḣ, roll̇]ᵀ for ZYX (000 eq. 1.5 with these parameters).
template <class Scalar>
RBMC_HD inline Mat3<Scalar> euler_zyx_rate_matrix(const EulerAngles<Scalar>& a) {
  const Scalar st = Eigen::numext::sin(a(1)), ct = Eigen::numext::cos(a(1));
  const Scalar sr = Eigen::numext::sin(a(2)), cr = Eigen::numext::cos(a(2));
  Mat3<Scalar> g;
  g << -st, Scalar(0), Scalar(1),  //
      ct * sr, cr, Scalar(0),       //
      ct * cr, -sr, Scalar(0);
  return g;
}

// [yaẇ, pitcḣ, roll̇]ᵀ = G⁻¹ ω_b; singular at cos(pitch) = 0.
template <class Scalar>
RBMC_HD inline Vec3<Scalar> euler_zyx_rates(const EulerAngles<Scalar>& a, const NonDeduced<Vec3<Scalar>>& omega_b,
                                            bool* singular = nullptr) {
  const Scalar st = Eigen::numext::sin(a(1)), ct = Eigen::numext::cos(a(1));
  const Scalar sr = Eigen::numext::sin(a(2)), cr = Eigen::numext::cos(a(2));
  if (singular != nullptr) *singular = Eigen::numext::abs(ct) < euler_singularity_threshold<Scalar>();
  const Scalar yaw_dot = (sr * omega_b.y() + cr * omega_b.z()) / ct;
  const Scalar pitch_dot = cr * omega_b.y() - sr * omega_b.z();
  const Scalar roll_dot = omega_b.x() + st * yaw_dot;
  return Vec3<Scalar>(yaw_dot, pitch_dot, roll_dot);
}

}  // namespace rbmc

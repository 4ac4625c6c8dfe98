// Spatial (6D) motion and force vectors in Plücker coordinates (002).
//
// A motion vector is [ω; v_O] (angular part first), a force vector [n_O; f] (moment about O
// first), both about the origin O of the coordinate system they are expressed in.
#pragma once

#include "rbmc/hd.hpp"

namespace rbmc {

template <class Scalar>
struct Motion {
  Vec3<Scalar> angular;  // ω
  Vec3<Scalar> linear;   // v_O: velocity of the body point at O

  RBMC_HD static Motion zero() { return {Vec3<Scalar>::Zero(), Vec3<Scalar>::Zero()}; }
  RBMC_HD Eigen::Matrix<Scalar, 6, 1> vector() const {
    Eigen::Matrix<Scalar, 6, 1> v;
    v << angular, linear;
    return v;
  }
};

template <class Scalar>
struct Force {
  Vec3<Scalar> angular;  // n_O: moment about O
  Vec3<Scalar> linear;   // f: resultant force

  RBMC_HD static Force zero() { return {Vec3<Scalar>::Zero(), Vec3<Scalar>::Zero()}; }
  RBMC_HD Eigen::Matrix<Scalar, 6, 1> vector() const {
    Eigen::Matrix<Scalar, 6, 1> v;
    v << angular, linear;
    return v;
  }
};

template <class Scalar>
RBMC_HD inline Motion<Scalar> operator+(const Motion<Scalar>& a, const Motion<Scalar>& b) {
  return {a.angular + b.angular, a.linear + b.linear};
}
template <class Scalar>
RBMC_HD inline Motion<Scalar> operator-(const Motion<Scalar>& a, const Motion<Scalar>& b) {
  return {a.angular - b.angular, a.linear - b.linear};
}
template <class Scalar>
RBMC_HD inline Force<Scalar> operator+(const Force<Scalar>& a, const Force<Scalar>& b) {
  return {a.angular + b.angular, a.linear + b.linear};
}
template <class Scalar>
RBMC_HD inline Force<Scalar> operator-(const Force<Scalar>& a, const Force<Scalar>& b) {
  return {a.angular - b.angular, a.linear - b.linear};
}

// Power: m · f = ω · n_O + v_O · f (002, inner product of M⁶ and F⁶).
template <class Scalar>
RBMC_HD inline Scalar dot(const Motion<Scalar>& m, const Force<Scalar>& f) {
  return m.angular.dot(f.angular) + m.linear.dot(f.linear);
}

// v × m = [ω × m_ω; v_O × m_ω + ω × m_v] (002: v̂^× = [ω^× 0; v_O^× ω^×]).
template <class Scalar>
RBMC_HD inline Motion<Scalar> cross(const Motion<Scalar>& v, const Motion<Scalar>& m) {
  return {v.angular.cross(m.angular), v.linear.cross(m.angular) + v.angular.cross(m.linear)};
}

// v ×* f = [ω × n + v_O × f; ω × f] (002: v̂^×* = [ω^× v_O^×; 0 ω^×] = −(v̂^×)ᵀ).
template <class Scalar>
RBMC_HD inline Force<Scalar> cross_star(const Motion<Scalar>& v, const Force<Scalar>& f) {
  return {v.angular.cross(f.angular) + v.linear.cross(f.linear), v.angular.cross(f.linear)};
}

}  // namespace rbmc

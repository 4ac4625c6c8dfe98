// External loads on one body, reduced to a wrench at the centre of mass.
#pragma once

#include "rbmc/hd.hpp"

namespace rbmc {

// Resultant force (world frame, N) and torque about the centre of mass (body frame, N m).
template <class Scalar>
struct Wrench {
  Vec3<Scalar> force_w;
  Vec3<Scalar> torque_c_b;

  RBMC_HD static Wrench zero() { return {Vec3<Scalar>::Zero(), Vec3<Scalar>::Zero()}; }
};

// Uniform gravity acts at the centre of mass: force m g, no torque about it.
template <class Scalar>
RBMC_HD inline Wrench<Scalar> uniform_gravity_wrench(Scalar mass, const Vec3<Scalar>& gravity_w) {
  return {mass * gravity_w, Vec3<Scalar>::Zero()};
}

// Its potential energy, with the zero at the world origin: V = -m g · r_c,w.
template <class Scalar>
RBMC_HD inline Scalar uniform_gravity_potential(Scalar mass, const Vec3<Scalar>& gravity_w,
                                                const Vec3<Scalar>& com_w) {
  return -mass * gravity_w.dot(com_w);
}

}  // namespace rbmc

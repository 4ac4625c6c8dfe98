// Rigid-body spatial inertia (002): the map from a spatial velocity to the spatial momentum.
#pragma once

#include "rbmc/body/inertia.hpp"
#include "rbmc/spatial/transform.hpp"

namespace rbmc {

// About the coordinate origin O, with the centre of mass at c (from O):
//   I_O = [Ī_C + m c^× c^×ᵀ, m c^×; m c^×ᵀ, m 1]   (002, "Inertia").
template <class Scalar>
struct SpatialInertia {
  Scalar mass;
  Vec3<Scalar> com;          // c
  Mat3<Scalar> inertia_com;  // Ī_C, in these coordinates' axes

  RBMC_HD Eigen::Matrix<Scalar, 6, 6> matrix() const {
    const Mat3<Scalar> cx = skew(com);
    Eigen::Matrix<Scalar, 6, 6> i;
    i << inertia_com + mass * cx * cx.transpose(), mass * cx, mass * cx.transpose(), mass * Mat3<Scalar>::Identity();
    return i;
  }
};

// h = I v = [Ī_C ω + c × m v_C; m v_C] with v_C = v_O + ω × c: the momentum about O and the
// linear momentum (002, h_O = h_C + OC × h).
template <class Scalar>
RBMC_HD inline Force<Scalar> operator*(const SpatialInertia<Scalar>& i, const Motion<Scalar>& v) {
  const Vec3<Scalar> p = i.mass * (v.linear + v.angular.cross(i.com));
  return {i.inertia_com * v.angular + i.com.cross(p), p};
}

// T = ½ v · I v (002).
template <class Scalar>
RBMC_HD inline Scalar kinetic_energy(const SpatialInertia<Scalar>& i, const Motion<Scalar>& v) {
  return Scalar(0.5) * dot(v, i * v);
}

// The bias force v ×* I v of f = I a + v ×* I v (002, equation of motion).
template <class Scalar>
RBMC_HD inline Force<Scalar> bias_force(const SpatialInertia<Scalar>& i, const Motion<Scalar>& v) {
  return cross_star(v, i * v);
}

// ᴮI = ᴮX*_A ᴬI ᴬX_B (002): the same body's inertia in B coordinates.
template <class Scalar>
RBMC_HD inline SpatialInertia<Scalar> transform_inertia(const Transform<Scalar>& b_from_a,
                                                       const SpatialInertia<Scalar>& i) {
  return {i.mass, b_from_a.rotation * (i.com - b_from_a.translation), rotate_inertia(b_from_a.rotation, i.inertia_com)};
}

}  // namespace rbmc

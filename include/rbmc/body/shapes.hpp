// Inertia tensors of homogeneous solids about their centre of mass, in their own axes (symmetry
// axis z for the solids of revolution). Closed forms from the integrals J = ∫ (ρ² 1 − ρ ρᵀ) dm (001).
#pragma once

#include "rbmc/hd.hpp"

namespace rbmc::shapes {

// Box of edges a, b, c along x, y, z: m/12 (b² + c², a² + c², a² + b²).
template <class Scalar>
RBMC_HD inline Mat3<Scalar> box(Scalar mass, Scalar a, Scalar b, Scalar c) {
  const Scalar k = mass / Scalar(12);
  return Vec3<Scalar>(k * (b * b + c * c), k * (a * a + c * c), k * (a * a + b * b)).asDiagonal();
}

// Solid cylinder, radius r, height h: transverse m (3 r² + h²) / 12, axial m r² / 2.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> solid_cylinder(Scalar mass, Scalar r, Scalar h) {
  const Scalar t = mass * (Scalar(3) * r * r + h * h) / Scalar(12);
  return Vec3<Scalar>(t, t, mass * r * r / Scalar(2)).asDiagonal();
}

// Thick-walled tube, radii r_in < r_out, height h: transverse m (3 (r_in² + r_out²) + h²) / 12,
// axial m (r_in² + r_out²) / 2.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> hollow_cylinder(Scalar mass, Scalar r_in, Scalar r_out, Scalar h) {
  const Scalar s = r_in * r_in + r_out * r_out;
  const Scalar t = mass * (Scalar(3) * s + h * h) / Scalar(12);
  return Vec3<Scalar>(t, t, mass * s / Scalar(2)).asDiagonal();
}

// Solid sphere, radius r: 2 m r² / 5 about every axis.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> solid_sphere(Scalar mass, Scalar r) {
  return Mat3<Scalar>::Identity() * (Scalar(2) * mass * r * r / Scalar(5));
}

// Thin disk, radius r, in the xy plane: m r² / 4 about x and y, m r² / 2 about z (on the
// triangle-inequality boundary I_z = I_x + I_y, and valid).
template <class Scalar>
RBMC_HD inline Mat3<Scalar> thin_disk(Scalar mass, Scalar r) {
  const Scalar t = mass * r * r / Scalar(4);
  return Vec3<Scalar>(t, t, Scalar(2) * t).asDiagonal();
}

// Slender rod of length L along z. The ideal rod has no moment about its axis, which no body can
// integrate (Euler's equations divide by it); rbmc gives it its radius r: m L²/12 transverse
// (to O(r²/L²)), m r²/2 axial.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> slender_rod(Scalar mass, Scalar length, Scalar r) {
  const Scalar t = mass * length * length / Scalar(12);
  return Vec3<Scalar>(t, t, mass * r * r / Scalar(2)).asDiagonal();
}

}  // namespace rbmc::shapes

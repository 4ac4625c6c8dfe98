// Inertia tensors of homogeneous solids about their centre of mass, in their own axes (symmetry
// axis z for the solids of revolution). Closed forms from the integrals J = ∫ (ρ² 1 − ρ ρᵀ) dm (001).
#pragma once

#include <cstdint>

#include "rbmc/hd.hpp"
#include "rbmc/math/mat3_vec3.hpp"

namespace rbmc::shapes {

// Box of edges a, b, c along x, y, z: m/12 (b² + c², a² + c², a² + b²).
template <class Scalar>
RBMC_HD inline Mat3<Scalar> box(Scalar mass, Scalar a, Scalar b, Scalar c) {
  const Scalar k = mass / Scalar(12);
  return diagonal3(Vec3<Scalar>(k * (b * b + c * c), k * (a * a + c * c), k * (a * a + b * b)));
}

// Solid cylinder, radius r, height h: transverse m (3 r² + h²) / 12, axial m r² / 2.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> solid_cylinder(Scalar mass, Scalar r, Scalar h) {
  const Scalar t = mass * (Scalar(3) * r * r + h * h) / Scalar(12);
  return diagonal3(Vec3<Scalar>(t, t, mass * r * r / Scalar(2)));
}

// Thick-walled tube, radii r_in < r_out, height h: transverse m (3 (r_in² + r_out²) + h²) / 12,
// axial m (r_in² + r_out²) / 2.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> hollow_cylinder(Scalar mass, Scalar r_in, Scalar r_out, Scalar h) {
  const Scalar s = r_in * r_in + r_out * r_out;
  const Scalar t = mass * (Scalar(3) * s + h * h) / Scalar(12);
  return diagonal3(Vec3<Scalar>(t, t, mass * s / Scalar(2)));
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
  return diagonal3(Vec3<Scalar>(t, t, Scalar(2) * t));
}

// Slender rod of length L along z. The ideal rod has no moment about its axis, which no body can
// integrate (Euler's equations divide by it); rbmc gives it its radius r: m L²/12 transverse
// (to O(r²/L²)), m r²/2 axial.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> slender_rod(Scalar mass, Scalar length, Scalar r) {
  const Scalar t = mass * length * length / Scalar(12);
  return diagonal3(Vec3<Scalar>(t, t, mass * r * r / Scalar(2)));
}

}  // namespace rbmc::shapes

namespace rbmc {

enum class ShapeKind : std::uint8_t { none, box, solid_cylinder, hollow_cylinder, solid_sphere, thin_disk, slender_rod };

// A body given as a homogeneous solid, so that its inertia can be derived again from a dispersed
// mass or dimension. dimensions (m): box (a, b, c); solid_cylinder (radius, height);
// hollow_cylinder (inner_radius, outer_radius, height); solid_sphere (radius); thin_disk (radius);
// slender_rod (length, radius).
template <class Scalar>
struct Shape {
  ShapeKind kind = ShapeKind::none;
  Scalar dimensions[3] = {Scalar(0), Scalar(0), Scalar(0)};
};

// Every dimension positive and a tube's inner radius below its outer one. A negative radius gives
// the same inertia as a positive one, so the inertia alone cannot tell.
template <class Scalar>
RBMC_HD inline bool shape_is_valid(const Shape<Scalar>& s) {
  const Scalar* d = s.dimensions;
  switch (s.kind) {
    case ShapeKind::box: return d[0] > Scalar(0) && d[1] > Scalar(0) && d[2] > Scalar(0);
    case ShapeKind::solid_cylinder:
    case ShapeKind::slender_rod: return d[0] > Scalar(0) && d[1] > Scalar(0);
    case ShapeKind::hollow_cylinder: return d[0] > Scalar(0) && d[1] > d[0] && d[2] > Scalar(0);
    case ShapeKind::solid_sphere:
    case ShapeKind::thin_disk: return d[0] > Scalar(0);
    case ShapeKind::none: return false;
  }
  return false;
}

// The inertia about the centre of mass, body axes.
template <class Scalar>
RBMC_HD inline Mat3<Scalar> shape_inertia(const Shape<Scalar>& s, Scalar mass) {
  const Scalar* d = s.dimensions;
  switch (s.kind) {
    case ShapeKind::box: return shapes::box(mass, d[0], d[1], d[2]);
    case ShapeKind::solid_cylinder: return shapes::solid_cylinder(mass, d[0], d[1]);
    case ShapeKind::hollow_cylinder: return shapes::hollow_cylinder(mass, d[0], d[1], d[2]);
    case ShapeKind::solid_sphere: return shapes::solid_sphere(mass, d[0]);
    case ShapeKind::thin_disk: return shapes::thin_disk(mass, d[0]);
    case ShapeKind::slender_rod: return shapes::slender_rod(mass, d[0], d[1]);
    case ShapeKind::none: break;
  }
  return Mat3<Scalar>::Zero();
}

}  // namespace rbmc

// Transforms from uniform draws to the distributions a scenario can name, and uniform rotations.
// Host code: the inputs are sampled on the host (the draws themselves come from PhiloxStream).
#pragma once

#include "rbmc/math/quaternion.hpp"

namespace rbmc {

// Standard normal CDF Φ and its inverse (Acklam's rational approximation, relative error 1e-9,
// refined by one Halley step on erfc to full double precision).
double normal_cdf(double x);
double normal_quantile(double p);

// A normal(mean, sd) truncated to [lo, hi], by inversion: x = mean + sd Φ⁻¹(Φ(α) + u (Φ(β) − Φ(α))).
double truncated_normal(double mean, double sd, double lo, double hi, double u);

// Uniform on SO(3) from three uniforms in (0, 1] (Shoemake, "Uniform random rotations", 1992).
Quaternion<double> uniform_rotation(double u1, double u2, double u3);

// A unit vector uniform on the sphere from two uniforms.
Vec3<double> uniform_direction(double u1, double u2);

}  // namespace rbmc

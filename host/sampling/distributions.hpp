// The transform from uniform draws that is host code: the truncated normal, which uses the host's
// math library (erfc, log, exp). The others, and Φ⁻¹, are core code, the same bits everywhere:
// rbmc/random/inverse_transforms.hpp.
#pragma once

#include "rbmc/math/quaternion.hpp"
#include "rbmc/random/inverse_transforms.hpp"

namespace rbmc {

// Standard normal CDF Φ (its inverse, normal_quantile, is in inverse_transforms.hpp).
double normal_cdf(double x);

// log Q(x), Q(x) = 1 − Φ(x) the standard normal's survival function, accurate for every x
// (Q(40) = 3.7e-350 is below double's range; its log is not).
double log_normal_survival(double x);

// A normal(mean, sd) truncated to [lo, hi], by inversion of its CDF at u: exact in the far tails
// (an interval 40 σ from the mean draws as well as one around it). With α = (lo − mean)/sd and
// β = (hi − mean)/sd: an interval above the mean is inverted on the log scale of the survival
// function, one below it by symmetry, one around it from whichever side of the median u falls.
// Increasing in u, as every design's transform needs.
double truncated_normal(double mean, double sd, double lo, double hi, double u);

}  // namespace rbmc

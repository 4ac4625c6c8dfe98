// What the portable-draw tests compare between builds: the test's own (which fuses nothing), the
// program portable_draws_main.cpp built with fused multiply-adds, and the device
// (host/portable_draws_device.cu).
#pragma once

#include <cstdint>
#include <vector>

#include "rbmc/hd.hpp"
#include "rbmc/random/inverse_transforms.hpp"
#include "rbmc/random/philox_stream.hpp"

namespace rbmc::test {

// The uniforms drawn: sample k's first draw of one stream, then the ends of (0, 1).
inline std::vector<double> portable_draw_uniforms() {
  std::vector<double> u;
  for (std::uint64_t k = 0; k < 20000; ++k) u.push_back(PhiloxStream(2026, k, stream_id("test.portable")).uniform_open(0));
  for (double p : {0x1p-54, 1e-300, 1e-17, 0.075, 0.5, 0.925, 1 - 0x1p-53}) u.push_back(p);
  return u;
}

// Values per uniform: Φ⁻¹(u), log u, exp(40 u − 20), lognormal(1.7, 0.3) and normal(0.1, 2.5) at
// u, sin and cos of 2πu, a direction's x and a rotation's y, erfc(30 u − 3), truncated normals in
// a tail and around the mean at u, a uniform rotation's rotation vector's z from a reference
// attitude, the first-quadrant atan2 of (u, 1 − u), and a control: Horner's rule with plain products, which a
// build that fuses does fuse.
constexpr int kPortableDrawValues = 15;
RBMC_HD inline void portable_draws(double u, double* out) {
  out[0] = normal_quantile(u);
  out[1] = portable::log(u);
  out[2] = portable::exp(portable::mul(40, u) - 20);
  out[3] = lognormal_from_uniform(1.7, 0.3, u);
  out[4] = normal_from_uniform(0.1, 2.5, u);
  const portable::SinCos turn = portable::sin_cos_of_turns(u);
  out[5] = turn.sin;
  out[6] = turn.cos;
  out[7] = uniform_direction(u, 1 - u).x();
  out[8] = uniform_rotation(u, 0.3, 1 - u).y;
  out[9] = portable::erfc(portable::mul(30, u) - 3);
  out[10] = truncated_normal_from_uniform(1, 0.5, 3, 4, u);
  out[11] = truncated_normal_from_uniform(1, 0.5, 0.2, 1.9, u);
  out[12] = uniform_rotation_vector(Quaternion<double>{0.5, 0.5, -0.5, 0.5}, u, 0.3, 1 - u).z();
  out[13] = portable::atan2_first_quadrant(u, 1 - u);
  double v = 0.3;
  for (int i = 0; i < 8; ++i) v = v * u + 0.7 / (i + 1);
  out[14] = v;
}

inline std::vector<double> portable_draws(const std::vector<double>& u) {
  std::vector<double> out(u.size() * kPortableDrawValues);
  for (std::size_t i = 0; i < u.size(); ++i) portable_draws(u[i], &out[i * kPortableDrawValues]);
  return out;
}

// Compares draws from another build with this one's, bit for bit but for the control, and counts
// the uniforms where the control differs (0: the other build did not fuse).
template <class Report>
int compare_portable_draws(const std::vector<double>& u, const std::vector<double>& theirs, Report&& report) {
  const std::vector<double> ours = portable_draws(u);
  int control_differs = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    if (i % kPortableDrawValues == kPortableDrawValues - 1)
      control_differs += theirs[i] != ours[i];
    else if (!(theirs[i] == ours[i] || (theirs[i] != theirs[i] && ours[i] != ours[i])))
      return report(int(i % kPortableDrawValues), u[i / kPortableDrawValues], ours[i], theirs[i]), -1;
  }
  return control_differs;
}

}  // namespace rbmc::test

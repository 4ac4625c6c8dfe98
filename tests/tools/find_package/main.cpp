// Integrates one free body with rbmc's installed core and checks that its energy is conserved.
// The sampling core is included too, so that every header compiles without an unknown pragma.
#include <cmath>
#include <cstdio>

#include "rbmc/sample/draw_inputs.hpp"
#include "rbmc/sample/run_sample.hpp"

int main() {
  using namespace rbmc;
  SampleInputs<double> in;
  in.body.mass = 2.0;
  in.body.com_b = Vec3<double>::Zero();
  in.body.inertia_c_b = Mat3<double>::Zero();
  in.body.inertia_c_b.diagonal() << 0.1, 0.2, 0.3;
  in.initial = {Vec3<double>::Zero(), Quaternion<double>::identity(), Vec3<double>::Zero(), Vec3<double>(0.1, 4.0, 0.1)};
  in.gravity_w = Vec3<double>::Zero();
  SharedModel<double> shared{};
  const SampleResult<double> r = run_sample(in, shared, fixed_step(1e-3, 1000));
  const Vec3<double> w0 = in.initial.omega_b, w1 = r.final_state.omega_b;
  const double e0 = w0.dot(in.body.inertia_c_b * w0), e1 = w1.dot(in.body.inertia_c_b * w1);
  std::printf("status %d, kinetic energy %.12g -> %.12g\n", int(r.status), e0 / 2, e1 / 2);
  return r.status == SampleStatus::ok && std::abs(e1 - e0) < 1e-9 * e0 ? 0 : 1;
}

// What a user would write instead, on the same body and steps as core_bench.cpp, built with the
// same flags into the same binary and measured in the same run:
//   - Boost.Odeint's runge_kutta4 with a hand-written 13-state right-hand side (quaternion
//     kinematics, Euler's equations with the full inertia tensor, uniform gravity);
//   - MuJoCo's mj_step on a free body with the same mass properties and its RK4 integrator
//     (Debian's libmujoco-dev; built only where CMake finds it).
// Peers are optional dependencies of the benchmarks only.
#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>
#include <boost/numeric/odeint.hpp>

#include "bench/bench_body.hpp"

#if defined(RBMC_HAVE_MUJOCO)
#include <mujoco/mujoco.h>
#endif

namespace rbmc::bench {
namespace {

using State13 = std::array<double, 13>;  // p (3), q (w, x, y, z), v (3), ω (3, body)

// The right-hand side as a careful C++ user writes it: plain arrays, I and I⁻¹ precomputed.
struct HandWrittenRhs {
  double inertia[3][3], inverse[3][3], gravity[3];

  HandWrittenRhs() {
    const Mat3<double> i = full_inertia(), inv = i.inverse();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) inertia[r][c] = i(r, c), inverse[r][c] = inv(r, c);
    gravity[0] = gravity[1] = 0;
    gravity[2] = -9.81;
  }

  void operator()(const State13& x, State13& dx, double /*t*/) const {
    const double qw = x[3], qx = x[4], qy = x[5], qz = x[6], wx = x[10], wy = x[11], wz = x[12];
    dx[0] = x[7], dx[1] = x[8], dx[2] = x[9];
    // q̇ = ½ q ⊗ (0, ω)
    dx[3] = 0.5 * (-qx * wx - qy * wy - qz * wz);
    dx[4] = 0.5 * (qw * wx + qy * wz - qz * wy);
    dx[5] = 0.5 * (qw * wy + qz * wx - qx * wz);
    dx[6] = 0.5 * (qw * wz + qx * wy - qy * wx);
    dx[7] = gravity[0], dx[8] = gravity[1], dx[9] = gravity[2];
    // ω̇ = I⁻¹ (−ω × I ω)
    const double h[3] = {inertia[0][0] * wx + inertia[0][1] * wy + inertia[0][2] * wz,
                         inertia[1][0] * wx + inertia[1][1] * wy + inertia[1][2] * wz,
                         inertia[2][0] * wx + inertia[2][1] * wy + inertia[2][2] * wz};
    const double m[3] = {-(wy * h[2] - wz * h[1]), -(wz * h[0] - wx * h[2]), -(wx * h[1] - wy * h[0])};
    for (int r = 0; r < 3; ++r) dx[10 + r] = inverse[r][0] * m[0] + inverse[r][1] * m[1] + inverse[r][2] * m[2];
  }
};

void odeint_rk4(benchmark::State& state) {
  const SampleInputs<double> in = body_inputs<double>();
  const HandWrittenRhs rhs;
  boost::numeric::odeint::runge_kutta4<State13> stepper;
  const std::int64_t steps = state.range(0);
  for (auto _ : state) {
    State13 x{in.initial.p_w.x(), in.initial.p_w.y(), in.initial.p_w.z(), 1, 0, 0, 0, in.initial.v_w.x(),
              in.initial.v_w.y(), in.initial.v_w.z(), in.initial.omega_b.x(), in.initial.omega_b.y(),
              in.initial.omega_b.z()};
    for (std::int64_t k = 0; k < steps; ++k) stepper.do_step(rhs, x, double(k) * kStep, kStep);
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations() * steps);
}
BENCHMARK(odeint_rk4)->Arg(1000);

#if defined(RBMC_HAVE_MUJOCO)
void mujoco_free_body(benchmark::State& state) {
  const Mat3<double> i = full_inertia();
  const std::string path = "/tmp/rbmc_bench_free_body.xml";
  std::ofstream(path) << "<mujoco><option timestep=\"" << kStep
                      << "\" integrator=\"RK4\" gravity=\"0 0 -9.81\"/><worldbody><body><freejoint/>"
                      << "<inertial pos=\"0 0 0\" mass=\"2\" fullinertia=\"" << i(0, 0) << " " << i(1, 1) << " "
                      << i(2, 2) << " " << i(0, 1) << " " << i(0, 2) << " " << i(1, 2)
                      << "\"/></body></worldbody></mujoco>";
  char error[1000] = "";
  mjModel* model = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  if (model == nullptr) {
    state.SkipWithError(error);
    return;
  }
  mjData* data = mj_makeData(model);
  const std::int64_t steps = state.range(0);
  for (auto _ : state) {
    mj_resetData(model, data);
    data->qvel[0] = 1, data->qvel[2] = 5;                          // linear velocity, world
    data->qvel[3] = 0.1, data->qvel[4] = 4, data->qvel[5] = 0.2;  // angular velocity, body (local) frame
    for (std::int64_t k = 0; k < steps; ++k) mj_step(model, data);
    benchmark::DoNotOptimize(data->qpos[0]);
  }
  state.SetItemsProcessed(state.iterations() * steps);
  mj_deleteData(data);
  mj_deleteModel(model);
}
BENCHMARK(mujoco_free_body)->Arg(1000);
#endif

}  // namespace
}  // namespace rbmc::bench

BENCHMARK_MAIN();

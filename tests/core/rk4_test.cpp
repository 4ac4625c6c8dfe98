#include "rbmc/integrate/rk4.hpp"

#include "rbmc/dynamics/invariants.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class Rk4Test : public ::testing::Test {};
TYPED_TEST_SUITE(Rk4Test, test::Scalars);

template <class S>
MassProperties<S> asymmetric_body() {
  // Offset centre of mass: the origin O is not the centre of mass, which the state must handle.
  return {S(1), Vec3<S>(S(0.1), S(-0.2), S(0.05)), Vec3<S>(1, 2, 3).asDiagonal()};
}

template <class S>
RigidBodyState<S> spinning_state() {
  return {Vec3<S>::Zero(), Quaternion<S>::identity(), Vec3<S>(S(0.1), 0, 0), Vec3<S>(S(0.5), S(2.0), S(0.3))};
}

struct Drift {
  double energy = 0, momentum = 0;
};

template <class S>
Drift torque_free_drift(S h, double duration) {
  const SharedModel<S> none{};
  const BodyRate<S> rate{make_free_body_model<S>(asymmetric_body<S>(), Vec3<S>::Zero()), &none.loads, &none.constraint};
  RigidBodyState<S> x = spinning_state<S>();
  const double e0 = kinetic_energy(rate.model, x);
  const Vec3<double> l0 = angular_momentum_c_w(rate.model, x).template cast<double>();
  Drift d;
  const long n = std::lround(duration / double(h));
  for (long i = 0; i < n; ++i) {
    x = rk4_step(rate, x, h);
    d.energy = std::max(d.energy, std::abs(double(kinetic_energy(rate.model, x)) - e0) / e0);
    d.momentum = std::max(d.momentum, (angular_momentum_c_w(rate.model, x).template cast<double>() - l0).norm() / l0.norm());
  }
  return d;
}

// A torque-free body conserves kinetic energy and angular momentum (001). RK4's global error is
// bounded by T |ω| (|ω| h)⁴ / 120 (n steps of the local error (|ω| h)⁵ / 120 of a rotation at
// rate |ω|); float adds rounding of at most a few eps per step.
TYPED_TEST(Rk4Test, TorqueFreeBodyConservesEnergyAndMomentum) {
  using S = TypeParam;
  const S h = S(0.01);
  const double duration = 20;
  const double w = spinning_state<double>().omega_b.norm();
  const double truncation = duration * w * std::pow(w * double(h), 4) / 120;
  const double rounding = 4 * (duration / double(h)) * double(test::eps<S>());
  const Drift d = torque_free_drift<S>(h, duration);
  EXPECT_LE(d.energy, truncation + rounding);
  EXPECT_LE(d.momentum, truncation + rounding);
  EXPECT_GT(d.momentum, 0.0);  // the integration did something
}

// Fourth order: halving the step divides the drift by 2⁴ = 16 (observed 16.0 for |L|, 15.7–18.5
// for the energy between h = 0.02 and 0.0025). Double only: float's rounding floor is higher.
TEST(Rk4Order, HalvingTheStepDividesTheErrorBySixteen) {
  const Drift coarse = torque_free_drift<double>(0.01, 20), fine = torque_free_drift<double>(0.005, 20);
  EXPECT_NEAR(coarse.momentum / fine.momentum, 16.0, 3.0);
  EXPECT_NEAR(coarse.energy / fine.energy, 16.0, 3.0);
}

// RK4 integrates a quadratic polynomial exactly: a non-rotating body in free fall follows
// p(t) = p0 + v0 t + ½ g t² to rounding.
TYPED_TEST(Rk4Test, FreeFallIsExact) {
  using S = TypeParam;
  const Vec3<S> g(0, 0, S(-9.81));
  const SharedModel<S> none{};
  const BodyRate<S> rate{make_free_body_model(asymmetric_body<S>(), g), &none.loads, &none.constraint};
  const Vec3<S> p0(1, 2, 3), v0(S(0.5), S(-1), 4);
  RigidBodyState<S> x{p0, Quaternion<S>::identity(), v0, Vec3<S>::Zero()};
  const S h = S(0.01);
  const int n = 300;
  for (int i = 0; i < n; ++i) x = rk4_step(rate, x, h);
  const S t = h * S(n);
  const Vec3<S> exact = p0 + v0 * t + S(0.5) * g * t * t;
  EXPECT_LE((x.p_w - exact).norm(), S(n) * S(8) * test::eps<S>() * exact.norm());
  EXPECT_LE((x.v_w - (v0 + g * t)).norm(), S(n) * S(8) * test::eps<S>() * (v0 + g * t).norm());
}

// A spinning body whose origin is off the centre of mass: the centre of mass still follows the
// parabola exactly (001: m a_C = f); the error of the origin's path is the attitude error times
// |r_C|, bounded as in the torque-free test.
TYPED_TEST(Rk4Test, CentreOfMassFollowsParabolaWhileSpinning) {
  using S = TypeParam;
  const Vec3<S> g(0, 0, S(-9.81));
  const SharedModel<S> none{};
  const BodyRate<S> rate{make_free_body_model(asymmetric_body<S>(), g), &none.loads, &none.constraint};
  RigidBodyState<S> x = spinning_state<S>();
  const Vec3<S> c0 = com_position_w(rate.model, x), u0 = com_velocity_w(rate.model, x);
  const S h = S(0.01);
  const int n = 300;
  for (int i = 0; i < n; ++i) x = rk4_step(rate, x, h);
  const S t = h * S(n);
  const Vec3<S> exact = c0 + u0 * t + S(0.5) * g * t * t;
  const double w = x.omega_b.norm();
  const double attitude_error = double(t) * w * std::pow(w * double(h), 4) / 120;
  const double tolerance = attitude_error * double(rate.model.com_b.norm()) + n * 8 * double(test::eps<S>()) * exact.norm();
  EXPECT_LE((com_position_w(rate.model, x) - exact).norm(), tolerance);
}

}  // namespace
}  // namespace rbmc

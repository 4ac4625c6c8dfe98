// The per-sample quantities of the statistics, against their definitions written out here.
#include "rbmc/stats/output_quantities.hpp"

#include <vector>

#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class OutputQuantitiesTest : public ::testing::Test {};
TYPED_TEST_SUITE(OutputQuantitiesTest, test::Scalars);

TYPED_TEST(OutputQuantitiesTest, MatchTheirDefinitions) {
  using S = TypeParam;
  test::Random random(7);
  SharedModel<S> shared;
  shared.loads.n_springs = 1;
  shared.loads.springs[0] = {Vec3<S>(S(0.1), 0, 0), Vec3<S>(0, 0, 2), S(30), S(0.5), S(0)};
  SampleInputs<S> in;
  in.body = random.body<S>();
  in.gravity_w = Vec3<S>(0, 0, S(-9.81));
  const int n_times = 3;
  const std::size_t n = 2, i = 1;  // sample 1 of a batch of 2
  std::vector<RigidBodyState<S>> x;
  std::vector<S> trajectory(n * kTrajectoryColumns * n_times, S(0));
  for (int k = 0; k < n_times; ++k) {
    x.push_back(random.state<S>());
    const StateVector<S> y = pack(x.back());
    for (int c = 0; c < kTrajectoryColumns; ++c) trajectory[(std::size_t(k) * kTrajectoryColumns + c) * n + i] = y(c);
  }
  // The last time is after the sample stopped: NaN everywhere.
  for (int c = 0; c < kTrajectoryColumns; ++c)
    trajectory[(std::size_t(n_times - 1) * kTrajectoryColumns + c) * n + i] = Eigen::NumTraits<S>::quiet_NaN();
  const std::vector<Quaternion<S>> nominal = {random.quaternion<S>(), random.quaternion<S>(), random.quaternion<S>()};
  std::vector<S> q(n * quantity::count * n_times, S(0));
  compute_sample_quantities(in, own_values(shared.parameters, in.model_values), shared, trajectory.data(), nominal.data(), n_times, n, i, q.data());
  const auto at = [&](int k, int c) { return q[(std::size_t(k) * quantity::count + c) * n + i]; };
  const S tol = S(64) * test::eps<S>();
  for (int k = 0; k < n_times - 1; ++k) {
    const RigidBodyState<S>& s = x[std::size_t(k)];
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(at(k, quantity::position + c), s.p_w(c));
      EXPECT_EQ(at(k, quantity::velocity + c), s.v_w(c));
      EXPECT_EQ(at(k, quantity::angular_velocity + c), s.omega_b(c));
    }
    // Angle of the relative rotation: 2 acos |⟨q, q_nominal⟩|.
    const Quaternion<S>& r = nominal[std::size_t(k)];
    const S dot = s.q_wb.w * r.w + s.q_wb.x * r.x + s.q_wb.y * r.y + s.q_wb.z * r.z;
    EXPECT_NEAR(at(k, quantity::attitude_angle), S(2) * std::acos(std::min(S(1), std::abs(dot))),
                std::sqrt(test::eps<S>()));  // acos near 1 loses half the digits
    // T = ½ m |v_C|² + ½ ωᵀ I ω with v_C = v + R (ω × c); V = −m g·r_C + ½ k (|anchor − r_P| − L)².
    const Mat3<S> R = to_rotation_matrix(s.q_wb);
    const Vec3<S> v_c = s.v_w + R * s.omega_b.cross(in.body.com_b);
    const S kinetic = S(0.5) * in.body.mass * v_c.squaredNorm() + S(0.5) * s.omega_b.dot(in.body.inertia_c_b * s.omega_b);
    EXPECT_NEAR(at(k, quantity::kinetic_energy), kinetic, tol * (1 + kinetic));
    const Vec3<S> r_c = s.p_w + R * in.body.com_b, r_p = s.p_w + R * Vec3<S>(S(0.1), 0, 0);
    const S stretch = (Vec3<S>(0, 0, 2) - r_p).norm() - S(0.5);
    const S potential = -in.body.mass * in.gravity_w.dot(r_c) + S(0.5) * S(30) * stretch * stretch;
    EXPECT_NEAR(at(k, quantity::potential_energy), potential, tol * (1 + std::abs(potential)));
  }
  for (int c = 0; c < quantity::count; ++c) EXPECT_TRUE(std::isnan(at(n_times - 1, c))) << c;
}

}  // namespace
}  // namespace rbmc

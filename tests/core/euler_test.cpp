#include "rbmc/math/euler.hpp"

#include "rbmc/math/rotation.hpp"
#include "rbmc/math/skew.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class EulerTest : public ::testing::Test {};
TYPED_TEST_SUITE(EulerTest, test::Scalars);

// 004 eqs 56–59 literally: R = Ψ Θ Φ with the matrices as printed.
template <class S>
Mat3<S> zxz_matrix_as_printed(S psi, S theta, S phi) {
  Mat3<S> big_psi, big_theta, big_phi;
  big_psi << std::cos(psi), -std::sin(psi), 0, std::sin(psi), std::cos(psi), 0, 0, 0, 1;
  big_theta << 1, 0, 0, 0, std::cos(theta), -std::sin(theta), 0, std::sin(theta), std::cos(theta);
  big_phi << std::cos(phi), -std::sin(phi), 0, std::sin(phi), std::cos(phi), 0, 0, 0, 1;
  return big_psi * big_theta * big_phi;
}

TYPED_TEST(EulerTest, ZxzMatchesTheSeedsMatrices) {
  using S = TypeParam;
  const EulerAngles<S> a(S(0.7), S(1.1), S(-2.0));
  const Mat3<S> r = to_rotation_matrix(quaternion_from_euler_zxz(a));
  EXPECT_LE((r - zxz_matrix_as_printed(a(0), a(1), a(2))).cwiseAbs().maxCoeff(), S(16) * test::eps<S>());
}

// Round trips, including angles near 0 and π and both gimbal locks. At a lock only the combined
// angle is defined, so the comparison is of rotations, and the flag must be raised.
TYPED_TEST(EulerTest, RoundTripsAndSingularities) {
  using S = TypeParam;
  test::Random rng;
  const S pi = S(3.14159265358979323846);
  for (int k = 0; k < 300; ++k) {
    const Quaternion<S> q = rng.quaternion<S>();
    bool singular = true;
    const EulerAngles<S> zxz = euler_zxz_from_quaternion(q, &singular);
    EXPECT_FALSE(singular);  // a random attitude is generic
    // Accuracy degrades as 1/sin θ near the singularity; random attitudes stay away from it.
    EXPECT_LE(angle_between(q, quaternion_from_euler_zxz(zxz)), S(1e3) * test::eps<S>());
    EXPECT_GE(zxz(1), S(0));
    EXPECT_LE(zxz(1), pi);
    const EulerAngles<S> zyx = euler_zyx_from_quaternion(q, &singular);
    EXPECT_FALSE(singular);
    EXPECT_LE(angle_between(q, quaternion_from_euler_zyx(zyx)), S(1e3) * test::eps<S>());
    EXPECT_LE(Eigen::numext::abs(zyx(1)), pi / 2);
  }
  for (S theta : {S(0), pi}) {
    bool singular = false;
    const Quaternion<S> q = quaternion_from_euler_zxz<S>(EulerAngles<S>(S(0.4), theta, S(0.3)));
    const EulerAngles<S> a = euler_zxz_from_quaternion(q, &singular);
    EXPECT_TRUE(singular) << "theta " << theta;
    EXPECT_EQ(a(2), S(0));
    EXPECT_LE(angle_between(q, quaternion_from_euler_zxz(a)), S(64) * test::eps<S>());
  }
  for (S pitch : {pi / 2, -pi / 2}) {
    bool singular = false;
    const Quaternion<S> q = quaternion_from_euler_zyx<S>(EulerAngles<S>(S(0.4), pitch, S(0.3)));
    const EulerAngles<S> a = euler_zyx_from_quaternion(q, &singular);
    EXPECT_TRUE(singular) << "pitch " << pitch;
    EXPECT_LE(angle_between(q, quaternion_from_euler_zyx(a)), S(1e3) * test::eps<S>());
  }
  // Near but not at the singularity: angles recovered, to an accuracy that shrinks with sin θ.
  const EulerAngles<S> near(S(0.4), S(1e-3), S(0.3));
  bool singular = true;
  const EulerAngles<S> back = euler_zxz_from_quaternion(quaternion_from_euler_zxz(near), &singular);
  EXPECT_FALSE(singular);
  EXPECT_NEAR(back(0), near(0), S(64) * test::eps<S>() / S(1e-3));
}

// The rate maps against a finite difference of the attitude: with q(t) from the angles a + t ȧ,
// the body angular velocity is 2 vec(q* q̇); it must equal G(a) ȧ (000 eq. 1.5), and T ω (004
// eq. 60) must give ȧ back. Central difference: O(δ²) ≈ 1e-12 relative in double.
TEST(EulerRates, ZxzAndZyxMapsMatchFiniteDifferences) {
  using S = double;
  const EulerAngles<S> a(0.7, 1.1, -2.0), rates(0.3, -0.5, 1.2);
  const S d = 1e-6;
  const auto omega_of = [&](auto from_angles) {
    const Quaternion<S> q = from_angles(a);
    const Quaternion<S> plus = from_angles(EulerAngles<S>(a + d * rates));
    const Quaternion<S> minus = from_angles(EulerAngles<S>(a - d * rates));
    const Quaternion<S> q_dot{(plus.w - minus.w) / (2 * d), (plus.x - minus.x) / (2 * d), (plus.y - minus.y) / (2 * d),
                              (plus.z - minus.z) / (2 * d)};
    return Vec3<S>(2 * (q.conjugate() * q_dot).vec());
  };
  const Vec3<S> w_zxz = omega_of([](const EulerAngles<S>& x) { return quaternion_from_euler_zxz(x); });
  EXPECT_LE((euler_zxz_rate_matrix(a) * rates - w_zxz).norm(), 1e-9);
  bool singular = true;
  EXPECT_LE((euler_zxz_rates(a, w_zxz, &singular) - rates).norm(), 1e-9);
  EXPECT_FALSE(singular);
  const Vec3<S> w_zyx = omega_of([](const EulerAngles<S>& x) { return quaternion_from_euler_zyx(x); });
  EXPECT_LE((euler_zyx_rate_matrix(a) * rates - w_zyx).norm(), 1e-9);
  EXPECT_LE((euler_zyx_rates(a, w_zyx, &singular) - rates).norm(), 1e-9);
  EXPECT_FALSE(singular);
}

TYPED_TEST(EulerTest, RateMapsFlagTheirSingularities) {
  using S = TypeParam;
  bool singular = false;
  euler_zxz_rates<S>(EulerAngles<S>(S(0.1), S(0), S(0.2)), Vec3<S>(1, 2, 3), &singular);
  EXPECT_TRUE(singular);
  euler_zyx_rates<S>(EulerAngles<S>(S(0.1), S(1.5707963267948966), S(0.2)), Vec3<S>(1, 2, 3), &singular);
  EXPECT_TRUE(singular);
  // The two maps are inverse where regular: T G = 1.
  const EulerAngles<S> a(S(0.3), S(0.9), S(-1.4));
  const Vec3<S> w(S(0.2), S(-1), S(0.5));
  EXPECT_LE((euler_zxz_rate_matrix(a) * euler_zxz_rates(a, w) - w).norm(), S(64) * test::eps<S>());
  EXPECT_LE((euler_zyx_rate_matrix(a) * euler_zyx_rates(a, w) - w).norm(), S(64) * test::eps<S>());
}

}  // namespace
}  // namespace rbmc

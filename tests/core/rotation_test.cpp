#include "rbmc/math/rotation.hpp"

#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class RotationTest : public ::testing::Test {};
TYPED_TEST_SUITE(RotationTest, test::Scalars);

// q and −q are one rotation: compare up to sign.
template <class S>
S quaternion_distance(const Quaternion<S>& a, const Quaternion<S>& b) {
  const S dot = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
  return Eigen::numext::abs(Eigen::numext::abs(dot) - S(1));
}

TYPED_TEST(RotationTest, MatrixRoundTripIncludingHardCases) {
  using S = TypeParam;
  test::Random rng;
  std::vector<Quaternion<S>> cases;
  for (int k = 0; k < 200; ++k) cases.push_back(rng.quaternion<S>());
  // Angle π about each axis and a diagonal (trace −1: every Shepperd branch), angle ~0, and w < 0.
  cases.push_back({S(0), S(1), S(0), S(0)});
  cases.push_back({S(0), S(0), S(1), S(0)});
  cases.push_back({S(0), S(0), S(0), S(1)});
  cases.push_back(normalized(Quaternion<S>{S(0), S(1), S(1), S(1)}));
  cases.push_back(normalized(Quaternion<S>{S(1), S(1e-7), S(0), S(0)}));
  cases.push_back(normalized(Quaternion<S>{S(-0.3), S(0.5), S(-0.2), S(0.7)}));
  for (const Quaternion<S>& q : cases) {
    const Quaternion<S> back = quaternion_from_rotation_matrix<S>(to_rotation_matrix(q));
    EXPECT_LE(quaternion_distance(q, back), S(32) * test::eps<S>());
    EXPECT_GE(back.w, S(0));
  }
}

TYPED_TEST(RotationTest, RotationVectorRoundTripNearZeroAndPi) {
  using S = TypeParam;
  test::Random rng;
  for (int k = 0; k < 200; ++k) {
    const Vec3<S> axis = rng.vec3<S>(-1, 1).normalized();
    // Angles spread over (0, π), plus the ends: below the small-angle switch, and near π.
    for (S angle : {S(rng.uniform(0, 3.1)), S(1e-8), S(3e-5), S(3.14159)}) {
      const Vec3<S> phi = axis * angle;
      const Vec3<S> back = rotation_vector_from_quaternion(quaternion_from_rotation_vector<S>(phi));
      // The log map's conditioning: absolute error ~ eps in the angle, eps/angle... bounded by 64 eps.
      EXPECT_LE((back - phi).norm(), S(64) * test::eps<S>() * (S(1) + angle)) << "angle " << angle;
    }
  }
  // The sign of the quaternion does not change the rotation vector.
  const Quaternion<S> q = quaternion_from_rotation_vector<S>(Vec3<S>(S(0.3), S(-0.2), S(1.0)));
  EXPECT_LE((rotation_vector_from_quaternion(q) -
             rotation_vector_from_quaternion(Quaternion<S>{-q.w, -q.x, -q.y, -q.z})).norm(),
            S(8) * test::eps<S>());
}

TYPED_TEST(RotationTest, AngleBetweenAttitudes) {
  using S = TypeParam;
  const Quaternion<S> a = normalized(Quaternion<S>{S(0.8), S(0.1), S(0.3), S(-0.2)});
  const Quaternion<S> b = a * quaternion_from_rotation_vector<S>(Vec3<S>(0, S(0.25), 0));
  EXPECT_NEAR(angle_between(a, b), S(0.25), S(64) * test::eps<S>());
  EXPECT_NEAR(angle_between(a, a), S(0), S(64) * test::eps<S>());
}

}  // namespace
}  // namespace rbmc

#include "rbmc/math/rotation.hpp"

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

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

// angle_between against 2 atan2(|v|, |w|) of a* ⊗ b computed in long double from the same
// attitudes: every angle, near 0 (1e-9, and below the rotation vector's small-angle switch, where
// the vector's length would carry its series' truncation), near π from both signs of w (a*⊗b's w
// near 0), and b = −a (angle 0, w = −1). The product's components each carry about 4 eps of
// absolute error (4 rounded products and 3 sums of terms at most 1) and the square root's
// argument about as much, so the angle, 2 atan2(s, |w|), moves by at most 2 (|ds| + |dw|) ≈ 16
// eps; atan2 adds 2 ulp (portable_math_test) and the ×2 nothing: 16 eps + 4 eps × the angle.
TYPED_TEST(RotationTest, AngleBetweenIsTheAngleOfTheRelativeRotation) {
  using S = TypeParam;
  using LD = long double;
  test::Random rng;
  std::vector<std::pair<Quaternion<S>, Quaternion<S>>> pairs;
  for (int k = 0; k < 2000; ++k) pairs.push_back({rng.quaternion<S>(), rng.quaternion<S>()});
  for (int k = 0; k < 200; ++k) {
    const Quaternion<S> a = rng.quaternion<S>();
    const Vec3<S> axis = rng.vec3<S>(-1, 1).normalized();
    for (double angle : {1e-9, 3e-7, 1e-3, 3.14159, 3.1415926, 3.14159265358979}) {
      const Quaternion<S> b = normalized(a * quaternion_from_rotation_vector<S>(axis * S(angle)));
      pairs.push_back({a, b});
      pairs.push_back({a, Quaternion<S>{-b.w, -b.x, -b.y, -b.z}});  // the same rotation
    }
    pairs.push_back({a, Quaternion<S>{-a.w, -a.x, -a.y, -a.z}});
  }
  S worst = 0;
  for (const auto& [a, b] : pairs) {
    const LD w = LD(a.w) * b.w + LD(a.x) * b.x + LD(a.y) * b.y + LD(a.z) * b.z;
    const LD x = LD(a.w) * b.x - LD(a.x) * b.w - LD(a.y) * b.z + LD(a.z) * b.y;
    const LD y = LD(a.w) * b.y + LD(a.x) * b.z - LD(a.y) * b.w - LD(a.z) * b.x;
    const LD z = LD(a.w) * b.z - LD(a.x) * b.y + LD(a.y) * b.x - LD(a.z) * b.w;
    const LD reference = 2 * std::atan2(std::sqrt(x * x + y * y + z * z), std::fabs(w));
    const S got = angle_between(a, b);
    const LD allowed = (16 + 4 * reference) * LD(test::eps<S>());
    EXPECT_LE(std::fabs(LD(got) - reference), allowed) << "reference " << double(reference);
    worst = std::max(worst, S(std::fabs(LD(got) - reference) / LD(test::eps<S>())));
  }
  std::printf("worst: %.2f eps\n", double(worst));
}

}  // namespace
}  // namespace rbmc

#include "rbmc/body/inertia.hpp"

#include <vector>

#include "rbmc/math/quaternion.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class InertiaTest : public ::testing::Test {};
TYPED_TEST_SUITE(InertiaTest, test::Scalars);

// A body of point masses: its mass, first moment and inertia about any point follow from the
// definitions c_P = Σ m ρ, J_P = Σ m (ρ² 1 − ρ ρᵀ) (001), independent of the theorems tested.
struct PointMasses {
  std::vector<double> m;
  std::vector<Vec3<double>> r;  // positions in a common frame
  double mass() const {
    double s = 0;
    for (double x : m) s += x;
    return s;
  }
  Vec3<double> first_moment_about(const Vec3<double>& p) const {
    Vec3<double> c = Vec3<double>::Zero();
    for (std::size_t i = 0; i < m.size(); ++i) c += m[i] * (r[i] - p);
    return c;
  }
  Mat3<double> inertia_about(const Vec3<double>& p) const {
    Mat3<double> j = Mat3<double>::Zero();
    for (std::size_t i = 0; i < m.size(); ++i) {
      const Vec3<double> rho = r[i] - p;
      j += m[i] * (rho.squaredNorm() * Mat3<double>::Identity() - rho * rho.transpose());
    }
    return j;
  }
};

PointMasses random_body(test::Random& rng) {
  PointMasses b;
  for (int i = 0; i < 12; ++i) {
    b.m.push_back(rng.uniform(0.1, 2.0));
    b.r.push_back(rng.vec3<double>(-1, 1));
  }
  return b;
}

TYPED_TEST(InertiaTest, TransferTheoremsMatchTheDefinitions) {
  using S = TypeParam;
  test::Random rng;
  for (int k = 0; k < 20; ++k) {
    const PointMasses body = random_body(rng);
    const double m = body.mass();
    const Vec3<double> com = body.first_moment_about(Vec3<double>::Zero()) / m;
    const Vec3<double> a = rng.vec3<double>(-2, 2), b = rng.vec3<double>(-2, 2);
    const Mat3<double> j_a = body.inertia_about(a), j_b = body.inertia_about(b), i_c = body.inertia_about(com);
    const S scale = S(j_a.cwiseAbs().maxCoeff() + j_b.cwiseAbs().maxCoeff());
    const S tol = S(64) * test::eps<S>() * scale;
    // The general first-moment form between two arbitrary points (001): ρ = position of B from A.
    const Mat3<S> from_b = parallel_axis<S>(j_b.cast<S>(), body.first_moment_about(b).cast<S>(), S(m), (b - a).cast<S>());
    EXPECT_LE((from_b - j_a.cast<S>()).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((shift_first_moment<S>(body.first_moment_about(b).cast<S>(), S(m), (b - a).cast<S>()) -
               body.first_moment_about(a).cast<S>()).norm(),
              tol);
    // Both ways through the centre of mass.
    const Mat3<S> j_o = inertia_about_point<S>(i_c.cast<S>(), S(m), (com - a).cast<S>());
    EXPECT_LE((j_o - j_a.cast<S>()).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((inertia_about_center_of_mass<S>(j_a.cast<S>(), S(m), (com - a).cast<S>()) - i_c.cast<S>())
                  .cwiseAbs()
                  .maxCoeff(),
              tol);
    EXPECT_LE((first_moment<S>(S(m), (com - a).cast<S>()) - body.first_moment_about(a).cast<S>()).norm(), tol);
  }
}

// Rotation theorem (001): the inertia of the same points expressed in a rotated frame.
TYPED_TEST(InertiaTest, RotationTheoremMatchesRotatedPoints) {
  using S = TypeParam;
  test::Random rng(3);
  const PointMasses body = random_body(rng);
  const Quaternion<double> q = rng.quaternion<double>();
  const Mat3<double> c_ab = to_rotation_matrix(q);  // b-components to a-components
  PointMasses rotated = body;
  for (auto& r : rotated.r) r = c_ab * r;
  const Mat3<double> j_b = body.inertia_about(Vec3<double>::Zero());
  const Mat3<double> j_a = rotated.inertia_about(Vec3<double>::Zero());
  EXPECT_LE((rotate_inertia<S>(c_ab.cast<S>(), j_b.cast<S>()) - j_a.cast<S>()).cwiseAbs().maxCoeff(),
            S(64) * test::eps<S>() * S(j_a.cwiseAbs().maxCoeff()));
}

}  // namespace
}  // namespace rbmc

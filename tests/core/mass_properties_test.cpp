#include "rbmc/body/mass_properties.hpp"

#include <Eigen/Eigenvalues>

#include "rbmc/body/principal_axes.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class MassPropertiesTest : public ::testing::Test {};
TYPED_TEST_SUITE(MassPropertiesTest, test::Scalars);

// The closed-form eigenvalues against Eigen's iterative solver (a second method).
TYPED_TEST(MassPropertiesTest, ClosedFormEigenvaluesMatchIterativeSolver) {
  using S = TypeParam;
  test::Random rng;
  for (int k = 0; k < 200; ++k) {
    const Mat3<S> inertia = rng.body<S>().inertia_c_b;
    const Vec3<S> closed = symmetric_eigenvalues<S>(inertia);
    const Vec3<double> reference =
        Eigen::SelfAdjointEigenSolver<Mat3<double>>(inertia.template cast<double>()).eigenvalues();
    // Eigenvalues of a symmetric matrix are well conditioned: error ~ eps |I|; the acos of the
    // trigonometric method loses up to a few more digits near repeated moments.
    EXPECT_LE((closed.template cast<double>() - reference).cwiseAbs().maxCoeff(),
              512 * double(test::eps<S>()) * reference.maxCoeff());
  }
  const Vec3<S> repeated = symmetric_eigenvalues<S>(Mat3<S>::Identity() * S(2));
  EXPECT_EQ(repeated, Vec3<S>(2, 2, 2));
}

TYPED_TEST(MassPropertiesTest, ValidityChecksSayWhy) {
  using S = TypeParam;
  MassProperties<S> body{S(1), Vec3<S>::Zero(), Vec3<S>(1, 2, 2.5).asDiagonal()};
  EXPECT_EQ(check_mass_properties(body), BodyValidity::valid);
  // A thin disk lies exactly on the triangle boundary (I3 = I1 + I2) and is valid.
  body.inertia_c_b = Vec3<S>(1, 1, 2).asDiagonal();
  EXPECT_EQ(check_mass_properties(body), BodyValidity::valid);
  body.inertia_c_b = Vec3<S>(1, 1, 3).asDiagonal();
  EXPECT_EQ(check_mass_properties(body), BodyValidity::triangle_inequality);
  body.inertia_c_b = Vec3<S>(1, -1, 1).asDiagonal();
  EXPECT_EQ(check_mass_properties(body), BodyValidity::not_positive_definite);
  body.inertia_c_b = Vec3<S>(1, 2, 2.5).asDiagonal();
  body.inertia_c_b(0, 1) = S(0.1);
  EXPECT_EQ(check_mass_properties(body), BodyValidity::asymmetric_inertia);
  body.inertia_c_b(1, 0) = S(0.1);
  EXPECT_EQ(check_mass_properties(body), BodyValidity::valid);
  body.mass = S(0);
  EXPECT_EQ(check_mass_properties(body), BodyValidity::non_positive_mass);
  body.mass = std::numeric_limits<S>::quiet_NaN();
  EXPECT_EQ(check_mass_properties(body), BodyValidity::non_finite);
  // Off-diagonal terms can break the triangle inequality while the diagonal obeys it
  // (1 + 1 >= 1.9): the xz block [[1, 0.9], [0.9, 1.9]] has eigenvalues (2.9 ± √4.05) / 2, so the
  // principal moments are 0.4437, 1 and 2.4563, and 0.4437 + 1 < 2.4563.
  body.mass = S(1);
  body.inertia_c_b << S(1), S(0), S(0.9), S(0), S(1), S(0), S(0.9), S(0), S(1.9);
  EXPECT_EQ(check_mass_properties(body), BodyValidity::triangle_inequality);
  EXPECT_STRNE(describe(BodyValidity::triangle_inequality), describe(BodyValidity::not_positive_definite));
}

TYPED_TEST(MassPropertiesTest, PrincipalFrameIsProperRotationAndReconstructs) {
  using S = TypeParam;
  test::Random rng;
  for (int k = 0; k < 50; ++k) {
    const Mat3<S> inertia = rng.body<S>().inertia_c_b;
    const PrincipalFrame<S> f = principal_frame(inertia);
    EXPECT_NEAR(f.axes.determinant(), S(1), S(64) * test::eps<S>());
    EXPECT_LE((f.axes.transpose() * f.axes - Mat3<S>::Identity()).cwiseAbs().maxCoeff(), S(64) * test::eps<S>());
    EXPECT_LE((inertia_from_principal(f.axes, f.moments) - inertia).cwiseAbs().maxCoeff(),
              S(64) * test::eps<S>() * inertia.cwiseAbs().maxCoeff());
    EXPECT_LE(f.moments(0), f.moments(1));
    EXPECT_LE(f.moments(1), f.moments(2));
  }
  // A diagonal tensor: sorted by default, or its body axes kept in their order on request.
  const PrincipalFrame<S> sorted = principal_frame<S>(Vec3<S>(3, 1, 2).asDiagonal());
  EXPECT_EQ(sorted.moments, Vec3<S>(1, 2, 3));
  EXPECT_NEAR(sorted.axes.determinant(), S(1), S(64) * test::eps<S>());
  const PrincipalFrame<S> d = principal_frame<S>(Vec3<S>(3, 1, 2).asDiagonal(), PrincipalOrder::keep_body_axes);
  EXPECT_EQ(d.axes, Mat3<S>::Identity());
  EXPECT_EQ(d.moments, Vec3<S>(3, 1, 2));
}

}  // namespace
}  // namespace rbmc

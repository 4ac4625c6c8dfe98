#include "rbmc/spatial/spatial_inertia.hpp"

#include <Eigen/Eigenvalues>

#include "rbmc/dynamics/invariants.hpp"
#include "rbmc/math/quaternion.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class SpatialTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpatialTest, test::Scalars);

template <class S>
using Mat6 = Eigen::Matrix<S, 6, 6>;

template <class S>
Transform<S> random_transform(test::Random& rng) {
  return {to_rotation_matrix(rng.quaternion<S>()), rng.vec3<S>(-2, 2)};
}
template <class S>
Motion<S> random_motion(test::Random& rng) {
  return {rng.vec3<S>(-2, 2), rng.vec3<S>(-2, 2)};
}
template <class S>
Force<S> random_force(test::Random& rng) {
  return {rng.vec3<S>(-2, 2), rng.vec3<S>(-2, 2)};
}
// The 6×6 matrix of a linear operator on 6-vectors, column by column.
template <class S, class Op>
Mat6<S> matrix_of(Op op) {
  Mat6<S> m;
  for (int c = 0; c < 6; ++c) m.col(c) = op(Eigen::Matrix<S, 6, 1>::Unit(c));
  return m;
}
template <class S>
Motion<S> motion_of(const Eigen::Matrix<S, 6, 1>& x) {
  return {x.template head<3>(), x.template tail<3>()};
}
template <class S>
Force<S> force_of(const Eigen::Matrix<S, 6, 1>& x) {
  return {x.template head<3>(), x.template tail<3>()};
}

// The identities of 002, on random transforms, in float and double.
TYPED_TEST(SpatialTest, TransformIdentities) {
  using S = TypeParam;
  test::Random rng;
  const S tol = S(256) * test::eps<S>();
  for (int k = 0; k < 50; ++k) {
    const Transform<S> x = random_transform<S>(rng), y = random_transform<S>(rng);
    const Mat6<S> xm = x.motion_matrix(), xf = x.force_matrix();
    // X* = X⁻ᵀ.
    EXPECT_LE((xf - Mat6<S>(xm.inverse().transpose())).cwiseAbs().maxCoeff(), tol * S(8));
    // apply() is the matrix; inverse() and composition are the matrices' inverse and product.
    const Motion<S> m = random_motion<S>(rng);
    const Force<S> f = random_force<S>(rng);
    EXPECT_LE((apply(x, m).vector() - xm * m.vector()).cwiseAbs().maxCoeff(), tol * S(4));
    EXPECT_LE((apply(x, f).vector() - xf * f.vector()).cwiseAbs().maxCoeff(), tol * S(4));
    EXPECT_LE((inverse(x).motion_matrix() - Mat6<S>(xm.inverse())).cwiseAbs().maxCoeff(), tol * S(8));
    EXPECT_LE(((y * x).motion_matrix() - y.motion_matrix() * xm).cwiseAbs().maxCoeff(), tol * S(16));
    // Power is invariant: (X m) · (X* f) = m · f.
    EXPECT_NEAR(dot(apply(x, m), apply(x, f)), dot(m, f), tol * S(16));
    // (X v)× = X v× X⁻¹: transforming a cross product is crossing the transformed vectors.
    const Motion<S> v = random_motion<S>(rng);
    EXPECT_LE((apply(x, cross(v, m)).vector() - cross(apply(x, v), apply(x, m)).vector()).cwiseAbs().maxCoeff(),
              tol * S(16));
    EXPECT_LE((apply(x, cross_star(v, f)).vector() - cross_star(apply(x, v), apply(x, f)).vector()).cwiseAbs().maxCoeff(),
              tol * S(16));
    // ×* = −(×)ᵀ.
    const Mat6<S> vx = matrix_of<S>([&](const auto& e) { return cross(v, motion_of<S>(e)).vector(); });
    const Mat6<S> vxs = matrix_of<S>([&](const auto& e) { return cross_star(v, force_of<S>(e)).vector(); });
    EXPECT_LE((vxs + vx.transpose()).cwiseAbs().maxCoeff(), tol);
  }
}

TYPED_TEST(SpatialTest, InertiaIdentities) {
  using S = TypeParam;
  test::Random rng(5);
  const S tol = S(512) * test::eps<S>();
  for (int k = 0; k < 50; ++k) {
    const MassProperties<S> body = rng.body<S>();
    const SpatialInertia<S> inertia{body.mass, body.com_b, body.inertia_c_b};
    const Mat6<S> im = inertia.matrix();
    EXPECT_LE((im - im.transpose()).cwiseAbs().maxCoeff(), tol);
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat6<S>>(im).eigenvalues().minCoeff(), S(0));
    const Motion<S> v = random_motion<S>(rng);
    EXPECT_LE(((inertia * v).vector() - im * v.vector()).cwiseAbs().maxCoeff(), tol * S(8));
    // ᴮI = ᴮX*_A ᴬI ᴬX_B.
    const Transform<S> x = random_transform<S>(rng);
    const Mat6<S> expected = x.force_matrix() * im * inverse(x).motion_matrix();
    EXPECT_LE((transform_inertia(x, inertia).matrix() - expected).cwiseAbs().maxCoeff(), tol * S(16));
    // ½ v·I v is the kinetic energy of 001 (invariants.hpp): v = [ω_b; v_O,b] with the body at
    // identity attitude, so body and world components coincide.
    const FreeBodyModel<S> model = make_free_body_model<S>(body, Vec3<S>::Zero());
    const RigidBodyState<S> state{Vec3<S>::Zero(), Quaternion<S>::identity(), v.linear, v.angular};
    EXPECT_NEAR(kinetic_energy(inertia, v), kinetic_energy(model, state), tol * (S(1) + kinetic_energy(model, state)));
  }
}

}  // namespace
}  // namespace rbmc

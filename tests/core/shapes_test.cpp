#include "rbmc/body/shapes.hpp"

#include <cmath>

#include "rbmc/body/mass_properties.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

// 001's J = ∫ (ρ² 1 − ρ ρᵀ) dm by the midpoint rule, as an independent reference. For these
// integrands on n cells per direction the rule's relative error is O(1/n²): exactly 1/n² for the
// box (the per-cell error of ∫x² is h²/12 of the cell's mass, and h = a/n), a small multiple of it
// for the curvilinear cells. Tolerance 2/n².
constexpr int kCells = 60;
constexpr double kQuadratureTolerance = 2.0 / (kCells * kCells);

// A solid of revolution about z with radii [r_in, r_out] and height h, in cylindrical cells.
Mat3<double> revolution_integral(double mass, double r_in, double r_out, double h) {
  const double volume = M_PI * (r_out * r_out - r_in * r_in) * h;
  const double dr = (r_out - r_in) / kCells, dt = 2 * M_PI / kCells, dz = h / kCells;
  Mat3<double> j = Mat3<double>::Zero();
  for (int i = 0; i < kCells; ++i)
    for (int k = 0; k < kCells; ++k)
      for (int l = 0; l < kCells; ++l) {
        const double r = r_in + (i + 0.5) * dr, t = (k + 0.5) * dt, z = -h / 2 + (l + 0.5) * dz;
        const Vec3<double> p(r * std::cos(t), r * std::sin(t), z);
        const double dm = mass / volume * r * dr * dt * dz;
        j += dm * (p.squaredNorm() * Mat3<double>::Identity() - p * p.transpose());
      }
  return j;
}

void expect_close(const Mat3<double>& a, const Mat3<double>& b, double relative) {
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), relative * b.cwiseAbs().maxCoeff()) << a << "\nvs\n" << b;
}

TEST(Shapes, BoxMatchesQuadrature) {
  const double m = 2, a = 0.3, b = 0.2, c = 0.1;
  Mat3<double> j = Mat3<double>::Zero();
  for (int i = 0; i < kCells; ++i)
    for (int k = 0; k < kCells; ++k)
      for (int l = 0; l < kCells; ++l) {
        const Vec3<double> p(a * ((i + 0.5) / kCells - 0.5), b * ((k + 0.5) / kCells - 0.5), c * ((l + 0.5) / kCells - 0.5));
        j += m / (kCells * kCells * kCells) * (p.squaredNorm() * Mat3<double>::Identity() - p * p.transpose());
      }
  expect_close(shapes::box(m, a, b, c), j, kQuadratureTolerance);
}

TEST(Shapes, CylindersMatchQuadrature) {
  expect_close(shapes::solid_cylinder(3.0, 0.2, 0.5), revolution_integral(3.0, 0.0, 0.2, 0.5), kQuadratureTolerance);
  expect_close(shapes::hollow_cylinder(3.0, 0.15, 0.2, 0.5), revolution_integral(3.0, 0.15, 0.2, 0.5),
               kQuadratureTolerance);
}

TEST(Shapes, SphereMatchesQuadrature) {
  // Spherical cells (r, polar, azimuth), volume element r² sin(polar).
  const double m = 5, radius = 0.4, volume = 4.0 / 3 * M_PI * radius * radius * radius;
  const double dr = radius / kCells, dp = M_PI / kCells, da = 2 * M_PI / kCells;
  double izz = 0;
  for (int i = 0; i < kCells; ++i)
    for (int k = 0; k < kCells; ++k) {
      const double r = (i + 0.5) * dr, p = (k + 0.5) * dp;
      const double rho_xy2 = std::pow(r * std::sin(p), 2);
      izz += kCells * (m / volume) * r * r * std::sin(p) * dr * dp * da * rho_xy2;  // azimuth is uniform
    }
  expect_close(shapes::solid_sphere(m, radius), Mat3<double>::Identity() * izz, kQuadratureTolerance);
}

// The thin disk and slender rod are the limits of the solid cylinder.
TEST(Shapes, DiskAndRodAreCylinderLimits) {
  expect_close(shapes::thin_disk(2.0, 0.3), shapes::solid_cylinder(2.0, 0.3, 1e-9), 1e-15);
  const Mat3<double> rod = shapes::slender_rod(2.0, 1.5, 0.01), cylinder = shapes::solid_cylinder(2.0, 0.01, 1.5);
  EXPECT_NEAR(rod(2, 2), cylinder(2, 2), 1e-16);
  EXPECT_NEAR(rod(0, 0), cylinder(0, 0), 3 * 0.01 * 0.01 / (1.5 * 1.5) * cylinder(0, 0));  // O(r²/L²)
}

// Every shape is a physical body (the disk on the triangle boundary).
TEST(Shapes, AllAreValidBodies) {
  for (const Mat3<double>& inertia :
       {shapes::box(1.0, 1.0, 2.0, 3.0), shapes::solid_cylinder(1.0, 0.5, 2.0), shapes::hollow_cylinder(1.0, 0.4, 0.5, 2.0),
        shapes::solid_sphere(1.0, 1.0), shapes::thin_disk(1.0, 1.0), shapes::slender_rod(1.0, 2.0, 0.01)})
    EXPECT_EQ(check_inertia(inertia), BodyValidity::valid) << inertia;
  EXPECT_EQ(check_inertia(shapes::box(1.0f, 1.0f, 2.0f, 3.0f)), BodyValidity::valid);  // and in float
}

// A Shape names the same closed forms, and is valid only with positive dimensions (a negative
// radius gives a valid-looking tensor, so the inertia alone cannot catch it).
TEST(Shapes, ShapeRecordDerivesTheSameInertiaAndKnowsItsValidity) {
  const Shape<double> box{ShapeKind::box, {0.3, 0.2, 0.1}}, tube{ShapeKind::hollow_cylinder, {0.4, 0.5, 2.0}},
      rod{ShapeKind::slender_rod, {1.5, 0.01, 0}}, cylinder{ShapeKind::solid_cylinder, {0.5, 2.0, 0}},
      sphere{ShapeKind::solid_sphere, {1.0, 0, 0}}, disk{ShapeKind::thin_disk, {0.3, 0, 0}};
  EXPECT_EQ(shape_inertia(box, 2.0), shapes::box(2.0, 0.3, 0.2, 0.1));
  EXPECT_EQ(shape_inertia(tube, 2.0), shapes::hollow_cylinder(2.0, 0.4, 0.5, 2.0));
  EXPECT_EQ(shape_inertia(rod, 2.0), shapes::slender_rod(2.0, 1.5, 0.01));
  EXPECT_EQ(shape_inertia(cylinder, 2.0), shapes::solid_cylinder(2.0, 0.5, 2.0));
  EXPECT_EQ(shape_inertia(sphere, 2.0), shapes::solid_sphere(2.0, 1.0));
  EXPECT_EQ(shape_inertia(disk, 2.0), shapes::thin_disk(2.0, 0.3));
  for (const Shape<double>& s : {box, tube, rod, cylinder, sphere, disk}) EXPECT_TRUE(shape_is_valid(s));
  Shape<double> bad = box;
  bad.dimensions[1] = -0.2;
  EXPECT_FALSE(shape_is_valid(bad));
  EXPECT_EQ(check_inertia(shape_inertia(bad, 2.0)), BodyValidity::valid);  // why the shape check exists
  bad = tube;
  bad.dimensions[0] = 0.6;  // inner radius beyond the outer one
  EXPECT_FALSE(shape_is_valid(bad));
  EXPECT_FALSE(shape_is_valid(Shape<double>{}));
  EXPECT_TRUE(shape_is_valid(Shape<float>{ShapeKind::box, {0.3f, 0.2f, 0.1f}}));
}

}  // namespace
}  // namespace rbmc

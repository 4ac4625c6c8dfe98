#include "rbmc/integrate/events.hpp"

#include <cmath>

#include "rbmc/sample/run_sample.hpp"
#include "test_support.hpp"

namespace rbmc {
namespace {

template <class Scalar>
class EventsTest : public ::testing::Test {};
TYPED_TEST_SUITE(EventsTest, test::Scalars);

// The fixed step's two interpolants, the host's packed one and the device's referring one: both
// reproduce a cubic exactly but for rounding (about 10 roundings of values up to 4 in magnitude:
// 40 eps, tested at 64 eps), and they agree bit for bit, which the device's, compiled only by
// nvcc in the product, is checked for here on the CPU.
TYPED_TEST(EventsTest, BothFixedStepInterpolantsReproduceACubic) {
  using S = TypeParam;
  const S t0 = S(0.3), h = S(0.05);
  // Component i follows c_i(t) = 1 + (i/13) t − t² + t³/2 (shifted by i/13).
  const auto at = [](int i, S t) { return S(1) + S(i) / 13 * t - t * t + t * t * t / 2; };
  const auto slope = [](int i, S t) { return S(i) / 13 - 2 * t + S(1.5) * t * t; };
  StateVector<S> y0, f0, y1, f1;
  for (int i = 0; i < 13; ++i) {
    y0(i) = at(i, t0);
    f0(i) = slope(i, t0);
    y1(i) = at(i, t0 + h);
    f1(i) = slope(i, t0 + h);
  }
  const RigidBodyState<S> x0 = unpack(y0), x1 = unpack(y1);
  const RigidBodyStateRate<S> r0{f0.template segment<3>(0), {f0(3), f0(4), f0(5), f0(6)}, f0.template segment<3>(7),
                                 f0.template segment<3>(10)};
  const RigidBodyStateRate<S> r1{f1.template segment<3>(0), {f1(3), f1(4), f1(5), f1(6)}, f1.template segment<3>(7),
                                 f1.template segment<3>(10)};
  ASSERT_EQ(pack(r0), f0);
  const PackedHermiteInterpolant<S> packed{y0, f0, y1, f1, t0, h};
  const HermiteInterpolant<S> referring{x0, r0, x1, r1, t0, h};
  for (int k = 0; k <= 10; ++k) {
    const S t = t0 + h * S(k) / 10;
    const StateVector<S> a = packed.at(t), b = referring.at(t);
    for (int i = 0; i < 13; ++i) {
      EXPECT_EQ(a(i), b(i)) << "component " << i << " at " << t;
      EXPECT_NEAR(a(i), at(i, t), 64 * test::eps<S>()) << "component " << i << " at " << t;
    }
  }
}

template <class S>
IntegrationSettings<S> dopri5_settings(S duration, S rtol) {
  return {IntegratorKind::dopri5, duration, S(0.01), 0, rtol, rtol * S(1e-2), S(1e-9), duration, 100000, false, S(0)};
}

// A box in free fall, not rotating: its corner at (0.1, 0.1, −0.05) from the origin reaches the
// ground z = 0 at t* = (v₀ + √(v₀² + 2 g h)) / g, h the corner's initial height. Both
// interpolants are exact on this quadratic, so the event time is exact to the root tolerance;
// the terminal event stops the sample with the corner on the ground.
TYPED_TEST(EventsTest, CornerTouchesTheGroundAtTheClosedFormTime) {
  using S = TypeParam;
  const S g = S(9.81), z0 = S(2), v0 = S(1), height = z0 - S(0.05);
  const double t_star = (double(v0) + std::sqrt(double(v0) * v0 + 2 * double(g) * height)) / double(g);
  SampleInputs<S> in;
  in.body = {S(1), Vec3<S>::Zero(), Vec3<S>(S(0.1), S(0.2), S(0.25)).asDiagonal()};
  in.initial = {Vec3<S>(0, 0, z0), Quaternion<S>::identity(), Vec3<S>(S(0.3), 0, v0), Vec3<S>::Zero()};
  in.gravity_w = Vec3<S>(0, 0, -g);
  SharedModel<S> shared{};
  shared.events.n = 1;
  shared.events.tolerance = S(1e-12);
  shared.events.events[0].kind = EventKind::point_crossing;
  shared.events.events[0].terminal = true;
  shared.events.events[0].direction = CrossingDirection::falling;
  shared.events.events[0].point_b = Vec3<S>(S(0.1), S(0.1), S(-0.05));
  shared.events.events[0].axis = 2;
  const S eps = test::eps<S>();
  for (const IntegrationSettings<S>& how : {fixed_step<S>(S(0.01), 300), dopri5_settings<S>(S(3), S(1e-6))}) {
    const SampleResult<S> r = run_sample(in, shared, how);
    ASSERT_EQ(r.status, SampleStatus::terminal_event);
    EXPECT_EQ(r.stopping_event, 0);
    // Rounding of the step arithmetic over ~100 steps bounds the time in float.
    EXPECT_NEAR(double(r.time), t_star, 1e-10 + 200 * double(eps));
    EXPECT_NEAR(double(r.events[0].time), t_star, 1e-10 + 200 * double(eps));
    EXPECT_EQ(r.events[0].count, 1);
    const Vec3<S> corner = r.final_state.p_w + rotate(r.final_state.q_wb, Vec3<S>(S(0.1), S(0.1), S(-0.05)));
    EXPECT_NEAR(double(corner.z()), 0.0, 1e-9 + 200 * double(eps));
  }
}

// The box's eight corners, from its centre c and half sizes h: c + (±h_x, ±h_y, ±h_z).
template <class S>
std::vector<Vec3<S>> box_corners(const Vec3<S>& centre, const Vec3<S>& half) {
  std::vector<Vec3<S>> corners;
  for (int k = 0; k < 8; ++k)
    corners.push_back(centre + Vec3<S>(k & 1 ? half.x() : -half.x(), k & 2 ? half.y() : -half.y(),
                                       k & 4 ? half.z() : -half.z()));
  return corners;
}

template <class S>
EventSpec<S> box_event(CrossingDirection direction, int axis, S value) {
  EventSpec<S> e;
  e.kind = EventKind::box_crossing;
  e.direction = direction;
  e.axis = axis;
  e.value = value;
  e.point_b = Vec3<S>(S(0.01), S(-0.02), S(0.005));
  e.half_size_b = Vec3<S>(S(0.074), S(0.048), S(0.028));
  return e;
}

// A box's event function is its nearest corner's: falling, the lowest of its eight corners' world
// coordinates less the value; rising, the highest. The support function sums three terms where
// the corners' coordinates take a rotation each: the two agree to the roundings of a rotation of
// values up to |p| + 0.1 (about 20 of them: 32 eps (|p| + 1)), at any attitude and on each axis.
TYPED_TEST(EventsTest, ABoxCrossesWhereItsNearestCornerDoes) {
  using S = TypeParam;
  test::Random random(31);
  for (int trial = 0; trial < 200; ++trial) {
    const RigidBodyState<S> x = random.template state<S>();
    for (int axis = 0; axis < 3; ++axis)
      for (const CrossingDirection d : {CrossingDirection::falling, CrossingDirection::rising}) {
        const EventSpec<S> e = box_event<S>(d, axis, S(0.25));
        S lowest = S(INFINITY), highest = S(-INFINITY);
        for (const Vec3<S>& c : box_corners(e.point_b, e.half_size_b)) {
          const S coordinate = (x.p_w + rotate(x.q_wb, c))(axis);
          lowest = std::min(lowest, coordinate);
          highest = std::max(highest, coordinate);
        }
        const S expected = (d == CrossingDirection::falling ? lowest : highest) - e.value;
        EXPECT_NEAR(double(event_function(e, S(0), x)), double(expected),
                    32 * double(test::eps<S>()) * (1 + double(x.p_w.norm())))
            << "trial " << trial << ", axis " << axis;
      }
  }
}

// A solid (`solid`, its terminal event falling through z = 0) under gravity g, released at 1.5 m
// and tossed at 5 m/s up and 0.5 m/s sideways, tilted by 0.4 rad about (1, 2, 0.5). Not turning,
// its lowest point is fixed in the body and falls by the closed form t* = (v₀ + √(v₀² + 2 g h)) /
// g, h that point's initial height (`lowest`: the solid's lowest point's z in a state); it is on
// the ground at the event, within the tolerances given. Returns the same release tumbling (spun
// about x mostly, as a tossed body is), which has stopped at its event; `in` holds its inputs.
template <class S, class Lowest>
SampleResult<S> land_still_then_tumbling(SampleInputs<S>& in, SharedModel<S>& shared, const IntegrationSettings<S>& how,
                                         S g, const EventSpec<S>& solid, const Lowest& lowest, double time_tolerance,
                                         double height_tolerance) {
  const Quaternion<S> tilt = quaternion_from_rotation_vector(Vec3<S>(Vec3<S>(S(1), S(2), S(0.5)).normalized() * S(0.4)));
  in.initial = {Vec3<S>(0, 0, S(1.5)), tilt, Vec3<S>(S(0.5), 0, S(5)), Vec3<S>::Zero()};
  shared.events.n = 1;
  shared.events.events[0] = solid;
  shared.events.events[0].terminal = true;
  const SampleResult<S> still = run_sample(in, shared, how);
  EXPECT_EQ(still.status, SampleStatus::terminal_event);
  const double height = double(lowest(in.initial)), v0 = 5;
  const double t_star = (v0 + std::sqrt(v0 * v0 + 2 * double(g) * height)) / double(g);
  EXPECT_NEAR(double(still.time), t_star, time_tolerance);
  EXPECT_NEAR(double(lowest(still.final_state)), 0.0, height_tolerance);
  in.initial.omega_b = Vec3<S>(S(6), S(0.2), S(0.3));
  const SampleResult<S> tumbling = run_sample(in, shared, how);
  EXPECT_EQ(tumbling.status, SampleStatus::terminal_event);
  return tumbling;
}

// A box under gravity first touches the ground with whichever corner is lowest. Not turning and
// tilted, the lowest corner is fixed and falls by the closed form: t* = (v₀ + √(v₀² + 2 g h)) / g,
// h its initial height. Tumbling, it is the earliest of the eight corners' own first crossings,
// found by point_crossing events (four a run, non-terminal) on the same steps and interpolants:
// the same roots to the locator's tolerance (1e-12 s) and rounding. The recorded state has its
// lowest corner on the ground and none below.
TYPED_TEST(EventsTest, ABoxTouchesTheGroundWithItsFirstCorner) {
  using S = TypeParam;
  const S g = S(9.81), eps = test::eps<S>();
  SampleInputs<S> in;
  in.body = {S(0.5), Vec3<S>::Zero(), Vec3<S>(S(0.00052), S(0.00104), S(0.0013)).asDiagonal()};
  in.gravity_w = Vec3<S>(0, 0, -g);
  const EventSpec<S> box = box_event<S>(CrossingDirection::falling, 2, S(0));
  const std::vector<Vec3<S>> corners = box_corners(box.point_b, box.half_size_b);
  const auto lowest_corner = [&](const RigidBodyState<S>& x) {
    S lowest = S(INFINITY);
    for (const Vec3<S>& c : corners) lowest = std::min(lowest, (x.p_w + rotate(x.q_wb, c)).z());
    return lowest;
  };
  SharedModel<S> shared{};
  shared.events.tolerance = S(1e-12);
  for (const IntegrationSettings<S>& how : {fixed_step<S>(S(0.002), 1000), dopri5_settings<S>(S(2), S(1e-6))}) {
    // Rounding of the step arithmetic over ~600 steps bounds the time in float.
    const SampleResult<S> tumbling = land_still_then_tumbling(in, shared, how, g, box, lowest_corner,
                                                              1e-10 + 600 * double(eps), 1e-9 + 2000 * double(eps));
    double first = INFINITY, crossing[8];
    for (int half = 0; half < 2; ++half) {
      shared.events.n = 4;
      for (int k = 0; k < 4; ++k) {
        EventSpec<S>& corner = shared.events.events[k];
        corner = EventSpec<S>{};
        corner.kind = EventKind::point_crossing;
        corner.direction = CrossingDirection::falling;
        corner.axis = 2;
        corner.point_b = corners[std::size_t(4 * half + k)];
      }
      const SampleResult<S> r = run_sample(in, shared, how);
      for (int k = 0; k < 4; ++k) {
        crossing[4 * half + k] = r.events[k].count > 0 ? double(r.events[k].time) : INFINITY;
        first = std::min(first, crossing[4 * half + k]);
      }
    }
    shared.events.n = 1;
    shared.events.events[0] = box;
    shared.events.events[0].terminal = true;
    ASSERT_TRUE(std::isfinite(first));
    EXPECT_NEAR(double(tumbling.time), first, 1e-10 + 600 * double(eps));
    EXPECT_NEAR(double(tumbling.events[0].time), first, 1e-10 + 600 * double(eps));
    EXPECT_NEAR(double(lowest_corner(tumbling.final_state)), 0.0, 1e-9 + 2000 * double(eps));
    // One corner followed alone, (+x, +y, −z), crosses later: another corner touched first.
    EXPECT_GT(crossing[3], first + 0.01);
  }
}

// A can by default: radius 0.033 m, half its height 0.0575 m.
template <class S>
EventSpec<S> cylinder_event(CrossingDirection direction, int axis, S value, S radius = S(0.033), S half_height = S(0.0575)) {
  EventSpec<S> e;
  e.kind = EventKind::cylinder_crossing;
  e.direction = direction;
  e.axis = axis;
  e.value = value;
  e.point_b = Vec3<S>(S(0.002), S(-0.001), S(0.004));
  e.half_size_b = Vec3<S>(radius, radius, half_height);
  return e;
}

// A point of the cylinder's rims, at angle phi on the top (top) or the bottom rim, body frame.
template <class S>
Vec3<S> rim_point(const EventSpec<S>& e, double phi, bool top) {
  const double r = double(e.half_size_b.x()), h = double(e.half_size_b.z());
  return e.point_b + Vec3<S>(S(r * std::cos(phi)), S(r * std::sin(phi)), S(top ? h : -h));
}

// A cylinder's event function is its nearest rim point's, found a second way: the rim point whose
// radius points along −e_b's projection on the end planes (falling; +e_b's rising), on the end
// whose normal points down along e (up), turned as a point by `rotate`. The two agree to the
// roundings of a rotation (32 eps (|p| + 1), as the box's). And no point of either rim, 720 of
// each, lies nearer: below g (falling) or above it (rising) by more than those roundings. The same
// for a disc (height 0: its two rims one) and a segment (radius 0: its rims its two ends).
TYPED_TEST(EventsTest, ACylinderCrossesWhereItsNearestRimPointDoes) {
  using S = TypeParam;
  test::Random random(37);
  const S shapes[3][2] = {{S(0.033), S(0.0575)}, {S(0.05), S(0)}, {S(0), S(0.5)}};  // can, disc, segment
  for (int trial = 0; trial < 200; ++trial) {
    const RigidBodyState<S> x = random.template state<S>();
    for (int axis = 0; axis < 3; ++axis)
      for (const CrossingDirection d : {CrossingDirection::falling, CrossingDirection::rising}) {
        const auto& shape = shapes[trial % 3];
        const EventSpec<S> e = cylinder_event<S>(d, axis, S(0.25), shape[0], shape[1]);
        const double sign = d == CrossingDirection::falling ? -1 : 1;  // toward the crossing point
        const Quaternion<double> q{double(x.q_wb.w), double(x.q_wb.x), double(x.q_wb.y), double(x.q_wb.z)};
        const Vec3<double> e_b = rotate_inverse(q, Vec3<double>(Vec3<double>::Unit(axis)));
        const double phi = std::atan2(sign * e_b.y(), sign * e_b.x());
        const Vec3<S> nearest = rim_point(e, phi, sign * e_b.z() > 0);
        const double g = double(event_function(e, S(0), x));
        const double tolerance = 32 * double(test::eps<S>()) * (1 + double(x.p_w.norm()));
        EXPECT_NEAR(g, double((x.p_w + rotate(x.q_wb, nearest))(axis) - e.value), tolerance)
            << "trial " << trial << ", axis " << axis;
        for (int k = 0; k < 720; ++k)
          for (const bool top : {false, true}) {
            const double beyond = sign * (double((x.p_w + rotate(x.q_wb, rim_point(e, k * M_PI / 360, top)))(axis) -
                                                 e.value) - g);
            ASSERT_LE(beyond, tolerance) << "trial " << trial << ", axis " << axis << ", rim point " << k;
          }
      }
  }
}

// A can under gravity first touches the ground with its rim. Not turning and tilted, its lowest
// rim point is fixed and falls by the closed form t* = (v₀ + √(v₀² + 2 g h)) / g. Tumbling, each of
// 64 rim points (32 a rim) followed by a point_crossing event (four a run) crosses no earlier than
// the cylinder does, and the first of them later by at most the depth of the rim between two of
// them, r (1 − cos(π/32)), over the rim's descent speed then (at least the centre's, √(v₀² + 2 g
// · 1.43 m), less |ω| times the rim's reach from it: 7.3 m/s less 0.42): 2.3e-5 s.
// A rim point followed alone, as tossed_cylinder_lhs did, crosses later still.
TYPED_TEST(EventsTest, ACylinderTouchesTheGroundWithItsRim) {
  using S = TypeParam;
  const S g = S(9.81), eps = test::eps<S>();
  SampleInputs<S> in;
  in.body = {S(0.4), Vec3<S>::Zero(), Vec3<S>(S(0.00055), S(0.00055), S(0.00022)).asDiagonal()};
  in.gravity_w = Vec3<S>(0, 0, -g);
  const EventSpec<S> can = cylinder_event<S>(CrossingDirection::falling, 2, S(0));
  // Sampled, 7,200 points a rim: above the lowest by r (1 − cos(π/7200)) = 3.1e-9 m at most.
  const auto lowest_rim_point = [&](const RigidBodyState<S>& x) {
    double lowest = INFINITY;
    for (int k = 0; k < 7200; ++k)
      for (const bool top : {false, true})
        lowest = std::min(lowest, double((x.p_w + rotate(x.q_wb, rim_point(can, k * M_PI / 3600, top))).z()));
    return lowest;
  };
  SharedModel<S> shared{};
  shared.events.tolerance = S(1e-12);
  for (const IntegrationSettings<S>& how : {fixed_step<S>(S(0.002), 1000), dopri5_settings<S>(S(2), S(1e-6))}) {
    // The fall is quadratic in t, which both interpolants reproduce: the box's tolerances, and the
    // sampled height's 3.1e-9 m at the 7 m/s of the fall.
    const SampleResult<S> tumbling = land_still_then_tumbling(in, shared, how, g, can, lowest_rim_point,
                                                              1e-9 + 600 * double(eps), 5e-9 + 2000 * double(eps));
    double first = INFINITY, alone = INFINITY;
    for (int run = 0; run < 16; ++run) {
      shared.events.n = 4;
      for (int k = 0; k < 4; ++k) {
        EventSpec<S>& point = shared.events.events[k];
        point = EventSpec<S>{};
        point.kind = EventKind::point_crossing;
        point.direction = CrossingDirection::falling;
        point.axis = 2;
        const int at = 4 * run + k;  // 0..31 the bottom rim, 32..63 the top
        point.point_b = rim_point(can, (at % 32) * M_PI / 16, at >= 32);
      }
      const SampleResult<S> r = run_sample(in, shared, how);
      for (int k = 0; k < 4; ++k) {
        const double t = r.events[k].count > 0 ? double(r.events[k].time) : INFINITY;
        first = std::min(first, t);
        if (run == 0 && k == 0) alone = t;  // (r, 0, −h), the config's old point
      }
    }
    ASSERT_TRUE(std::isfinite(first));
    const double rim_depth = double(can.half_size_b.x()) * (1 - std::cos(M_PI / 32));
    // The centre has fallen at least 1.43 m (it lies within 0.07 m of any rim point); a rim point
    // turns about it within 0.07 m at |ω| = |(6, 0.2, 0.3)| rad/s, constant for this symmetric can.
    const double descent = std::sqrt(25 + 2 * double(g) * 1.43) - 6.02 * 0.07;
    EXPECT_LE(double(tumbling.time), first + 1e-10 + 600 * double(eps));
    EXPECT_GE(double(tumbling.time), first - rim_depth / descent - 1e-10 - 600 * double(eps));
    EXPECT_NEAR(lowest_rim_point(tumbling.final_state), 0.0, 5e-9 + 2000 * double(eps));
    // (4 ms later here: 3 cm of fall.)
    EXPECT_GT(alone - double(tumbling.time), 10 * rim_depth / descent);
  }
}

// The fixed-step loop checks each step's end with EventTracker::advance and calls step() only
// when an event crossed; dopri5 and the CPU's lanes call step() on every step. Both must record
// the same: the same counts, first times and states bit for bit, and the same terminal stop. A
// spinning body gives a body point's world x crossing 0 in both senses, the attitude's angle
// rising through 1 rad several times, a rate that never falls below its value, and a time limit
// that stops inside a step.
TYPED_TEST(EventsTest, AdvanceThenStepRecordsWhatStepAloneRecords) {
  using S = TypeParam;
  const FreeBodyModel<S> model =
      make_free_body_model<S>({S(1), Vec3<S>::Zero(), Vec3<S>(S(1), S(2), S(2.5)).asDiagonal()}, Vec3<S>::Zero());
  const LoadSet<S> loads{};
  const Constraint<S> constraint{};
  const BodyRate<S> rate{model, &loads, &constraint};
  EventSet<S> set;
  set.n = 4;
  set.tolerance = S(1e-9);
  set.events[0] = {EventKind::point_crossing, false, CrossingDirection::either, 0, S(0), Vec3<S>(S(0.5), S(0.2), 0)};
  set.events[1] = {EventKind::attitude_angle, false, CrossingDirection::rising, 2, S(1)};
  set.events[2] = {EventKind::angular_rate_below, false, CrossingDirection::rising, 2, S(0.01)};
  set.events[3] = {EventKind::time_limit, true, CrossingDirection::rising, 2, S(17.3705)};
  EventRecord<S> alone[EventSet<S>::kMax], advanced[EventSet<S>::kMax];
  EventTracker<S> by_step{}, by_advance{};
  by_step.records = {alone};
  by_advance.records = {advanced};
  RigidBodyState<S> x{Vec3<S>::Zero(), Quaternion<S>::identity(), Vec3<S>::Zero(), Vec3<S>(S(0.1), S(1), S(0.2))};
  by_step.start(set, S(0), x);
  by_advance.start(set, S(0), x);
  const S h = S(0.01);
  int steps_that_crossed = 0, steps_recorded = 0;
  bool stopped = false;
  for (int step = 0; step < 2000 && !stopped; ++step) {
    const RigidBodyState<S> next = rk4_step(rate, x, h);
    const S t0 = S(step) * h, t1 = S(step + 1) * h;
    const PackedHermiteInterpolant<S> interp{pack(x), pack(rate(x)), pack(next), pack(rate(next)), t0, h};
    std::int64_t counts_before = 0;
    for (int e = 0; e < set.n; ++e) counts_before += by_step.counts[e];
    S t_alone = S(-1), t_advanced = S(-1);
    RigidBodyState<S> x_alone{}, x_advanced{};
    int which_alone = -1, which_advanced = -1;
    const bool stop_alone = by_step.step(interp, t0, t1, next, t_alone, x_alone, which_alone);
    bool stop_advanced = false;
    if (by_advance.advance(t1, next)) {
      ++steps_that_crossed;
      stop_advanced = by_advance.step(interp, t0, t1, next, t_advanced, x_advanced, which_advanced);
    }
    std::int64_t counts_after = 0;
    for (int e = 0; e < set.n; ++e) counts_after += by_step.counts[e];
    if (counts_after != counts_before) ++steps_recorded;
    ASSERT_EQ(stop_alone, stop_advanced) << "step " << step;
    if (stop_alone) {
      EXPECT_EQ(t_alone, t_advanced);
      EXPECT_EQ(which_alone, which_advanced);
      EXPECT_EQ(pack(x_alone), pack(x_advanced));
      // Located to the event tolerance (1e-9 s), or in float to the time's own resolution near
      // 17.37 s (a few ulp: 4 ε · 17.37 = 8.3e-6 s).
      EXPECT_NEAR(double(t_alone), 17.3705, 1e-9 + 4 * double(test::eps<S>()) * 17.3705);
      stopped = true;
    }
    for (int e = 0; e < set.n; ++e) {
      ASSERT_EQ(by_step.g[e], by_advance.g[e]) << "event " << e << ", step " << step;
      ASSERT_EQ(by_step.counts[e], by_advance.counts[e]) << "event " << e << ", step " << step;
    }
    x = next;
  }
  ASSERT_TRUE(stopped);
  by_step.finish();
  by_advance.finish();
  EXPECT_GE(alone[0].count, 4);  // the point passes x = 0 about twice a turn
  EXPECT_GE(alone[1].count, 2);
  EXPECT_EQ(alone[2].count, 0);
  for (int e = 0; e < set.n; ++e) {
    EXPECT_EQ(alone[e].count, advanced[e].count) << "event " << e;
    if (alone[e].count > 0) {
      EXPECT_EQ(alone[e].time, advanced[e].time) << "event " << e;
      EXPECT_EQ(pack(alone[e].state), pack(advanced[e].state)) << "event " << e;
    }
  }
  // advance() hands over exactly the steps in which some event crossed in its direction: those in
  // which a count rose (not the angle's falls through 1 rad).
  EXPECT_EQ(steps_that_crossed, steps_recorded);
}

// 004's pendulum (see constraints_test.cpp): the rod passes the vertical, its centre of mass at
// x = 0, at T/4 + k T/2 with T = 1.93335 s. A recorded (non-terminal) event counts the passages
// in 7 s (seven) and keeps the first, at T/4, to the interpolant's accuracy: RK4's cubic Hermite
// interpolant has local error O(h⁴) ≈ 1e-12 at h = 1e-3.
TEST(Events, PendulumPassesTheVerticalAtAQuarterPeriod) {
  const double m = 10, l = 1, g = 9.81;
  const double quarter = std::sqrt((1.0 / 3) / (g * 0.5)) * 1.8540746773013719;
  SampleInputs<double> in;
  in.body = {m, Vec3<double>::Zero(), Vec3<double>(m * 1e-4 / 2, m * l * l / 12, m * l * l / 12).asDiagonal()};
  in.initial = {Vec3<double>(0.5, 0, 0), Quaternion<double>::identity(), Vec3<double>::Zero(), Vec3<double>::Zero()};
  in.gravity_w = Vec3<double>(0, 0, -g);
  SharedModel<double> shared{};
  shared.constraint = {ConstraintKind::pivot, Vec3<double>(-l / 2, 0, 0), Vec3<double>::Zero(), 0, 50};
  shared.events.n = 1;
  shared.events.tolerance = 1e-12;
  shared.events.events[0].kind = EventKind::point_crossing;
  shared.events.events[0].axis = 0;  // the centre of mass's x
  const SampleResult<double> r = run_sample(in, shared, fixed_step(1e-3, 7000));
  EXPECT_EQ(r.status, SampleStatus::ok);
  EXPECT_EQ(r.events[0].count, 7);
  EXPECT_NEAR(r.events[0].time / quarter, 1.0, 1e-6);
  EXPECT_NEAR(r.events[0].state.p_w.z(), -0.5, 1e-9);
}

// A body spinning about its principal z axis under linear rotational damping k: I ω̇ = −k ω, so
// ω falls below ω₁ at t* = (I / k) ln(ω₀ / ω₁). RK4's relative error at k h / I = 5e-3 is ~1e-12.
TEST(Events, SpinFallsBelowARateAtTheExponentialDecayTime) {
  const double i3 = 0.5, k = 0.25, w0 = 10, w1 = 2;
  SampleInputs<double> in;
  in.body = {1, Vec3<double>::Zero(), Vec3<double>(0.3, 0.4, i3).asDiagonal()};
  in.initial = {Vec3<double>::Zero(), Quaternion<double>::identity(), Vec3<double>::Zero(), Vec3<double>(0, 0, w0)};
  in.gravity_w = Vec3<double>::Zero();
  SharedModel<double> shared{};
  shared.loads.angular_linear_damping = k;
  shared.events.n = 2;
  shared.events.tolerance = 1e-12;
  shared.events.events[0] = {EventKind::angular_rate_below, true, CrossingDirection::rising, 0, w1};
  // Also recorded: the attitude passes 1 rad from the start long before.
  shared.events.events[1] = {EventKind::attitude_angle, false, CrossingDirection::rising, 0, 1.0};
  const SampleResult<double> r = run_sample(in, shared, fixed_step(0.01, 1000));
  ASSERT_EQ(r.status, SampleStatus::terminal_event);
  EXPECT_NEAR(r.time, i3 / k * std::log(w0 / w1), 1e-9);
  EXPECT_NEAR(r.final_state.omega_b.z(), w1, 1e-9);
  // Angle(t) = ∫ω = (I/k) ω₀ (1 − e^{−k t / I}) reaches 1 rad first; the attitude error of RK4 at
  // ω h = 0.1 over that time is t (ω h)⁴ / 120 rad, i.e. that divided by ω in time.
  const double t1 = -i3 / k * std::log(1 - 1.0 * k / (i3 * w0));
  EXPECT_NEAR(r.events[1].time, t1, t1 * std::pow(w0 * 0.01, 4) / 120);
  // The angle from the start folds into [0, π]: it rises through 1 rad at 1, 1 + 2π and 1 + 4π rad
  // of rotation, and the spin stops after (I/k)(ω₀ − ω₁) = 16 rad.
  EXPECT_EQ(r.events[1].count, 3);
}

// A time limit stops the sample at exactly its time, on either integrator; an event that would
// happen later in the same step is not recorded.
TEST(Events, TimeLimitStopsAtItsTime) {
  SampleInputs<double> in;
  in.body = {1, Vec3<double>::Zero(), Vec3<double>(1, 2, 2.5).asDiagonal()};
  in.initial = {Vec3<double>::Zero(), Quaternion<double>::identity(), Vec3<double>(1, 0, 0), Vec3<double>(0.1, 1, 0.2)};
  in.gravity_w = Vec3<double>::Zero();
  SharedModel<double> shared{};
  shared.events.n = 2;
  shared.events.events[0] = {EventKind::time_limit, true, CrossingDirection::rising, 0, 0.3705};
  // x = t crosses 0.371 just after the limit, inside the same step of 0.01.
  shared.events.events[1] = {EventKind::point_crossing, false, CrossingDirection::either, 0, 0.371};
  for (const IntegrationSettings<double>& how : {fixed_step(0.01, 100), dopri5_settings(1.0, 1e-8)}) {
    const SampleResult<double> r = run_sample(in, shared, how);
    EXPECT_EQ(r.status, SampleStatus::terminal_event);
    EXPECT_NEAR(r.time, 0.3705, 1e-12);
    EXPECT_NEAR(r.final_state.p_w.x(), 0.3705, 1e-12);
    EXPECT_EQ(r.events[1].count, 0);
    EXPECT_TRUE(std::isnan(r.events[1].time));
  }
}

}  // namespace
}  // namespace rbmc

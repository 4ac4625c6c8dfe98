// The lane groups in SIMD lanes (rbmc/simd/, host/backend/cpu_lanes.*) against the one-sample path:
// RK4 on the free body, on a pivot whose point each sample draws, on the plane, under every kind
// of load with dispersed values and on a pivot under those loads; the splitting and dopri5, each
// free, under those loads and with events; RK4 and dopri5 with events on the pivot; RK4 on Euler
// angles free, under those loads, with events and on the pivot; the events of every kind. Every
// instruction set this processor has gives the same outputs, statuses, event records and states
// at the output times bit for bit, including the groups that must leave the lanes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "host/backend/backend.hpp"
#include "host/errors.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "host/scenario/scenario.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/simd/lane_events.hpp"
#include "rbmc/simd/lane_quantities.hpp"
#include "rbmc/simd/fixed_step_lanes.hpp"
#include "rbmc/simd/lane_group.hpp"
#include "rbmc/stats/output_quantities.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

// Each lane's operations are the scalar's: the same bits, signed zeros and non-finite values too.
TEST(Lanes, EachLaneComputesWhatItsScalarComputes) {
  using L = Lanes<double, 4>;
  const double a[4] = {1.5, -0.0, 3e300, -7.25}, b[4] = {0.1, 2.0, 1e10, -0.0};
  L x, y;
  for (int i = 0; i < 4; ++i) {
    x.set(i, a[i]);
    y.set(i, b[i]);
  }
  const L sum = x + y, diff = x - y, prod = x * y, quot = x / y, root = sqrt(x * x), neg = -x;
  for (int i = 0; i < 4; ++i) {
    const double expected[] = {a[i] + b[i], a[i] - b[i], a[i] * b[i], a[i] / b[i], std::sqrt(a[i] * a[i]), -a[i]};
    const double got[] = {sum[i], diff[i], prod[i], quot[i], root[i], neg[i]};
    for (int k = 0; k < 6; ++k) EXPECT_EQ(std::memcmp(&expected[k], &got[k], sizeof(double)), 0) << "lane " << i << " op " << k;
  }
  const L minus_zero(-0.0);
  EXPECT_TRUE(std::signbit(minus_zero[2]));  // a broadcast keeps the sign of zero
  EXPECT_FALSE(isfinite_hd(quot));           // 3e300 / 1e10 is finite, -7.25 / -0 is not
  EXPECT_TRUE(isfinite_hd(sum));
  L nan = sum;
  nan.set(3, std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(isfinite_hd(nan));
  // The choices, written as vector blends, choose as hd.hpp's scalar forms: −0 is not below 0,
  // and a comparison with NaN is false.
  const L magnitude = abs(nan), least = if_less_hd(x, nan, x, nan);
  for (int i = 0; i < 4; ++i) {
    const double n_i = nan[i];
    const double expected[] = {n_i < 0.0 ? -n_i : n_i, a[i] < n_i ? a[i] : n_i};
    const double got[] = {magnitude[i], least[i]};
    for (int k = 0; k < 2; ++k) EXPECT_EQ(std::memcmp(&expected[k], &got[k], sizeof(double)), 0) << "lane " << i << " choice " << k;
  }
  EXPECT_TRUE(std::signbit(abs(minus_zero)[0]));
  // The sine and cosine (the splitting's), lane by lane the scalar's (rbmc/math/sincos.hpp):
  // every lane within the portable polynomial's reach (the vectors' path: small, large and signed
  // arguments, a zero of each sign, every quadrant), then one lane beyond it, ±∞ or NaN (each
  // lane its own: the polynomial's or the C library's).
  const double within[8] = {1e-9, -0.0, 0.0, 2.5, -1e5, 524288.0, -0.7853981633974483, 4.0};
  const double beyond[8] = {1e-9, -0.0, 3e300, 2.5, -1e5, -524288.5, std::nan(""), -std::numeric_limits<double>::infinity()};
  for (const double* angles : {within, beyond}) {
    Lanes<double, 8> theta, sin_lanes, cos_lanes;
    for (int i = 0; i < 8; ++i) theta.set(i, angles[i]);
    sincos_hd(theta, sin_lanes, cos_lanes);
    for (int i = 0; i < 8; ++i) {
      double s_i, c_i;
      sincos_hd(angles[i], s_i, c_i);
      const double expected[] = {s_i, c_i}, got[] = {sin_lanes[i], cos_lanes[i]};
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(std::memcmp(&expected[k], &got[k], sizeof(double)), 0) << "angle " << angles[i] << " value " << k;
    }
  }
  // Within the reach the polynomial's, beyond it the C library's.
  double s_i, c_i;
  sincos_hd(3e300, s_i, c_i);
  EXPECT_EQ(s_i, std::sin(3e300));
  sincos_hd(2.5, s_i, c_i);
  double s_p, c_p;
  portable::sin_cos_of_radians(2.5, s_p, c_p);
  EXPECT_EQ(std::memcmp(&s_i, &s_p, sizeof(double)), 0);
}

// The statistics' quantities marked in lanes (lane_quantities.hpp) as one sample's are
// (output_quantities.hpp): +∞ for a quantity that overflowed or is NaN in a finite state, and
// nothing changed in a state that is not finite. Lane 1's state holds +∞ and lane 3's NaN; each
// case sets every lane's quantities to `values`, then lane `odd_lane`'s quantity `odd_quantity` to
// `odd`: every quantity out of the limit somewhere (the marks made), all within it (the marks
// skipped after one test, even in the lanes whose state is not finite), and one quantity of one
// lane out of it, in a finite state and in one that is not.
template <class S, int W>
void expect_marks_as_one_sample(const S (&values)[quantity::count], int odd_lane, int odd_quantity, S odd,
                                const std::string& what) {
  using L = Lanes<S, W>;
  const S inf = std::numeric_limits<S>::infinity(), nan = std::numeric_limits<S>::quiet_NaN();
  RigidBodyState<L> x;
  const RigidBodyState<S> finite{Vec3<S>(1, 2, 3), Quaternion<S>::identity(), Vec3<S>(0, 0, 0),
                                 Vec3<S>(S(0.1), S(0.2), S(0.3))};
  for (int lane = 0; lane < W; ++lane) {
    RigidBodyState<S> one = finite;
    if (lane == 1) one.v_w.x() = inf;
    if (lane == 3) one.omega_b.z() = nan;
    set_lane(x, lane, one);
  }
  L q[quantity::count];
  for (int c = 0; c < quantity::count; ++c) q[c] = L(values[c]);
  q[odd_quantity].set(odd_lane, odd);
  mark_overflowed_quantities(x, q);
  for (int lane = 0; lane < W; ++lane) {
    S one[quantity::count];
    for (int c = 0; c < quantity::count; ++c) one[c] = lane == odd_lane && c == odd_quantity ? odd : values[c];
    mark_overflowed_quantities(is_finite(lane_of(x, lane)), one);
    for (int c = 0; c < quantity::count; ++c)
      EXPECT_EQ(std::memcmp(&one[c], &q[c].v[lane], sizeof(S)), 0)
          << what << ": lane " << lane << " quantity " << c << ": " << one[c] << " against " << q[c][lane];
  }
}

TEST(Lanes, MarkOverflowedQuantitiesAsOneSample) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double beyond[quantity::count] = {1.0, -0.0, 1e100, 1.0000000000000002e100, -1e101, inf, -inf, nan, 3.5, -2.0, 0.0, 7.0};
  const double within[quantity::count] = {1.0, -0.0, 1e100, -1e100, 0.0, 2.5e-300, -3.0, 4.0, 3.5, -2.0, 0.0, 7.0};
  expect_marks_as_one_sample<double, 4>(beyond, 2, 0, nan, "every quantity beyond the limit somewhere");
  expect_marks_as_one_sample<double, 4>(within, 2, 0, 5.0, "every quantity within it");
  expect_marks_as_one_sample<double, 4>(within, 2, 7, -1e101, "one beyond it, a finite state");
  expect_marks_as_one_sample<double, 4>(within, 0, 11, nan, "NaN in a finite state");
  expect_marks_as_one_sample<double, 4>(within, 3, 4, inf, "one beyond it, a state with NaN");
  expect_marks_as_one_sample<double, 8>(within, 6, 9, 1.0000000000000002e100, "eight lanes, one just beyond it");
  // Float: the limit is beyond float's range (+∞ as a float), so only NaN is marked.
  const float finf = std::numeric_limits<float>::infinity(), fnan = std::numeric_limits<float>::quiet_NaN();
  const float fwithin[quantity::count] = {1.0f, -0.0f, 3e38f, -3e38f, 0.0f, 1e-40f, -3.0f, 4.0f, 3.5f, -2.0f, 0.0f, 7.0f};
  expect_marks_as_one_sample<float, 8>(fwithin, 5, 3, fnan, "float, NaN in a finite state");
  expect_marks_as_one_sample<float, 8>(fwithin, 2, 3, finf, "float, +∞ in a finite state");
  expect_marks_as_one_sample<float, 8>(fwithin, 1, 3, fnan, "float, NaN in a state with +∞");
  expect_marks_as_one_sample<float, 4>(fwithin, 0, 0, 2.0f, "float, every quantity within it");
}

// The answers for all lanes at once, in every lane position and both precisions: finite unless
// some lane is ±∞ or NaN; nonzero when some lane is other than ±0 (NaN and the smallest
// subnormal count; −0 does not).
template <class S, int W>
void expect_all_lane_answers() {
  const S special[] = {std::numeric_limits<S>::infinity(), -std::numeric_limits<S>::infinity(),
                       std::numeric_limits<S>::quiet_NaN()};
  for (int lane = 0; lane < W; ++lane) {
    Lanes<S, W> zeros(S(-0.0)), finite(S(1));
    EXPECT_FALSE(nonzero_hd(zeros));
    EXPECT_TRUE(isfinite_hd(zeros));
    zeros.set(lane, S(0));
    EXPECT_FALSE(nonzero_hd(zeros)) << "+0 in lane " << lane;
    zeros.set(lane, std::numeric_limits<S>::denorm_min());
    EXPECT_TRUE(nonzero_hd(zeros)) << "a subnormal in lane " << lane;
    zeros.set(lane, -std::numeric_limits<S>::max());
    EXPECT_TRUE(nonzero_hd(zeros)) << "-max in lane " << lane;
    EXPECT_TRUE(isfinite_hd(zeros)) << "-max in lane " << lane;
    for (S x : special) {
      Lanes<S, W> one = finite;
      one.set(lane, x);
      EXPECT_FALSE(isfinite_hd(one)) << x << " in lane " << lane;
      Lanes<S, W> among_zeros(S(0));
      among_zeros.set(lane, x);
      EXPECT_TRUE(nonzero_hd(among_zeros)) << x << " in lane " << lane;
    }
    // less_in_any_hd: the one-sample comparison in one lane among lanes where it is false.
    const S values[] = {S(-1), S(-0.0), S(0), S(1e-3), S(2e-3), std::numeric_limits<S>::infinity(),
                        std::numeric_limits<S>::quiet_NaN()};
    const Lanes<S, W> threshold(S(1e-3)), far(S(1));
    for (S x : values) {
      Lanes<S, W> one = far;
      one.set(lane, x);
      EXPECT_EQ(less_in_any_hd(one, threshold), less_in_any_hd(x, S(1e-3))) << x << " in lane " << lane;
    }
    EXPECT_FALSE(less_in_any_hd(far, threshold));
  }
}

// Whether some lane's event function may have crossed zero (lane_events.hpp), in every lane
// position: wherever the one rule, events.hpp's `crosses`, counts a crossing in some direction,
// the lanes' filter must find it (else the lane's event is lost); between values of one sign it
// finds none (else every step checks lanes for nothing).
template <class S, int W>
void expect_sign_changes_found() {
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  const S values[] = {S(-2), S(-1), S(-0.0), S(0), S(1), S(2), -inf, inf, nan};
  const CrossingDirection directions[] = {CrossingDirection::falling, CrossingDirection::either,
                                          CrossingDirection::rising};
  const Lanes<S, W> positive(S(1));
  std::size_t found = 0;
  for (int lane = 0; lane < W; ++lane)
    for (const S from : values)
      for (const S to : values) {
        Lanes<S, W> g0 = positive, g1 = positive;
        g0.set(lane, from);
        g1.set(lane, to);
        bool counted = false;
        for (const CrossingDirection d : directions) counted = counted || crosses(d, from, to);
        const bool one_sign = (from > S(0) && to > S(0)) || (from < S(0) && to < S(0));
        if (counted) {
          EXPECT_TRUE(some_lane_changes_sign(g0, g1)) << from << " to " << to << " in lane " << lane;
          ++found;
        }
        if (one_sign) EXPECT_FALSE(some_lane_changes_sign(g0, g1)) << from << " to " << to << " in lane " << lane;
      }
  EXPECT_GT(found, std::size_t(W) * 8) << "the rule counts crossings between these values";
}

TEST(Lanes, FindASignChangeInAnyLane) {
  expect_sign_changes_found<double, 2>();
  expect_sign_changes_found<double, 4>();
  expect_sign_changes_found<double, 8>();
  expect_sign_changes_found<float, 4>();
  expect_sign_changes_found<float, 8>();
  expect_sign_changes_found<float, 16>();
}

// The ZXZ angles of each lane's attitude (where RK4 on Euler angles starts) are its own, converted
// as one sample's are, and the singularity of any lane is the group's.
template <class S, int W>
void expect_each_lanes_euler_angles() {
  for (int singular_lane = -1; singular_lane < W; ++singular_lane) {
    Quaternion<Lanes<S, W>> q{Lanes<S, W>(S(1)), Lanes<S, W>(S(0)), Lanes<S, W>(S(0)), Lanes<S, W>(S(0))};
    Quaternion<S> one[W];
    for (int lane = 0; lane < W; ++lane) {
      const S angle = S(0.1) * S(lane + 1);
      one[lane] = lane == singular_lane ? quaternion_from_euler_zxz<S>(EulerAngles<S>(angle, S(0), S(0.2)))
                                        : quaternion_from_euler_zxz<S>(EulerAngles<S>(angle, S(0.5) + angle, -angle));
      q.w.set(lane, one[lane].w);
      q.x.set(lane, one[lane].x);
      q.y.set(lane, one[lane].y);
      q.z.set(lane, one[lane].z);
    }
    bool singular = false;
    const EulerAngles<Lanes<S, W>> angles = euler_zxz_from_quaternion(q, &singular);
    EXPECT_EQ(singular, singular_lane >= 0) << "singular lane " << singular_lane;
    for (int lane = 0; lane < W; ++lane) {
      const EulerAngles<S> expected = euler_zxz_from_quaternion(one[lane]);
      for (int i = 0; i < 3; ++i)
        EXPECT_EQ(angles(i)[lane], expected(i)) << "lane " << lane << ", angle " << i;
    }
  }
}

TEST(Lanes, EachLanesEulerAnglesAreItsOwn) {
  expect_each_lanes_euler_angles<double, 2>();
  expect_each_lanes_euler_angles<double, 8>();
  expect_each_lanes_euler_angles<float, 16>();
}

TEST(Lanes, AnswersForAllLanesAtOnce) {
  expect_all_lane_answers<double, 2>();
  expect_all_lane_answers<double, 4>();
  expect_all_lane_answers<double, 8>();
  expect_all_lane_answers<float, 4>();
  expect_all_lane_answers<float, 8>();
  expect_all_lane_answers<float, 16>();
}

enum class Model {
  free_body,
  pivot,
  planar,
  loads,
  pivot_with_loads,
  events,
  pivot_with_events,
  splitting,              // the symplectic splitting (splitting.hpp), the box free under gravity
  splitting_with_loads,   // the same under every kind of load
  splitting_with_events,  // the same with the free box's events
  dopri5,                 // the adaptive Dormand–Prince (dopri5.hpp), the box free under gravity
  dopri5_with_loads,      // the same under every kind of load
  dopri5_with_events,     // the same with the free box's events
  dopri5_pivot_events,    // on the pivot, with its events
  euler,                  // RK4 on ZXZ Euler angles (fixed_step.hpp), the box free under gravity
  euler_with_loads,       // the same under every kind of load
  euler_with_events,      // the same with the free box's events
  euler_pivot,            // the same on the pivot
};

const char* model_name(Model m) {
  switch (m) {
    case Model::free_body: return "free_body";
    case Model::pivot: return "pivot";
    case Model::planar: return "planar";
    case Model::loads: return "loads";
    case Model::pivot_with_loads: return "pivot_with_loads";
    case Model::events: return "events";
    case Model::pivot_with_events: return "pivot_with_events";
    case Model::splitting: return "splitting";
    case Model::splitting_with_loads: return "splitting_with_loads";
    case Model::splitting_with_events: return "splitting_with_events";
    case Model::dopri5: return "dopri5";
    case Model::dopri5_with_loads: return "dopri5_with_loads";
    case Model::dopri5_with_events: return "dopri5_with_events";
    case Model::dopri5_pivot_events: return "dopri5_pivot_events";
    case Model::euler: return "euler";
    case Model::euler_with_loads: return "euler_with_loads";
    case Model::euler_with_events: return "euler_with_events";
    case Model::euler_pivot: return "euler_pivot";
  }
  return "?";
}

// Every kind of load, in both frames, with dispersed values (a force, a spring's stiffness and
// anchor, a damping coefficient, the central body's μ): each lane has its own.
constexpr const char* kEveryLoad = R"(loads.0.force = { distribution = "normal", sigma = [0.05, 0.05, 0.05] }
loads.3.stiffness = { distribution = "normal", sigma = 2.0 }
loads.3.anchor = { distribution = "normal", sigma = 0.01 }
loads.2.linear = { distribution = "normal", sigma = 0.01 }
loads.2.angular_quadratic = { distribution = "normal", sigma = 0.001 }
loads.5.mu = { distribution = "normal", sigma = 1e12 }

[[loads]]
type = "point_force"
force = [0.5, 0.0, 0.2]
frame = "body"
point = [0.1, 0.0, 0.0]

[[loads]]
type = "torque"
torque = [0.0, 0.01, 0.02]
frame = "world"

[[loads]]
type = "damping"
linear = 0.1
angular_quadratic = 0.01

[[loads]]
type = "spring"
anchor = [0.0, 0.0, 11.0]
stiffness = 20.0
point = [0.0, 0.0, 0.05]
rest_length = 0.5
damping = 0.2

[[loads]]
type = "point_force"
force = [0.0, 0.3, 0.0]
frame = "world"
point = [0.0, 0.1, 0.0]

[[loads]]
type = "central_gravity"
mu = 3.986e14
center = [0.0, 0.0, -6.4e6]
)";

// Events on the free test box. It turns by about 1.2 rad in its 0.4 s, so the terminal one stops
// some samples of a group and leaves the others running to the end (whose states after a stop are
// the one-sample path's NaN); a corner crosses a level (more than once in some samples) and a time
// passes, each recorded. (Its spin's magnitude moves by 0.001 rad/s at most: the spin-rate event
// is the pivot's.)
constexpr const char* kEveryEvent = R"(
[[events]]
name = "turned"
type = "attitude_angle"
angle = 1.19
terminal = true

[[events]]
name = "corner_level"
type = "point_crossing"
axis = "z"
value = 10.1
point = [0.1, 0.0, 0.0]

[[events]]
name = "tenth"
type = "time_limit"
time = 0.1
)";

// The lowest point of a box around the test box falling through z = `level`. With RK4's events
// on the free box, a fourth at 9.9, near 0.35 s, as its turn about y lowers a long edge (dopri5's
// fourth event is kEarlyEvent's); with the pivot's on dopri5, at 9.95, near 0.035 s in every
// sample, as the box swings (the terminal swing near 0.1 s).
std::string box_event(const char* level) {
  return std::string(R"(
[[events]]
name = "box_low"
type = "box_crossing"
center = [0.0, 0.0, 0.02]
size = [0.4, 0.2, 0.1]
axis = "z"
direction = "falling"
value = )") + level + "\n";
}

// On the splitting, a cylinder's instead: radius 0.2 and height 0.1, its lowest rim point through
// the same level as the turn tilts it.
constexpr const char* kCylinderEvent = R"(
[[events]]
name = "can_low"
type = "cylinder_crossing"
center = [0.0, 0.0, 0.02]
radius = 0.2
height = 0.1
axis = "z"
value = 9.9
direction = "falling"
)";

// On the pivot the box swings by about half a radian, so every sample stops at its terminal
// event within the first third of the run: whole groups stop, and the lanes' loop ends early.
// Before that the swing slows from about 3 rad/s below 2.8, and the box's bottom passes under the
// anchor (x = 0) in the samples that start on its far side, each recorded.
constexpr const char* kPivotEvents = R"(
[[events]]
name = "swung"
type = "attitude_angle"
angle = 0.3
terminal = true

[[events]]
name = "bottom_passes"
type = "point_crossing"
axis = "x"
value = 0.0
point = [0.0, 0.0, -0.3]
direction = "either"

[[events]]
name = "slower"
type = "angular_rate_below"
rate = 2.8
)";

// On dopri5 a level the body's origin crosses in its first 5 ms, inside the first accepted step,
// which the rejected trials before it (0.2 s, then shorter) overshoot: a lane whose event values
// came from a rejected trial would miss the crossing or find one that is not there.
constexpr const char* kEarlyEvent = R"(
[[events]]
name = "early_level"
type = "point_crossing"
axis = "z"
value = 10.01
point = [0.0, 0.0, 0.0]
)";

bool is_splitting(Model m) {
  return m == Model::splitting || m == Model::splitting_with_loads || m == Model::splitting_with_events;
}
bool is_dopri5(Model m) {
  return m == Model::dopri5 || m == Model::dopri5_with_loads || m == Model::dopri5_with_events ||
         m == Model::dopri5_pivot_events;
}
bool is_euler(Model m) {
  return m == Model::euler || m == Model::euler_with_loads || m == Model::euler_with_events || m == Model::euler_pivot;
}
StepperKind stepper_of(Model m) {
  return is_splitting(m) ? StepperKind::splitting
         : is_dopri5(m)  ? StepperKind::dopri5
         : is_euler(m)   ? StepperKind::rk4_euler_zxz
                         : StepperKind::rk4;
}

// The test box (free, on a pivot whose body point each sample draws, on the plane, under every
// kind of load, both on a pivot and under the loads, or free or on the pivot with events; or on
// the splitting, free, under every load or with events) with output times that fall between
// steps (interpolated) and on them. On the splitting each sample's principal axes are turned
// apart from the body's, so that each lane's principal frame is its own (a Jacobi iteration of
// its own length). On dopri5 the first step tried, 0.2 s, is rejected, and the tolerance is tight
// enough that the samples take different numbers of steps (in float, as far as float allows: see
// GiveTheOneSamplePathsResultsBitForBit; max_steps: a limit some reach). On Euler angles the box
// starts at ZXZ angles (0.3, 0.8, −0.5), away from their singularity (θ = 0).
Scenario lanes_scenario(Model model, int samples, Precision precision, long max_steps = 0) {
  std::string text = test::valid_scenario_text(samples, 0.4, is_dopri5(model) ? 0.2 : 0.01);
  const bool pivot = model == Model::pivot || model == Model::pivot_with_loads || model == Model::pivot_with_events ||
                     model == Model::dopri5_pivot_events || model == Model::euler_pivot;
  if (is_euler(model)) {
    text.replace(text.find("\n[body]"), 0, "attitude = \"euler_zxz\"\n");
    const std::string identity = "attitude = [1.0, 0.0, 0.0, 0.0]";
    text.replace(text.find(identity), identity.size(), "attitude_euler_zxz = [0.3, 0.8, -0.5]");
  }
  if (is_dopri5(model)) {
    std::string run = precision == Precision::float64 ? "integrator = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
                                                      : "integrator = \"dopri5\"\nrtol = 1e-7\natol = 1e-9\n";
    if (max_steps > 0) run += "max_steps = " + std::to_string(max_steps) + "\n";
    text.replace(text.find("\n[body]"), 0, run);
  }
  if (pivot) text += "constraint.point = { distribution = \"normal\", sigma = [0.001, 0.001, 0.002] }\n";
  if (is_splitting(model)) {
    text.replace(text.find("\n[body]"), 0, "integrator = \"splitting\"\n");
    text += "body.principal_axes = { distribution = \"normal\", sigma = 0.1 }\n";
  }
  if (model == Model::loads || model == Model::pivot_with_loads || model == Model::splitting_with_loads ||
      model == Model::dopri5_with_loads || model == Model::euler_with_loads)
    text += kEveryLoad;
  if (pivot) text += "[constraint]\ntype = \"pivot\"\npoint = [0.0, 0.0, 0.3]\nanchor = [0.0, 0.0, 10.3]\n";
  if (model == Model::planar) text += "[constraint]\ntype = \"planar\"\nheight = 10.0\n";
  if (model == Model::events || model == Model::splitting_with_events || model == Model::dopri5_with_events ||
      model == Model::euler_with_events)
    text += kEveryEvent;
  if (model == Model::dopri5_with_events) text += kEarlyEvent;
  if (model == Model::events || model == Model::euler_with_events) text += box_event("9.9");
  if (model == Model::splitting_with_events) text += kCylinderEvent;
  if (model == Model::pivot_with_events || model == Model::dopri5_pivot_events) text += kPivotEvents;
  if (model == Model::dopri5_pivot_events) text += box_event("9.95");
  text += "\n[output]\ninterval = 0.025\n";
  return parse_scenario(text, "lanes.toml");
}

bool has_events(Model m) {
  return m == Model::events || m == Model::pivot_with_events || m == Model::splitting_with_events ||
         m == Model::dopri5_with_events || m == Model::dopri5_pivot_events || m == Model::euler_with_events;
}
bool is_damped(Model m) {
  return m == Model::loads || m == Model::pivot_with_loads || m == Model::splitting_with_loads ||
         m == Model::dopri5_with_loads || m == Model::euler_with_loads;
}

// The outputs' columns: the final states and the rest, then each event's record.
int output_columns(const Scenario& s) { return output_column_count(s.shared_model().events.n); }

struct Batch {
  std::vector<double> inputs, outputs, trajectories;
  QuantityValues quantities;  // the statistics' quantities: (times × quantity::count, n)
  std::vector<std::uint8_t> status;
};

constexpr std::size_t kUndamped = 36, kHuge = 100;
// Under the loads, a sample whose spring's drawn stiffness is negative: not integrated (invalid_load).
constexpr std::size_t kUnphysicalLoad = 70;
// On Euler angles: a sample that starts at their singularity (θ = 0), and one whose θ falls from
// 0.1505 rad at 1 rad/s (spun at −1 rad/s about x, a principal axis, with φ = 0, so θ̇ = ω_x and
// φ stays 0), below the threshold (10⁻³) at the end of step 15 when free.
constexpr std::size_t kSingularAtStart = 120, kSingularLater = 130;  // in groups of their own

// A body whose axes are not principal (its inertia turned by 0.2 rad about (1, 2, 3)) among ones
// whose are: Euler's equations take the full products for it, the diagonal's for the others (a
// branch of the right-hand side, newton_euler.hpp). On the splitting every sample's axes are turned
// already.
constexpr std::size_t kNotPrincipal = 12;

// The scenario's samples, with a few that the lanes cannot take: a non-finite spin (the group
// leaves when its state stops being finite), a negative mass and, under the loads, a negative
// stiffness (not integrated at all), a centre
// of mass exactly at the origin among ones that are not and a body whose axes are not principal
// among ones whose are (branches of the right-hand side).
std::vector<double> batch_inputs(const Scenario& s, std::size_t n) {
  const SamplingPlan plan(s);
  const int n_model_values = s.shared_model().parameters.n;
  const bool euler = s.run.attitude == AttitudeCoordinates::euler_zxz;
  std::vector<double> inputs(n * std::size_t(input_column_count(n_model_values)));
  for (std::size_t i = 0; i < n; ++i) {
    SampleInputs<double> in;
    std::vector<double> params(std::size_t(plan.n_parameter_values()) + 1);
    plan.sample(i, in, params.data());
    if (i == 3) in.initial.omega_b.x() = std::numeric_limits<double>::infinity();
    if (i == 21) in.body.mass = -1.0;
    if (i == 42) in.body.com_b = Vec3<double>::Zero();
    if (i == kNotPrincipal) {
      const Mat3<double> turn = Eigen::AngleAxisd(0.2, Vec3<double>(1, 2, 3).normalized()).toRotationMatrix();
      in.body.inertia_c_b = turn * in.body.inertia_c_b * turn.transpose();
    }
    if (i == kHuge) in.initial.omega_b.y() = 1e60;  // a finite state whose kinetic energy overflows the statistics
    if (euler && i == kSingularAtStart) in.initial.q_wb = Quaternion<double>::identity();
    if (euler && i == kSingularLater) {
      in.initial.q_wb = quaternion_from_euler_zxz<double>(EulerAngles<double>(0.2, 0.1505, 0.0));
      in.initial.omega_b = Vec3<double>(-1.0, 0.0, 0.0);
    }
    if (i == kUnphysicalLoad)
      for (int j = 0; j < n_model_values; ++j)
        if (s.shared_model().parameters.targets[j].field == ModelField::spring_stiffness) in.model_values[j] = -5.0;
    if (i == kUndamped)  // no damping at all in this one sample: Damping::any differs from its group's
      for (int j = 0; j < n_model_values; ++j) {
        const ModelField f = s.shared_model().parameters.targets[j].field;
        if (f == ModelField::linear_damping || f == ModelField::angular_quadratic_damping) in.model_values[j] = 0.0;
      }
    store_sample_inputs(inputs.data(), n, i, in, n_model_values);
  }
  return inputs;
}

// Every row's states kept (named_rows null), or only those of the rows named: the others' then
// pass through each thread's own buffer for the quantities (cpu_backend.cpp).
Batch integrate(const Scenario& s, const std::vector<double>& inputs, std::size_t n, Precision precision, LaneIsa isa,
                const std::vector<std::uint32_t>* named_rows = nullptr) {
  const std::unique_ptr<Backend> backend = make_cpu_backend(precision, 2, isa);
  BatchIntegration how(s.integration(), s.shared_model());
  how.statistics = how.keep_states = true;
  for (int k = 0; k < s.output_times.n; ++k)  // any attitudes, one for each output time
    how.nominal_attitudes.push_back(normalized(Quaternion<double>{1.0, 0.1 * k, -0.05 * k, 0.02}));
  Batch b;
  b.inputs = inputs;
  b.outputs.assign(n * std::size_t(output_columns(s)), -1.0);
  b.status.assign(n, 255);
  StageTimings timings;
  backend->integrate(b.inputs.data(), b.outputs.data(), b.status.data(), n, how, BatchNeeds{named_rows}, timings);
  std::vector<std::uint32_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = std::uint32_t(i);
  backend->gather_trajectories(named_rows != nullptr ? *named_rows : rows, b.trajectories, timings);
  std::vector<Moments> moments;
  backend->reduce_statistics(how, rows, moments, b.quantities, timings);
  return b;
}

void expect_the_one_sample_paths_results(Precision precision, LaneIsa isa, Model model, std::size_t n,
                                         long max_steps = 0);

// The sample's steps, accepted and rejected, from its output columns.
double steps_of(const Batch& b, std::size_t n, std::size_t i) { return b.outputs[output_column::steps * n + i]; }
double rejections_of(const Batch& b, std::size_t n, std::size_t i) {
  return b.outputs[output_column::rejected_steps * n + i];
}

class LaneGroups : public ::testing::TestWithParam<std::tuple<Precision, LaneIsa, Model>> {
 protected:
  void SetUp() override {
    if (!lane_isa_supported(std::get<1>(GetParam())))
      GTEST_SKIP() << "this processor has no " << lane_isa_name(std::get<1>(GetParam()));
  }
};

TEST_P(LaneGroups, GiveTheOneSamplePathsResultsBitForBit) {
  const auto [precision, isa, model] = GetParam();
  // 203: not a multiple of any width, the last samples go one by one. 208: a multiple of every
  // width and of a cache line's 8 doubles, so that with AVX-512 each column's lanes leave as whole
  // lines through non-temporal stores (lane_quantities.hpp), which 203 never allows. 1,032: the
  // backend's 2 threads claim 8 groups at a time (208's claim one), so that narrower lanes compute
  // the quantities of a line's groups together (LaneGroups::quantities_in_lines) and leave them as
  // whole lines too.
  for (const std::size_t n : {std::size_t(203), std::size_t(208), std::size_t(1032)}) {
    SCOPED_TRACE("batch of " + std::to_string(n));
    expect_the_one_sample_paths_results(precision, isa, model, n);
  }
  if (!is_dopri5(model)) return;
  // dopri5's lanes step each sample on its own: the samples take different numbers of trials (20
  // to 23 free in double, 37 to 53 under the loads) and some are rejected (else the lanes would be
  // tested in lockstep only). And where a limit on the trials (max_steps) lies between the fewest
  // and the most taken, some lanes stop at it while others run on.
  const std::size_t n = 208;
  const Scenario s = lanes_scenario(model, int(n), precision);
  const Batch one = integrate(s, batch_inputs(s, n), n, precision, LaneIsa::off);
  double fewest = 1e300, most = 0, rejected = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (one.status[i] != std::uint8_t(SampleStatus::ok) && one.status[i] != std::uint8_t(SampleStatus::terminal_event))
      continue;
    const double trials = steps_of(one, n, i) + rejections_of(one, n, i);
    fewest = std::min(fewest, trials);
    most = std::max(most, trials);
    rejected += rejections_of(one, n, i) > 0;
  }
  EXPECT_GT(rejected, 0) << "no trial was rejected";
  // In float the tolerance cannot be as tight: the free box takes 6 or 7 trials, and only under
  // the loads do they differ more (9 to 15).
  if (precision == Precision::float32 && model != Model::dopri5_with_loads && most <= fewest + 1) return;
  ASSERT_GT(most, fewest + 1) << "every sample took as many trials";
  const long limit = long((fewest + most) / 2);
  SCOPED_TRACE("max_steps = " + std::to_string(limit));
  expect_the_one_sample_paths_results(precision, isa, model, n, limit);
}

void expect_the_one_sample_paths_results(Precision precision, LaneIsa isa, Model model, std::size_t n, long max_steps) {
  const Scenario s = lanes_scenario(model, int(n), precision, max_steps);
  ASSERT_EQ(choose_sample_kinds(s.shared_model(), s.integration()).free_body, model == Model::free_body);
  ASSERT_EQ(choose_sample_kinds(s.shared_model(), s.integration()).stepper, stepper_of(model));
  const std::vector<double> inputs = batch_inputs(s, n);
  const Batch one = integrate(s, inputs, n, precision, LaneIsa::off), lanes = integrate(s, inputs, n, precision, isa);
  // (Under a limit on dopri5's trials, sample 3's shrinking trials reach it first.)
  if (max_steps == 0) EXPECT_EQ(one.status[3], std::uint8_t(SampleStatus::non_finite_state));
  EXPECT_EQ(one.status[21], std::uint8_t(SampleStatus::invalid_body));
  if (is_damped(model) && n > kUnphysicalLoad)
    EXPECT_EQ(one.status[kUnphysicalLoad], std::uint8_t(SampleStatus::invalid_load));
  // Groups that the Euler angles' singularity sends back, at the start and, free, during the run.
  if (is_euler(model) && n > kSingularLater)
    EXPECT_EQ(one.status[kSingularAtStart], std::uint8_t(SampleStatus::euler_singularity));
  if (model == Model::euler && n > kSingularLater) {
    EXPECT_EQ(one.status[kSingularLater], std::uint8_t(SampleStatus::euler_singularity));
    EXPECT_EQ(steps_of(one, n, kSingularLater), 14.0) << "the 15th step, which ends within the threshold, is not taken";
  }
  ASSERT_EQ(one.outputs.size(), lanes.outputs.size());
  ASSERT_EQ(one.trajectories.size(), lanes.trajectories.size());
  EXPECT_EQ(std::memcmp(one.status.data(), lanes.status.data(), n), 0);
  if (max_steps > 0) {
    const auto at_limit = std::count(one.status.begin(), one.status.end(), std::uint8_t(SampleStatus::max_steps_reached));
    EXPECT_GT(at_limit, 0) << "no sample reached max_steps";
    EXPECT_LT(at_limit, std::ptrdiff_t(n) - 10) << "every sample reached max_steps";
  }
  const int columns = output_columns(s);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < columns; ++c)
      ASSERT_EQ(std::memcmp(&one.outputs[std::size_t(c) * n + i], &lanes.outputs[std::size_t(c) * n + i], sizeof(double)), 0)
          << "sample " << i << " column " << c << ": " << one.outputs[std::size_t(c) * n + i] << " against "
          << lanes.outputs[std::size_t(c) * n + i];
  EXPECT_EQ(std::memcmp(one.trajectories.data(), lanes.trajectories.data(), one.trajectories.size() * sizeof(double)), 0);
  if (has_events(model) && max_steps == 0) {
    // The events happen as the scenarios mean them to (else the comparisons above test less than
    // they say): every event in some sample; free, a group's samples stop and run on alike, and a
    // corner's level is crossed more than once; on the pivot, every sample stops.
    std::size_t stopped = 0, ran = 0;
    for (std::size_t i = 0; i < n; ++i) {
      stopped += one.status[i] == std::uint8_t(SampleStatus::terminal_event);
      ran += one.status[i] == std::uint8_t(SampleStatus::ok);
    }
    std::vector<double> most(std::size_t(s.shared_model().events.n), 0.0);  // each event's largest count
    for (std::size_t e = 0; e < most.size(); ++e)
      for (std::size_t i = 0; i < n; ++i)
        most[e] = std::max(most[e], one.outputs[(output_column::count + kEventColumns * e + event_column::count) * n + i]);
    for (std::size_t e = 0; e < most.size(); ++e) EXPECT_GE(most[e], 1.0) << "event " << e << " never occurred";
    if (model == Model::events || model == Model::splitting_with_events || model == Model::dopri5_with_events ||
        model == Model::euler_with_events) {
      EXPECT_GT(stopped, n / 5);
      EXPECT_GT(ran, n / 5);
      EXPECT_GE(most[1], 2.0) << "the corner's level crossed more than once";
    } else {
      EXPECT_GE(stopped, n - 10) << "all but the few samples made abnormal (batch_inputs)";
    }
  }
  // Only some rows' states kept (every 7th, and the last: rows in every lane of a group), the
  // others' passing through the threads' buffers: the same rows' states and the same quantities.
  std::vector<std::uint32_t> named;
  for (std::size_t i = 0; i < n; i += 7) named.push_back(std::uint32_t(i));
  if (named.back() != n - 1) named.push_back(std::uint32_t(n - 1));
  const Batch passing = integrate(s, inputs, n, precision, isa, &named);
  const std::size_t block = std::size_t(s.output_times.n) * kTrajectoryColumns;
  ASSERT_EQ(passing.trajectories.size(), named.size() * block);
  for (std::size_t r = 0; r < named.size(); ++r)
    ASSERT_EQ(std::memcmp(&one.trajectories[named[r] * block], &passing.trajectories[r * block], block * sizeof(double)), 0)
        << "row " << named[r];
  ASSERT_EQ(passing.quantities.size(), lanes.quantities.size());
  EXPECT_EQ(std::memcmp(passing.quantities.data(), lanes.quantities.data(), lanes.quantities.size() * sizeof(double)), 0);
  // The statistics' quantities, computed a lane group at a time (lane_quantities.hpp) against
  // sample by sample: stopped samples (NaN), the one marked overflowed (+∞) and the rest.
  ASSERT_EQ(one.quantities.size(), lanes.quantities.size());
  ASSERT_EQ(one.quantities.size(), n * std::size_t(s.output_times.n) * quantity::count);
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(lanes.quantities.data()) % 64, 0u) << "whole lines need a line's start";
  if (precision == Precision::float64)  // (in float its spin is not finite to begin with)
    EXPECT_EQ(one.quantities[quantity::kinetic_energy * n + kHuge], std::numeric_limits<double>::infinity());
  for (std::size_t j = 0; j < one.quantities.size(); ++j)
    if (!(std::isnan(one.quantities[j]) && std::isnan(lanes.quantities[j])))  // any NaN: a stopped sample
      ASSERT_EQ(std::memcmp(&one.quantities[j], &lanes.quantities[j], sizeof(double)), 0)
        << "sample " << j % n << ", quantity " << (j / n) % quantity::count << " at output time " << j / n / quantity::count
        << ": " << one.quantities[j] << " against " << lanes.quantities[j];
}

// The lanes do take the groups they can (else the test above compares the one-sample path with
// itself), and give back the ones they cannot.
TEST_P(LaneGroups, TakeWholeGroupsAndGiveBackTheOnesTheyCannot) {
  const auto [precision, isa, model] = GetParam();
  const std::size_t n = 64;
  const Scenario s = lanes_scenario(model, int(n), precision);
  const std::vector<double> inputs = batch_inputs(s, n);
  std::vector<double> outputs(n * std::size_t(output_columns(s)));
  std::vector<std::uint8_t> status(n);
  const auto check = [&](auto lanes, auto scalar) {
    using Scalar = decltype(scalar);
    ASSERT_GT(lanes.width, 1);
    const std::size_t w = std::size_t(lanes.width);
    const SharedModel<Scalar> shared = s.shared_model().cast<Scalar>();
    const IntegrationSettings<Scalar> how = s.integration().cast<Scalar>();
    const LaneGroupFunction<Scalar> group = model == Model::free_body ? lanes.free_body
                                            : is_splitting(model) ? (has_events(model) ? lanes.splitting_events : lanes.splitting)
                                            : is_dopri5(model)    ? (has_events(model) ? lanes.dopri5_events : lanes.dopri5)
                                            : is_euler(model) ? (has_events(model) ? lanes.euler_zxz_events : lanes.euler_zxz)
                                            : has_events(model)   ? lanes.general_events
                                                                  : lanes.general;
    const auto run = [&](std::size_t first) {
      return group(inputs.data(), outputs.data(), nullptr, status.data(), n, first, shared, how);
    };
    EXPECT_FALSE(run(w * (3 / w))) << "sample 3's spin is infinite";
    EXPECT_TRUE(run(48)) << "samples from 48 on are ordinary";
    EXPECT_FALSE(run(w * (21 / w))) << "sample 21's mass is negative";
    EXPECT_FALSE(run(w * (42 / w))) << "sample 42's centre of mass is at the origin, the others' are not";
    if (w <= 8) {  // sample 12's group holds no other sample the lanes cannot take
      if (is_splitting(model)) EXPECT_TRUE(run(w * (kNotPrincipal / w))) << "every sample's axes are turned";
      else EXPECT_FALSE(run(w * (kNotPrincipal / w))) << "sample 12's body axes are not principal, the others' are";
    }
    const bool damped = is_damped(model);
    if (damped) EXPECT_FALSE(run(w * (kUndamped / w))) << "sample 36 has no damping, the others have";
    if (damped) EXPECT_FALSE(run(w * (kUnphysicalLoad / w))) << "sample 70's stiffness is negative";
    if (!damped && w <= 8) EXPECT_TRUE(run(w * (kUndamped / w)));
    // The quantities' lanes take any group whose centres of mass agree on lying at the origin
    // (else the comparison of quantities above compares the one-sample path with itself).
    ASSERT_NE(lanes.quantities, nullptr);
    const int n_times = s.output_times.n;
    const std::vector<double> states(n * std::size_t(n_times) * kTrajectoryColumns, 0.5);
    const std::vector<Quaternion<Scalar>> nominal(std::size_t(n_times), Quaternion<Scalar>::identity());
    std::vector<double> quantities(n * std::size_t(n_times) * quantity::count);
    const std::size_t block = std::size_t(n_times) * kTrajectoryColumns;  // a sample's states
    const auto quantities_of = [&](std::size_t first) {
      return lanes.quantities(inputs.data(), states.data() + first * block, n, first, shared, nominal.data(),
                              quantities.data(), kAllQuantityColumns);
    };
    EXPECT_TRUE(quantities_of(48));
    // With fewer columns kept ([output] statistics), those are the same values and the others
    // are left as they were.
    const std::vector<double> every = quantities;
    std::vector<double> some(quantities.size(), 7.0);
    const QuantityColumns kept = quantity_columns_of((1u << 1) | (1u << 3));  // velocity, attitude_angle
    ASSERT_TRUE(
        lanes.quantities(inputs.data(), states.data() + 48 * block, n, 48, shared, nominal.data(), some.data(), kept));
    for (std::size_t j = 0; j < some.size(); ++j) {
      const std::size_t sample = j % n;
      const int c = int((j / n) % quantity::count);
      const bool written = sample >= 48 && sample < 48 + w && ((kept >> c) & 1u) != 0;
      if (written) ASSERT_EQ(std::memcmp(&some[j], &every[j], sizeof(double)), 0) << "sample " << sample << ", column " << c;
      else ASSERT_EQ(some[j], 7.0) << "sample " << sample << ", column " << c;
    }
    EXPECT_EQ(kept, (7u << quantity::velocity) | (1u << quantity::attitude_angle));
    EXPECT_TRUE(quantities_of(w * (3 / w))) << "an infinite initial spin does not matter to the quantities' lanes";
    EXPECT_FALSE(quantities_of(w * (42 / w))) << "sample 42's centre of mass is at the origin, the others' are not";
    // Several groups at once where a group's doubles fill less than a cache line (SSE2's and
    // AVX2's double lanes, SSE2's float ones): a line's samples from a line's start, the same
    // values as group by group, or nothing where one of them cannot go in lanes.
    const std::size_t line = std::size_t(lanes.line_width);
    ASSERT_EQ(lanes.quantities_in_lines != nullptr, w * sizeof(double) < 64);
    ASSERT_EQ(line, lanes.quantities_in_lines != nullptr ? 8 : w);
    if (lanes.quantities_in_lines == nullptr) return;
    QuantityValues lined(quantities.size(), 7.0);  // from a line's start, as the backend's buffer
    std::vector<double> grouped(quantities.size(), 7.0);
    for (std::size_t first = 48; first < 48 + line; first += w)
      ASSERT_TRUE(lanes.quantities(inputs.data(), states.data() + first * block, n, first, shared, nominal.data(),
                                   grouped.data(), kAllQuantityColumns));
    ASSERT_TRUE(lanes.quantities_in_lines(inputs.data(), states.data() + 48 * block, n, 48, shared, nominal.data(),
                                          lined.data(), kAllQuantityColumns));
    EXPECT_EQ(std::memcmp(lined.data(), grouped.data(), grouped.size() * sizeof(double)), 0);
    std::fill(lined.begin(), lined.end(), 7.0);
    EXPECT_FALSE(lanes.quantities_in_lines(inputs.data(), states.data() + 40 * block, n, 40, shared, nominal.data(),
                                           lined.data(), kAllQuantityColumns))
        << "sample 42's centre of mass is at the origin, samples 40 to 47's others' are not";
    EXPECT_EQ(std::count(lined.begin(), lined.end(), 7.0), std::ptrdiff_t(lined.size()));
  };
  if (precision == Precision::float32) check(lane_groups<float>(isa), 0.0f);
  else check(lane_groups<double>(isa), 0.0);
}

INSTANTIATE_TEST_SUITE_P(
    EveryInstructionSet, LaneGroups,
    ::testing::Combine(::testing::Values(Precision::float64, Precision::float32),
                       ::testing::Values(LaneIsa::sse2, LaneIsa::avx2, LaneIsa::avx512),
                       ::testing::Values(Model::free_body, Model::pivot, Model::planar, Model::loads,
                                         Model::pivot_with_loads, Model::events, Model::pivot_with_events,
                                         Model::splitting, Model::splitting_with_loads, Model::splitting_with_events,
                                         Model::dopri5, Model::dopri5_with_loads, Model::dopri5_with_events,
                                         Model::dopri5_pivot_events, Model::euler, Model::euler_with_loads,
                                         Model::euler_with_events, Model::euler_pivot)),
    [](const auto& info) {
      return std::string(model_name(std::get<2>(info.param))) + "_" + precision_name(std::get<0>(info.param)) + "_" +
             lane_isa_name(std::get<1>(info.param));
    });

// RBMC_CPU_SIMD chooses among them; a name that is not one, or one this processor lacks, is a
// usage error that says which it can run.
TEST(LaneGroupsChoice, TheEnvironmentChoosesAndBadNamesAreRefused) {
  const char* before = std::getenv("RBMC_CPU_SIMD");
  const std::string saved = before == nullptr ? "" : before;
  setenv("RBMC_CPU_SIMD", "off", 1);
  EXPECT_EQ(chosen_lane_isa(), LaneIsa::off);
  EXPECT_EQ(make_cpu_backend(Precision::float64, 1)->device().find("lanes"), std::string::npos);
  setenv("RBMC_CPU_SIMD", "sse3", 1);
  try {
    chosen_lane_isa();
    ADD_FAILURE() << "sse3 was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not one of off, sse2, avx2, avx512"), std::string::npos) << e.what();
  }
  unsetenv("RBMC_CPU_SIMD");
  const LaneIsa widest = chosen_lane_isa();
  EXPECT_TRUE(lane_isa_supported(widest));
#if defined(__x86_64__)
  EXPECT_NE(widest, LaneIsa::off);
  EXPECT_NE(make_cpu_backend(Precision::float64, 1)->device().find(std::string(lane_isa_name(widest)) + " lanes of"),
            std::string::npos);
#endif
  if (!saved.empty()) setenv("RBMC_CPU_SIMD", saved.c_str(), 1);
}

}  // namespace
}  // namespace rbmc

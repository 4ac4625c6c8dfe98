// Events: conditions g(t, x) = 0 detected per step and located in time on the step's interpolant.
//
// Each accepted step from (t₀, x₀) to (t₁, x₁) evaluates every event function at its end; a sign
// change in the event's direction brackets a root, which the Illinois method (regula falsi with
// halving of the retained end) locates on the interpolant to the event tolerance. The interpolant
// is the integrator's own continuous extension: DOPRI5's fourth-order dense output, or for RK4 the
// cubic Hermite interpolant through the two states and their rates (third order). Roots closer
// together than a step can be missed: the step must resolve the events.
#pragma once

#include <cstdint>
#include <type_traits>

#include "rbmc/dynamics/state.hpp"
#include "rbmc/integrate/state_vector.hpp"
#include "rbmc/math/rotation.hpp"

namespace rbmc {

enum class EventKind : std::uint8_t {
  point_crossing = 0,      // the world coordinate `axis` of body point `point_b` crosses `value`
  attitude_angle = 1,      // the attitude's angle from `reference` rises above `value` (rad)
  angular_rate_below = 2,  // |ω| falls below `value` (rad/s)
  time_limit = 3,          // t reaches `value` (s)
  box_crossing = 4,        // the lowest (falling) or highest (rising) point of a box of half sizes
                           // `half_size_b` centred at body point `point_b`, its edges along the
                           // body axes, crosses `value` in world coordinate `axis`
  cylinder_crossing = 5,   // the same of a solid cylinder centred at `point_b`, its axis along body
                           // z: radius half_size_b.x, half its height half_size_b.z
};

// The sign change that counts: g rising through 0, falling through 0, or either.
enum class CrossingDirection : std::int8_t { falling = -1, either = 0, rising = 1 };

template <class Scalar>
struct EventSpec {
  EventKind kind = EventKind::time_limit;
  bool terminal = false;
  CrossingDirection direction = CrossingDirection::either;
  int axis = 2;                                   // point_, box_crossing: 0, 1, 2 for world x, y, z
  Scalar value = 0;                               // the threshold (m, rad, rad/s or s)
  Vec3<Scalar> point_b = Vec3<Scalar>::Zero();    // point_crossing: body point; box_, cylinder_crossing:
                                                  // the solid's centre (m, body frame, from the origin)
  Quaternion<Scalar> reference = Quaternion<Scalar>::identity();  // attitude_angle
  // box_crossing: half the edges along body x, y, z; cylinder_crossing: (radius, radius, half the
  // height), half its bounding box's edges (m)
  Vec3<Scalar> half_size_b = Vec3<Scalar>::Zero();

  template <class Other>
  EventSpec<Other> cast() const {
    return {kind,
            terminal,
            direction,
            axis,
            Other(value),
            point_b.template cast<Other>(),
            {Other(reference.w), Other(reference.x), Other(reference.y), Other(reference.z)},
            half_size_b.template cast<Other>()};
  }
};

template <class Scalar>
struct EventSet {
  static constexpr int kMax = 4;
  int n = 0;
  EventSpec<Scalar> events[kMax];
  Scalar tolerance = Scalar(1e-9);  // s: the located time is within this of the interpolant's root

  template <class Other>
  EventSet<Other> cast() const {
    EventSet<Other> o;
    o.n = n;
    for (int i = 0; i < n; ++i) o.events[i] = events[i].template cast<Other>();
    o.tolerance = Other(tolerance);
    return o;
  }
};

// What a sample records of one event: its first occurrence and how often it occurred.
template <class Scalar>
struct EventRecord {
  std::int64_t count;
  Scalar time;  // of the first occurrence; NaN when it never occurred
  RigidBodyState<Scalar> state;
};

// The world coordinate `axis` of a box_crossing's box at its lowest point (falling) or its highest
// (rising): with e the world axis, e_b = Rᵀ e its body components, c the box's centre and h its half
// edges, e · (p + R c) ∓ Σᵢ hᵢ |e_b,ᵢ| = e · p + Σᵢ (cᵢ e_b,ᵢ ∓ hᵢ |e_b,ᵢ|): the support function of
// the box in the direction ∓e, its nearest corner whichever that is, with no branch. Continuous in
// the state, with kinks where another corner becomes the nearest, which the locator's bracketing
// tolerates. One rotation (e · R c = c · e_b), each axis chosen, not indexed (point_crossing says
// why). Of the state it takes the attitude and p's coordinate (p_axis), by value.
//
// A cylinder_crossing's cylinder (`cylinder`: radius r = h_x, half height h_z, its axis body z)
// is a disc of radius r normal to body z swept along a segment of half length h_z on z, so its
// support function is the disc's plus the segment's: e · p + c · e_b ∓ (r √(e_b,x² + e_b,y²) +
// h_z |e_b,z|). Its nearest point lies on a rim, a whole rim where the axis is along e (where the
// square root has its kink).
template <class Scalar>
RBMC_HD inline Scalar solid_extent(const Quaternion<Scalar>& q_wb, Scalar p_axis, const Vec3<Scalar>& centre_b,
                                   const Vec3<Scalar>& half_size_b, int axis, bool rising, bool cylinder) {
  const Scalar zero(0), one(1);
  const Vec3<Scalar> e_b =
      rotate_inverse(q_wb, Vec3<Scalar>(axis == 0 ? one : zero, axis == 1 ? one : zero, axis == 2 ? one : zero));
  const Scalar reach = rising ? one : -one;
  // |v| as a choice: one for a value, lane by lane on the CPU's SIMD lanes.
  const auto term = [&](Scalar c, Scalar h, Scalar v) { return c * v + reach * (h * if_less_hd(v, zero, -v, v)); };
  if (cylinder) {
    const Scalar radial = half_size_b.x() * sqrt_hd(e_b.x() * e_b.x() + e_b.y() * e_b.y());
    return p_axis + centre_b.x() * e_b.x() + centre_b.y() * e_b.y() + reach * radial +
           term(centre_b.z(), half_size_b.z(), e_b.z());
  }
  return p_axis + term(centre_b.x(), half_size_b.x(), e_b.x()) + term(centre_b.y(), half_size_b.y(), e_b.y()) +
         term(centre_b.z(), half_size_b.z(), e_b.z());
}

// The same, out of line on the device in double: inlined into the device's dopri5 with events in
// double, the box's alone spilled 16 bytes (24 with a second rotation for the centre; 8 with e_b
// written out as row `axis` of R(q)), where that kernel spilled none (sm_90, bench/RESULTS.md,
// sixty-eighth and sixty-ninth sessions). Its arguments by value, in registers: a reference would
// put the state in the frame at every call.
template <class Scalar>
RBMC_HD_NOINLINE Scalar solid_extent_call(Quaternion<Scalar> q_wb, Scalar p_axis, Vec3<Scalar> centre_b,
                                          Vec3<Scalar> half_size_b, int axis, bool rising, bool cylinder) {
  return solid_extent(q_wb, p_axis, centre_b, half_size_b, axis, rising, cylinder);
}

// g(t, x); the event occurs where g crosses zero in the event's direction. Each g rises when the
// named quantity passes its threshold in the sense the name says.
template <class Scalar>
RBMC_HD inline Scalar event_function(const EventSpec<Scalar>& e, Scalar t, const RigidBodyState<Scalar>& x) {
  switch (e.kind) {
    case EventKind::point_crossing:
      // The same component either way. Indexed by the run-time axis, the vector and much of the
      // sample's state go to the stack frame; chosen, they stay in registers. In float that takes
      // the events kernels' frames from 432 bytes to 128 with no spill; in double the registers
      // are full and RK4's kernel spilled 1,032 bytes instead of 628 with the choice (sm_90,
      // bench/RESULTS.md).
      if constexpr (sizeof(Scalar) == 4) {
        const Vec3<Scalar> p_w = x.p_w + rotate(x.q_wb, e.point_b);
        return (e.axis == 0 ? p_w.x() : e.axis == 1 ? p_w.y() : p_w.z()) - e.value;
      } else {
        return (x.p_w + rotate(x.q_wb, e.point_b))(e.axis) - e.value;
      }
    case EventKind::attitude_angle: return angle_between(e.reference, x.q_wb) - e.value;
    // norm3: its sum in a fixed order, the same in the CPU's lanes (Eigen's norm may pair the
    // squares differently for double than for a lane type).
    case EventKind::angular_rate_below: return e.value - norm3(x.omega_b);
    case EventKind::time_limit: return t - e.value;
    case EventKind::box_crossing:
    case EventKind::cylinder_crossing: {
      const Scalar p_axis = e.axis == 0 ? x.p_w.x() : e.axis == 1 ? x.p_w.y() : x.p_w.z();
      const bool rising = e.direction == CrossingDirection::rising;
      const bool cylinder = e.kind == EventKind::cylinder_crossing;
#ifdef __CUDA_ARCH__
      if constexpr (sizeof(Scalar) == 8)
        return solid_extent_call(x.q_wb, p_axis, e.point_b, e.half_size_b, e.axis, rising, cylinder) - e.value;
#endif
      return solid_extent(x.q_wb, p_axis, e.point_b, e.half_size_b, e.axis, rising, cylinder) - e.value;
    }
  }
  return Scalar(1);
}

template <class Scalar>
RBMC_HD inline bool crosses(CrossingDirection d, Scalar g0, Scalar g1) {
  const bool up = g0 < Scalar(0) && g1 >= Scalar(0), down = g0 > Scalar(0) && g1 <= Scalar(0);
  return d == CrossingDirection::rising ? up : (d == CrossingDirection::falling ? down : (up || down));
}

// The cubic Hermite interpolant through (t₀, y₀, ẏ₀) and (t₀ + h, y₁, ẏ₁), at t.
template <class Scalar>
RBMC_HD inline StateVector<Scalar> hermite_interpolation(const StateVector<Scalar>& y0, const StateVector<Scalar>& f0,
                                                         const StateVector<Scalar>& y1, const StateVector<Scalar>& f1,
                                                         Scalar t0, Scalar h, Scalar t) {
  const Scalar s = (t - t0) / h, s2 = s * s, s3 = s2 * s;
  return (Scalar(2) * s3 - Scalar(3) * s2 + Scalar(1)) * y0 + (s3 - Scalar(2) * s2 + s) * h * f0 +
         (Scalar(3) * s2 - Scalar(2) * s3) * y1 + (s3 - s2) * h * f1;
}

// That interpolant over one step, referring to the step's two states and rates, which the loop
// holds anyway, rather than holding packed copies: the device's (fixed_step.hpp), where with
// events the copies cost the double kernels' registers (the splitting's spill stores 252 bytes
// against 28, Euler-angle RK4's 384 against 32: sm_90, bench/RESULTS.md).
template <class Scalar>
struct HermiteInterpolant {
  const RigidBodyState<Scalar>& x0;
  const RigidBodyStateRate<Scalar>& f0;
  const RigidBodyState<Scalar>& x1;
  const RigidBodyStateRate<Scalar>& f1;
  Scalar t0, h;
  RBMC_HD StateVector<Scalar> at(Scalar t) const {
    return hermite_interpolation(pack(x0), pack(f0), pack(x1), pack(f1), t0, h, t);
  }
};

// The same interpolant holding packed copies of the step's states and rates: the host's
// (fixed_step.hpp, close_fixed_step). Equal to HermiteInterpolant bit for bit.
template <class Scalar>
struct PackedHermiteInterpolant {
  StateVector<Scalar> y0, f0, y1, f1;
  Scalar t0, h;
  RBMC_HD StateVector<Scalar> at(Scalar t) const { return hermite_interpolation(y0, f0, y1, f1, t0, h, t); }
};

// The interpolant handed over for a step that needs none: no event is declared and every output
// time the step covers lies on its end, where a sink takes the end state itself. Never evaluated.
struct NoInterpolant {
  template <class Scalar>
  RBMC_HD StateVector<Scalar> at(Scalar) const {
    return StateVector<Scalar>::Constant(Eigen::NumTraits<Scalar>::quiet_NaN());
  }
};

// The interpolated state with its quaternion back on the unit sphere.
template <class Scalar, class Interpolant>
RBMC_HD inline RigidBodyState<Scalar> interpolated_state(const Interpolant& interp, Scalar t) {
  RigidBodyState<Scalar> x = unpack(interp.at(t));
  x.q_wb = normalized(x.q_wb);
  return x;
}

// The root of g on [t0, t1], bracketed by g0 and g1 of opposite signs (Illinois method).
template <class Scalar, class Interpolant>
RBMC_HD inline Scalar locate_event(const EventSpec<Scalar>& e, const Interpolant& interp, Scalar t0, Scalar g0,
                                   Scalar t1, Scalar g1, Scalar tolerance) {
  int side = 0;
  for (int iteration = 0; iteration < 100 && t1 - t0 > tolerance; ++iteration) {
    Scalar t = (t0 * g1 - t1 * g0) / (g1 - g0);
    if (!(t > t0 && t < t1)) t = Scalar(0.5) * (t0 + t1);
    const Scalar g = event_function(e, t, interpolated_state<Scalar>(interp, t));
    if ((g < Scalar(0)) == (g0 < Scalar(0))) {
      t0 = t;
      g0 = g;
      if (side == -1) g1 *= Scalar(0.5);
      side = -1;
    } else {
      t1 = t;
      g1 = g;
      if (side == 1) g0 *= Scalar(0.5);
      side = 1;
    }
  }
  // The end on the far side of the root: the event has happened there.
  return t1;
}

// Where a sample's event records go. The tracker hands each record over as it happens, so that
// nothing of the size of EventSet::kMax states stays live in the integration loop: on the GPU such
// arrays, indexed by a run-time event number, sit in the thread's stack (2 KB for RK4 in double,
// bench/RESULTS.md). A target offers
//   start(e)            event e has not occurred: count 0, time and state NaN (no_state);
//   first(e, t, x)      its first occurrence, at t in state x;
//   count(e, count)     how often it occurred, once the integration has ended.
// This one fills records held in memory (a SampleResult's); the batches' writes straight into
// their output columns (sample_layout.hpp, StoredEventRecords).
template <class Scalar>
struct HeldEventRecords {
  EventRecord<Scalar>* records;
  RBMC_HD void start(int e) const { records[e] = {0, Eigen::NumTraits<Scalar>::quiet_NaN(), no_state<Scalar>()}; }
  RBMC_HD void first(int e, Scalar t, const RigidBodyState<Scalar>& x) const {
    records[e].time = t;
    records[e].state = x;
  }
  RBMC_HD void count(int e, std::int64_t count) const { records[e].count = count; }
};

// Event bookkeeping along one sample's integration: each event's g at the last accepted state and
// how often it occurred; the records go to `Records` (above) as they happen.
template <class Scalar, class Records = HeldEventRecords<Scalar>>
struct EventTracker {
  const EventSet<Scalar>* set;
  Records records;
  Scalar g[EventSet<Scalar>::kMax];  // each g at the last accepted state
  std::int64_t counts[EventSet<Scalar>::kMax];

  RBMC_HD bool any() const { return set->n > 0; }

  RBMC_HD void start(const EventSet<Scalar>& events, Scalar t, const RigidBodyState<Scalar>& x) {
    set = &events;
    for (int i = 0; i < events.n; ++i) {
      g[i] = event_function(events.events[i], t, x);
      counts[i] = 0;
      records.start(i);
    }
  }

  // The step to (t1, x1) without its interpolant: each event that did not cross in it takes its g
  // at the step's end; true when some event did, whose g stays at the step's start for step() to
  // locate (step() evaluates the others' g again, the same values, and finds no crossing in them).
  // So the fixed-step loop builds the interpolant, and evaluates the rates it needs, only for a step
  // in which an event crossed (fixed_step.hpp).
  RBMC_HD bool advance(Scalar t1, const RigidBodyState<Scalar>& x1) {
    bool crossed = false;
    for (int i = 0; i < set->n; ++i) {
      const EventSpec<Scalar>& e = set->events[i];
      const Scalar g1 = event_function(e, t1, x1);
      if (crosses(e.direction, g[i], g1))
        crossed = true;
      else
        g[i] = g1;
    }
    return crossed;
  }

  // Checks the step to (t1, x1). When a terminal event occurred, returns true with the earliest
  // terminal time, its state and its index; every event up to that time (or in the whole step
  // when none stops it) is recorded.
  template <class Interpolant>
  RBMC_HD bool step(const Interpolant& interp, Scalar t0, Scalar t1, const RigidBodyState<Scalar>& x1, Scalar& t_stop,
                    RigidBodyState<Scalar>& x_stop, int& stopping_event) {
    Scalar when[EventSet<Scalar>::kMax];
    bool stop = false;
    for (int i = 0; i < set->n; ++i) {
      const EventSpec<Scalar>& e = set->events[i];
      const Scalar g1 = event_function(e, t1, x1);
      when[i] = Scalar(-1);  // no crossing in this step
      if (crosses(e.direction, g[i], g1)) {
        when[i] = locate_event(e, interp, t0, g[i], t1, g1, set->tolerance);
        if (e.terminal && (!stop || when[i] < t_stop)) {
          stop = true;
          t_stop = when[i];
          stopping_event = i;
        }
      }
      g[i] = g1;
    }
    for (int i = 0; i < set->n; ++i) {
      if (when[i] < Scalar(0) || (stop && when[i] > t_stop)) continue;
      if (counts[i]++ == 0) records.first(i, when[i], interpolated_state<Scalar>(interp, when[i]));
    }
    if (stop) x_stop = interpolated_state<Scalar>(interp, t_stop);
    return stop;
  }

  // The counts, once the integration has ended.
  RBMC_HD void finish() const {
    for (int i = 0; i < set->n; ++i) records.count(i, counts[i]);
  }
};

// The event policy of a run without events: the integration loops carry no g values, records or
// root finding.
struct NoEvents {
  RBMC_HD static constexpr bool any() { return false; }
  RBMC_HD static void finish() {}
  template <class Interpolant, class Scalar, class State>
  RBMC_HD bool step(const Interpolant&, Scalar, Scalar, const State&, Scalar&, State&, int&) {
    return false;
  }
};

// Whether a run declares events: with them, every step's end is checked for a crossing.
template <class Events>
inline constexpr bool kDeclaresEvents = !std::is_same_v<Events, NoEvents>;

}  // namespace rbmc

// [[events]] and [output]: what a run detects and what it keeps (docs/scenario.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "host/errors.hpp"
#include "host/scenario/output_schema.hpp"
#include "host/scenario/scenario.hpp"
#include "host/scenario/scenario_sections.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc::scenario_sections {

namespace {

// A crossing's world axis, the coordinate crossed and the direction (point_crossing, and the
// solids' box_crossing and cylinder_crossing, `solid` naming which). A solid has no one function
// for "either": its lowest point crosses falling, its highest rising.
void read_crossing(TableReader& r, EventSpec<double>& e, const char* solid = nullptr) {
  const bool either_allowed = solid == nullptr;
  const std::string axis = r.optional_string("axis").value_or("");
  if (axis != "x" && axis != "y" && axis != "z") {
    if (axis.empty()) r.fail_here("axis", "is required (\"x\", \"y\" or \"z\": the world coordinate)");
    r.fail_at(*r.table().get("axis"), "axis", "must be \"x\", \"y\" or \"z\"");
  }
  e.axis = axis[0] - 'x';
  e.value = r.required_number("value", "the coordinate crossed, m");
  const std::optional<std::string> direction = r.optional_string("direction");
  if (!direction && !either_allowed)
    r.fail_here("direction",
                std::string("is required: \"falling\" (the ") + solid + "'s lowest point) or \"rising\" (its highest)");
  const std::string d = direction.value_or("either");
  if (d == "rising") e.direction = CrossingDirection::rising;
  else if (d == "falling") e.direction = CrossingDirection::falling;
  else if (d == "either" && either_allowed) e.direction = CrossingDirection::either;
  else if (either_allowed) r.fail_at(*r.table().get("direction"), "direction", "must be \"rising\", \"falling\" or \"either\"");
  else
    r.fail_at(*r.table().get("direction"), "direction",
              std::string("must be \"falling\" (the ") + solid +
                  "'s lowest point crosses) or \"rising\" (its highest), not \"" + d + "\"");
}

}  // namespace

// [[events]]: an array of tables, each with a name and a type. Read after [initial] (the
// attitude reference defaults to the initial attitude) and [run] (the tolerance).
void read_events(const toml::node& node, Scenario& s) {
  const toml::array* array = node.as_array();
  const auto& b = node.source().begin;
  if (array == nullptr || !array->is_array_of_tables())
    throw ScenarioError(s.path, b.line, b.column, "events", "must be an array of tables: [[events]] entries");
  std::size_t index = 0;
  for (const toml::node& entry : *array) {
    TableReader r(*entry.as_table(), "events[" + std::to_string(index++) + "]", s.path);
    if (s.events.n == EventSet<double>::kMax)
      r.fail_here("name", "too many events (at most " + std::to_string(EventSet<double>::kMax) + ")");
    const std::string name = r.optional_string("name").value_or("");
    if (name.empty()) r.fail_here("name", "is required (letters, digits and _; names the output group)");
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        r.fail_at(*r.table().get("name"), "name", "may hold only letters, digits and _");
    for (const std::string& other : s.event_names)
      if (other == name) r.fail_at(*r.table().get("name"), "name", "is used by another event");
    EventSpec<double> e;
    if (const toml::node* t = r.find("terminal")) {
      if (!t->is_boolean()) r.fail_at(*t, "terminal", std::string("must be true or false, not ") + type_name(t->type()));
      e.terminal = t->as_boolean()->get();
    }
    const std::string type = r.optional_string("type").value_or("");
    if (type == "point_crossing") {
      e.kind = EventKind::point_crossing;
      e.point_b = r.optional_vec3("point").value_or(Vec3<double>::Zero());
      read_crossing(r, e);
    } else if (type == "box_crossing") {
      e.kind = EventKind::box_crossing;
      e.point_b = r.optional_vec3("center").value_or(Vec3<double>::Zero());
      const toml::node* size = r.find("size");
      if (size == nullptr) r.fail_here("size", "is required (m: the box's edges along body x, y and z)");
      const auto edges = r.numbers(*size, "size", 3);
      for (double edge : edges)
        if (!(edge > 0)) r.fail_at(*size, "size", "must be three positive lengths (m: the edges along body x, y, z)");
      e.half_size_b = 0.5 * Vec3<double>(edges[0], edges[1], edges[2]);
      read_crossing(r, e, "box");
    } else if (type == "cylinder_crossing") {
      e.kind = EventKind::cylinder_crossing;
      e.point_b = r.optional_vec3("center").value_or(Vec3<double>::Zero());
      const double radius = r.required_number("radius", "m"), height = r.required_number("height", "m, along body z");
      // A disc (height 0, a coin) and a segment (radius 0, a slender rod's axis) are cylinders too.
      if (!(radius >= 0)) r.fail_at(*r.table().get("radius"), "radius", "must be positive, or 0 for a segment (m)");
      if (!(height >= 0))
        r.fail_at(*r.table().get("height"), "height", "must be positive, or 0 for a disc (m, along body z)");
      if (radius == 0 && height == 0)
        r.fail_at(*r.table().get("height"), "height",
                  "is 0 and so is radius: a cylinder of no size is a point, which a point_crossing follows");
      e.half_size_b = Vec3<double>(radius, radius, 0.5 * height);
      read_crossing(r, e, "cylinder");
    } else if (type == "attitude_angle") {
      e.kind = EventKind::attitude_angle;
      e.direction = CrossingDirection::rising;
      e.value = r.required_number("angle", "rad: the angle from the reference that triggers it");
      if (!(e.value > 0)) r.fail_at(*r.table().get("angle"), "angle", "must be positive");
      // The angle between two attitudes lies in [0, pi] (rbmc/math/rotation.hpp, angle_between):
      // a threshold of pi or more is never exceeded.
      if (!(e.value < M_PI))
        r.fail_at(*r.table().get("angle"), "angle", "must be below pi: the angle between two attitudes is at most pi");
      e.reference = s.initial.q_wb;
      if (const toml::node* n = r.find("reference")) {
        const auto q = r.numbers(*n, "reference", 4);
        const Quaternion<double> quat{q[0], q[1], q[2], q[3]};
        if (std::abs(quat.norm() - 1.0) > 1e-6) r.fail_at(*n, "reference", "must be a unit quaternion (w, x, y, z)");
        e.reference = normalized(quat);
      }
    } else if (type == "angular_rate_below") {
      e.kind = EventKind::angular_rate_below;
      e.direction = CrossingDirection::rising;
      e.value = r.required_number("rate", "rad/s");
      if (!(e.value > 0)) r.fail_at(*r.table().get("rate"), "rate", "must be positive");
    } else if (type == "time_limit") {
      e.kind = EventKind::time_limit;
      e.direction = CrossingDirection::rising;
      e.value = r.required_number("time", "s");
      if (!(e.value > 0)) r.fail_at(*r.table().get("time"), "time", "must be positive");
      // As output times must: a time after the run's end would never come.
      if (e.value > s.run.duration)
        r.fail_at(*r.table().get("time"), "time", "must lie in (0, run.duration]: the run ends before it");
    } else if (type.empty()) {
      r.fail_here("type",
                  "is required (point_crossing, box_crossing, cylinder_crossing, attitude_angle, angular_rate_below, "
                  "time_limit)");
    } else {
      r.fail_at(*r.table().get("type"), "type",
                "unknown event '" + type +
                    "' (available: point_crossing, box_crossing, cylinder_crossing, attitude_angle, "
                    "angular_rate_below, time_limit)");
    }
    r.reject_unknown_keys();
    s.events.events[s.events.n++] = e;
    s.event_names.push_back(name);
  }
}

namespace {

// [output]: the times at which every sample's state is kept: `interval` (every Δt from 0) or a
// `times` list of up to OutputTimes::kMaxListed ascending times in [0, duration].
// [output] trajectories = "all" | "none" | { every | samples | status | event | final, min, max;
// limit }. Read after [[events]]: a rule may name one.
void read_retention(TableReader& output, const toml::node& node, Scenario& s) {
  TrajectoryRetention& t = s.output.trajectories;
  using Kind = TrajectoryRetention::Kind;
  if (const auto* text = node.as_string()) {
    const std::string v = text->get();
    if (v == "all") t.kind = Kind::all;
    else if (v == "none") t.kind = Kind::none;
    else output.fail_at(node, "trajectories", "must be \"all\", \"none\" or a table such as { every = 100 }, not \"" + v + "\"");
    return;
  }
  const toml::table* table = node.as_table();
  if (table == nullptr)
    output.fail_at(node, "trajectories", "must be \"all\", \"none\" or a table such as { every = 100 }");
  TableReader r(*table, "output.trajectories", s.path);
  int rules = 0;
  if (const auto every = r.optional_integer("every")) {
    if (*every <= 0) r.fail_at(*table->get("every"), "every", "must be a positive integer");
    t.kind = Kind::every;
    t.every = std::uint64_t(*every);
    ++rules;
  }
  if (const toml::node* list = r.find("samples")) {
    const toml::array* a = list->as_array();
    if (a == nullptr || a->empty()) r.fail_at(*list, "samples", "must be a non-empty array of sample indices");
    for (const toml::node& e : *a) {
      if (!e.is_integer() || e.as_integer()->get() < 0)
        r.fail_at(e, "samples", "must hold non-negative integer sample indices");
      t.samples.push_back(std::uint64_t(e.as_integer()->get()));
    }
    std::sort(t.samples.begin(), t.samples.end());
    t.samples.erase(std::unique(t.samples.begin(), t.samples.end()), t.samples.end());
    t.kind = Kind::list;
    ++rules;
  }
  if (const auto status = r.optional_string("status")) {
    int found = -1;
    std::string names;
    for (int c = 0; c < kSampleStatusCount; ++c) {
      if (*status == status_name(SampleStatus(c))) found = c;
      names += std::string(names.empty() ? "" : ", ") + status_name(SampleStatus(c));
    }
    if (found < 0) r.fail_at(*table->get("status"), "status", "unknown status '" + *status + "' (" + names + ")");
    t.kind = Kind::status;
    t.status = SampleStatus(found);
    ++rules;
  }
  if (const auto event = r.optional_string("event")) {
    const auto it = std::find(s.event_names.begin(), s.event_names.end(), *event);
    if (it == s.event_names.end()) r.fail_at(*table->get("event"), "event", "no [[events]] entry is named '" + *event + "'");
    t.kind = Kind::event;
    t.event = int(it - s.event_names.begin());
    ++rules;
  }
  if (const auto final = r.optional_string("final")) {
    static const std::pair<const char*, int> columns[] = {
        {"position.x", output_column::p_w},     {"position.y", output_column::p_w + 1},
        {"position.z", output_column::p_w + 2}, {"velocity.x", output_column::v_w},
        {"velocity.y", output_column::v_w + 1}, {"velocity.z", output_column::v_w + 2},
        {"angular_velocity.x", output_column::omega_b}, {"angular_velocity.y", output_column::omega_b + 1},
        {"angular_velocity.z", output_column::omega_b + 2}, {"time", output_column::time}};
    std::string names;
    int found = -1;
    for (const auto& [name, column] : columns) {
      if (*final == name) found = column;
      names += std::string(names.empty() ? "" : ", ") + name;
    }
    if (found < 0) r.fail_at(*table->get("final"), "final", "unknown final quantity '" + *final + "' (" + names + ")");
    const auto lo = r.optional_number("min"), hi = r.optional_number("max");
    if (!lo || !hi) r.fail_here(lo ? "max" : "min", "is required with final: the range [min, max] of the final value");
    if (*lo > *hi) r.fail_at(*table->get("max"), "max", "must not be less than min");
    t.kind = Kind::final;
    t.final_column = found;
    t.final_quantity = *final;
    t.min = *lo;
    t.max = *hi;
    ++rules;
  }
  if (const auto limit = r.optional_integer("limit")) {
    if (*limit <= 0) r.fail_at(*table->get("limit"), "limit", "must be a positive integer");
    t.limit = std::uint64_t(*limit);
    if (rules == 0) t.kind = Kind::all;  // the first `limit` samples
  } else if (rules == 0) {
    r.fail_here("every", "give a rule: every, samples, status, event, or final with min and max (and optionally limit)");
  }
  if (rules > 1) r.fail_here("every", "give one rule of every, samples, status, event and final");
  r.reject_unknown_keys();
}

// [output] statistics: true, false, or the names of the quantities whose statistics to keep.
void read_statistics_quantities(TableReader& r, const toml::node& statistics, OutputSettings& out) {
  if (statistics.is_boolean()) {
    out.statistics = statistics.as_boolean()->get();
    return;
  }
  const std::string names = quantity_names();
  const toml::array* a = statistics.as_array();
  if (a == nullptr || a->empty())
    r.fail_at(statistics, "statistics", "must be true, false, or a non-empty array of quantity names (" + names + ")");
  out.statistics_quantities = 0;
  for (const toml::node& e : *a) {
    const std::optional<std::string> name = e.value<std::string>();
    std::size_t i = 0;
    while (name && i < kStatisticsQuantities.size() && *name != kStatisticsQuantities[i].name) ++i;
    if (!name || i == kStatisticsQuantities.size()) {
      std::string meant;
      for (std::size_t j = 0; name && meant.empty() && j < kStatisticsQuantities.size(); ++j)
        if (near_miss(*name, kStatisticsQuantities[j].name)) meant = std::string(" (did you mean '") + kStatisticsQuantities[j].name + "'?)";
      r.fail_at(e, "statistics",
                (name ? "unknown quantity '" + *name + "'" + meant : std::string("must list quantity names as strings")) +
                    " (" + names + ")");
    }
    if ((out.statistics_quantities >> i) & 1u) r.fail_at(e, "statistics", "names '" + *name + "' twice");
    out.statistics_quantities |= 1u << i;
  }
}

}  // namespace

void read_output(TableReader& r, Scenario& s) {
  OutputTimes<double>& o = s.output_times;
  const toml::node* interval = r.find("interval");
  const toml::node* times = r.find("times");
  const toml::node* trajectories = r.find("trajectories");
  const toml::node* statistics = r.find("statistics");
  const toml::node* memory = r.find("quantile_memory_mb");
  const toml::node* samples = r.find("samples");
  const toml::node* storage = r.find("storage");
  const toml::node* compression = r.find("compression");
  r.reject_unknown_keys();  // a misspelt key says so before "interval is required" would
  if (samples != nullptr) {
    const toml::array* a = samples->as_array();
    if (a == nullptr || a->empty())
      r.fail_at(*samples, "samples", "must be a non-empty array of per-sample dataset names, e.g. [\"final/position\", \"status\"]");
    for (const toml::node& e : *a) {
      if (!e.is_string()) r.fail_at(e, "samples", "must list dataset names as strings (e.g. \"final/position\")");
      s.output.sample_datasets.push_back(e.as_string()->get());
      s.output.sample_dataset_positions.push_back({int(e.source().begin.line), int(e.source().begin.column)});
    }
  }
  if (storage != nullptr) {
    const std::optional<std::string> v = storage->value<std::string>();
    if (v == "float32") s.output.storage = OutputSettings::Storage::float32;
    else if (v != "float64") r.fail_at(*storage, "storage", "must be \"float64\" (the default) or \"float32\"");
  }
  if (compression != nullptr) {
    const std::optional<std::string> v = compression->value<std::string>();
    if (v == "none") s.output.compression = OutputSettings::Compression::none;
    else if (v != "deflate") r.fail_at(*compression, "compression", "must be \"deflate\" (the default) or \"none\"");
  }
  if (trajectories != nullptr) read_retention(r, *trajectories, s);
  if (statistics != nullptr) read_statistics_quantities(r, *statistics, s.output);
  if (memory != nullptr) {
    if (!memory->is_integer() || memory->as_integer()->get() < 1 || memory->as_integer()->get() > (1 << 20))
      r.fail_at(*memory, "quantile_memory_mb", "must be an integer from 1 to 1048576 (MiB)");
    s.output.quantile_memory = std::uint64_t(memory->as_integer()->get()) << 20;
  }
  if (interval != nullptr && times != nullptr) r.fail_at(*times, "times", "give either interval or times, not both");
  if (interval != nullptr) {
    const double dt = r.number(*interval, "interval");
    if (!(dt > 0)) r.fail_at(*interval, "interval", "must be positive");
    // A bound on the memory one sample's states at the output times take (13 + 12 doubles each).
    if (s.run.duration / dt > 1e5) r.fail_at(*interval, "interval", "gives more than 100000 output times");
    // Longer than the run, it keeps t = 0 alone: a slip of units or of the duration, most likely.
    if (dt > s.run.duration * (1 + 1e-12))
      r.fail_at(*interval, "interval",
                "must not exceed run.duration: the only output time would be 0 (give times = [0.0] for that)");
    o.interval = dt;
    o.n = int(std::floor(s.run.duration / dt * (1 + 1e-12))) + 1;  // 0, Δt, ..., up to the duration
  } else if (times != nullptr) {
    const toml::array* a = times->as_array();
    if (a == nullptr || a->empty()) r.fail_at(*times, "times", "must be a non-empty array of times (s)");
    if (a->size() > std::size_t(OutputTimes<double>::kMaxListed))
      r.fail_at(*times, "times",
                "lists more than " + std::to_string(OutputTimes<double>::kMaxListed) + " times; use interval");
    o.listed = true;
    for (const toml::node& t : *a) {
      const double v = r.number(t, "times");
      if (v < 0 || v > s.run.duration) r.fail_at(t, "times", "must lie in [0, run.duration]");
      if (o.n > 0 && !(v > o.list[o.n - 1])) r.fail_at(t, "times", "must be strictly ascending");
      o.list[o.n++] = v;
    }
  } else if (trajectories != nullptr || statistics != nullptr || memory != nullptr || compression != nullptr ||
             (samples == nullptr && storage == nullptr)) {
    // An [output] of only samples and storage chooses what the file keeps of the final states.
    r.fail_here("interval", "is required (or times)");
  }
}

}  // namespace rbmc::scenario_sections

namespace rbmc {

std::string describe_event(const EventSpec<double>& e) {
  char buf[256] = "";
  const char axis = char('x' + e.axis);
  const char* crossing = e.direction == CrossingDirection::falling  ? "falling through"
                         : e.direction == CrossingDirection::rising ? "rising through"
                                                                    : "crossing";
  const char* reach = e.direction == CrossingDirection::rising ? "highest" : "lowest";
  const Vec3<double>& c = e.point_b;
  const Vec3<double>& h = e.half_size_b;
  switch (e.kind) {
    case EventKind::point_crossing:
      std::snprintf(buf, sizeof buf, "point_crossing: body point [%.6g, %.6g, %.6g] m, its world %c %s %.6g m", c.x(),
                    c.y(), c.z(), axis, crossing, e.value);
      break;
    case EventKind::box_crossing:
      std::snprintf(buf, sizeof buf,
                    "box_crossing: size [%.6g, %.6g, %.6g] m about [%.6g, %.6g, %.6g] m, its %s point's world %c %s "
                    "%.6g m",
                    2 * h.x(), 2 * h.y(), 2 * h.z(), c.x(), c.y(), c.z(), reach, axis, crossing, e.value);
      break;
    case EventKind::cylinder_crossing:
      std::snprintf(buf, sizeof buf,
                    "cylinder_crossing: radius %.6g m, height %.6g m along body z, about [%.6g, %.6g, %.6g] m, its %s "
                    "point's world %c %s %.6g m",
                    h.x(), 2 * h.z(), c.x(), c.y(), c.z(), reach, axis, crossing, e.value);
      break;
    case EventKind::attitude_angle:
      std::snprintf(buf, sizeof buf, "attitude_angle: the rotation from [%.6g, %.6g, %.6g, %.6g] above %.6g rad",
                    e.reference.w, e.reference.x, e.reference.y, e.reference.z, e.value);
      break;
    case EventKind::angular_rate_below:
      std::snprintf(buf, sizeof buf, "angular_rate_below: |omega| below %.6g rad/s", e.value);
      break;
    case EventKind::time_limit: std::snprintf(buf, sizeof buf, "time_limit: at %.6g s", e.value); break;
  }
  return std::string(buf) + (e.terminal ? "; terminal" : "");
}

}  // namespace rbmc

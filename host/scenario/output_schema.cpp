#include "host/scenario/output_schema.hpp"

#include <algorithm>
#include <string>

#include "host/scenario/table_reader.hpp"  // near_miss
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/sample/sample_status.hpp"

namespace rbmc {

namespace {

using Labels = std::vector<std::string>;
const Labels kXyz{"x", "y", "z"}, kWxyz{"w", "x", "y", "z"},
    kInertia{"xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz"};

std::string status_codes_text() {
  std::string s;
  for (int c = 0; c < kSampleStatusCount; ++c)
    s += (c ? ", " : "") + std::to_string(c) + " = " + status_name(static_cast<SampleStatus>(c));
  return s;
}

// The state's four parts (position, orientation, velocity, angular velocity) of a group, from
// consecutive columns of `source` starting at p, q, v, ω.
void add_state(std::vector<SampleDataset>& list, const std::string& group, SampleSource source, int p, int q, int v,
               int w, SampleRole role, bool compared, const std::string& when) {
  list.push_back({group + "/position", StoredType::real, {3}, kXyz, "m", when + "position of the body-frame origin, world frame",
                  source, p, role, compared});
  list.push_back({group + "/orientation", StoredType::real, {4}, kWxyz, "1", when + "unit quaternion (w, x, y, z), body to world",
                  source, q, role, compared});
  list.push_back({group + "/velocity", StoredType::real, {3}, kXyz, "m/s", when + "velocity of the body-frame origin, world frame",
                  source, v, role, compared});
  list.push_back({group + "/angular_velocity", StoredType::real, {3}, kXyz, "rad/s", when + "angular velocity, body frame",
                  source, w, role, compared});
}

}  // namespace

const std::vector<SampleDataset>& common_sample_datasets() {
  namespace in = input_column;
  namespace out = output_column;
  static const std::vector<SampleDataset> list = [] {
    using R = SampleRole;
    using S = SampleSource;
    std::vector<SampleDataset> l;
    l.push_back({"samples/index", StoredType::uint64, {}, {}, "1", "global sample index k: inputs depend only on (seed, k)",
                 S::index, 0, R::bookkeeping, false});
    l.push_back({"samples/status", StoredType::uint8, {}, {}, "1", "per-sample outcome: " + status_codes_text(), S::status, 0,
                 R::bookkeeping, false});
    l.push_back({"samples/body/mass", StoredType::real, {}, {}, "kg", "mass", S::inputs, in::mass, R::input, true});
    l.push_back({"samples/body/center_of_mass", StoredType::real, {3}, kXyz, "m",
                 "centre of mass relative to the body-frame origin, body frame", S::inputs, in::com_b, R::input, true});
    l.push_back({"samples/body/inertia", StoredType::real, {3, 3}, kInertia, "kg m^2",
                 "inertia tensor about the centre of mass, body axes", S::inertia, in::inertia_c_b, R::input, true});
    add_state(l, "samples/initial", S::inputs, in::p_w, in::q_wb, in::v_w, in::omega_b, R::input, true, "");
    add_state(l, "samples/final", S::outputs, out::p_w, out::q_wb, out::v_w, out::omega_b, R::result, true,
              "where the sample ended (NaN if not integrated): ");
    l.push_back({"samples/final/time", StoredType::real, {}, {}, "s",
                 "time of the final state (end time unless stopped early)", S::outputs, out::time, R::result, true});
    l.push_back({"samples/final/steps", StoredType::int64, {}, {}, "1", "integration steps accepted", S::outputs, out::steps,
                 R::result, false});
    l.push_back({"samples/final/rejected_steps", StoredType::int64, {}, {}, "1", "steps the adaptive controller rejected",
                 S::outputs, out::rejected_steps, R::result, false});
    l.push_back({"samples/final/stopping_event", StoredType::int64, {}, {}, "1",
                 "index of the terminal event that stopped the sample (in /samples/events order), -1 for none", S::outputs,
                 out::stopping_event, R::result, false});
    return l;
  }();
  return list;
}

std::vector<SampleDataset> all_sample_datasets(const Scenario& s) {
  namespace out = output_column;
  using R = SampleRole;
  using S = SampleSource;
  std::vector<SampleDataset> l = common_sample_datasets();
  int param_column = 0;
  for (const Dispersion& d : s.dispersions) {
    std::vector<unsigned long long> shape;
    if (d.info.dim > 1) shape.push_back(std::size_t(d.info.dim));
    l.push_back({std::string("samples/params/") + d.info.key_path, StoredType::real, shape,
                 d.info.dim == 3 ? kXyz : Labels{}, d.info.units, std::string("drawn value of ") + d.info.key_path, S::params,
                 param_column, R::input, true});
    param_column += d.info.dim;
  }
  for (int e = 0; e < s.events.n; ++e) {
    const std::string g = "samples/events/" + s.event_names[std::size_t(e)];
    const int base = out::count + kEventColumns * e, state = base + event_column::state;
    l.push_back({g + "/count", StoredType::int64, {}, {}, "1", "occurrences of the event", S::outputs,
                 base + event_column::count, R::result, false});
    l.push_back({g + "/time", StoredType::real, {}, {}, "s", "time of the first occurrence; NaN when it never occurred",
                 S::outputs, base + event_column::time, R::result, true});
    add_state(l, g, S::outputs, state + state_offset::p_w, state + state_offset::q_wb, state + state_offset::v_w,
              state + state_offset::omega_b, R::result, false, "at the first occurrence (NaN when it never occurred): ");
  }
  if (s.constraint.kind != ConstraintKind::none) {
    l.push_back({"samples/final/reaction_force", StoredType::real, {3}, kXyz, "N",
                 "force the constraint applies to the body at the final state, world frame; NaN if not integrated",
                 S::outputs, out::reaction_force_w, R::result, true});
    l.push_back({"samples/final/reaction_torque", StoredType::real, {3}, kXyz, "N m",
                 "couple the constraint applies at the final state, body frame (zero for a pivot); NaN if not integrated",
                 S::outputs, out::reaction_torque_b, R::result, false});
  }
  if (s.design.kind == Design::Kind::grid) {
    Labels axes;  // the key paths, as /samples/grid orders them
    for (const GridAxis& a : s.design.axes) axes.push_back(a.info.key_path);
    l.push_back({"samples/grid_index", StoredType::int64, {s.design.axes.size()}, axes, "1",
                 "each sample's coordinate along each grid axis (the axes by key path: the dimension grid_axis, in "
                 "the order of /samples/grid)",
                 S::grid_index, 0, R::input, false, "grid_axis"});
  }
  if (s.design.gives_values()) {
    const bool table = s.design.kind == Design::Kind::table;
    for (std::size_t j = 0; j < s.design.axes.size(); ++j) {
      const GridAxis& a = s.design.axes[j];
      std::vector<unsigned long long> shape;
      if (a.info.dim > 1) shape.push_back(std::size_t(a.info.dim));
      l.push_back({std::string(table ? "samples/table/" : "samples/grid/") + a.info.key_path, StoredType::real, shape,
                   a.info.dim == 3 ? kXyz : Labels{}, a.info.units,
                   std::string(table ? "value from the table (row = sample index) of " : "grid value of ") + a.info.key_path,
                   S::grid_value, int(j), R::input, table});
    }
  }
  // Drift of what this scenario conserves: zero up to integration error.
  if (s.conserves_energy())
    l.push_back({"samples/diagnostics/energy_drift", StoredType::real, {}, {}, "1",
                 "(E - E0) / max(T0 + |V0|, T + |V|), E = T + V: zero up to integration error for these conservative loads; "
                 "NaN if not integrated",
                 S::outputs, out::energy_drift, R::result, false});
  if (s.conserves_momentum())
    l.push_back({"samples/diagnostics/angular_momentum_drift", StoredType::real, {}, {}, "1",
                 "|h_C - h_C0| / |h_C0|, angular momentum about the centre of mass: conserved here; NaN if not integrated",
                 S::outputs, out::momentum_drift, R::result, false});
  return l;
}

namespace {

// An [output] samples entry names a dataset or every dataset of a group ("final", "events/touchdown").
bool selects(const std::string& entry, const SampleDataset& d) {
  const std::string name = d.short_name();
  return name == entry || name.rfind(entry + "/", 0) == 0;
}

}  // namespace

std::string retention_text(const TrajectoryRetention& t) {
  using Kind = TrajectoryRetention::Kind;
  std::string text;
  switch (t.kind) {
    case Kind::all: text = "all samples"; break;
    case Kind::none: text = "none"; break;
    case Kind::every: text = "samples whose index is a multiple of " + std::to_string(t.every); break;
    case Kind::list: text = std::to_string(t.samples.size()) + " listed samples"; break;
    case Kind::status: text = std::string("samples with status ") + status_name(t.status); break;
    case Kind::event: text = "samples in which event " + std::to_string(t.event) + " occurred"; break;
    case Kind::final:
      text = "samples with final " + t.final_quantity + " in [" + std::to_string(t.min) + ", " + std::to_string(t.max) + "]";
      break;
  }
  if (t.limit > 0) text += ", the first " + std::to_string(t.limit);
  return text;
}

std::uint64_t planned_trajectories(const TrajectoryRetention& t, std::uint64_t n, bool& exact) {
  using Kind = TrajectoryRetention::Kind;
  exact = true;
  std::uint64_t count = 0;
  switch (t.kind) {
    case Kind::all: count = n; break;
    case Kind::none: count = 0; break;
    case Kind::every: count = n == 0 ? 0 : (n - 1) / t.every + 1; break;  // indices 0, every, 2 every, ... below n
    case Kind::list:
      count = std::uint64_t(std::lower_bound(t.samples.begin(), t.samples.end(), n) - t.samples.begin());
      break;
    case Kind::status:
    case Kind::event:
    case Kind::final:
      exact = false;  // decided by each sample's results
      count = n;
      break;
  }
  return t.limit > 0 ? std::min(count, t.limit) : count;
}

std::size_t stored_bytes_per_sample(const Scenario& s) {
  const std::size_t real = s.output.storage == OutputSettings::Storage::float32 ? 4 : 8;
  std::size_t bytes = 0;
  for (const SampleDataset& d : sample_datasets(s)) {
    const std::size_t value = d.type == StoredType::real ? real : d.type == StoredType::uint8 ? 1 : 8;
    bytes += d.row_size() * value;
  }
  return bytes;
}

std::vector<SampleDataset> sample_datasets(const Scenario& s) {
  std::vector<SampleDataset> all = all_sample_datasets(s);
  const std::vector<std::string>& keep = s.output.sample_datasets;
  if (keep.empty()) return all;
  std::vector<SampleDataset> kept;
  for (SampleDataset& d : all) {
    const bool always = d.source == SampleSource::index || d.source == SampleSource::status;
    if (always || std::any_of(keep.begin(), keep.end(), [&](const std::string& e) { return selects(e, d); }))
      kept.push_back(std::move(d));
  }
  return kept;
}

bool keeps_any(const std::vector<SampleDataset>& kept, std::initializer_list<SampleSource> sources) {
  return std::any_of(kept.begin(), kept.end(), [&](const SampleDataset& d) {
    return std::find(sources.begin(), sources.end(), d.source) != sources.end();
  });
}

std::string check_sample_selection(const Scenario& s, const std::string& name) {
  const std::vector<SampleDataset> all = all_sample_datasets(s);
  if (std::any_of(all.begin(), all.end(), [&](const SampleDataset& d) { return selects(name, d); })) return "";
  std::string valid;
  for (const SampleDataset& d : all) valid += (valid.empty() ? "" : ", ") + d.short_name();
  // The name meant: Python's spelling of it (final.position: rbmc.open's Dataset names the
  // datasets with dots) or a misspelling, of a dataset or of a group of them.
  const auto dotted = [](std::string n) {
    std::replace(n.begin(), n.end(), '/', '.');
    return n;
  };
  std::string meant;
  for (const SampleDataset& d : all) {
    const std::string path = d.short_name();
    for (std::size_t end = path.find('/'); meant.empty(); end = path.find('/', end + 1)) {
      const std::string candidate = path.substr(0, end);  // a group of it, then itself
      if (dotted(candidate) == dotted(name) || near_miss(name, candidate)) meant = candidate;
      if (end == std::string::npos) break;
    }
    if (!meant.empty()) break;
  }
  return "'" + name + "' is not a per-sample dataset of this scenario (or a group of them)" +
         (meant.empty() ? "" : " (did you mean '" + meant + "'? the names are paths under /samples)") + "; it writes: " + valid;
}

const std::vector<TrajectoryPart>& trajectory_parts() {
  static const std::vector<TrajectoryPart> parts = {
      {"position", 0, 3, "m", "position of the body origin at each output time, world frame; NaN after the sample stopped"},
      {"orientation", 3, 4, "1", "unit quaternion (w, x, y, z), body to world, at each output time"},
      {"velocity", 7, 3, "m/s", "velocity of the body origin, world frame"},
      {"angular_velocity", 10, 3, "rad/s", "angular velocity, body frame"},
  };
  return parts;
}

}  // namespace rbmc

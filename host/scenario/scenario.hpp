// A scenario as the host holds it after parsing and validation: SI units, double precision.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rbmc/body/mass_properties.hpp"
#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/dynamics/state.hpp"
#include "rbmc/integrate/output_times.hpp"
#include "rbmc/body/shapes.hpp"
#include "rbmc/sample/draw_inputs.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

// Where a value came from, for error messages raised after parsing.
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0, column = 0;
};

// DispersedInput, DistributionKind: rbmc/sample/draw_inputs.hpp.

// Inputs that describe one thing two ways: at most one of a group may be dispersed or swept.
enum class InputGroup { none, attitude, inertia };

struct DispersedInputInfo {
  DispersedInput input;
  std::string key_path;
  int dim;
  std::string units;
  bool is_body;  // a mass property: redrawn under the validity policy
  std::array<double, 3> nominal{};  // the scenario's value (0 for the perturbations attitude and principal_axes)
  InputGroup group = InputGroup::none;
  int slot = 0;  // shape_dimension: first Shape::dimensions index; model_parameter: first per-sample value
  ModelParameter<double> target{};  // model_parameter: the field it sets (component 0)
};

// One dispersion, resolved against the nominal value. Components beyond dim are unused.
struct Dispersion {
  DispersedInputInfo info;
  DistributionKind kind;
  std::array<double, 3> a{}, b{}, lo{}, hi{};
  std::vector<std::array<double, 3>> values;  // discrete
  std::vector<double> cumulative;             // discrete: running sum of the weights, last = 1
  std::array<double, 3> nominal{};  // the value without dispersion (0 for the attitude perturbation)
  SourceLocation where;
};

// A multivariate normal over a group of normal dispersions: their components (in the order the
// inputs are listed) are drawn with the given correlation, y = mean + σ ∘ (L z), L Lᵀ = matrix.
struct CorrelationGroup {
  std::vector<std::string> inputs;         // key paths
  std::vector<std::size_t> dispersions;    // their indices in Scenario::dispersions
  int dim = 0;                             // scalar components in all
  std::vector<double> matrix, cholesky;    // dim × dim, row-major; cholesky lower triangular
  SourceLocation where;
};

// One axis of a full-factorial grid: an input and the values it takes (3 per value for vectors).
struct GridAxis {
  DispersedInputInfo info;
  std::vector<std::array<double, 3>> values;
};

// The sampling design. Monte Carlo: every sample draws its dispersions. Grid: sample k sits at
// grid point k / replicates (the first axis varying slowest) and is replicate k % replicates,
// whose dispersions of the other inputs are drawn as usual (a grid crossed with random samples).
// Latin hypercube: each scalar component's N draws fall one in each of N equal-probability
// strata (a keyed pseudo-random permutation of the strata, jittered within each). Sobol: an
// Owen-scrambled Sobol sequence (Joe–Kuo directions from Boost.Random), one dimension per scalar
// component in key-path order. Both map their points to each distribution by inversion.
struct Design {
  // table: sample k takes row k of a table of values ([design] file = "samples.csv"), one axis per
  // input, as a grid whose every axis is at coordinate k.
  enum class Kind { monte_carlo, grid, latin_hypercube, sobol, table } kind = Kind::monte_carlo;
  // What the sampler does with a body or load values that are not physical: draw them again
  // (from the same sample's streams) or keep them and flag the sample invalid_body or
  // invalid_load, not integrated.
  enum class InvalidBodies { redraw, reject } invalid_bodies = InvalidBodies::redraw;
  std::vector<GridAxis> axes;
  std::uint64_t replicates = 1;

  const char* name() const {
    return kind == Kind::grid              ? "grid"
           : kind == Kind::latin_hypercube ? "latin_hypercube"
           : kind == Kind::sobol           ? "sobol"
           : kind == Kind::table           ? "table"
                                           : "monte_carlo";
  }

  // A grid or a table: the inputs' values are given, not drawn.
  bool gives_values() const { return kind == Kind::grid || kind == Kind::table; }
  std::string table_file;  // table: the file, as the scenario names it

  std::uint64_t n_points() const {
    if (kind == Kind::table) return axes.empty() ? 0 : axes.front().values.size();
    std::uint64_t n = 1;
    for (const GridAxis& a : axes) n *= a.values.size();
    return n;
  }
  // Sample k's coordinate along each axis.
  std::vector<std::uint64_t> coordinates(std::uint64_t k) const {
    if (kind == Kind::table) return std::vector<std::uint64_t>(axes.size(), k);  // row k of every column
    std::vector<std::uint64_t> c(axes.size());
    std::uint64_t g = k / replicates;
    for (std::size_t i = axes.size(); i-- > 0;) {
      c[i] = g % axes[i].values.size();
      g /= axes[i].values.size();
    }
    return c;
  }
};

// Which samples' trajectories the file keeps ([output] trajectories), and whether statistics are
// kept at the output times. Statistics cover every sample whatever is retained.
struct TrajectoryRetention {
  enum class Kind {
    all,      // every sample
    none,     // none (statistics only)
    every,    // global index k divisible by `every`
    list,     // the global indices in `samples`
    status,   // samples that ended with `status`
    event,    // samples in which event `event` occurred
    final,    // samples whose final `final_quantity` lies in [min, max]
  } kind = Kind::all;
  std::uint64_t every = 1;
  std::vector<std::uint64_t> samples;  // ascending
  SampleStatus status = SampleStatus::ok;
  int event = 0;
  // final: an output column (sample_layout.hpp output_column) and its name, e.g. "position.z"
  int final_column = 0;
  std::string final_quantity;
  double min = 0, max = 0;
  // At most this many (the first ones meeting the rule, by global index); 0: no limit.
  std::uint64_t limit = 0;
};

// The names of a set of statistics quantities ([output] statistics), in the schema's order:
// "position, velocity, ...".
inline std::string quantity_names(QuantitySet set = kAllQuantities) {
  std::string names;
  for (std::size_t i = 0; i < kStatisticsQuantities.size(); ++i)
    if ((set >> i) & 1u) names += std::string(names.empty() ? "" : ", ") + kStatisticsQuantities[i].name;
  return names;
}

struct OutputSettings {
  TrajectoryRetention trajectories;
  bool statistics = true;  // with output times: statistics at each of them
  // [output] statistics = [names]: the quantities whose statistics are kept (bit i for
  // kStatisticsQuantities[i]); true keeps all.
  QuantitySet statistics_quantities = kAllQuantities;
  // Bytes of quantity values kept for exact quantiles; beyond, quantiles come from a quantile
  // sketch per column that fits the same budget (docs/output-format.md).
  std::uint64_t quantile_memory = std::uint64_t(256) << 20;
  // [output] samples: the per-sample datasets kept (names under /samples, or groups of them);
  // empty: all (host/scenario/output_schema.hpp). With where each entry stands in the file.
  std::vector<std::string> sample_datasets;
  std::vector<std::pair<int, int>> sample_dataset_positions;  // (line, column)
  // [output] storage: how real per-sample and trajectory values are stored.
  enum class Storage { float64, float32 } storage = Storage::float64;
  // [output] compression: the kept trajectories' chunks shuffled and deflated (HDF5's filters), or
  // stored as they are, where the disk writes faster than the cores compress.
  enum class Compression { deflate, none } compression = Compression::deflate;
};

inline const char* compression_name(OutputSettings::Compression c) {
  return c == OutputSettings::Compression::none ? "none" : "deflate";
}

// The most samples one run takes: 2^40 (a million times a million). Beyond it index arithmetic
// and HDF5's extents are no longer safe, and no machine finishes such a run.
inline constexpr std::uint64_t kMaxSamples = std::uint64_t(1) << 40;

// The kinds of integrator and of attitude coordinates, as scenarios and results files name them.
inline constexpr std::array<std::pair<IntegratorKind, const char*>, 3> kIntegratorNames = {
    {{IntegratorKind::rk4, "rk4"}, {IntegratorKind::dopri5, "dopri5"}, {IntegratorKind::splitting, "splitting"}}};
inline const char* integrator_name(IntegratorKind kind) {
  for (const auto& [k, name] : kIntegratorNames)
    if (k == kind) return name;
  return "unknown";
}
inline std::optional<IntegratorKind> integrator_named(const std::string& name) {
  for (const auto& [k, known] : kIntegratorNames)
    if (name == known) return k;
  return std::nullopt;
}

// How a sample's attitude is carried while it is integrated (run.attitude).
enum class AttitudeCoordinates : std::uint8_t { quaternion, euler_zxz };

struct RunSettings {
  std::uint64_t n_samples = 1000;
  std::uint64_t seed = 0;
  double duration = 0;  // s
  double step = 0;      // requested step (s); the step used is duration / n_steps
  std::int64_t n_steps = 0;
  IntegratorKind integrator = IntegratorKind::rk4;
  // dopri5 only:
  double rtol = 1e-6, atol = 1e-9;
  double min_step = 0, max_step = 0;  // s; defaults duration × 1e-12 and duration
  std::int64_t max_steps = 1000000;   // accepted plus rejected
  AttitudeCoordinates attitude = AttitudeCoordinates::quaternion;  // euler_zxz: rk4 only
  double euler_threshold = 1e-3;        // |sin θ| below which an euler_zxz sample stops
  // The accuracy guard (relative drifts, as /samples/diagnostics; 0: off): see docs/scenario.md.
  double max_energy_drift = 1e-3, max_momentum_drift = 1e-3;
};

struct Scenario {
  std::string path;  // as given by the user
  std::string text;  // the file verbatim, stored in the results
  std::string name, description;
  RunSettings run;
  MassProperties<double> body;
  std::string body_shape;  // the [body] shape's type when the inertia came from one, else empty
  Shape<double> shape;     // and its dimensions
  RigidBodyState<double> initial;
  std::optional<Vec3<double>> initial_euler_zxz, initial_euler_zyx;  // the attitude's angles, when given so
  Vec3<double> gravity_w = Vec3<double>::Zero();
  LoadSet<double> loads;  // [[loads]]: every load but uniform gravity
  Constraint<double> constraint;  // [constraint]
  EventSet<double> events;         // [[events]]
  OutputTimes<double> output_times;  // [output]
  OutputSettings output;              // [output]
  std::vector<std::string> event_names;
  // Each [[loads]] entry in file order: its type and its index among the loads of that type
  // (damping entries: their own four coefficients, which add up in `loads`).
  struct LoadEntry {
    std::string type;
    int index = 0;
    std::array<double, 4> damping{};
  };
  std::vector<LoadEntry> load_entries;
  std::vector<Dispersion> dispersions;
  std::vector<CorrelationGroup> correlations;
  Design design;
  ModelParameters<double> model_parameters;  // load and constraint fields dispersed or swept

  // What every sample shares.
  SharedModel<double> shared_model() const { return {loads, constraint, events, output_times, model_parameters}; }

  double step_used() const { return run.duration / static_cast<double>(run.n_steps); }
  IntegrationSettings<double> integration() const;
  // Whether T + V, and the angular momentum about the centre of mass, are conserved here.
  bool conserves_energy() const;
  bool conserves_momentum() const;
};

// Every input of this scenario that can be dispersed or swept (its shape's dimensions, its loads'
// and constraint's parameters among them); the parser rejects any other key path.
std::vector<DispersedInputInfo> dispersible_inputs(const Scenario& s);

// An event as the run will detect it, its defaults resolved (an attitude_angle's reference is the
// initial attitude unless given), in the scenario's words and units: "box_crossing: size [0.148,
// 0.097, 0.056] m about [0, 0, 0.005] m, its lowest point's world z falling through 0 m; terminal"
// (rbmc check, rbmc.check).
std::string describe_event(const EventSpec<double>& e);

// Reads, parses and validates a scenario file. Throws ScenarioError naming the file, line and key.
Scenario load_scenario(const std::string& path);

// The same from text already in memory; `path` names it in messages.
Scenario parse_scenario(const std::string& text, const std::string& path);

}  // namespace rbmc

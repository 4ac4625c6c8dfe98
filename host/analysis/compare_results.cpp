#include "host/analysis/compare_results.hpp"
#include "host/scenario/output_schema.hpp"
#include "host/util/json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include "host/analysis/kept_trajectory_pairs.hpp"
#include "host/analysis/rounding_sensitivity.hpp"
#include "host/io/results_reader.hpp"
#include "host/io/results_writer.hpp"
#include "host/stats/run_statistics.hpp"
#include "host/stats/sort_finite.hpp"
#include "rbmc/sample/sample_status.hpp"

namespace rbmc {

namespace {

constexpr double kQuantilesJudged[3] = {0.05, 0.5, 0.95};

double unit_roundoff(const std::string& precision) {
  return precision == "float" ? 0x1p-24 : 0x1p-53;  // 5.96e-8, 1.11e-16
}

// Whether a file stores its real values in float32 ([output] storage), whatever its arithmetic.
bool stored_in_float32(const ResultsReader& r) {
  return r.has_attribute("", "storage") && r.string_attribute("", "storage").rfind("float32", 0) == 0;
}

// The rows of a file that hold results: all of a complete file, the rows done of a partial one.
std::vector<std::size_t> rows_done(const std::vector<std::uint8_t>& status) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < status.size(); ++i)
    if (status[i] != kStatusNotRun) rows.push_back(i);
  return rows;
}

// Whether a row done was integrated: one not integrated (invalid_body, invalid_load) has inputs
// but no results. Its final state, drifts and reaction are NaN, and in the files of builds before
// 2026-12-07 its initial state and zeros, which are no results either.
bool integrated(std::uint8_t status) { return was_integrated(SampleStatus(status)); }

double median_of(std::vector<double> x) {
  if (x.empty()) return 0;
  std::nth_element(x.begin(), x.begin() + std::ptrdiff_t(x.size() / 2), x.end());
  return x[x.size() / 2];
}

double sd_of(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  double mean = 0, m2 = 0, n = 0;
  for (double v : x) {  // Welford
    n += 1;
    const double d = v - mean;
    mean += d / n;
    m2 += d * (v - mean);
  }
  return std::sqrt(m2 / (n - 1));
}

// One compared dataset: its name, a label per component (none for a scalar), and whether it is an input.
struct Compared {
  std::string dataset;
  std::vector<std::string> components;
  bool input;
};

// The datasets both files hold that the schema marks as compared (host/scenario/output_schema.hpp);
// a file written with [output] samples may hold fewer.
std::vector<Compared> compared_datasets(const ResultsReader& a, const ResultsReader& b) {
  std::vector<Compared> list;
  const auto both = [&](const std::string& d) { return a.has(d) && b.has(d); };
  for (const SampleDataset& d : common_sample_datasets())
    if (d.compared && both(d.path)) list.push_back({d.path, d.components, d.role == SampleRole::input});
  // A group's coordinates (dimension scales: sample, xyz, ...) are not quantities.
  const auto is_coordinate = [&](const std::string& path) { return a.has_attribute(path, "CLASS"); };
  if (both("samples/params"))
    for (const std::string& p : a.children("samples/params"))
      if (b.has("samples/params/" + p) && !is_coordinate("samples/params/" + p))
        list.push_back({"samples/params/" + p, {}, true});
  if (both("samples/final/reaction_force")) list.push_back({"samples/final/reaction_force", {"x", "y", "z"}, false});
  if (both("samples/events"))
    for (const std::string& e : a.children("samples/events"))
      if (both("samples/events/" + e + "/time")) list.push_back({"samples/events/" + e + "/time", {}, false});
  return list;
}

std::string component_label(const Compared& d, std::size_t dim, std::size_t k) {
  if (dim == 1) return "";
  if (d.components.size() == dim) return "[" + d.components[k] + "]";
  return "[" + std::to_string(k) + "]";
}

// The magnitude of one row of a (rows, dim) array: its Euclidean norm over the components.
double row_norm(const std::vector<double>& data, std::size_t row, std::size_t dim) {
  double s = 0;
  for (std::size_t c = 0; c < dim; ++c) s += data[row * dim + c] * data[row * dim + c];
  return std::sqrt(s);
}

// One number formatted into text of any length (a fixed 64 bytes cut the dopri5 tolerance's
// derivation to "... each within )").
std::string format(const char* f, double x) {
  std::string text(std::size_t(std::snprintf(nullptr, 0, f, x)), '\0');
  std::snprintf(text.data(), text.size() + 1, f, x);
  return text;
}

// The median norm of a kept-trajectory dataset's rows (one sample at one output time) in file a,
// the scale below which its tolerance does not shrink: over every row, or where there are more
// than norm_rows, over blocks of samples evenly spread through the file that hold about that many.
// Read block_samples samples at a time.
double typical_trajectory_norm(const ResultsReader& a, const std::string& dataset, std::size_t n_kept,
                               std::size_t n_times, std::size_t block_samples, std::size_t norm_rows) {
  const std::size_t n_blocks = (n_kept + block_samples - 1) / block_samples,
                    wanted = std::max<std::size_t>(1, norm_rows / std::max<std::size_t>(1, n_times * block_samples)),
                    every = std::max<std::size_t>(1, (n_blocks + wanted - 1) / wanted);
  std::vector<double> norms;
  for (std::size_t k = 0; k < n_blocks; k += every) {
    const std::vector<double> x = a.doubles(dataset, k * block_samples, block_samples).data;
    const std::size_t rows = std::min(block_samples, n_kept - k * block_samples) * n_times;
    const std::size_t dim = x.size() / std::max<std::size_t>(1, rows);
    for (std::size_t r = 0; r < rows; ++r)
      if (const double v = row_norm(x, r, dim); std::isfinite(v)) norms.push_back(v);
  }
  return median_of(std::move(norms));
}

// The retained trajectories of the samples both files keep, at every output time, sample by
// sample (one row per dataset: the distributions over time are /statistics' business), read a
// block of samples at a time.
void compare_trajectories(const ResultsReader& a, const ResultsReader& b, double rtol, double atol,
                          const CompareOptions& options, Comparison& c, std::set<std::uint64_t>& mismatched,
                          std::set<std::string>& mismatched_quantities) {
  const KeptRowPairs common = kept_row_pairs(a, b);
  if (common.empty()) return;
  const std::vector<double> times_a = a.doubles("trajectories/time").data, times_b = b.doubles("trajectories/time").data;
  const std::size_t n_times_a = times_a.size(), n_times_b = times_b.size();
  const auto times = common_output_times(times_a, times_b);
  if (times.size() != n_times_a || n_times_a != n_times_b)
    c.notes.push_back(times.empty()
                          ? "trajectories: the files hold no output time in common (" + std::to_string(n_times_a) +
                                " and " + std::to_string(n_times_b) + " times): not compared"
                          : "trajectories: compared at the " + std::to_string(times.size()) +
                                " output times both files hold (of " + std::to_string(n_times_a) + " and " +
                                std::to_string(n_times_b) + ")");
  if (times.empty()) return;
  const std::size_t n_kept_a = a.uint64s("trajectories/sample_index").data.size();
  for (const char* part : {"position", "orientation", "velocity", "angular_velocity"}) {
    const std::string name = std::string("trajectories/") + part;
    const std::size_t dim = part == std::string("orientation") ? 4 : 3;
    const bool orientation = dim == 4;
    const std::size_t block_samples = std::max<std::size_t>(
        1, options.trajectory_block_values / (std::max(n_times_a, n_times_b) * dim));
    const double typical =
        typical_trajectory_norm(a, name, n_kept_a, n_times_a, block_samples, options.trajectory_norm_rows);
    ComponentComparison r;
    r.name = name + " (" + std::to_string(common.size()) + " kept in both)";
    r.tolerance = atol + rtol * typical;
    r.resolution_limited = true;  // judged sample by sample only
    r.per_sample_only = true;
    for_each_kept_row_block(a, b, name, common, block_samples, [&](const KeptRowBlock& block) {
      const std::vector<double>& x = block.a;
      const std::vector<double>& y = block.b;
      if (x.size() != block.a_rows * n_times_a * dim || y.size() != block.b_rows * n_times_b * dim)
        throw Hdf5Error(name + " of " + c.path_a + " or " + c.path_b + " has another shape than its kept samples' " +
                        "and output times'");
      for (std::size_t p = 0; p < block.n_pairs; ++p) {
        const std::size_t i = block.pairs[p].a_row - block.a_first, j = block.pairs[p].b_row - block.b_first;
        bool differs = false;
        for (const auto& [ka, kb] : times) {
          const std::size_t ra = i * n_times_a + ka, rb = j * n_times_b + kb;
          double sign = 1;
          if (orientation) {
            double dot = 0;
            for (std::size_t e = 0; e < 4; ++e) dot += x[ra * 4 + e] * y[rb * 4 + e];
            sign = dot < 0 ? -1 : 1;
          }
          const double scale = std::max({row_norm(x, ra, dim), row_norm(y, rb, dim), typical});
          for (std::size_t e = 0; e < dim; ++e) {
            const double u = x[ra * dim + e], v = sign * y[rb * dim + e];
            if (std::isnan(u) && std::isnan(v)) continue;
            const double diff = std::isnan(u) || std::isnan(v) ? INFINITY : std::abs(u - v);
            const double tol = atol + rtol * scale;
            r.max_abs = std::max(r.max_abs, diff);
            r.max_ratio = std::max(r.max_ratio, tol > 0 ? diff / tol : (diff > 0 ? INFINITY : 0));
            differs = differs || !(diff <= tol);
          }
        }
        if (differs) {
          ++r.mismatched;
          mismatched.insert(block.pairs[p].sample);
          mismatched_quantities.insert(name);
        }
      }
    });
    c.components.push_back(r);
  }
}

}  // namespace

NumericalTolerance numerical_tolerance(const std::string& path_a, const std::string& path_b) {
  NumericalTolerance t;
  double dopri_rtol = 0, dopri_atol = 0;
  bool float32_storage = false;
  double arithmetic_epsilon = 0;
  for (const std::string& path : {path_a, path_b}) {
    const ResultsReader r(path);
    arithmetic_epsilon = std::max(arithmetic_epsilon, unit_roundoff(r.string_attribute("", "precision")));
    t.epsilon = std::max(t.epsilon, arithmetic_epsilon);
    // Values stored in float32 ([output] storage) carry single precision's rounding, whatever the arithmetic.
    if (stored_in_float32(r)) {
      float32_storage = true;
      t.epsilon = std::max(t.epsilon, unit_roundoff("float"));
    }
    const bool adaptive = r.has_attribute("", "integrator") && r.string_attribute("", "integrator") == "dopri5";
    double steps = r.has_attribute("", "n_steps") ? r.number_attribute("", "n_steps") : 0;
    if (adaptive) {
      dopri_rtol = std::max(dopri_rtol, r.number_attribute("", "rtol"));
      dopri_atol = std::max(dopri_atol, r.number_attribute("", "atol"));
      if (r.has_attribute("", "total_steps") && r.number_attribute("", "n_samples") > 0)
        steps = r.number_attribute("", "total_steps") / r.number_attribute("", "n_samples");
    }
    t.steps = std::max(t.steps, steps);
  }
  // Rounding: each step commits a few hundred operations, each within one unit roundoff ε; their
  // errors add up like a random walk over n steps (√n) and are amplified by the dynamics' mild
  // conditioning. 100 ε √n is two orders above one rounding per step: what two correct
  // implementations of the same arithmetic (other operation order, fused multiply-adds) can
  // differ by in a non-chaotic sample.
  t.rtol = 100 * t.epsilon * std::sqrt(std::max(1.0, t.steps));
  t.atol = 1e-12;
  // Which rounding sets eps: the coarser arithmetic, or a double run's values stored in float32.
  const bool storage_sets_epsilon = float32_storage && arithmetic_epsilon < t.epsilon;
  t.derivation = format("100 eps sqrt(n) with eps = %.3g", t.epsilon) +
                 (storage_sets_epsilon ? " (a file's float32 storage)" : " (the coarser precision)") +
                 format(", n = %.0f steps", t.steps);
  // Adaptive steps: where the two runs accept other step sequences (another precision, a step
  // accepted by a hair in one and rejected in the other), each carries its own global error, a
  // small multiple of the local tolerance; 100 × (rtol, atol) bounds it.
  if (dopri_rtol > 0 && 100 * dopri_rtol > t.rtol) {
    t.rtol = 100 * dopri_rtol;
    t.derivation = format("100 x the adaptive rtol %.3g (two step sequences, each within its global error)", dopri_rtol);
  }
  t.atol = std::max(t.atol, 100 * dopri_atol);
  // The inputs: the same draws, rounded once where a file stores them in float32 (a value within
  // half a unit in the last place, 2⁻²⁴ of itself; below float's normal range, within its
  // smallest subnormal): a float64 and a float32 file of one run hold the same samples.
  t.input_rtol = float32_storage ? unit_roundoff("float") : 1e-12;
  t.input_atol = float32_storage ? double(std::numeric_limits<float>::denorm_min()) : 0.0;
  return t;
}

namespace {

// Stage 1's product: the two files and the rows they share.
struct Pairing {
  const ResultsReader& a;
  const ResultsReader& b;
  std::vector<std::size_t> done_a, done_b;                 // rows done (inputs)
  std::vector<std::size_t> integrated_a, integrated_b;     // rows done and integrated (results)
  std::vector<std::pair<std::size_t, std::size_t>> common;  // (row in a, row in b) of one sample
  std::vector<bool> common_integrated;                     // per pair: integrated in a or in b
  std::vector<std::uint64_t> index_a;                      // a's global sample index per row
  std::vector<std::uint64_t> other_status;                 // common samples whose status differs
  bool same_samples = false;                               // both hold exactly the common samples
  bool precisions_differ = false;
  double duration = 0;
};

// What stage 2 finds beyond the components themselves, for the verdict.
struct Findings {
  std::set<std::uint64_t> mismatched, inputs_differ;       // global indices
  std::set<std::string> mismatched_quantities;
  std::unordered_map<std::uint64_t, double> scaled_difference;  // final state, FinalStateScales units
  FinalStateScales scales;
};

// The per-quantity tolerances: derived or given for the results; the inputs' are always derived
// (NumericalTolerance::input_rtol): they agree within it or are not the same samples.
struct Tolerances {
  double rtol, atol;
  double fine_rtol;  // a float and a double file: the double run's own rtol (derived only), else 0
  double input_rtol, input_atol;
};

Pairing pair_rows(const ResultsReader& a, const ResultsReader& b, Comparison& c) {
  Pairing f{a, b};
  f.index_a = a.uint64s("samples/index").data;
  const std::vector<std::uint64_t> index_b = b.uint64s("samples/index").data;
  const std::vector<std::uint8_t> status_a = a.uint8s("samples/status").data, status_b = b.uint8s("samples/status").data;
  f.done_a = rows_done(status_a);
  f.done_b = rows_done(status_b);
  for (std::size_t i : f.done_a)
    if (integrated(status_a[i])) f.integrated_a.push_back(i);
  for (std::size_t j : f.done_b)
    if (integrated(status_b[j])) f.integrated_b.push_back(j);
  std::unordered_map<std::uint64_t, std::size_t> row_b;
  for (std::size_t j : f.done_b) row_b[index_b[j]] = j;
  for (std::size_t i : f.done_a)
    if (const auto it = row_b.find(f.index_a[i]); it != row_b.end()) f.common.emplace_back(i, it->second);
  c.n_a = f.done_a.size();
  c.n_b = f.done_b.size();
  c.n_common = f.common.size();
  f.same_samples = c.n_common > 0 && c.n_common == c.n_a && c.n_common == c.n_b;
  f.precisions_differ = a.string_attribute("", "precision") != b.string_attribute("", "precision");
  f.duration = a.has_attribute("", "duration") ? a.number_attribute("", "duration") : 0;
  for (const auto& [i, j] : f.common) {
    if (status_a[i] != status_b[j]) f.other_status.push_back(f.index_a[i]);
    // Where one file integrated the sample and the other did not, its results differ: a NaN
    // against a number (the status differs too).
    f.common_integrated.push_back(integrated(status_a[i]) || integrated(status_b[j]));
  }
  c.status_mismatches = f.other_status.size();
  return f;
}

// One dataset's rows as the comparison sees them.
struct DatasetView {
  const Compared& d;
  const std::vector<double>& x;  // a's rows, (rows, dim)
  const std::vector<double>& y;  // b's
  std::size_t dim;
  bool orientation;
  double typical, largest;       // median and largest norm over a's rows
  double rtol, atol;
};

// Sample by sample: the differences of one component over the common samples against the
// tolerance; the finite pairs go back for the paired equivalence bounds.
void compare_pairs(const Pairing& f, const DatasetView& v, std::size_t k, ComponentComparison& r, Findings& found,
                   std::vector<double>& paired_a, std::vector<double>& paired_b) {
  double squared_differences = 0;
  for (std::size_t p = 0; p < f.common.size(); ++p) {
    const auto [i, j] = f.common[p];
    if (!v.d.input && !f.common_integrated[p]) continue;  // no results in either file
    const double u = v.x[i * v.dim + k];
    double w = v.y[j * v.dim + k];
    if (v.orientation) {
      // q and −q are one attitude: compare b's with the sign that matches a's.
      double dot = 0;
      for (std::size_t e = 0; e < 4; ++e) dot += v.x[i * 4 + e] * v.y[j * 4 + e];
      if (dot < 0) w = -w;
    }
    if (std::isnan(u) && std::isnan(w)) continue;
    if (std::isfinite(u) && std::isfinite(w)) {
      paired_a.push_back(u);
      paired_b.push_back(w);
      squared_differences += (u - w) * (u - w);
    }
    const double diff = std::isnan(u) || std::isnan(w) ? INFINITY : std::abs(u - w);
    const double scale = std::max({row_norm(v.x, i, v.dim), row_norm(v.y, j, v.dim), v.typical});
    const double tol = v.atol + v.rtol * scale;
    const double ratio = tol > 0 ? diff / tol : (diff > 0 ? INFINITY : 0);
    r.max_abs = std::max(r.max_abs, diff);
    r.max_ratio = std::max(r.max_ratio, ratio);
    const std::uint64_t sample = f.index_a[i];
    if (!(ratio <= 1)) {
      ++r.mismatched;
      (v.d.input ? found.inputs_differ : found.mismatched).insert(sample);
      if (!v.d.input) found.mismatched_quantities.insert(r.name.substr(0, r.name.find('[')));
    }
    if (!v.d.input && v.typical > 0) {
      double& s = found.scaled_difference[sample];
      s = std::max(s, diff / v.typical);
    }
  }
  if (!paired_a.empty()) r.rms_difference = std::sqrt(squared_differences / double(paired_a.size()));
}

// As distributions, over every row done of each file: spread, resolution, and the equivalence
// of the mean and quantiles (two one-sided tests), with the paired bounds where the files hold
// the same samples.
void judge_distribution(const Pairing& f, const DatasetView& v, std::size_t k, const Tolerances& t,
                        const CompareOptions& options, const std::vector<double>& paired_a,
                        const std::vector<double>& paired_b, ComponentComparison& r) {
  // Orientations in the hemisphere w ≥ 0 in both files.
  const auto value = [&](const std::vector<double>& data, std::size_t row) {
    const double u = data[row * v.dim + k];
    return v.orientation && data[row * 4] < 0 ? -u : u;
  };
  std::vector<double> column_a, column_b, finite_a, finite_b;
  for (std::size_t i : v.d.input ? f.done_a : f.integrated_a) column_a.push_back(value(v.x, i));
  for (std::size_t j : v.d.input ? f.done_b : f.integrated_b) column_b.push_back(value(v.y, j));
  for (double u : column_a)
    if (std::isfinite(u)) finite_a.push_back(u);
  for (double u : column_b)
    if (std::isfinite(u)) finite_b.push_back(u);
  r.spread = sd_of(finite_a);
  // Sorted once for the quantiles' tests and KS (each sorted its own copies: 12 sorts, 80 % of a
  // compare's time), by the sketches' sort (vqsort where built; -0 before +0).
  sort_finite(finite_a.data(), finite_a.size());
  sort_finite(finite_b.data(), finite_b.size());
  // Below ten tolerances of spread, the distribution is a constant to the runs' arithmetic: a
  // rank test would see only rounding. Such a quantity is judged sample by sample.
  r.resolution_limited = r.spread <= 10 * r.tolerance;
  // Within the tolerance, yet a float run's error is a tenth of the spread or more, where the
  // double run would resolve that spread: float cannot resolve this quantity's distribution (a
  // small spread on a large value: positions far from the origin, say).
  r.unresolved_by_coarser = !v.d.input && t.fine_rtol > 0 && r.mismatched == 0 && r.rms_difference > 0.1 * r.spread &&
                            r.spread > 10 * (v.atol + t.fine_rtol * v.typical);
  const double largest_tolerance = v.atol + v.rtol * v.largest;
  r.margin = options.margin * r.spread + largest_tolerance;
  r.mean = mean_equivalence(column_a, column_b, r.margin, options.alpha);
  for (int q = 0; q < 3; ++q)
    r.quantiles[q] =
        quantile_equivalence_sorted(finite_a, finite_b, kQuantilesJudged[q], r.margin, options.rank_margin, options.alpha);
  if (f.same_samples) {
    // Only the mismatched samples (a fraction f) can move the distribution: each quantile of b
    // lies between a's at p ± f (up to the tolerance), and the mean difference has the paired
    // standard error. Both bound the same differences, often far tighter than two independent
    // samples' would.
    const double fraction = double(r.mismatched) / double(f.common.size());
    for (int q = 0; q < 3; ++q) {
      const double p = kQuantilesJudged[q], at = quantile_of_sorted(finite_a, p);
      const double shift = std::max(quantile_of_sorted(finite_a, std::min(1.0, p + fraction)) - at,
                                    at - quantile_of_sorted(finite_a, std::max(0.0, p - fraction)));
      QuantileEquivalence& e = r.quantiles[q];
      e.bound = std::min(e.bound, std::max(std::abs(e.difference), shift + largest_tolerance));
      e.rank_bound = std::min(e.rank_bound, fraction);
      e.equivalent = e.bound <= r.margin || e.rank_bound <= options.rank_margin;
    }
    std::vector<double> differences(paired_a.size());
    for (std::size_t n = 0; n < paired_a.size(); ++n) differences[n] = paired_b[n] - paired_a[n];
    const EquivalenceResult m = paired_mean_equivalence(differences, r.margin, options.alpha);
    if (m.bound < r.mean.bound) r.mean = m;
  }
  r.equivalent = r.mean.equivalent;
  for (const EquivalenceResult& q : r.quantiles) r.equivalent = r.equivalent && q.equivalent;
  r.ks = ks_two_sample_sorted(finite_a, finite_b);
}

// Stage 2: every component of every compared dataset.
void compare_quantities(const Pairing& f, const Tolerances& t, const CompareOptions& options, Comparison& c,
                        Findings& found) {
  for (const Compared& d : compared_datasets(f.a, f.b)) {
    const Array<double> x = f.a.doubles(d.dataset), y = f.b.doubles(d.dataset);
    const std::size_t n_rows_a = x.shape.empty() ? 0 : std::size_t(x.shape[0]);
    const std::size_t dim = n_rows_a == 0 ? 1 : x.data.size() / n_rows_a;
    const bool is_time = d.dataset == "samples/final/time" || d.dataset.find("/events/") != std::string::npos;
    // The quantity's typical magnitude: the median norm over a's rows (times: at least the duration).
    std::vector<double> norms;
    for (std::size_t i : d.input ? f.done_a : f.integrated_a)
      if (const double v = row_norm(x.data, i, dim); std::isfinite(v)) norms.push_back(v);
    double typical = median_of(norms);
    if (is_time) typical = std::max(typical, f.duration);
    double largest = typical;
    for (double v : norms) largest = std::max(largest, v);
    const DatasetView view{d,
                           x.data,
                           y.data,
                           dim,
                           d.dataset == "samples/final/orientation",
                           typical,
                           largest,
                           d.input ? t.input_rtol : t.rtol,
                           d.input ? t.input_atol : t.atol};
    if (!d.input && d.dataset.rfind("samples/final/", 0) == 0) found.scales.set(d.dataset, typical);
    const std::string short_name = d.dataset.substr(d.dataset.find('/') + 1);
    for (std::size_t k = 0; k < dim; ++k) {
      ComponentComparison r;
      r.name = short_name + component_label(d, dim, k);
      r.input = d.input;
      r.tolerance = view.atol + view.rtol * typical;
      std::vector<double> paired_a, paired_b;
      compare_pairs(f, view, k, r, found, paired_a, paired_b);
      judge_distribution(f, view, k, t, options, paired_a, paired_b, r);
      c.components.push_back(r);
    }
  }
}

// Why a component's distributions are not shown equivalent, in words.
std::string distribution_reason(const ComponentComparison& r, const CompareOptions& options) {
  std::string what;
  if (!r.mean.equivalent) {
    what = "the mean differs by " + format("%.3g", r.mean.difference) + format(" (bound %.3g", r.mean.bound);
  } else {
    const QuantileEquivalence* worst = nullptr;
    for (const QuantileEquivalence& q : r.quantiles)
      if (!q.equivalent && (worst == nullptr || q.rank_bound > worst->rank_bound)) worst = &q;
    const char* names[3] = {"the 5 % quantile", "the median", "the 95 % quantile"};
    what = std::string(names[worst - r.quantiles]) + " differs by " + format("%.3g", worst->difference) +
           format(" (bound %.3g", worst->bound) + format("; %.3g in probability,", worst->rank_shift) +
           format(" bound %.3g", worst->rank_bound) + format(" beyond %.3g", options.rank_margin);
  }
  // Within the margin as measured, beyond it only by the uncertainty: more samples would decide.
  bool undecided = std::abs(r.mean.difference) <= r.margin;
  for (const QuantileEquivalence& q : r.quantiles)
    undecided = undecided && (std::abs(q.difference) <= r.margin || std::abs(q.rank_shift) <= options.rank_margin);
  return r.name + ": " + what + format(" at 1 - alpha) beyond the margin %.3g", r.margin) +
         format(" = %.3g sd + tolerance", options.margin) +
         (undecided ? ": too few samples to show agreement (the differences measured are within the margin; more "
                      "samples or a wider --margin would decide)"
                    : "");
}

void add_distribution_reasons(Comparison& c, const CompareOptions& options, bool outputs_only) {
  for (const ComponentComparison& r : c.components)
    if (!r.equivalent && !(outputs_only && r.input)) c.reasons.push_back(distribution_reason(r, options));
}

// Stage 4, per sample: samples beyond the tolerance are re-integrated to tell rounding that grew
// (chaos; or float that cannot carry single samples) from a real difference.
void judge_mismatched_samples(const Pairing& f, const CompareOptions& options, Findings& found, Comparison& c) {
  std::vector<std::uint64_t> check;
  const std::size_t m = c.mismatched_samples.size(), limit = std::min(m, options.sensitivity_samples);
  for (std::size_t k = 0; k < limit; ++k) check.push_back(c.mismatched_samples[k * m / limit]);
  std::vector<double> differences;
  for (std::uint64_t s : check) differences.push_back(found.scaled_difference[s]);
  // The perturbation: what rounding can inject over the run at most, coherently: 100 units of
  // roundoff a step (the tolerance's per-step allowance) over n steps, capped at 1e-3 (beyond that
  // a difference is no rounding whatever the precision).
  const double perturbation = std::min(1e-3, 100 * c.tolerance.epsilon * std::max(1.0, c.tolerance.steps));
  c.sensitivity = check_rounding_sensitivity(f.a, check, differences, found.scales, perturbation, f.precisions_differ);
  const std::string rerun = "a rerun perturbed by " + format("%.3g", perturbation) +
                            (f.precisions_differ ? std::string(", or in float against double,") : std::string());
  const bool explained = c.sensitivity.unavailable.empty() && c.sensitivity.checked > 0 &&
                         c.sensitivity.sensitive == c.sensitivity.checked;
  c.chaotic = explained && !f.precisions_differ;
  c.float_unresolved = explained && f.precisions_differ;
  trajectory_growth(f.a, f.b, c.mismatched_samples, c.trajectory_growth_rate, c.trajectories_compared);
  std::string quantities;
  for (const std::string& q : c.mismatched_quantities) quantities += (quantities.empty() ? "" : ", ") + q;
  if (quantities.empty()) quantities = "their status";
  double worst = 0;
  for (const ComponentComparison& r : c.components)
    if (!r.input) worst = std::max(worst, r.max_ratio);
  const std::string what = std::to_string(m) + " of " + std::to_string(c.n_common) + " samples (" +
                           std::to_string(c.status_mismatches) + " with another status) differ beyond the tolerance in " +
                           quantities + ", by up to " + format("%.3g", worst) + " tolerances";
  if (!explained) {
    std::string reason = what;
    if (!c.sensitivity.unavailable.empty()) {
      reason += " (the rounding-sensitivity check could not run: " + c.sensitivity.unavailable + ")";
    } else {
      reason += "; " + std::to_string(c.sensitivity.checked - c.sensitivity.sensitive) + " of " +
                std::to_string(c.sensitivity.checked) + " checked are not sensitive to rounding (" + rerun +
                " moves them by " + format("%.2g", c.sensitivity.min_ratio) + " of the difference or less), e.g. sample";
      for (std::uint64_t s : c.sensitivity.insensitive_samples) reason += " " + std::to_string(s);
      reason += ": a real difference";
    }
    c.reasons.push_back(reason);
    return;
  }
  // Explained by rounding: in one precision, chaos (sensitive dependence); across precisions,
  // float's own rounding grown beyond what a single sample can carry. Either way the samples no
  // longer pair up, and the verdict rests on the distributions.
  std::string note = (f.precisions_differ ? "float cannot resolve " + quantities + " sample by sample: "
                                          : std::string("chaos: ")) +
                     what + "; all " + std::to_string(c.sensitivity.checked) + " checked are sensitive to rounding (" +
                     rerun + " moves them by at least " + format("%.2g", c.sensitivity.min_ratio) +
                     " of the difference; separations grow at " + format("%.3g", c.sensitivity.median_growth_rate) + "/s";
  if (c.trajectories_compared > 0)
    note += format(", %.3g/s in the kept trajectories", c.trajectory_growth_rate) + " of " +
            std::to_string(c.trajectories_compared);
  note += "): the verdict rests on the distributions";
  c.pass = true;
  for (const ComponentComparison& r : c.components) c.pass = c.pass && (r.input || r.equivalent);
  if (c.pass) {
    c.notes.push_back(note);
  } else {
    c.reasons.push_back(note + ", which differ:");
    add_distribution_reasons(c, options, true);
  }
}

// Stage 4: the verdict and its reasons.
void judge(const Pairing& f, const CompareOptions& options, Findings& found, Comparison& c) {
  c.input_mismatches = found.inputs_differ.size();
  c.mismatched_samples.assign(found.mismatched.begin(), found.mismatched.end());
  c.mismatched_quantities.assign(found.mismatched_quantities.begin(), found.mismatched_quantities.end());
  c.distribution_pass = true;
  for (const ComponentComparison& r : c.components) c.distribution_pass = c.distribution_pass && r.equivalent;
  if (!c.complete_a || !c.complete_b)
    c.notes.push_back(std::string("incomplete: ") + (!c.complete_a ? c.path_a : c.path_b) +
                      " is a partial file (an interrupted run); only the rows done are compared");
  if (options.statistical) {
    c.pass = c.distribution_pass;
    if (!c.pass) add_distribution_reasons(c, options, false);
  } else {
    c.per_sample_pass = c.n_common > 0 && c.input_mismatches == 0 && c.mismatched_samples.empty();
    c.pass = c.per_sample_pass;
    if (c.n_common == 0) c.reasons.push_back("the files hold no sample in common");
    // Builds whose draws differ (a newer one redraws what an older one kept) give some samples
    // other inputs from the same scenario and seed: say so rather than guess.
    const int revision_a = f.a.draw_revision(), revision_b = f.b.draw_revision();
    if (c.input_mismatches > 0 && revision_a != revision_b)
      c.reasons.push_back(std::to_string(c.input_mismatches) +
                          " common samples have other inputs: the files were drawn by builds whose draws differ "
                          "(draw revision " + std::to_string(revision_a) + " against " + std::to_string(revision_b) +
                          ", docs/output-format.md); run both with one build, or compare them with --statistical");
    else if (c.input_mismatches > 0)
      c.reasons.push_back(std::to_string(c.input_mismatches) +
                          " common samples have other inputs: the files do not hold the same samples (another seed, "
                          "scenario or design?); compare them with --statistical");
    if (c.n_common > 0 && c.input_mismatches == 0 && !c.mismatched_samples.empty())
      judge_mismatched_samples(f, options, found, c);
  }
  for (const ComponentComparison& r : c.components)
    if (r.unresolved_by_coarser) {
      c.pass = false;
      c.reasons.insert(c.reasons.begin(), "float cannot resolve " + r.name + ": its error, rms " +
                                              format("%.3g", r.rms_difference) + ", is " +
                                              format("%.3g", 100 * r.rms_difference / r.spread) +
                                              " % of its spread over the samples (sd " + format("%.3g", r.spread) +
                                              "), which double resolves; within the per-sample tolerance, yet the "
                                              "distribution float reports is not the quantity's");
    }
  for (const ComponentComparison& r : c.components)
    if (r.resolution_limited && !r.input && r.spread > 0 && r.mismatched == 0 && !options.statistical)
      c.notes.push_back(r.name + ": spread " + format("%.3g", r.spread) +
                        format(" is within 10 tolerances (%.3g): judged sample by sample, not as a distribution",
                               r.tolerance));
}

}  // namespace

// The stages: pair the rows, compare every quantity (sample by sample and as distributions),
// compare the kept trajectories, judge.
Comparison compare_results(const std::string& path_a, const std::string& path_b, const CompareOptions& options) {
  Comparison c;
  c.path_a = path_a;
  c.path_b = path_b;
  const ResultsReader a(path_a), b(path_b);
  require_results_file(a);
  require_results_file(b);
  const auto complete = [](const ResultsReader& r) {
    return r.has_attribute("", "complete") && r.number_attribute("", "complete") == 1;
  };
  c.complete_a = complete(a);
  c.complete_b = complete(b);
  c.same_scenario = a.string_attribute("", "scenario") == b.string_attribute("", "scenario") &&
                    a.number_attribute("", "seed") == b.number_attribute("", "seed");
  c.tolerance = numerical_tolerance(path_a, path_b);
  const Pairing f = pair_rows(a, b, c);
  const double epsilon_fine = std::min(unit_roundoff(a.string_attribute("", "precision")),
                                       unit_roundoff(b.string_attribute("", "precision")));
  const Tolerances t{options.rtol.value_or(c.tolerance.rtol), options.atol.value_or(c.tolerance.atol),
                     f.precisions_differ && !options.rtol ? c.tolerance.rtol * epsilon_fine / c.tolerance.epsilon : 0.0,
                     c.tolerance.input_rtol, c.tolerance.input_atol};
  Findings found;
  found.mismatched.insert(f.other_status.begin(), f.other_status.end());  // whatever their values
  compare_quantities(f, t, options, c, found);
  // Trajectories are compared sample by sample: --statistical's files may hold other samples
  // under the same indices, whose rows once showed "same" without any test behind the word.
  if (!options.statistical)
    compare_trajectories(a, b, t.rtol, t.atol, options, c, found.mismatched, found.mismatched_quantities);
  else if (a.has("trajectories/sample_index") && b.has("trajectories/sample_index"))
    c.notes.push_back("trajectories: not compared with --statistical (they are compared sample by sample; each "
                      "file's /statistics holds the distributions over time)");
  judge(f, options, found, c);
  return c;
}

void print_comparison(const Comparison& c, const CompareOptions& o, std::FILE* out) {
  std::fprintf(out, "rbmc compare: %s (%llu samples%s) vs %s (%llu samples%s), %llu in common%s\n", c.path_a.c_str(),
               static_cast<unsigned long long>(c.n_a), c.complete_a ? "" : ", incomplete", c.path_b.c_str(),
               static_cast<unsigned long long>(c.n_b), c.complete_b ? "" : ", incomplete",
               static_cast<unsigned long long>(c.n_common), c.same_scenario ? "" : "; scenarios or seeds differ");
  std::fprintf(out, "  mode         %s\n",
               o.statistical ? "statistical (distributions only)" : "per sample, then distributions where chaos");
  std::fprintf(out, "  tolerance    |a - b| <= %.3g + %.3g max(|a|, |b|, median |.|) per quantity%s\n",
               o.atol.value_or(c.tolerance.atol), o.rtol.value_or(c.tolerance.rtol),
               o.rtol ? " (as given)" : (" (derived: " + c.tolerance.derivation + ")").c_str());
  std::fprintf(out, "  inputs       |a - b| <= %.3g + %.3g max(|a|, |b|, median |.|) (%s)\n", c.tolerance.input_atol,
               c.tolerance.input_rtol,
               c.tolerance.input_atol > 0 ? "the same draws, a file storing them in float32" : "the same draws, in double");
  std::fprintf(out, "  equivalence  means and 5/50/95 %% quantiles within %.3g sd + tolerance, or the quantiles within "
                    "%.3g in probability (two one-sided tests, alpha %.3g each)\n", o.margin, o.rank_margin, o.alpha);
  // The names' column as wide as the longest ("trajectories/angular_velocity (5000 kept in both)"
  // took its row's numbers out of line at a fixed 40).
  int width = 40;
  for (const ComponentComparison& r : c.components) width = std::max(width, int(r.name.size()));
  std::fprintf(out, "  %-*s %10s %9s %9s | %10s %10s %10s %7s  %s\n", width, "quantity", "max|a-b|", "/tol", "mismatch",
               "spread", "margin", "bound", "KS D", "verdict");
  for (const ComponentComparison& r : c.components) {
    double bound = r.mean.bound;
    for (const QuantileEquivalence& q : r.quantiles) bound = std::max(bound, q.bound);
    const char* verdict = r.mismatched > 0 && !o.statistical
                              ? (r.input ? "inputs differ" : c.chaotic || c.float_unresolved ? (r.equivalent ? "rounding grew; equivalent" : "rounding grew; differs") : "differs")
                          : r.resolution_limited && !o.statistical ? "same (resolution)"
                          : r.equivalent                           ? "same"
                          : o.statistical                          ? "differs"
                                                                   : "same samples";
    if (r.per_sample_only)  // nothing measured as a distribution: no numbers that look measured
      std::fprintf(out, "  %-*s %10.3g %9.3g %9llu | %10s %10s %10s %7s  %s\n", width, r.name.c_str(), r.max_abs,
                   r.max_ratio, static_cast<unsigned long long>(r.mismatched), "-", "-", "-", "-", verdict);
    else
      std::fprintf(out, "  %-*s %10.3g %9.3g %9llu | %10.3g %10.3g %10.3g %7.4f  %s\n", width, r.name.c_str(), r.max_abs,
                   r.max_ratio, static_cast<unsigned long long>(r.mismatched), r.spread, r.margin, bound, r.ks.statistic,
                   verdict);
  }
  std::fprintf(out, "  status       %llu of %llu common samples end with another status\n",
               static_cast<unsigned long long>(c.status_mismatches), static_cast<unsigned long long>(c.n_common));
  for (const std::string& note : c.notes) std::fprintf(out, "  note         %s\n", note.c_str());
  for (const std::string& reason : c.reasons) std::fprintf(out, "  reason       %s\n", reason.c_str());
  std::fprintf(out, "%s\n", c.pass ? "PASS" : "FAIL");
}

}  // namespace rbmc

namespace rbmc {

void print_comparison_json(const Comparison& c, const CompareOptions& o, std::FILE* out) {
  JsonWriter j(out);
  j.begin_object();
  j.field("verdict", c.pass ? "PASS" : "FAIL").field("pass", c.pass);
  j.field("per_sample_pass", c.per_sample_pass).field("distribution_pass", c.distribution_pass);
  j.field("chaotic", c.chaotic).field("float_unresolved", c.float_unresolved);
  j.key("files").begin_object();
  j.key("a").begin_object().field("path", c.path_a).field("n_samples", static_cast<unsigned long long>(c.n_a));
  j.field("complete", c.complete_a).end_object();
  j.key("b").begin_object().field("path", c.path_b).field("n_samples", static_cast<unsigned long long>(c.n_b));
  j.field("complete", c.complete_b).end_object();
  j.end_object();
  j.field("n_common", static_cast<unsigned long long>(c.n_common)).field("same_scenario", c.same_scenario);
  j.field("statistical", o.statistical);
  // The tolerance judged by (--rtol/--atol where given), and the one derived from the runs.
  j.key("tolerance").begin_object().field("rtol", o.rtol.value_or(c.tolerance.rtol));
  j.field("atol", o.atol.value_or(c.tolerance.atol)).field("given", o.rtol.has_value() || o.atol.has_value());
  j.field("derived_rtol", c.tolerance.rtol).field("derived_atol", c.tolerance.atol);
  j.field("epsilon", c.tolerance.epsilon).field("steps", c.tolerance.steps).field("derivation", c.tolerance.derivation);
  j.field("input_rtol", c.tolerance.input_rtol).field("input_atol", c.tolerance.input_atol);
  j.end_object();
  j.key("margins").begin_object().field("margin_sd", o.margin).field("rank_margin", o.rank_margin).field("alpha", o.alpha);
  j.end_object();
  j.field("status_mismatches", static_cast<unsigned long long>(c.status_mismatches));
  j.field("input_mismatches", static_cast<unsigned long long>(c.input_mismatches));
  j.key("mismatched_samples").begin_array();
  for (std::uint64_t k : c.mismatched_samples) j.value(static_cast<unsigned long long>(k));
  j.end_array();
  j.key("sensitivity").begin_object();
  j.field("checked", static_cast<unsigned long long>(c.sensitivity.checked));
  j.field("sensitive", static_cast<unsigned long long>(c.sensitivity.sensitive));
  j.field("median_growth_rate", c.sensitivity.median_growth_rate).field("unavailable", c.sensitivity.unavailable);
  j.end_object();
  j.field("trajectory_growth_rate", c.trajectory_growth_rate);
  j.field("trajectories_compared", static_cast<unsigned long long>(c.trajectories_compared));
  j.key("quantities").begin_array();
  for (const ComponentComparison& r : c.components) {
    j.begin_object().field("name", r.name).field("input", r.input);
    j.field("max_abs_difference", r.max_abs).field("max_ratio_to_tolerance", r.max_ratio);
    j.field("mismatched", static_cast<unsigned long long>(r.mismatched)).field("tolerance", r.tolerance);
    j.field("spread", r.spread).field("resolution_limited", r.resolution_limited);
    j.field("rms_difference", r.rms_difference).field("unresolved_by_coarser", r.unresolved_by_coarser);
    j.field("margin", r.margin).field("equivalent", r.equivalent);
    j.key("mean").begin_object().field("difference", r.mean.difference).field("bound", r.mean.bound);
    j.field("equivalent", r.mean.equivalent).end_object();
    j.key("quantiles").begin_array();
    const double probabilities[3] = {0.05, 0.5, 0.95};
    for (int q = 0; q < 3; ++q) {
      const QuantileEquivalence& e = r.quantiles[q];
      j.begin_object().field("p", probabilities[q]).field("difference", e.difference).field("bound", e.bound);
      j.field("rank_shift", e.rank_shift).field("rank_bound", e.rank_bound).field("equivalent", e.equivalent).end_object();
    }
    j.end_array();
    j.key("ks").begin_object().field("statistic", r.ks.statistic).field("p_value", r.ks.p_value).end_object();
    j.end_object();
  }
  j.end_array();
  j.key("reasons").begin_array();
  for (const std::string& s : c.reasons) j.value(s);
  j.end_array();
  j.key("notes").begin_array();
  for (const std::string& s : c.notes) j.value(s);
  j.end_array();
  j.end_object();
  j.finish();
}

}  // namespace rbmc

// The file's /statistics group and the statistics' saved state (statistics_group.hpp).
#include "host/io/statistics_group.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "host/io/dimension_scales.hpp"
#include "host/io/h5_write.hpp"
#include "host/io/results_reader.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

using h5::create_group;
using h5::write_array;
using h5::write_counts;
using h5::write_matrix;
using h5::write_scalar_attribute;
using h5::write_string_attribute;

// The statistics' named dimensions: time, then quantile, then xyz, in each quantity's group.
void attach_statistics_dimensions(hid_t file, const std::vector<double>& times) {
  if (H5Lexists(file, "statistics", H5P_DEFAULT) <= 0) return;
  DimensionScales scales(file);
  for (const QuantityInfo& info : kStatisticsQuantities) {
    const std::string path = std::string("statistics/") + info.name;
    if (H5Lexists(file, path.c_str(), H5P_DEFAULT) <= 0) continue;  // a quantity the scenario did not keep
    const hid_t time = scales.numbers(path, "time", times);
    const hid_t quantile =
        scales.numbers(path, "quantile", std::vector<double>(kQuantileProbabilities.begin(), kQuantileProbabilities.end()));
    const hid_t xyz = info.dim > 1 ? scales.labels(path, "xyz", {"x", "y", "z"}) : -1;
    for (const char* name : {"count", "non_finite_count", "mean", "sd", "min", "max", "quantiles", "quantile_rank_error_95"}) {
      const std::string d = path + "/" + name;
      if (H5Lexists(file, d.c_str(), H5P_DEFAULT) <= 0) continue;
      h5::Handle ds(H5Dopen2(file, d.c_str(), H5P_DEFAULT), H5Dclose, "opening " + d);
      unsigned axis = 0;
      DimensionScales::attach(ds.get(), axis++, time);
      if (std::string(name) == "quantiles") DimensionScales::attach(ds.get(), axis++, quantile);
      if (info.dim > 1 && std::string(name) != "count") DimensionScales::attach(ds.get(), axis, xyz);
    }
  }
}

QuantileAccuracy write_statistics_group(hid_t file, RunStatistics& stats, const Scenario& scenario) {
  QuantileAccuracy accuracy;
  if (!stats.enabled()) return accuracy;
  stats.settle_sketches();
  h5::Handle group = create_group(file, "statistics");
  const std::size_t n_times = std::size_t(stats.n_times()), n_p = kQuantileProbabilities.size();
  write_string_attribute(group.get(), "quantile_method",
                         stats.exact() ? "exact: order statistics of every sample, linear interpolation (numpy's default)"
                                       : "sketch: a KLL quantile sketch per column (k = " + std::to_string(stats.sketch_k()) + ")" +
                                             (stats.bracketed() ? ", fed the values within brackets around the quantiles "
                                                                  "and counting the others"
                                                                : "") +
                                             ", the value at rank p (n - 1); rank error bound in quantile_rank_error_95, "
                                             "which counts the compactions a GPU makes of each batch's columns before "
                                             "they reach the sketch (docs/output-format.md)");
  write_scalar_attribute<std::uint64_t>(group.get(), "quantile_samples", H5T_NATIVE_UINT64, stats.quantile_samples());
  write_matrix(group.get(), "quantile_probabilities",
               std::vector<double>(kQuantileProbabilities.begin(), kQuantileProbabilities.end()), hsize_t(n_p), 1);
  std::vector<double> times(n_times);
  for (std::size_t k = 0; k < n_times; ++k) times[k] = scenario.output_times.at(int(k));
  write_matrix(group.get(), "time", times, hsize_t(n_times), 1);
  const auto column = [&](std::size_t k, int q) { return k * quantity::count + std::size_t(q); };
  const auto all_quantiles = stats.all_quantiles();
  const std::vector<double> all_rank_errors = stats.all_rank_errors_95();
  accuracy.method = stats.exact() ? QuantileAccuracy::Method::exact : QuantileAccuracy::Method::sketched;
  accuracy.sketch_k = stats.sketch_k();
  for (const double e : all_rank_errors) accuracy.max_rank_error_95 = std::max(accuracy.max_rank_error_95, e);
  for (std::size_t i = 0; i < kStatisticsQuantities.size(); ++i) {
    if (((scenario.output.statistics_quantities >> i) & 1u) == 0) continue;  // [output] statistics did not name it
    const QuantityInfo& info = kStatisticsQuantities[i];
    h5::Handle g = create_group(group.get(), info.name);
    write_string_attribute(g.get(), "units", info.units);
    write_string_attribute(g.get(), "description", info.description);
    const std::size_t dim = std::size_t(info.dim);
    std::vector<std::uint64_t> count(n_times), non_finite(n_times * dim);
    std::vector<double> mean(n_times * dim), sd(n_times * dim), lo(n_times * dim), hi(n_times * dim),
        quantiles(n_times * n_p * dim), rank_error(n_times * dim);
    for (std::size_t k = 0; k < n_times; ++k) {
      count[k] = std::uint64_t(stats.moments()[column(k, info.first)].count);
      for (std::size_t c = 0; c < dim; ++c) {
        const std::size_t col = column(k, info.first + int(c)), at = k * dim + c;
        const Moments& m = stats.moments()[col];
        const bool any = m.count > 0;
        non_finite[at] = std::uint64_t(m.non_finite);
        mean[at] = any ? m.mean : NAN;
        sd[at] = any ? std::sqrt(m.variance()) : NAN;
        lo[at] = any ? m.min : NAN;
        hi[at] = any ? m.max : NAN;
        const auto& q = all_quantiles[col];
        for (std::size_t j = 0; j < n_p; ++j) quantiles[(k * n_p + j) * dim + c] = q[j];
        rank_error[at] = all_rank_errors[col];
      }
    }
    // A scalar quantity's arrays drop the component axis: (T,), (T, 5).
    const auto shape = [&](std::vector<hsize_t> d) {
      if (dim > 1) d.push_back(hsize_t(dim));
      return d;
    };
    // Units and meaning on each array (the named dimensions: attach_statistics_dimensions).
    const auto describe = [&](const char* name, const std::string& units, const std::string& description) {
      h5::Handle ds(H5Dopen2(g.get(), name, H5P_DEFAULT), H5Dclose, std::string("opening ") + name);
      write_string_attribute(ds.get(), "units", units);
      write_string_attribute(ds.get(), "description", description);
    };
    write_counts(g.get(), "count", count, {hsize_t(n_times)},
                 "samples with a finite value at each output time (stopped samples have none)");
    write_counts(g.get(), "non_finite_count", non_finite, shape({hsize_t(n_times)}),
                 "samples whose value overflowed at a finite state (infinite, or beyond 1e100 in magnitude, where its square "
                 "cannot be summed): left out of every statistic");
    write_array(g.get(), "mean", mean, shape({hsize_t(n_times)}));
    write_array(g.get(), "sd", sd, shape({hsize_t(n_times)}));
    write_array(g.get(), "min", lo, shape({hsize_t(n_times)}));
    write_array(g.get(), "max", hi, shape({hsize_t(n_times)}));
    write_array(g.get(), "quantiles", quantiles, shape({hsize_t(n_times), hsize_t(n_p)}));
    if (!stats.exact()) write_array(g.get(), "quantile_rank_error_95", rank_error, shape({hsize_t(n_times)}));
    const std::string of = std::string(" of ") + info.description + " over the samples with a finite value, at each output time";
    describe("mean", info.units, "mean" + of);
    describe("sd", info.units, "standard deviation (n - 1)" + of);
    describe("min", info.units, "minimum" + of);
    describe("max", info.units, "maximum" + of);
    describe("quantiles", info.units, "quantiles at the probabilities of the quantile coordinate" + of);
    if (!stats.exact()) describe("quantile_rank_error_95", "1", "95 % bound on each quantile's rank error, as a fraction of the count (the sketch's, Hoeffding over its compactions)");
  }
  group.close("closing /statistics");
  attach_statistics_dimensions(file, times);
  return accuracy;
}

namespace {

// The exact quantiles' values, one column after another, each written from where it lies: a copy
// of them all would double what may be most of the machine's memory (a raised
// quantile_memory_mb), at Ctrl-C or at a part's end.
void write_exact_values(hid_t group, const std::vector<std::vector<double>>& columns) {
  hsize_t total = 0;
  for (const std::vector<double>& c : columns) total += c.size();
  h5::Handle space(H5Screate_simple(1, &total, nullptr), H5Sclose, "H5Screate_simple");
  h5::Handle values(H5Dcreate2(group, "values", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    H5Dclose, "creating dataset values");
  hsize_t at = 0;
  for (const std::vector<double>& c : columns) {
    hsize_t n = c.size();
    if (n == 0) continue;
    h5::check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &at, nullptr, &n, nullptr), "selecting values");
    h5::Handle memory(H5Screate_simple(1, &n, nullptr), H5Sclose, "H5Screate_simple");
    h5::check_status(H5Dwrite(values.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT, c.data()),
                     "writing dataset values");
    at += n;
  }
}

}  // namespace

void write_statistics_state(hid_t group, const StatisticsState& state,
                            const std::vector<std::vector<double>>* exact_values) {
  write_scalar_attribute<std::uint64_t>(group, "quantile_samples", H5T_NATIVE_UINT64, state.quantile_samples);
  write_array(group, "moments", state.moments, {hsize_t(state.moments.size())});
  if (exact_values != nullptr)
    write_exact_values(group, *exact_values);
  else
    write_array(group, "values", state.values, {hsize_t(state.values.size())});
  std::vector<double> counts(state.value_counts.begin(), state.value_counts.end());
  write_array(group, "value_counts", counts, {hsize_t(counts.size())});
  if (!state.sketch_level_sizes.empty()) {  // quantile sketches: (columns, levels) each
    const hsize_t levels = QuantileSketch::kMaxLevels, columns = state.sketch_level_sizes.size() / levels;
    write_array(group, "sketch_level_sizes", std::vector<double>(state.sketch_level_sizes.begin(), state.sketch_level_sizes.end()),
                {columns, levels});
    write_array(group, "sketch_compactions", std::vector<double>(state.sketch_compactions.begin(), state.sketch_compactions.end()),
                {columns, levels});
    // The brackets' edges (columns, 10) and counts (columns, 7): bracketed_sketch.hpp.
    write_array(group, "sketch_brackets", state.sketch_brackets, {columns, hsize_t(state.sketch_brackets.size() / columns)});
    write_array(group, "sketch_counts", std::vector<double>(state.sketch_counts.begin(), state.sketch_counts.end()),
                {columns, hsize_t(state.sketch_counts.size() / columns)});
  }
}

StatisticsState read_statistics_state(const ResultsReader& r, const std::string& group,
                                      std::vector<std::vector<double>>* exact_values) {
  StatisticsState state;
  state.moments = r.doubles(group + "/moments").data;
  for (double c : r.doubles(group + "/value_counts").data) state.value_counts.push_back(std::uint64_t(c));
  if (exact_values != nullptr && !r.has(group + "/sketch_level_sizes")) {
    exact_values->resize(state.value_counts.size());  // lent columns keep their room
    std::uint64_t at = 0;
    for (std::size_t c = 0; c < state.value_counts.size(); ++c) {
      std::vector<double>& column = (*exact_values)[c];
      column.clear();
      if (state.value_counts[c] == 0) continue;
      const std::vector<double> read = r.doubles(group + "/values", at, state.value_counts[c]).data;
      if (read.size() != state.value_counts[c]) throw std::runtime_error(group + "'s quantile values are truncated");
      column.assign(read.begin(), read.end());  // into the column's room: one column's copy at a time
      at += state.value_counts[c];
    }
  } else {
    state.values = r.doubles(group + "/values").data;
  }
  if (r.has(group + "/sketch_level_sizes")) {
    for (double c : r.doubles(group + "/sketch_level_sizes").data) state.sketch_level_sizes.push_back(std::uint64_t(c));
    for (double c : r.doubles(group + "/sketch_compactions").data) state.sketch_compactions.push_back(std::uint64_t(c));
  }
  if (r.has(group + "/sketch_brackets")) {  // absent from a part saved before brackets
    state.sketch_brackets = r.doubles(group + "/sketch_brackets").data;
    for (double c : r.doubles(group + "/sketch_counts").data) state.sketch_counts.push_back(std::uint64_t(c));
  }
  state.quantile_samples = std::uint64_t(r.number_attribute(group, "quantile_samples"));
  return state;
}

}  // namespace rbmc

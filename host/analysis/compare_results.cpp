#include "host/analysis/compare_results.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "host/io/results_reader.hpp"

namespace rbmc {

namespace {

// The final-state datasets compared, with their components' names.
struct Compared {
  std::string dataset;
  std::vector<std::string> components;
};

std::vector<Compared> compared_datasets(const ResultsReader& a, const ResultsReader& b) {
  std::vector<Compared> list = {
      {"samples/final/position", {"x", "y", "z"}},
      {"samples/final/orientation", {"w", "x", "y", "z"}},
      {"samples/final/velocity", {"x", "y", "z"}},
      {"samples/final/angular_velocity", {"x", "y", "z"}},
      {"samples/final/time", {""}},
  };
  // Event times present in both files.
  if (a.has("samples/events") && b.has("samples/events"))
    for (const std::string& e : a.children("samples/events"))
      if (b.has("samples/events/" + e + "/time")) list.push_back({"samples/events/" + e + "/time", {""}});
  return list;
}

}  // namespace

Comparison compare_results(const std::string& path_a, const std::string& path_b, const CompareOptions& options) {
  Comparison c;
  c.path_a = path_a;
  c.path_b = path_b;
  const ResultsReader a(path_a), b(path_b);
  c.same_scenario = a.string_attribute("", "scenario") == b.string_attribute("", "scenario") &&
                    a.number_attribute("", "seed") == b.number_attribute("", "seed");
  const std::vector<std::uint64_t> index_a = a.uint64s("samples/index").data, index_b = b.uint64s("samples/index").data;
  c.n_a = index_a.size();
  c.n_b = index_b.size();
  // Row pairs of the samples both files hold.
  std::unordered_map<std::uint64_t, std::size_t> row_b;
  for (std::size_t i = 0; i < index_b.size(); ++i) row_b[index_b[i]] = i;
  std::vector<std::pair<std::size_t, std::size_t>> common;
  for (std::size_t i = 0; i < index_a.size(); ++i)
    if (const auto it = row_b.find(index_a[i]); it != row_b.end()) common.emplace_back(i, it->second);
  c.n_common = common.size();
  const auto status_a = a.uint8s("samples/status").data, status_b = b.uint8s("samples/status").data;
  for (const auto& [i, j] : common) c.status_mismatches += status_a[i] != status_b[j];

  std::vector<double> p_values;
  for (const Compared& d : compared_datasets(a, b)) {
    const Array<double> x = a.doubles(d.dataset), y = b.doubles(d.dataset);
    const std::size_t dim = d.components.size();
    std::string short_name = d.dataset.substr(d.dataset.find('/') + 1);
    for (std::size_t k = 0; k < dim; ++k) {
      ComponentComparison r;
      r.name = short_name + (d.components[k].empty() ? "" : "[" + d.components[k] + "]");
      std::vector<double> column_a, column_b;
      for (std::size_t i = 0; i < c.n_a; ++i) column_a.push_back(x.data[i * dim + k]);
      for (std::size_t j = 0; j < c.n_b; ++j) column_b.push_back(y.data[j * dim + k]);
      for (const auto& [i, j] : common) {
        double u = column_a[i], v = column_b[j];
        if (d.dataset == "samples/final/orientation") {
          // q and −q are one attitude: compare b's with the sign that matches a's.
          double dot = 0;
          for (std::size_t e = 0; e < 4; ++e) dot += x.data[i * 4 + e] * y.data[j * 4 + e];
          if (dot < 0) v = -v;
        }
        if (std::isnan(u) && std::isnan(v)) continue;
        const double diff = std::isnan(u) || std::isnan(v) ? INFINITY : std::abs(u - v);
        const double scale = std::max(std::abs(u), std::abs(v));
        r.max_abs = std::max(r.max_abs, diff);
        if (scale > 0) r.max_rel = std::max(r.max_rel, diff / scale);
        if (!(diff <= options.atol + options.rtol * scale)) ++r.mismatched;
      }
      r.ks = ks_two_sample(column_a, column_b);
      r.mean = welch_means(column_a, column_b);
      r.spread = brown_forsythe_spread(column_a, column_b);
      p_values.insert(p_values.end(), {r.ks.p_value, r.mean.p_value, r.spread.p_value});
      c.components.push_back(r);
    }
  }
  const std::vector<double> adjusted = holm_adjusted(p_values);
  c.distribution_pass = true;
  for (std::size_t k = 0; k < c.components.size(); ++k) {
    ComponentComparison& r = c.components[k];
    r.ks_adjusted = adjusted[3 * k];
    r.mean_adjusted = adjusted[3 * k + 1];
    r.spread_adjusted = adjusted[3 * k + 2];
    for (double p : {r.ks_adjusted, r.mean_adjusted, r.spread_adjusted})
      if (p < options.alpha) c.distribution_pass = false;
  }
  if (!c.distribution_pass)
    c.reasons.push_back("the distributions differ (a Holm-adjusted p-value below alpha = " + std::to_string(options.alpha) +
                        ")");
  c.per_sample_pass = c.n_common > 0 && c.status_mismatches == 0;
  for (const ComponentComparison& r : c.components)
    if (r.mismatched > 0) c.per_sample_pass = false;
  if (!options.statistical) {
    if (c.n_common == 0) c.reasons.push_back("the files hold no sample in common");
    if (c.status_mismatches > 0) c.reasons.push_back(std::to_string(c.status_mismatches) + " samples end with another status");
    for (const ComponentComparison& r : c.components)
      if (r.mismatched > 0)
        c.reasons.push_back(r.name + ": " + std::to_string(r.mismatched) + " samples differ beyond atol + rtol |x|");
  }
  c.pass = c.distribution_pass && (options.statistical || c.per_sample_pass);
  return c;
}

void print_comparison(const Comparison& c, const CompareOptions& o, std::FILE* out) {
  std::fprintf(out, "rbmc compare: %s (%llu samples) vs %s (%llu samples), %llu in common%s\n", c.path_a.c_str(),
               static_cast<unsigned long long>(c.n_a), c.path_b.c_str(), static_cast<unsigned long long>(c.n_b),
               static_cast<unsigned long long>(c.n_common), c.same_scenario ? "" : "; scenarios or seeds differ");
  std::fprintf(out, "  mode         %s; per sample |a - b| <= %.3g + %.3g |x|; tests at family-wise alpha %.3g (Holm)\n",
               o.statistical ? "statistical (distributions only)" : "per sample and distributions", o.atol, o.rtol,
               o.alpha);
  std::fprintf(out, "  %-34s %11s %11s %9s | %8s %9s %9s %9s\n", "quantity", "max |a-b|", "max rel", "mismatch",
               "KS D", "p KS", "p mean", "p spread");
  for (const ComponentComparison& r : c.components)
    std::fprintf(out, "  %-34s %11.3g %11.3g %9llu | %8.4f %9.3g %9.3g %9.3g\n", r.name.c_str(), r.max_abs, r.max_rel,
                 static_cast<unsigned long long>(r.mismatched), r.ks.statistic, r.ks_adjusted, r.mean_adjusted,
                 r.spread_adjusted);
  std::fprintf(out, "  status       %llu of %llu common samples end with another status\n",
               static_cast<unsigned long long>(c.status_mismatches), static_cast<unsigned long long>(c.n_common));
  for (const std::string& reason : c.reasons) std::fprintf(out, "  reason       %s\n", reason.c_str());
  std::fprintf(out, "%s\n", c.pass ? "PASS" : "FAIL");
}

}  // namespace rbmc

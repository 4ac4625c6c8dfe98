#include "host/io/design_group.hpp"

#include <string>
#include <vector>

#include "host/io/h5_write.hpp"

namespace rbmc {

using h5::create_group;
using h5::write_array;
using h5::write_matrix;
using h5::write_scalar_attribute;
using h5::write_string_attribute;

void write_design(hid_t root, const Scenario& s) {
  write_string_attribute(root, "design", s.design.name());
  h5::Handle design = create_group(root, "design");
  write_string_attribute(design.get(), "type", s.design.name());
  write_string_attribute(design.get(), "invalid_bodies",
                         s.design.invalid_bodies == Design::InvalidBodies::reject ? "reject" : "redraw");
  write_scalar_attribute<std::uint64_t>(design.get(), "seed", H5T_NATIVE_UINT64, s.run.seed);
  if (s.design.kind == Design::Kind::latin_hypercube)
    write_string_attribute(design.get(), "description",
                           "Latin hypercube: each scalar component's n_samples draws lie one in each of n_samples "
                           "equal-probability strata (keyed Feistel permutation), jittered within it; a sample's "
                           "values depend on n_samples");
  if (s.design.kind == Design::Kind::sobol)
    write_string_attribute(design.get(), "description",
                           "Owen-scrambled Sobol sequence (Joe-Kuo directions, Burley's hash scrambling keyed by "
                           "seed and key path), one dimension per scalar component in key-path order, point k for sample k");
  if (s.design.kind == Design::Kind::table) {
    write_string_attribute(design.get(), "file", s.design.table_file);
    write_scalar_attribute<std::uint64_t>(design.get(), "rows", H5T_NATIVE_UINT64, s.design.n_points());
    write_string_attribute(design.get(), "description",
                           "sample k takes row k of the table's columns (key paths); other dispersions are drawn as usual");
  }
  if (s.design.kind == Design::Kind::grid) {
    write_scalar_attribute<std::uint64_t>(design.get(), "grid_points", H5T_NATIVE_UINT64, s.design.n_points());
    write_scalar_attribute<std::uint64_t>(design.get(), "replicates", H5T_NATIVE_UINT64, s.design.replicates);
  }
  for (std::size_t g = 0; g < s.correlations.size(); ++g) {
    const CorrelationGroup& c = s.correlations[g];
    const std::string name = "correlation_" + std::to_string(g);
    write_matrix(design.get(), name, c.matrix, hsize_t(c.dim), hsize_t(c.dim));
    h5::Handle ds(H5Dopen2(design.get(), name.c_str(), H5P_DEFAULT), H5Dclose, "opening " + name);
    std::string inputs;
    for (const std::string& i : c.inputs) inputs += (inputs.empty() ? "" : ", ") + i;
    write_string_attribute(ds.get(), "inputs", inputs);
    write_string_attribute(ds.get(), "description",
                           "correlation of the listed inputs' components (multivariate normal), in that order");
  }
  // Each dispersion, structured: /design/dispersions/<key path> with its distribution and
  // parameters (per component), so that a script reads them without parsing the TOML text.
  if (!s.dispersions.empty()) {
    h5::Handle all = create_group(design.get(), "dispersions");
    write_string_attribute(all.get(), "description",
                           "every dispersed input by key path: its distribution, parameters per component, and nominal value");
    for (const Dispersion& d : s.dispersions) {
      h5::Handle g = create_group(all.get(), d.info.key_path);
      const std::size_t dim = std::size_t(d.info.dim);
      const auto vector = [&](const char* name, const std::array<double, 3>& v) {
        write_array(g.get(), name, std::vector<double>(v.begin(), v.begin() + std::ptrdiff_t(dim)), {hsize_t(dim)});
      };
      write_string_attribute(g.get(), "units", d.info.units);
      vector("nominal", d.nominal);
      switch (d.kind) {
        case DistributionKind::normal:
          write_string_attribute(g.get(), "distribution", "normal");
          vector("mean", d.a);
          vector("sigma", d.b);
          break;
        case DistributionKind::uniform:
          write_string_attribute(g.get(), "distribution", "uniform");
          vector("min", d.a);
          vector("max", d.b);
          break;
        case DistributionKind::truncated_normal:
          write_string_attribute(g.get(), "distribution", "truncated_normal");
          vector("mean", d.a);
          vector("sigma", d.b);
          vector("min", d.lo);
          vector("max", d.hi);
          break;
        case DistributionKind::lognormal:
          write_string_attribute(g.get(), "distribution", "lognormal");
          vector("median", d.a);
          vector("log_sigma", d.b);
          break;
        case DistributionKind::fixed:
          write_string_attribute(g.get(), "distribution", "fixed");
          vector("value", d.a);
          break;
        case DistributionKind::discrete: {
          write_string_attribute(g.get(), "distribution", "discrete");
          std::vector<double> values, weights;
          for (std::size_t k = 0; k < d.values.size(); ++k) {
            values.insert(values.end(), d.values[k].begin(), d.values[k].begin() + std::ptrdiff_t(dim));
            weights.push_back(d.cumulative[k] - (k > 0 ? d.cumulative[k - 1] : 0.0));
          }
          write_matrix(g.get(), "values", values, hsize_t(d.values.size()), hsize_t(dim));
          write_array(g.get(), "weights", weights, {hsize_t(weights.size())});
          break;
        }
        case DistributionKind::uniform_rotation: write_string_attribute(g.get(), "distribution", "uniform_rotation"); break;
        case DistributionKind::random_axis:
          write_string_attribute(g.get(), "distribution", "random_axis");
          if (d.b[0] > 0) write_scalar_attribute<double>(g.get(), "angle_sigma", H5T_NATIVE_DOUBLE, d.b[0]);
          else write_scalar_attribute<double>(g.get(), "max_angle", H5T_NATIVE_DOUBLE, d.a[0]);
          break;
      }
    }
  }
  design.close("closing /design");
}


}  // namespace rbmc

// The results file's per-sample datasets and trajectory parts, declared once (docs/output-format.md).
// The writer creates and fills them from this table, `rbmc info` and `rbmc compare` read by it,
// and [output] samples selects from it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "host/scenario/scenario.hpp"

namespace rbmc {

// Where a dataset's values come from in a batch (rbmc/sample/sample_layout.hpp).
enum class SampleSource {
  index,       // the global sample index
  status,      // SampleStatus codes
  params,      // the drawn values of the dispersions, from column `column` of the batch's params
  inputs,      // input_column `column` onward
  inertia,     // the six stored inertia components, written as a symmetric 3×3
  outputs,     // output_column `column` onward
  grid_index,  // each sample's coordinate on every grid axis
  grid_value,  // the value of grid axis `column`
};

// How values are stored. `real` is float64, or float32 under [output] storage = "float32".
enum class StoredType { real, int64, uint64, uint8 };

// What a dataset is to an analyst: compared sample by sample (`rbmc compare`), and whether it is
// an input of the integration (which must match between files) or one of its results.
enum class SampleRole { bookkeeping, input, result };

struct SampleDataset {
  std::string path;                // e.g. "samples/final/position"
  StoredType type;
  std::vector<unsigned long long> row_shape;  // after the sample axis: {} scalar, {3}, {4}, {3, 3}
  std::vector<std::string> components;  // a label for each of a row's values ({"x","y","z"}); empty: a scalar
  std::string units, description;
  SampleSource source;
  int column;                      // first column in its source, or the grid axis
  SampleRole role;
  bool compared;                   // judged by rbmc compare
  // A row axis that is neither xyz nor wxyz, named so (its scale labelled by `components`):
  // "grid_axis" for samples/grid_index; empty: the axis is componentN, numbered.
  std::string row_axis = {};

  std::size_t row_size() const {
    std::size_t n = 1;
    for (unsigned long long d : row_shape) n *= std::size_t(d);
    return n;
  }
  // The name relative to /samples, as [output] samples lists it: "final/position".
  std::string short_name() const { return path.substr(path.find('/') + 1); }
};

// The per-sample datasets of every file, whatever its scenario: index, status, body, initial and
// final state (the scenario-dependent ones, params, events, grid, constraint reactions and
// diagnostics, come from all_sample_datasets).
const std::vector<SampleDataset>& common_sample_datasets();
// Every per-sample dataset a run of this scenario writes, in the file's order, before [output]
// samples selects among them.
std::vector<SampleDataset> all_sample_datasets(const Scenario& s);
// The ones the file keeps: all, or those [output] samples names (with samples/index and
// samples/status always).
std::vector<SampleDataset> sample_datasets(const Scenario& s);
// How [output] trajectories chooses the retained samples, in words (the file's
// /trajectories "retained" attribute, `rbmc check`).
std::string retention_text(const TrajectoryRetention& t);
// How many of a run's n samples it keeps: exact (all, none, every, a list, and their limit), or,
// where each sample's results decide (status, event, final), at most that many (exact = false).
std::uint64_t planned_trajectories(const TrajectoryRetention& t, std::uint64_t n, bool& exact);
// Bytes a sample of the kept datasets as stored (float32 or float64 reals, [output] storage),
// before compression and HDF5's own overhead: what `rbmc check` plans the file by.
std::size_t stored_bytes_per_sample(const Scenario& s);
// Whether `kept` holds a dataset from any of `sources`: what a batch's columns must reach the host
// for (a backend that draws on the device copies its inputs and params back only then).
bool keeps_any(const std::vector<SampleDataset>& kept, std::initializer_list<SampleSource> sources);
// Checks an [output] samples entry: a dataset or group under /samples that this scenario writes.
// Returns an empty string, or what is wrong with the list of valid names.
std::string check_sample_selection(const Scenario& s, const std::string& name);

// One part of a kept trajectory, (kept, output times, dim), from the 13 state columns.
struct TrajectoryPart {
  const char* name;  // under /trajectories
  int first, dim;    // in the 13 columns: p (0..2), q (3..6), v (7..9), ω (10..12)
  const char* units;
  const char* description;
};
const std::vector<TrajectoryPart>& trajectory_parts();

}  // namespace rbmc

// Named dimensions and their coordinates, as HDF5 dimension scales (H5DS, which netCDF-4 uses):
// xarray with h5netcdf then shows `sample`, `time`, `xyz`, `wxyz`, `quantile`... instead of
// phony_dim_0..n. xarray reads one group at a time, so each group gets its own coordinates.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "host/io/h5_handle.hpp"

namespace rbmc {

class DimensionScales {
 public:
  explicit DimensionScales(hid_t file) : file_(file) {}

  // The scale group/name with these labels (a string coordinate: "x", "y", "z"), created once.
  hid_t labels(const std::string& group, const std::string& name, const std::vector<std::string>& labels);
  // The scale group/name with these values (times, quantile probabilities), created once.
  hid_t numbers(const std::string& group, const std::string& name, const std::vector<double>& values);
  // The group's `sample` coordinate: each row's global sample index (uint64), n rows or, when
  // extendible, growing with appended rows; the caller writes its values. Chunks of
  // kSampleChunkRows rows (fewer when n is), shuffled and deflated at kSampleDeflateLevel:
  // consecutive indices, so that each group's copy costs next to nothing on disk.
  hid_t samples(const std::string& group, unsigned long long n, bool extendible);
  static constexpr unsigned long long kSampleChunkRows = 16384;
  static constexpr int kSampleDeflateLevel = 1;
  // An existing dataset made a scale under its own name (trajectories/time).
  hid_t existing(const std::string& path, const std::string& name);

  static void attach(hid_t dataset, unsigned axis, hid_t scale);
  // Removes every dataset's scale attachments: a file copied object by object (H5Ocopy) keeps
  // references into its source, which must be attached afresh.
  static void drop_all_attachments(hid_t file);
  // The scale for a row axis of `size` values with these labels: xyz, wxyz, the axis `name` given
  // with its labels (grid_axis), or componentN, numbered.
  hid_t component(const std::string& group, const std::vector<std::string>& labels, unsigned long long size,
                  const std::string& name = {});

 private:
  hid_t open_if_there(const std::string& path);  // -1 when the file has no such object

  hid_t file_;
  std::map<std::string, h5::Handle> scales_;  // by path
};

}  // namespace rbmc

// Reads a results file back: datasets as flat arrays with their shape, and root attributes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/io/h5_handle.hpp"

namespace rbmc {

template <class T>
struct Array {
  std::vector<std::uint64_t> shape;
  std::vector<T> data;  // row-major
};

class ResultsReader {
 public:
  // inflate_threads: the threads that inflate a read's deflated chunks (0: every core); an MPI
  // rank's join passes its share of the node's cores.
  explicit ResultsReader(const std::string& path, unsigned inflate_threads = 0);

  const std::string& path() const { return path_; }
  bool has(const std::string& object_path) const;
  // The filters a dataset's chunks pass through (shuffle and deflate for compressed ones; 0 for none).
  int filter_count(const std::string& dataset) const;
  // The names of a group's members, in name order.
  std::vector<std::string> children(const std::string& group) const;
  // A dataset whole, or rows [first, first + count) of its first axis (clipped to its extent).
  Array<double> doubles(const std::string& dataset, std::uint64_t first = 0,
                        std::optional<std::uint64_t> count = std::nullopt) const;
  Array<std::uint64_t> uint64s(const std::string& dataset, std::uint64_t first = 0,
                               std::optional<std::uint64_t> count = std::nullopt) const;
  Array<std::uint8_t> uint8s(const std::string& dataset, std::uint64_t first = 0,
                             std::optional<std::uint64_t> count = std::nullopt) const;
  // A string attribute of the root group or of a dataset ("" for the root).
  std::string string_attribute(const std::string& object, const std::string& name) const;
  double number_attribute(const std::string& object, const std::string& name) const;
  bool has_attribute(const std::string& object, const std::string& name) const;
  // Which draws made the file's samples (rbmc/random/inverse_transforms.hpp, kDrawRevision): 1
  // for a file from before the revision was recorded.
  int draw_revision() const {
    return has_attribute("", "draw_revision") ? int(number_attribute("", "draw_revision")) : 1;
  }

 private:
  template <class T>
  Array<T> read(const std::string& dataset, hid_t memory_type, std::uint64_t first,
                std::optional<std::uint64_t> count) const;

  std::string path_;
  h5::Handle file_;
  unsigned inflate_threads_;
};

// Throws an Hdf5Error naming the file where rbmc did not write it: an HDF5 file without the
// rbmc_version attribute every results file (and every partial one) holds at its root. rbmc info
// and compare read results files only; their first missing attribute would name neither the file
// nor what is wrong with it.
void require_results_file(const ResultsReader& r);

}  // namespace rbmc

// Small HDF5 writing helpers shared by the results writer: attributes, whole arrays, groups.
#pragma once

#include <string>
#include <vector>

#include "host/io/h5_handle.hpp"

namespace rbmc::h5 {

// Variable-length UTF-8, which h5py returns as str (fixed-length strings come back as bytes).
void write_string_attribute(hid_t object, const std::string& name, const std::string& value);

// A scalar attribute; one that exists already (a resumed file's totals) is replaced.
template <class T>
void write_scalar_attribute(hid_t object, const std::string& name, hid_t type, T value) {
  if (H5Aexists(object, name.c_str()) > 0)
    check_status(H5Adelete(object, name.c_str()), "replacing attribute " + name);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate");
  Handle attr(H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              "creating attribute " + name);
  check_status(H5Awrite(attr.get(), type, &value), "writing attribute " + name);
}

Handle create_group(hid_t parent, const std::string& name);

// A small double dataset written at once (a correlation matrix, statistics), row-major.
void write_array(hid_t parent, const std::string& name, const std::vector<double>& values, std::vector<hsize_t> dims);

// Counts, as unsigned integers, with their unit and meaning.
void write_counts(hid_t parent, const std::string& name, const std::vector<std::uint64_t>& values,
                  const std::vector<hsize_t>& dims, const std::string& description);

// A (rows, columns) array; a single column is stored as a 1-D (rows,) dataset.
void write_matrix(hid_t parent, const std::string& name, const std::vector<double>& values, hsize_t rows, hsize_t columns);

// Flushes and closes a file written at `from`, then renames it to `to` (on one file system). A
// file already at `to` (--overwrite) is first moved aside to replaced_path(to) and removed after.
void close_into_place(Handle& file, const std::string& from, const std::string& to);

// Where close_into_place moves the file it replaces, in this process, until it is removed.
std::string replaced_path(const std::string& to);

}  // namespace rbmc::h5

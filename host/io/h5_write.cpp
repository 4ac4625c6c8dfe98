#include "host/io/h5_write.hpp"

#include <filesystem>

#include <unistd.h>

#include "host/errors.hpp"

namespace rbmc::h5 {

void write_string_attribute(hid_t object, const std::string& name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy");
  check_status(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate");
  Handle attr(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                  "creating attribute " + name);
  const char* text = value.c_str();
  check_status(H5Awrite(attr.get(), type.get(), &text), "writing attribute " + name);
}

Handle create_group(hid_t parent, const std::string& name) {
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                    "creating group " + name);
}

void write_array(hid_t parent, const std::string& name, const std::vector<double>& values, std::vector<hsize_t> dims) {
  Handle space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose, "H5Screate_simple");
  Handle ds(H5Dcreate2(parent, name.c_str(), H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                H5Dclose, "creating dataset " + name);
  check_status(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
                   "writing dataset " + name);
}

void write_counts(hid_t parent, const std::string& name, const std::vector<std::uint64_t>& values,
                  const std::vector<hsize_t>& dims, const std::string& description) {
  Handle space(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose, "H5Screate_simple");
  Handle ds(H5Dcreate2(parent, name.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                H5Dclose, "creating dataset " + name);
  check_status(H5Dwrite(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
                   "writing dataset " + name);
  write_string_attribute(ds.get(), "units", "1");
  write_string_attribute(ds.get(), "description", description);
}

void write_matrix(hid_t parent, const std::string& name, const std::vector<double>& values, hsize_t rows, hsize_t columns) {
  write_array(parent, name, values, columns == 1 ? std::vector<hsize_t>{rows} : std::vector<hsize_t>{rows, columns});
}

std::string replaced_path(const std::string& to) { return to + ".replaced-" + std::to_string(::getpid()); }

// Why aside: renamed over an existing file, ext4 (its auto_da_alloc heuristic) writes out the new
// file's delayed blocks within the rename: 0.35 s for a 400 MB file on the development machine,
// where the two renames now take under a millisecond and the old file's removal 0.04 s
// (bench/RESULTS.md, 2026-11-27, twenty-third session; less gained on an H100's host). Moved
// aside first, the rename replaces nothing, and removing the old file only releases its blocks. Between the two renames `to` is missing, but both files are on disk; a
// later run of the same output removes the one moved aside (run_driver.cpp's leftovers).
void close_into_place(Handle& file, const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  check_status(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "flushing " + from);
  file.close("closing " + from);
  std::error_code e, ignored;
  const std::string aside = replaced_path(to);
  bool moved_aside = false;
  if (fs::is_regular_file(fs::symlink_status(to, ignored))) {  // anything else in the way fails the rename, as before
    fs::rename(to, aside, e);
    moved_aside = !e;  // else renamed over, as before
    e.clear();
  }
  fs::rename(from, to, e);
  if (e) {
    if (moved_aside) fs::rename(aside, to, ignored);  // the file it was to replace, back in place
    throw Hdf5Error("renaming " + from + " to " + to + ": " + e.message());
  }
  if (moved_aside) fs::remove(aside, ignored);
}

}  // namespace rbmc::h5

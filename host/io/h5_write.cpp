#include "host/io/h5_write.hpp"

#include <filesystem>

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

void close_into_place(Handle& file, const std::string& from, const std::string& to) {
  check_status(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "flushing " + from);
  file.close("closing " + from);
  std::error_code e;
  std::filesystem::rename(from, to, e);
  if (e) throw Hdf5Error("renaming " + from + " to " + to + ": " + e.message());
}

}  // namespace rbmc::h5

#include "host/io/results_reader.hpp"

#include <algorithm>
#include <type_traits>

#include "host/errors.hpp"
#include "host/io/deflated_chunk_reader.hpp"
#include "host/util/parallel_for.hpp"

namespace rbmc {

ResultsReader::ResultsReader(const std::string& path, unsigned inflate_threads)
    : path_(path), inflate_threads_(inflate_threads > 0 ? inflate_threads : default_thread_count()) {
  h5::initialize();
  file_ = h5::Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "opening " + path);
}

void require_results_file(const ResultsReader& r) {
  if (!r.has_attribute("", "rbmc_version"))
    throw Hdf5Error(r.path() + " is not an rbmc results file: an HDF5 file without the rbmc_version attribute " +
                    "that rbmc run writes at every results file's root");
}

bool ResultsReader::has(const std::string& object_path) const {
  // Checks each link of the path in turn: H5Lexists requires the parents to exist.
  std::string prefix;
  std::size_t start = 0;
  while (start <= object_path.size()) {
    const std::size_t slash = object_path.find('/', start);
    prefix = object_path.substr(0, slash);
    const htri_t e = H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT);
    if (e < 0) throw Hdf5Error("checking " + prefix + " in " + path_ + ": " + h5::last_error_message());
    if (e == 0) return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

std::vector<std::string> ResultsReader::children(const std::string& group) const {
  h5::Handle g(H5Gopen2(file_.get(), group.c_str(), H5P_DEFAULT), H5Gclose, "opening " + group + " in " + path_);
  H5G_info_t info;
  h5::check_status(H5Gget_info(g.get(), &info), "H5Gget_info " + group);
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t size = H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (size < 0) throw Hdf5Error("listing " + group + " in " + path_ + ": " + h5::last_error_message());
    std::string name(std::size_t(size), '\0');
    if (H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), std::size_t(size) + 1,
                           H5P_DEFAULT) < 0)
      throw Hdf5Error("listing " + group + " in " + path_ + ": " + h5::last_error_message());
    names.push_back(name);
  }
  return names;
}

template <class T>
Array<T> ResultsReader::read(const std::string& dataset, hid_t memory_type, std::uint64_t first,
                             std::optional<std::uint64_t> count) const {
  h5::Handle ds(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose, "opening " + dataset + " in " + path_);
  h5::Handle space(H5Dget_space(ds.get()), H5Sclose, "H5Dget_space");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) throw Hdf5Error("rank of " + dataset + ": " + h5::last_error_message());
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  h5::check_status(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "dims of " + dataset);
  // Rows [first, first + count) of the first axis, clipped to the extent.
  hsize_t begin = 0;
  if (rank > 0) {
    const hsize_t end = count ? std::min<hsize_t>(dims[0], first + *count) : dims[0];
    begin = std::min<hsize_t>(first, end);
    std::vector<hsize_t> start(dims.size(), 0), extent = dims;
    start[0] = begin;
    extent[0] = end - begin;
    dims = extent;
    h5::check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr),
                     "selecting rows of " + dataset);
  }
  Array<T> out;
  std::size_t n = 1;
  for (hsize_t d : dims) {
    out.shape.push_back(d);
    n *= d;
  }
  out.data.resize(n);
  // An enum (samples/status) converts only to an enum: read it as its own native type, whose
  // values are the integers asked for when the sizes agree.
  h5::Handle file_type(H5Dget_type(ds.get()), H5Tclose, "H5Dget_type " + dataset);
  h5::Handle native_enum;
  if (H5Tget_class(file_type.get()) == H5T_ENUM && H5Tget_class(memory_type) == H5T_INTEGER) {
    native_enum = h5::Handle(H5Tget_native_type(file_type.get(), H5T_DIR_DEFAULT), H5Tclose, "H5Tget_native_type");
    if (H5Tget_size(native_enum.get()) != sizeof(T)) throw Hdf5Error(dataset + " is an enum of another size");
    memory_type = native_enum.get();
  }
  // Chunks deflated by HDF5's filters (the kept trajectories) inflate on every core.
  if constexpr (std::is_same_v<T, double>)
    if (n > 0 && rank > 0 &&
        read_deflated_rows(ds.get(), dataset + " in " + path_, begin, dims[0], out.data.data(), inflate_threads_))
      return out;
  if (n > 0) {
    h5::Handle memory(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose, "H5Screate_simple");
    h5::check_status(H5Dread(ds.get(), memory_type, rank > 0 ? memory.get() : H5S_ALL, rank > 0 ? space.get() : H5S_ALL,
                             H5P_DEFAULT, out.data.data()),
                     "reading " + dataset);
  }
  return out;
}

Array<double> ResultsReader::doubles(const std::string& d, std::uint64_t first, std::optional<std::uint64_t> count) const {
  return read<double>(d, H5T_NATIVE_DOUBLE, first, count);
}
Array<std::uint64_t> ResultsReader::uint64s(const std::string& d, std::uint64_t first,
                                            std::optional<std::uint64_t> count) const {
  return read<std::uint64_t>(d, H5T_NATIVE_UINT64, first, count);
}
Array<std::uint8_t> ResultsReader::uint8s(const std::string& d, std::uint64_t first,
                                          std::optional<std::uint64_t> count) const {
  return read<std::uint8_t>(d, H5T_NATIVE_UINT8, first, count);
}

std::string ResultsReader::string_attribute(const std::string& object, const std::string& name) const {
  const std::string where = object.empty() ? "/" : object;
  h5::Handle attr(H5Aopen_by_name(file_.get(), where.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                  "opening attribute " + name + " of " + where);
  h5::Handle type(H5Aget_type(attr.get()), H5Tclose, "H5Aget_type");
  if (H5Tget_class(type.get()) != H5T_STRING) throw Hdf5Error("attribute " + name + " of " + where + " is not a string");
  const htri_t variable = H5Tis_variable_str(type.get());
  if (variable < 0) throw Hdf5Error("H5Tis_variable_str: " + h5::last_error_message());
  if (variable) {
    h5::Handle memory_type(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy");
    h5::check_status(H5Tset_size(memory_type.get(), H5T_VARIABLE), "H5Tset_size");
    // HDF5 does not convert between character sets: read in the one the file has.
    h5::check_status(H5Tset_cset(memory_type.get(), H5Tget_cset(type.get())), "H5Tset_cset");
    char* value = nullptr;
    h5::check_status(H5Aread(attr.get(), memory_type.get(), &value), "reading attribute " + name);
    std::string s = value ? value : "";
    h5::Handle space(H5Aget_space(attr.get()), H5Sclose, "H5Aget_space");
    (void)H5Dvlen_reclaim(memory_type.get(), space.get(), H5P_DEFAULT, &value);
    return s;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string s(size, '\0');
  h5::check_status(H5Aread(attr.get(), type.get(), s.data()), "reading attribute " + name);
  const std::size_t end = s.find('\0');
  return end == std::string::npos ? s : s.substr(0, end);
}

int ResultsReader::filter_count(const std::string& dataset) const {
  h5::Handle ds(H5Dopen2(file_.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose, "opening " + dataset + " in " + path_);
  h5::Handle plist(H5Dget_create_plist(ds.get()), H5Pclose, "the creation properties of " + dataset);
  const int n = H5Pget_nfilters(plist.get());
  if (n < 0) throw Hdf5Error("reading the filters of " + dataset + " in " + path_ + ": " + h5::last_error_message());
  return n;
}

bool ResultsReader::has_attribute(const std::string& object, const std::string& name) const {
  const htri_t e = H5Aexists_by_name(file_.get(), object.empty() ? "/" : object.c_str(), name.c_str(), H5P_DEFAULT);
  if (e < 0) throw Hdf5Error("checking attribute " + name + " in " + path_ + ": " + h5::last_error_message());
  return e > 0;
}

double ResultsReader::number_attribute(const std::string& object, const std::string& name) const {
  const std::string where = object.empty() ? "/" : object;
  h5::Handle attr(H5Aopen_by_name(file_.get(), where.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                  "opening attribute " + name + " of " + where);
  double value = 0;
  h5::check_status(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value), "reading attribute " + name);
  return value;
}

}  // namespace rbmc

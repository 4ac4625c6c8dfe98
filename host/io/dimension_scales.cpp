#include "host/io/dimension_scales.hpp"

#include <hdf5_hl.h>

#include "host/io/h5_write.hpp"

namespace rbmc {

namespace {

std::string path_of(const std::string& group, const std::string& name) { return group.empty() ? name : group + "/" + name; }

}  // namespace

hid_t DimensionScales::open_if_there(const std::string& path) {
  if (auto it = scales_.find(path); it != scales_.end()) return it->second.get();
  if (H5Lexists(file_, path.c_str(), H5P_DEFAULT) <= 0) return -1;
  // A scale the file holds already (a copied file's): used as it is.
  h5::Handle ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, "opening " + path);
  return scales_.emplace(path, std::move(ds)).first->second.get();
}

hid_t DimensionScales::labels(const std::string& group, const std::string& name, const std::vector<std::string>& labels) {
  const std::string path = path_of(group, name);
  if (const hid_t there = open_if_there(path); there >= 0) return there;
  h5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy");
  h5::check_status(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  h5::check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  const hsize_t n = labels.size();
  h5::Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "dataspace for " + path);
  h5::Handle ds(H5Dcreate2(file_, path.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
                "creating " + path);
  std::vector<const char*> text;
  for (const std::string& l : labels) text.push_back(l.c_str());
  h5::check_status(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), "writing " + path);
  h5::check_status(H5DSset_scale(ds.get(), name.c_str()), "making " + path + " a dimension scale");
  h5::write_string_attribute(ds.get(), "description", "component labels");
  return scales_.emplace(path, std::move(ds)).first->second.get();
}

hid_t DimensionScales::numbers(const std::string& group, const std::string& name, const std::vector<double>& values) {
  const std::string path = path_of(group, name);
  if (const hid_t there = open_if_there(path); there >= 0) return there;
  const hsize_t n = values.size();
  h5::Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "dataspace for " + path);
  h5::Handle ds(H5Dcreate2(file_, path.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                H5Dclose, "creating " + path);
  h5::check_status(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "writing " + path);
  h5::check_status(H5DSset_scale(ds.get(), name.c_str()), "making " + path + " a dimension scale");
  return scales_.emplace(path, std::move(ds)).first->second.get();
}

hid_t DimensionScales::samples(const std::string& group, unsigned long long n, bool extendible) {
  const std::string path = path_of(group, "sample");
  if (const hid_t there = open_if_there(path); there >= 0) return there;
  const hsize_t dims = extendible ? 0 : n, max_dims = extendible ? H5S_UNLIMITED : n,
                chunk = std::max<hsize_t>(1, std::min<hsize_t>(extendible ? kSampleChunkRows : n, kSampleChunkRows));
  h5::Handle space(H5Screate_simple(1, &dims, &max_dims), H5Sclose, "dataspace for " + path);
  h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate");
  h5::check_status(H5Pset_chunk(plist.get(), 1, &chunk), "H5Pset_chunk");
  h5::check_status(H5Pset_shuffle(plist.get()), "H5Pset_shuffle");
  h5::check_status(H5Pset_deflate(plist.get(), kSampleDeflateLevel), "H5Pset_deflate");
  h5::Handle ds(H5Dcreate2(file_, path.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT),
                H5Dclose, "creating " + path);
  h5::check_status(H5DSset_scale(ds.get(), "sample"), "making " + path + " a dimension scale");
  h5::write_string_attribute(ds.get(), "units", "1");
  h5::write_string_attribute(ds.get(), "description", "global sample index k of each row (the same as /samples/index)");
  return scales_.emplace(path, std::move(ds)).first->second.get();
}

hid_t DimensionScales::existing(const std::string& path, const std::string& name) {
  if (auto it = scales_.find(path); it != scales_.end()) return it->second.get();
  h5::Handle ds(H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose, "opening " + path);
  if (H5DSis_scale(ds.get()) <= 0)
    h5::check_status(H5DSset_scale(ds.get(), name.c_str()), "making " + path + " a dimension scale");
  return scales_.emplace(path, std::move(ds)).first->second.get();
}

namespace {

// H5Ovisit callback: removes a dataset's attachments (DIMENSION_LIST, REFERENCE_LIST).
herr_t drop_attachments(hid_t root, const char* name, const H5O_info_t* info, void*) {
  if (info->type != H5O_TYPE_DATASET) return 0;
  const hid_t ds = H5Dopen2(root, name, H5P_DEFAULT);
  if (ds < 0) return -1;
  herr_t status = 0;
  for (const char* a : {"DIMENSION_LIST", "REFERENCE_LIST"})
    if (H5Aexists(ds, a) > 0 && H5Adelete(ds, a) < 0) status = -1;
  H5Dclose(ds);
  return status;
}

}  // namespace

void DimensionScales::drop_all_attachments(hid_t file) {
  h5::check_status(H5Ovisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, drop_attachments, nullptr),
                   "removing stale dimension-scale references");
}

void DimensionScales::attach(hid_t dataset, unsigned axis, hid_t scale) {
  h5::check_status(H5DSattach_scale(dataset, scale, axis), "attaching a dimension scale");
}

hid_t DimensionScales::component(const std::string& group, const std::vector<std::string>& labels,
                                 unsigned long long size, const std::string& name_given) {
  if (labels.size() == size && !name_given.empty()) return this->labels(group, name_given, labels);
  if (labels.size() == size) {
    std::string name;
    for (const std::string& l : labels) name += l;
    if (name == "xyz" || name == "wxyz") return this->labels(group, name, labels);
  }
  std::vector<std::string> numbered;
  for (unsigned long long k = 0; k < size; ++k) numbered.push_back(std::to_string(k));
  return this->labels(group, "component" + std::to_string(size), numbered);
}

}  // namespace rbmc

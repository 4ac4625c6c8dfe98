// Datasets deflated by HDF5's own shuffle and deflate filters, read by inflating their stored chunks
// on several threads (read_deflated_rows, which ResultsReader::doubles uses): every value equal to
// what was written, for every row range, edge chunks on every axis, float64 and float32, and chunks
// stored with a filter skipped; datasets it does not read are left to H5Dread; a damaged chunk is
// an error naming the dataset, never values.
#include "host/io/deflated_chunk_reader.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/io/h5_handle.hpp"
#include "host/io/results_reader.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

// Values with every byte significant (a misplaced byte or element changes them).
double value_at(std::size_t i) { return std::sin(double(i) * 0.731) * std::pow(10.0, double(int(i % 9) - 4)); }

struct Layout {
  std::string name;
  std::vector<hsize_t> dims, chunk;
  hid_t type;
};

// The dataset written whole by HDF5 (H5Dwrite: HDF5's filters compress it), with `filters` of
// "shuffle", "deflate", "fletcher32" in that order.
void write_dataset(hid_t file, const Layout& l, const std::vector<std::string>& filters) {
  h5::Handle space(H5Screate_simple(int(l.dims.size()), l.dims.data(), nullptr), H5Sclose, "space");
  h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "plist");
  h5::check_status(H5Pset_chunk(plist.get(), int(l.chunk.size()), l.chunk.data()), "chunk");
  for (const std::string& f : filters) {
    if (f == "fletcher32") h5::check_status(H5Pset_fletcher32(plist.get()), f);
    if (f == "shuffle") h5::check_status(H5Pset_shuffle(plist.get()), f);
    if (f == "deflate") h5::check_status(H5Pset_deflate(plist.get(), 1), f);
  }
  h5::Handle ds(H5Dcreate2(file, l.name.c_str(), l.type, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT),
                H5Dclose, "create " + l.name);
  std::size_t n = 1;
  for (const hsize_t d : l.dims) n *= std::size_t(d);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value_at(i);
  h5::check_status(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "write " + l.name);
}

bool read_directly(const std::string& path, const std::string& dataset, hsize_t first, hsize_t count,
                   std::vector<double>& out) {
  h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open");
  h5::Handle ds(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose, "open " + dataset);
  return read_deflated_rows(ds.get(), dataset, first, count, out.data(), 3);
}

TEST(DeflatedChunkReader, ReadsEveryRowRangeAsWritten) {
  h5::initialize();
  test::TempDir dir;
  const std::string path = dir.file("d.h5");
  // Edge chunks along every axis (1100 rows of 300, 45 times of 32, 5 columns of 3).
  const std::vector<Layout> layouts = {
      {"trajectory64", {1100, 45, 4}, {300, 32, 4}, H5T_IEEE_F64LE},
      {"trajectory32", {1100, 45, 4}, {300, 32, 4}, H5T_IEEE_F32LE},
      {"columns", {777, 5}, {100, 3}, H5T_IEEE_F64LE},
      {"rows", {10000}, {4096}, H5T_IEEE_F64LE},
  };
  {
    h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "create");
    for (const Layout& l : layouts) write_dataset(file.get(), l, {"shuffle", "deflate"});
  }
  const ResultsReader reader(path);
  for (const Layout& l : layouts) {
    std::size_t per_row = 1;
    for (std::size_t d = 1; d < l.dims.size(); ++d) per_row *= std::size_t(l.dims[d]);
    for (const auto& [first, count] : std::vector<std::pair<hsize_t, hsize_t>>{
             {0, l.dims[0]}, {299, 2}, {l.dims[0] - 1, 1}, {150, 600}, {77, 1}, {0, 1}}) {
      std::vector<double> direct(std::size_t(count) * per_row, NAN);
      ASSERT_TRUE(read_directly(path, l.name, first, count, direct)) << l.name;
      const Array<double> through_reader = reader.doubles(l.name, first, count);
      ASSERT_EQ(through_reader.data.size(), direct.size());
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < direct.size(); ++i) {
        const double v = value_at(std::size_t(first) * per_row + i);
        const double want = l.type == H5T_IEEE_F32LE ? double(float(v)) : v;
        wrong += std::memcmp(&want, &direct[i], sizeof(double)) != 0 ? 1 : 0;
        wrong += std::memcmp(&want, &through_reader.data[i], sizeof(double)) != 0 ? 1 : 0;
      }
      EXPECT_EQ(wrong, 0u) << l.name << " rows " << first << " + " << count;
    }
  }
}

// A chunk HDF5 stored with a filter skipped (its filter mask: deflate, which HDF5 skips where a
// chunk would not shrink, or both) is read as stored.
TEST(DeflatedChunkReader, ChunksStoredWithAFilterSkippedReadAsStored) {
  h5::initialize();
  test::TempDir dir;
  const std::string path = dir.file("d.h5");
  const Layout l{"t", {30, 4}, {10, 4}, H5T_IEEE_F64LE};
  {
    h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "create");
    write_dataset(file.get(), l, {"shuffle", "deflate"});
    h5::Handle ds(H5Dopen2(file.get(), "t", H5P_DEFAULT), H5Dclose, "open");
    // Chunk 1 shuffled, not deflated; chunk 2 neither.
    for (const std::uint32_t skipped : {2u, 3u}) {
      const hsize_t chunk_first = skipped == 2u ? 10 : 20;
      std::vector<unsigned char> raw(40 * sizeof(double));
      for (std::size_t i = 0; i < 40; ++i) {
        const double v = -value_at(std::size_t(chunk_first) * 4 + i);
        std::memcpy(&raw[i * 8], &v, 8);
      }
      std::vector<unsigned char> stored = raw;  // both filters skipped: as they are
      if (skipped == 2u)                        // shuffled: byte j of value i at j · 40 + i
        for (std::size_t i = 0; i < 40; ++i)
          for (std::size_t j = 0; j < 8; ++j) stored[j * 40 + i] = raw[i * 8 + j];
      const hsize_t offset[2] = {chunk_first, 0};
      h5::check_status(H5Dwrite_chunk(ds.get(), H5P_DEFAULT, skipped, offset, stored.size(), stored.data()), "chunk");
    }
  }
  std::vector<double> direct(120);
  ASSERT_TRUE(read_directly(path, "t", 0, 30, direct));
  std::vector<double> by_hdf5(120);
  {
    h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open");
    h5::Handle ds(H5Dopen2(file.get(), "t", H5P_DEFAULT), H5Dclose, "open");
    h5::check_status(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, by_hdf5.data()), "read");
  }
  for (std::size_t i = 0; i < 120; ++i) {
    const double want = i < 40 ? value_at(i) : -value_at(i);
    EXPECT_EQ(by_hdf5[i], want) << i;  // HDF5 agrees the chunks hold these
    EXPECT_EQ(direct[i], want) << i;
  }
}

// Other filters, an integer type, or a chunk never written: not read here (false), and
// ResultsReader reads them through H5Dread all the same.
TEST(DeflatedChunkReader, LeavesOtherDatasetsToHdfFive) {
  h5::initialize();
  test::TempDir dir;
  const std::string path = dir.file("d.h5");
  {
    h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "create");
    write_dataset(file.get(), {"checksummed", {100, 3}, {40, 3}, H5T_IEEE_F64LE}, {"fletcher32", "shuffle", "deflate"});
    write_dataset(file.get(), {"unshuffled", {100, 3}, {40, 3}, H5T_IEEE_F64LE}, {"deflate"});
    write_dataset(file.get(), {"integers", {100, 3}, {40, 3}, H5T_STD_I64LE}, {"shuffle", "deflate"});
    write_dataset(file.get(), {"big_endian", {100, 3}, {40, 3}, H5T_IEEE_F64BE}, {"shuffle", "deflate"});
    // Rows 0 to 39 written; the chunks beyond never are and read as the fill value, 0.
    const hsize_t dims[2] = {100, 3}, chunk[2] = {40, 3};
    h5::Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "space");
    h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "plist");
    h5::check_status(H5Pset_chunk(plist.get(), 2, chunk), "chunk");
    h5::check_status(H5Pset_shuffle(plist.get()), "shuffle");
    h5::check_status(H5Pset_deflate(plist.get(), 1), "deflate");
    h5::Handle ds(H5Dcreate2(file.get(), "sparse", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT),
                  H5Dclose, "create");
    const hsize_t start[2] = {0, 0}, count[2] = {40, 3};
    h5::check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), "select");
    h5::Handle memory(H5Screate_simple(2, count, nullptr), H5Sclose, "memory");
    std::vector<double> v(120);
    for (std::size_t i = 0; i < 120; ++i) v[i] = value_at(i);
    h5::check_status(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT, v.data()), "write");
  }
  const ResultsReader reader(path);
  for (const std::string name : {"checksummed", "unshuffled", "integers", "big_endian", "sparse"}) {
    std::vector<double> direct(300);
    EXPECT_FALSE(read_directly(path, name, 0, 100, direct)) << name;
    const std::vector<double> v = reader.doubles(name).data;
    ASSERT_EQ(v.size(), 300u);
    for (std::size_t i = 0; i < 300; ++i) {
      const double want = name == "integers" ? double(std::int64_t(value_at(i)))
                          : name == "sparse" ? (i < 120 ? value_at(i) : 0.0)
                                             : value_at(i);
      ASSERT_EQ(v[i], want) << name << " " << i;
    }
  }
}

// A stored chunk whose bytes do not inflate to the chunk (a damaged file): an error naming the
// dataset and the file, never values read from it.
TEST(DeflatedChunkReader, ADamagedChunkIsAnErrorNamingTheDataset) {
  h5::initialize();
  test::TempDir dir;
  const std::string path = dir.file("d.h5");
  {
    h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "create");
    write_dataset(file.get(), {"t", {100, 3}, {40, 3}, H5T_IEEE_F64LE}, {"shuffle", "deflate"});
    h5::Handle ds(H5Dopen2(file.get(), "t", H5P_DEFAULT), H5Dclose, "open");
    const std::vector<unsigned char> garbage(200, 0xAB);
    const hsize_t offset[2] = {40, 0};
    h5::check_status(H5Dwrite_chunk(ds.get(), H5P_DEFAULT, 0, offset, garbage.size(), garbage.data()), "chunk");
  }
  const ResultsReader reader(path);
  EXPECT_NO_THROW(reader.doubles("t", 0, 40));  // the sound chunk alone
  try {
    reader.doubles("t");
    FAIL() << "a damaged chunk was read";
  } catch (const Hdf5Error& e) {
    EXPECT_NE(std::string(e.what()).find("a chunk of t in " + path + " does not inflate"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rbmc

// Trajectory chunks compressed by rbmc and stored with H5Dwrite_chunk must read back through
// HDF5's own shuffle and deflate filters exactly as written: the reference is HDF5's reader.
#include "host/io/trajectory_chunks.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "host/io/h5_handle.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

constexpr hsize_t kTimes = 45, kDim = 4;  // two time chunks, the second an edge chunk

// Values with every byte significant (no runs a broken shuffle could pass by chance).
double value_at(std::size_t row, std::size_t k, std::size_t c) {
  return std::sin(double(row) * 1.7 + double(k) * 0.31 + double(c)) * std::pow(10.0, double(int(row % 7) - 3));
}

std::vector<double> rows_from(std::size_t first, std::size_t n) {
  std::vector<double> v(n * kTimes * kDim);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t k = 0; k < kTimes; ++k)
      for (std::size_t c = 0; c < kDim; ++c) v[(r * kTimes + k) * kDim + c] = value_at(first + r, k, c);
  return v;
}

h5::Handle create_file(const test::TempDir& dir) {
  return h5::Handle(H5Fcreate(dir.file("t.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "file");
}

// With deflate, the filters the chunks are compressed with; else none (chunks stored as they are).
h5::Handle create_dataset(hid_t file, bool float32, bool deflate = true) {
  const std::array<hsize_t, 3> chunk = trajectory_chunk_shape(kTimes, kDim);
  const hsize_t dims[3] = {0, kTimes, kDim}, max_dims[3] = {H5S_UNLIMITED, kTimes, kDim};
  h5::Handle space(H5Screate_simple(3, dims, max_dims), H5Sclose, "space");
  h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "plist");
  h5::check_status(H5Pset_chunk(plist.get(), 3, chunk.data()), "chunk");
  if (deflate) {
    h5::check_status(H5Pset_shuffle(plist.get()), "shuffle");
    h5::check_status(H5Pset_deflate(plist.get(), TrajectoryChunks::kDeflateLevel), "deflate");
  }
  return h5::Handle(H5Dcreate2(file, "t", float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                               plist.get(), H5P_DEFAULT),
                    H5Dclose, "create");
}

// A file holding one trajectory dataset, and the TrajectoryChunks appending to it.
struct ChunkedDataset {
  explicit ChunkedDataset(bool float32, bool deflate = true)
      : file(create_file(dir)),
        ds(create_dataset(file.get(), float32, deflate)),
        chunks(ds.get(), "t", kTimes, kDim, float32, deflate, 0) {}
  test::TempDir dir;
  h5::Handle file, ds;
  TrajectoryChunks chunks;
  StageTimings timings;
};

std::vector<double> read_all(hid_t dataset, hsize_t* rows) {
  h5::Handle space(H5Dget_space(dataset), H5Sclose, "space");
  hsize_t dims[3];
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  *rows = dims[0];
  std::vector<double> v(std::size_t(dims[0] * dims[1] * dims[2]));
  if (!v.empty())
    h5::check_status(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "read");
  return v;
}

// Appended in uneven pieces (none a whole chunk), flushed, appended to again and flushed: HDF5
// reads back every value bit for bit, in both storage precisions, compressed or not ([output]
// compression = "none": the dataset then declares no filter and stores every chunk whole), and
// the chunk shape keeps to its 256 KiB budget.
TEST(TrajectoryChunks, HdfFiveReadsBackEveryValueExactly) {
  h5::initialize();
  const std::array<hsize_t, 3> chunk = trajectory_chunk_shape(kTimes, kDim);
  EXPECT_EQ(chunk[1], 32u);
  EXPECT_LE(chunk[0] * chunk[1] * chunk[2], hsize_t(1) << 15);
  EXPECT_GT(chunk[0], 100u);
  for (const bool deflate : {true, false}) {
    for (const bool float32 : {false, true}) {
      ChunkedDataset t(float32, deflate);
      TrajectoryChunks& chunks = t.chunks;
      StageTimings& timings = t.timings;
      std::size_t written = 0;
      for (const std::size_t n : {std::size_t(1), std::size_t(300), std::size_t(0), std::size_t(731)}) {
        const std::vector<double> v = rows_from(written, n);
        chunks.append(v.data(), n, 3, timings);
        written += n;
      }
      chunks.flush(3, timings);  // a padded edge chunk
      const std::vector<double> more = rows_from(written, 57);
      chunks.append(more.data(), 57, 2, timings);  // the edge chunk is completed and rewritten
      written += 57;
      chunks.flush(1, timings);
      EXPECT_GT(timings[Stage::compress], 0.0);
      hsize_t rows = 0;
      const std::vector<double> back = read_all(t.ds.get(), &rows);
      ASSERT_EQ(rows, written);
      const std::vector<double> expected = rows_from(0, written);
      std::size_t mismatches = 0;
      for (std::size_t i = 0; i < back.size(); ++i) {
        const double want = float32 ? double(float(expected[i])) : expected[i];
        if (std::memcmp(&want, &back[i], sizeof(double)) != 0) ++mismatches;
      }
      EXPECT_EQ(mismatches, 0u) << (float32 ? "float32" : "float64") << (deflate ? ", deflated" : ", stored");
      // Stored whole: the chunks holding the rows, every byte; deflated: fewer bytes (the values,
      // smooth in time, compress).
      h5::Handle plist(H5Dget_create_plist(t.ds.get()), H5Pclose, "plist");
      EXPECT_EQ(H5Pget_nfilters(plist.get()), deflate ? 2 : 0);
      const hsize_t chunk_bytes = chunk[0] * chunk[1] * chunk[2] * (float32 ? 4 : 8);
      const hsize_t n_chunks = (written + chunk[0] - 1) / chunk[0] * ((kTimes + chunk[1] - 1) / chunk[1]);
      if (deflate) EXPECT_LT(H5Dget_storage_size(t.ds.get()), n_chunks * chunk_bytes);
      else EXPECT_EQ(H5Dget_storage_size(t.ds.get()), n_chunks * chunk_bytes);
    }
  }
}

// The rows read in place from a backend's kept trajectories, 13 values a time, the dataset's part
// at a column offset, in pieces both shorter and longer than a chunk (so that chunks mix rows
// that waited from the previous append with new ones read in place): HDF5 reads back exactly that
// part, none of the columns beside it.
TEST(TrajectoryChunks, RowsReadInPlaceFromInterleavedColumns) {
  h5::initialize();
  constexpr std::size_t kStride = 13, kFirst = 3;
  const std::size_t rows_per = trajectory_chunk_shape(kTimes, kDim)[0];
  ChunkedDataset t(false);
  std::size_t written = 0;
  for (const std::size_t n : {2 * rows_per + 7, std::size_t(5), 3 * rows_per, std::size_t(1)}) {
    // The part's values at columns [kFirst, kFirst + kDim) of each time; NaN in every other column.
    std::vector<double> interleaved(n * kTimes * kStride, std::nan(""));
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t k = 0; k < kTimes; ++k)
        for (std::size_t c = 0; c < kDim; ++c)
          interleaved[(r * kTimes + k) * kStride + kFirst + c] = value_at(written + r, k, c);
    t.chunks.append(TrajectoryRows{interleaved.data(), n, kStride, kFirst}, 4, t.timings);
    written += n;
  }
  t.chunks.flush(4, t.timings);
  EXPECT_GT(t.timings[Stage::write], 0.0);
  hsize_t rows = 0;
  const std::vector<double> back = read_all(t.ds.get(), &rows);
  ASSERT_EQ(rows, written);
  EXPECT_EQ(back, rows_from(0, written));
}

// A resumed file's last chunk is partly filled: the rows in it are read back, completed and the
// chunk rewritten, so the rows before and after the resume read back as one run's.
TEST(TrajectoryChunks, AppendingToAPartlyFilledChunkKeepsItsRows) {
  h5::initialize();
  test::TempDir dir;
  h5::Handle file = create_file(dir);
  h5::Handle ds = create_dataset(file.get(), false);
  StageTimings timings;
  const std::size_t before = trajectory_chunk_shape(kTimes, kDim)[0] + 5;
  {
    TrajectoryChunks chunks(ds.get(), "t", kTimes, kDim, false, true, 0);
    const std::vector<double> v = rows_from(0, before);
    chunks.append(v.data(), before, 2, timings);
    chunks.flush(2, timings);
  }
  TrajectoryChunks resumed(ds.get(), "t", kTimes, kDim, false, true, before);
  const std::vector<double> v = rows_from(before, 40);
  resumed.append(v.data(), 40, 2, timings);
  resumed.flush(2, timings);
  hsize_t rows = 0;
  const std::vector<double> back = read_all(ds.get(), &rows);
  ASSERT_EQ(rows, before + 40);
  EXPECT_EQ(back, rows_from(0, before + 40));
}

}  // namespace
}  // namespace rbmc

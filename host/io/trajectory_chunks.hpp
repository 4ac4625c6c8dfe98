// The kept trajectories, appended as the run finds them and stored as chunks compressed on every
// core: each chunk is byte-shuffled and deflated here exactly as HDF5's shuffle and deflate
// filters would, then stored with H5Dwrite_chunk. The datasets declare those two filters, so any
// HDF5 reader (h5py, h5dump, netCDF) reads them with nothing new installed.
//
// Chunk shape (rows, times, dim): up to 32 output times of a few hundred samples, about 256 KiB.
// One sample over time reads ⌈T / 32⌉ chunks; one time over every sample reads 1/⌈T / 32⌉ of the
// trajectories rather than all of them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "host/io/h5_handle.hpp"
#include "host/io/shuffled_deflate.hpp"
#include "host/util/stage_timings.hpp"

namespace rbmc {

// (rows, times, dim) of a trajectory dataset's chunks.
std::array<hsize_t, 3> trajectory_chunk_shape(hsize_t n_times, hsize_t dim);

// n rows of trajectory values read in place: row r's component c (c < the dataset's dim) at output
// time k is data[(r · n_times + k) · stride + first + c]. A backend's kept trajectories, (rows,
// n_times, 13), give each part of the state (p, q, v, ω) with stride 13 and its first column.
struct TrajectoryRows {
  const double* data = nullptr;
  std::size_t n = 0;
  std::size_t stride = 0;
  std::size_t first = 0;
};

// Appends rows of one (kept, n_times, dim) dataset created with trajectory_chunk_shape chunks,
// H5Pset_shuffle and H5Pset_deflate(kDeflateLevel) (deflate) or no filter, stored as float64 or
// float32.
class TrajectoryChunks {
 public:
  // Level 1: on tossed_box's trajectories, 186 MB/s a thread at a ratio of 0.560, against level
  // 4's 153 MB/s at 0.555 (bench/RESULTS.md, 2026-11-26). On a GPU run compressing decides the
  // wall time, and 1 % of the file is worth less than a fifth of the compressors' time.
  static constexpr int kDeflateLevel = 1;

  // rows_in_file: rows the dataset already holds (a resumed run); the last, partly filled chunk's
  // rows are read back so that it is completed and rewritten.
  // deflate: the dataset declares the shuffle and deflate filters, and the chunks are compressed;
  // else they are stored as they are.
  TrajectoryChunks(hid_t dataset, std::string name, hsize_t n_times, hsize_t dim, bool float32, bool deflate,
                   hsize_t rows_in_file);

  // Adds the rows. Extends the dataset; compresses the chunks they fill on `threads` threads
  // straight from `rows` and stores each as soon as it is compressed, while the others compress.
  // Only the rows short of a whole chunk are copied, to wait for the next append. Timings: write is
  // the time in HDF5, compress the rest (waiting for the compressors included).
  void append(const TrajectoryRows& rows, unsigned threads, StageTimings& timings);
  // The same for n rows of n_times × dim doubles, contiguous (stride dim, first 0).
  void append(const double* rows, std::size_t n, unsigned threads, StageTimings& timings);
  // Stores the partly filled last chunk (padded), so the file holds every row: before the file is
  // closed. More rows may follow; the chunk is then rewritten.
  void flush(unsigned threads, StageTimings& timings);

 private:
  // Stores the chunks of the first n_rows rows from pending_first_: pending_'s rows, then `more`'s.
  void store_chunks(std::size_t n_rows, const TrajectoryRows& more, bool pad, unsigned threads, StageTimings& timings);

  hid_t dataset_;
  std::string name_;
  hsize_t n_times_, dim_;
  bool float32_;
  bool deflate_;
  std::array<hsize_t, 3> chunk_;
  hsize_t rows_ = 0;              // rows in the dataset
  hsize_t pending_first_ = 0;     // the first row of pending_ (a multiple of chunk_[0])
  std::vector<double> pending_;   // rows not yet in a full stored chunk, (rows, n_times, dim)
};

}  // namespace rbmc

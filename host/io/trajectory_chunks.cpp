#include "host/io/trajectory_chunks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "host/errors.hpp"
#include "host/io/shuffled_deflate.hpp"
#include "host/util/parallel_for.hpp"

namespace rbmc {

std::array<hsize_t, 3> trajectory_chunk_shape(hsize_t n_times, hsize_t dim) {
  const hsize_t times = std::min<hsize_t>(std::max<hsize_t>(n_times, 1), 32);
  const hsize_t rows = std::max<hsize_t>(1, (hsize_t(1) << 15) / (times * dim));  // 2^15 values: 256 KiB of doubles
  return {rows, times, dim};
}

TrajectoryChunks::TrajectoryChunks(hid_t dataset, std::string name, hsize_t n_times, hsize_t dim, bool float32,
                                   bool deflate, hsize_t rows_in_file)
    : dataset_(dataset),
      name_(std::move(name)),
      n_times_(n_times),
      dim_(dim),
      float32_(float32),
      deflate_(deflate),
      chunk_(trajectory_chunk_shape(n_times, dim)),
      rows_(rows_in_file),
      pending_first_(rows_in_file - rows_in_file % chunk_[0]) {
  if (rows_ == pending_first_) return;
  // A resumed file: its last chunk is partly filled; read those rows back to complete it.
  const hsize_t start[3] = {pending_first_, 0, 0}, count[3] = {rows_ - pending_first_, n_times_, dim_};
  pending_.resize(std::size_t(count[0] * n_times_ * dim_));
  h5::Handle file_space(H5Dget_space(dataset_), H5Sclose, "H5Dget_space " + name_);
  h5::check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
                   "selecting the last rows of " + name_);
  h5::Handle memory_space(H5Screate_simple(3, count, nullptr), H5Sclose, "H5Screate_simple");
  h5::check_status(H5Dread(dataset_, H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT, pending_.data()),
                   "reading the last rows of " + name_);
}

void TrajectoryChunks::append(const double* rows, std::size_t n, unsigned threads, StageTimings& timings) {
  append(TrajectoryRows{rows, n, std::size_t(dim_), 0}, threads, timings);
}

void TrajectoryChunks::append(const TrajectoryRows& rows, unsigned threads, StageTimings& timings) {
  if (rows.n == 0) return;
  rows_ += rows.n;
  {
    const StageClock clock(&timings, Stage::write);
    const hsize_t dims[3] = {rows_, n_times_, dim_};
    h5::check_status(H5Dset_extent(dataset_, dims), "extending " + name_);
  }
  const std::size_t n_times = std::size_t(n_times_), dim = std::size_t(dim_), per_row = n_times * dim;
  // Fewer than a chunk's rows wait in pending_ (an invariant), so whole chunks, if any, take all
  // of them and the first of the new rows.
  const std::size_t pending_rows = pending_.size() / per_row, total = pending_rows + rows.n;
  const std::size_t full = total - total % std::size_t(chunk_[0]);
  std::size_t from = 0;  // the first of the new rows not stored
  if (full > 0) {
    store_chunks(full, rows, false, threads, timings);
    pending_.clear();
    pending_first_ += full;
    from = full - pending_rows;
  }
  const StageClock clock(&timings, Stage::compress);
  for (std::size_t r = from; r < rows.n; ++r)
    for (std::size_t k = 0; k < n_times; ++k) {
      const double* v = rows.data + (r * n_times + k) * rows.stride + rows.first;
      pending_.insert(pending_.end(), v, v + dim);
    }
}

void TrajectoryChunks::flush(unsigned threads, StageTimings& timings) {
  const std::size_t pending_rows = pending_.size() / std::size_t(n_times_ * dim_);
  if (pending_rows > 0) store_chunks(pending_rows, TrajectoryRows{}, true, threads, timings);
}

void TrajectoryChunks::store_chunks(std::size_t n_rows, const TrajectoryRows& more, bool pad, unsigned threads,
                                   StageTimings& timings) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const std::size_t rows_per = std::size_t(chunk_[0]), times_per = std::size_t(chunk_[1]), dim = std::size_t(dim_),
                    n_times = std::size_t(n_times_);
  const std::size_t row_chunks = (n_rows + rows_per - 1) / rows_per, time_chunks = (n_times + times_per - 1) / times_per;
  if (!pad && n_rows % rows_per != 0) throw Hdf5Error("internal error: a partial chunk of " + name_);
  const std::size_t pending_rows = pending_.size() / (n_times * dim);
  if (n_rows > pending_rows + more.n) throw Hdf5Error("internal error: too few rows for the chunks of " + name_);
  // Row R's values at time k: pending_'s rows first, then more's, read in place.
  const auto row_at = [&](std::size_t row, std::size_t k) -> const double* {
    if (row < pending_rows) return &pending_[(row * n_times + k) * dim];
    return more.data + ((row - pending_rows) * n_times + k) * more.stride + more.first;
  };
  const std::size_t element = float32_ ? sizeof(float) : sizeof(double), values = rows_per * times_per * dim;
  const std::size_t jobs = row_chunks * time_chunks;
  // Chunks compress on `threads` threads while this one stores them in order as each is ready:
  // HDF5 is called from this thread alone.
  std::vector<std::vector<unsigned char>> compressed(jobs);
  std::unique_ptr<std::atomic<bool>[]> ready(new std::atomic<bool>[jobs]);
  for (std::size_t job = 0; job < jobs; ++job) ready[job].store(false);
  std::mutex mutex;
  std::condition_variable compressed_one;
  bool compressors_done = false;
  std::atomic<bool> stop{false};
  std::exception_ptr compress_error;
  const auto compress = [&](std::size_t begin, std::size_t end) {
    std::vector<unsigned char> raw(values * element);
    for (std::size_t job = begin; job < end && !stop.load(std::memory_order_relaxed); ++job) {
      const std::size_t rc = job / time_chunks, tc = job % time_chunks;
      std::fill(raw.begin(), raw.end(), 0);  // the padding of edge chunks
      for (std::size_t r = 0; r < rows_per && rc * rows_per + r < n_rows; ++r)
        for (std::size_t k = 0; k < times_per && tc * times_per + k < n_times; ++k) {
          const double* from = row_at(rc * rows_per + r, tc * times_per + k);
          const std::size_t at = (r * times_per + k) * dim;
          for (std::size_t c = 0; c < dim; ++c) {
            if (float32_) {
              const float v = float(from[c]);
              std::memcpy(&raw[(at + c) * element], &v, element);
            } else {
              std::memcpy(&raw[(at + c) * element], &from[c], element);
            }
          }
        }
      compressed[job] = deflate_ ? shuffle_and_deflate(raw.data(), raw.size(), element, kDeflateLevel) : raw;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        ready[job].store(true);
      }
      compressed_one.notify_one();
    }
  };
  std::thread compressing([&] {
    try {
      parallel_for(jobs, threads, compress);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex);
      compress_error = std::current_exception();
    }
    {
      const std::lock_guard<std::mutex> lock(mutex);
      compressors_done = true;
    }
    compressed_one.notify_one();
  });
  double writing = 0;
  try {
    for (std::size_t job = 0; job < jobs; ++job) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        compressed_one.wait(lock, [&] { return ready[job].load() || compressors_done; });
        if (!ready[job].load()) break;  // a compressor failed: its error is rethrown below
      }
      const auto write_started = Clock::now();
      const hsize_t offset[3] = {pending_first_ + hsize_t(job / time_chunks) * chunk_[0],
                                 hsize_t(job % time_chunks) * chunk_[1], 0};
      h5::check_status(H5Dwrite_chunk(dataset_, H5P_DEFAULT, 0, offset, compressed[job].size(), compressed[job].data()),
                       "writing a chunk of " + name_);
      std::vector<unsigned char>().swap(compressed[job]);
      writing += std::chrono::duration<double>(Clock::now() - write_started).count();
    }
  } catch (...) {
    stop.store(true);
    compressing.join();
    throw;
  }
  compressing.join();
  if (compress_error) std::rethrow_exception(compress_error);
  timings[Stage::write] += writing;
  timings[Stage::compress] += std::chrono::duration<double>(Clock::now() - started).count() - writing;
}

}  // namespace rbmc

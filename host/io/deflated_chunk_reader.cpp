#include "host/io/deflated_chunk_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "host/io/h5_handle.hpp"
#include "host/io/shuffled_deflate.hpp"
#include "host/util/parallel_for.hpp"

namespace rbmc {

namespace {

H5Z_filter_t filter_at(hid_t plist, unsigned index) {
  unsigned flags = 0, config = 0;
  std::size_t n_values = 0;
  return H5Pget_filter2(plist, index, &flags, &n_values, nullptr, 0, nullptr, &config);
}

// An odometer over axes [0, n), the last the fastest, axis d from begin[d] to end[d] (exclusive):
// `at` moved to the next index; false after the last.
bool advance(std::vector<hsize_t>& at, const std::vector<hsize_t>& begin, const std::vector<hsize_t>& end,
             std::size_t n) {
  for (std::size_t d = n; d-- > 0;) {
    if (++at[d] < end[d]) return true;
    at[d] = begin[d];
  }
  return false;
}

}  // namespace

bool read_deflated_rows(hid_t dataset, const std::string& name, hsize_t first, hsize_t count, double* out,
                        unsigned threads) {
  h5::Handle plist(H5Dget_create_plist(dataset), H5Pclose, "the creation properties of " + name);
  if (H5Pget_layout(plist.get()) != H5D_CHUNKED || H5Pget_nfilters(plist.get()) != 2 ||
      filter_at(plist.get(), 0) != H5Z_FILTER_SHUFFLE || filter_at(plist.get(), 1) != H5Z_FILTER_DEFLATE)
    return false;
  h5::Handle type(H5Dget_type(dataset), H5Tclose, "the type of " + name);
  const bool float64 = H5Tequal(type.get(), H5T_IEEE_F64LE) > 0, float32 = H5Tequal(type.get(), H5T_IEEE_F32LE) > 0;
  // The values are copied as this host's double and float: checked, not assumed.
  if (!(float64 || float32) || H5Tequal(H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE) <= 0 ||
      H5Tequal(H5T_NATIVE_FLOAT, H5T_IEEE_F32LE) <= 0)
    return false;
  h5::Handle space(H5Dget_space(dataset), H5Sclose, "the dataspace of " + name);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1) return false;
  const std::size_t axes = std::size_t(rank);
  std::vector<hsize_t> dims(axes), chunk(axes);
  h5::check_status(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "the extent of " + name);
  if (H5Pget_chunk(plist.get(), rank, chunk.data()) != rank) return false;
  if (first + count > dims[0]) throw Hdf5Error("internal error: rows beyond the extent of " + name);
  if (count == 0) return true;

  // The chunks the rows lie in: along the first axis those from first's to the last row's, along
  // the others every one. (n_axes) offsets each, in elements.
  std::vector<std::vector<hsize_t>> offsets;
  std::vector<hsize_t> grid_begin(axes, 0), grid_end(axes);
  for (std::size_t d = 0; d < axes; ++d) grid_end[d] = (dims[d] + chunk[d] - 1) / chunk[d];
  grid_begin[0] = first / chunk[0];
  grid_end[0] = (first + count - 1) / chunk[0] + 1;
  std::vector<hsize_t> at = grid_begin;
  do {
    std::vector<hsize_t> offset(axes);
    for (std::size_t d = 0; d < axes; ++d) offset[d] = at[d] * chunk[d];
    offsets.push_back(offset);
  } while (advance(at, grid_begin, grid_end, axes));
  // Every chunk stored, or none read here: a chunk never written reads as the fill value.
  std::vector<hsize_t> stored_bytes(offsets.size());
  for (std::size_t c = 0; c < offsets.size(); ++c)
    if (H5Dget_chunk_storage_size(dataset, offsets[c].data(), &stored_bytes[c]) < 0 || stored_bytes[c] == 0)
      return false;

  const std::size_t element = float64 ? sizeof(double) : sizeof(float);
  std::size_t chunk_values = 1;
  for (const hsize_t n : chunk) chunk_values *= std::size_t(n);
  // Strides of the chunk's values and of out's, in values.
  std::vector<std::size_t> chunk_stride(axes, 1), out_stride(axes, 1);
  for (std::size_t d = axes - 1; d-- > 0;) {
    chunk_stride[d] = chunk_stride[d + 1] * std::size_t(chunk[d + 1]);
    out_stride[d] = out_stride[d + 1] * std::size_t(dims[d + 1]);
  }
  std::mutex hdf5;
  parallel_for(offsets.size(), threads, [&](std::size_t begin, std::size_t end) {
    thread_local std::vector<unsigned char> stored, values;
    values.resize(chunk_values * element);
    for (std::size_t c = begin; c < end; ++c) {
      const std::vector<hsize_t>& offset = offsets[c];
      std::uint32_t skipped = 0;  // bit 0: the shuffle was skipped for this chunk, bit 1: the deflate
      stored.resize(std::size_t(stored_bytes[c]));
      {
        const std::lock_guard<std::mutex> lock(hdf5);
        h5::check_status(H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &skipped, stored.data()),
                         "reading a chunk of " + name);
      }
      inflate_and_unshuffle(stored.data(), stored.size(), (skipped & 2u) == 0, (skipped & 1u) == 0, element,
                            values.data(), values.size(), name.c_str());
      // The chunk's values inside the extent and the rows asked for (local indices from
      // local_begin to local_end), copied a run along the last axis at a time (along the rows
      // themselves for a dataset of one axis).
      std::vector<hsize_t> local_begin(axes, 0), local_end(axes);
      for (std::size_t d = 0; d < axes; ++d) local_end[d] = std::min(chunk[d], dims[d] - offset[d]);
      local_begin[0] = std::max(first, offset[0]) - offset[0];
      local_end[0] = std::min(first + count, offset[0] + local_end[0]) - offset[0];
      const std::size_t last = axes - 1;
      const std::size_t run_begin = axes == 1 ? std::size_t(local_begin[0]) : 0,
                        run = std::size_t(local_end[last] - (axes == 1 ? local_begin[0] : 0));
      std::vector<hsize_t> local = local_begin;
      do {
        std::size_t from = run_begin, to = std::size_t(offset[0] + local[0] - first) * out_stride[0];
        for (std::size_t d = 0; d < last; ++d) from += std::size_t(local[d]) * chunk_stride[d];
        for (std::size_t d = 1; d < last; ++d) to += std::size_t(offset[d] + local[d]) * out_stride[d];
        if (axes > 1) to += std::size_t(offset[last]);
        if (float64) {
          std::memcpy(out + to, values.data() + from * element, run * element);
        } else {
          for (std::size_t i = 0; i < run; ++i) {
            float v;
            std::memcpy(&v, values.data() + (from + i) * element, element);
            out[to + i] = double(v);
          }
        }
      } while (advance(local, local_begin, local_end, last));
    }
  });
  return true;
}

}  // namespace rbmc

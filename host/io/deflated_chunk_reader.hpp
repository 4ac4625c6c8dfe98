// Reads datasets whose chunks pass through HDF5's shuffle and deflate filters (the kept
// trajectories) by inflating their stored chunks on several threads. HDF5's own H5Dread inflates
// a read's chunks one after another on the calling thread with zlib: two thirds of `rbmc
// compare`'s time on tossed_box's trajectories (bench/RESULTS.md, 2026-12-06, sixty-third session).
#pragma once

#include <hdf5.h>

#include <string>

namespace rbmc {

// Rows [first, first + count) of the first axis of `dataset` (already clipped to its extent), as
// doubles in `out` (row-major: count × the other axes' extents). The stored chunks are read one at
// a time (H5Dread_chunk: HDF5 is serial) and inflated and unshuffled on up to `threads` threads.
// Returns false, having read nothing, where the dataset is not such: another layout, filter or
// stored type (IEEE little-endian float64 and float32 are read), or a chunk never stored (it
// reads as the fill value, which H5Dread supplies). `name` names it in errors.
bool read_deflated_rows(hid_t dataset, const std::string& name, hsize_t first, hsize_t count, double* out,
                        unsigned threads);

}  // namespace rbmc

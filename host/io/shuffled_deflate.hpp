// HDF5's shuffle and deflate filters applied on the host, so that worker threads compress the
// chunks that H5Dwrite_chunk then stores (any HDF5 reader inflates them with its own filters).
#pragma once

#include <cstddef>
#include <vector>

namespace rbmc {

// Shuffles the bytes of `bytes / element_size` elements (byte j of element i to j · n + i, as
// HDF5's shuffle filter) and deflates them to the zlib format at `level` (HDF5's deflate filter):
// libdeflate where the build has it, else zlib.
//
// With libdeflate, the low byte planes of floating-point values, which hold the mantissas' noise
// and which no deflate coder shrinks but for runs of one byte (a stopped sample's NaN, zeros),
// are written as one deflate block of a fixed code of their own (8 bits a byte, runs as matches):
// tossed_box's chunks of flight deflate 2.3 × faster so, at the same size (bench/RESULTS.md,
// 2026-12-03).
// A plane is so written only while a probe of it (two windows of 2 KiB) deflates no more than 3 %
// smaller; from the first plane that deflates smaller, the rest are deflated as before. One valid
// zlib stream either way.
std::vector<unsigned char> shuffle_and_deflate(const unsigned char* data, std::size_t bytes, std::size_t element_size,
                                               int level);

// The inverse, for reading such chunks without HDF5's filters (host/io/deflated_chunk_reader.hpp):
// `in`, one stored chunk, inflated from the zlib format (its Adler-32 checked) to exactly `bytes`
// bytes and unshuffled into `out`. `inflate` or `unshuffle` false: that filter was skipped for
// this chunk (its filter mask). Throws Hdf5Error naming `what` where the stream is damaged or
// holds another number of bytes.
void inflate_and_unshuffle(const unsigned char* in, std::size_t in_bytes, bool inflate, bool unshuffle,
                           std::size_t element_size, unsigned char* out, std::size_t bytes, const char* what);

// How many of the shuffled chunk's planes (n bytes each, the least significant first) go out in a
// noise block: 0 without libdeflate.
std::size_t noise_plane_count(const unsigned char* shuffled, std::size_t n, std::size_t element_size, int level);

// The noise planes' writing alone, for the tests: n bytes appended to `out` as one complete,
// non-final deflate block (RFC 1951, 3.2.7) that ends on a byte.
void append_noise_block(const unsigned char* data, std::size_t n, std::vector<unsigned char>& out);

}  // namespace rbmc

#include "host/io/shuffled_deflate.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "host/errors.hpp"

#ifdef RBMC_HAVE_LIBDEFLATE
#include <libdeflate.h>
#else
#include <zlib.h>
#endif

namespace rbmc {

namespace {

// A raw deflate stream's bits, least significant first (RFC 1951, 3.1.1), written at `out`
// (room for every byte put).
class BitWriter {
 public:
  explicit BitWriter(unsigned char* out) : out_(out) {}
  void put(std::uint32_t bits, int count) {  // count ≤ 24
    buffer_ |= std::uint64_t(bits) << filled_;
    filled_ += count;
    if (filled_ >= 32) {
      for (int i = 0; i < 4; ++i) out_[i] = static_cast<unsigned char>(buffer_ >> (8 * i));
      out_ += 4;
      buffer_ >>= 32;
      filled_ -= 32;
    }
  }
  // The bits put so far to whole bytes (the last padded with zeros); where the next byte goes.
  unsigned char* flush() {
    for (; filled_ > 0; filled_ -= std::min(filled_, 8), buffer_ >>= 8) *out_++ = static_cast<unsigned char>(buffer_);
    filled_ = 0;
    return out_;
  }
  int pending() const { return filled_; }

 private:
  unsigned char* out_;
  std::uint64_t buffer_ = 0;
  int filled_ = 0;
};

// A Huffman code as put: its bits reversed, since a code goes most significant bit first (3.1.1).
std::uint32_t reversed(std::uint32_t code, int length) {
  std::uint32_t r = 0;
  for (int i = 0; i < length; ++i) r |= ((code >> i) & 1u) << (length - 1 - i);
  return r;
}

// Lengths 3 to 258: symbols 257 to 285, their base lengths and extra bits (3.2.5).
constexpr unsigned kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr int kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

// One block of codes of its own (3.2.7) for bytes that are noise but for runs of one byte: every
// literal 8 bits but two of 9 (254 and 255), so that noise costs 8.008 bits a byte, and room left
// for the end of the block and the match lengths (12 and 13 bits), with one distance, 1 (1 bit),
// so that a run is its byte and matches of the byte before it. The code lengths, and the header
// that describes them, are the same for every block: computed once.
struct NoiseCode {
  static constexpr int kSymbols = 286;  // literals, end of block, the 29 lengths
  std::uint16_t code[kSymbols];         // reversed, ready to put
  std::uint8_t length[kSymbols];
  std::vector<std::pair<std::uint32_t, int>> header;  // the block's header as puts

  NoiseCode() {
    for (int s = 0; s < kSymbols; ++s) length[s] = s < 254 ? 8 : s < 256 ? 9 : (s == 256 || s == 285) ? 12 : 13;
    canonical(length, kSymbols, code);  // complete: 254/2⁸ + 2/2⁹ + 2/2¹² + 28/2¹³ = 1
    // The code of the code lengths (3.2.7): the five lengths used, as a complete code.
    std::uint8_t cl_length[19] = {};
    cl_length[8] = 1, cl_length[13] = 2, cl_length[9] = 3, cl_length[12] = 4, cl_length[1] = 4;
    std::uint16_t cl_code[19];
    canonical(cl_length, 19, cl_code);
    static constexpr int kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    header.push_back({0, 1});               // BFINAL
    header.push_back({2, 2});               // BTYPE 10: codes of its own
    header.push_back({kSymbols - 257, 5});  // HLIT
    header.push_back({0, 5});               // HDIST: one distance code
    header.push_back({18 - 4, 4});          // HCLEN: the code lengths' lengths up to kOrder[17], symbol 1
    for (int i = 0; i < 18; ++i) header.push_back({cl_length[kOrder[i]], 3});
    for (int s = 0; s < kSymbols; ++s) header.push_back({cl_code[length[s]], cl_length[length[s]]});
    header.push_back({cl_code[1], cl_length[1]});  // the one distance code's length, 1
    int bits = 0;
    for (const auto& h : header) bits += h.second;
    header_bytes = std::size_t(bits / 8);
  }
  std::size_t header_bytes = 0;  // whole bytes of the header
  // Canonical Huffman codes from their lengths (3.2.2), reversed for put.
  static void canonical(const std::uint8_t* lengths, int n, std::uint16_t* codes) {
    int count[16] = {};
    for (int s = 0; s < n; ++s) ++count[lengths[s]];
    count[0] = 0;
    std::uint32_t next[16] = {}, c = 0;
    for (int bits = 1; bits < 16; ++bits) next[bits] = c = (c + std::uint32_t(count[bits - 1])) << 1;
    for (int s = 0; s < n; ++s)
      if (lengths[s] > 0) codes[s] = static_cast<std::uint16_t>(reversed(next[lengths[s]]++, lengths[s]));
  }
  void put(BitWriter& bits, int symbol) const { bits.put(code[symbol], length[symbol]); }
  // A match of `n` bytes (3 to 258) at distance 1: its length symbol, extra bits, distance code.
  void put_match(BitWriter& bits, unsigned n) const {
    int i = 28;
    while (kLengthBase[i] > n) --i;
    put(bits, 257 + i);
    if (kLengthExtra[i] > 0) bits.put(n - kLengthBase[i], kLengthExtra[i]);
    bits.put(0, 1);  // distance code 0, the only one: distance 1
  }
};

const NoiseCode& noise_code() {
  static const NoiseCode code;
  return code;
}

// A run shorter than this goes out as literals: its byte and a match cost about 3 bytes.
constexpr std::size_t kMinRun = 12;

// The most bytes noise_block writes for n bytes: 9 bits a byte at the worst, the header, the end
// of the block and an empty stored block to end on a byte.
std::size_t noise_block_bound(std::size_t n) { return n + n / 8 + 128; }

// p[0, n) as one non-final block of the noise code at `out`, which then ends on a byte (an empty
// stored block after it where needed: 3.2.4); returns where the next byte goes.
unsigned char* noise_block(const unsigned char* p, std::size_t n, unsigned char* out) {
  const NoiseCode& code = noise_code();
  BitWriter bits(out);
  for (const auto& [value, count] : code.header) bits.put(value, count);
  const auto literals = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) code.put(bits, p[i]);
  };
  constexpr std::uint64_t kEveryByte = 0x0101010101010101ull;
  std::size_t literal = 0, i = 0;  // literal: where the bytes not yet written begin
  while (i + 8 <= n) {
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    if (word != (word & 0xff) * kEveryByte) {  // eight bytes not all alike: no run starts here
      i += 8;
      continue;
    }
    const unsigned char byte = p[i];
    std::size_t begin = i, end = i + 8;
    for (std::uint64_t next; end + 8 <= n && (std::memcpy(&next, p + end, 8), next == word);) end += 8;
    while (end < n && p[end] == byte) ++end;
    while (begin > literal && p[begin - 1] == byte) --begin;
    if (end - begin >= kMinRun) {
      literals(literal, begin + 1);  // up to the run's first byte, which its matches repeat
      for (std::size_t left = end - begin - 1; left > 0;) {
        std::size_t m = std::min<std::size_t>(left, 258);
        if (left - m > 0 && left - m < 3) m = left - 3;  // no match shorter than 3 after it
        code.put_match(bits, unsigned(m));
        left -= m;
      }
      literal = end;
    }
    i = end;
  }
  literals(literal, n);
  code.put(bits, 256);  // end of block
  if (bits.pending() > 0) {
    bits.put(0, 3);  // an empty stored block, not final: padding to a byte, LEN 0, NLEN 0xFFFF
    out = bits.flush();
    const unsigned char empty[4] = {0x00, 0x00, 0xFF, 0xFF};
    return std::copy(empty, empty + 4, out);
  }
  return bits.flush();
}

}  // namespace

void append_noise_block(const unsigned char* data, std::size_t n, std::vector<unsigned char>& out) {
  const std::size_t at = out.size();
  out.resize(at + noise_block_bound(n));
  out.resize(std::size_t(noise_block(data, n, out.data() + at) - out.data()));
}

#ifdef RBMC_HAVE_LIBDEFLATE
namespace {

// One compressor per thread, reused across chunks (it holds about 1 MB of tables).
libdeflate_compressor* compressor_at(int level) {
  thread_local struct Compressor {
    libdeflate_compressor* c = nullptr;
    int level = -1;
    ~Compressor() {
      if (c != nullptr) libdeflate_free_compressor(c);
    }
  } compressor;
  if (compressor.level != level) {
    if (compressor.c != nullptr) libdeflate_free_compressor(compressor.c);
    compressor.c = libdeflate_alloc_compressor(level);
    compressor.level = level;
    if (compressor.c == nullptr) throw Hdf5Error("libdeflate could not allocate a compressor");
  }
  return compressor.c;
}

// Whether a shuffled plane of n bytes is noise to deflate: two windows of it, at its start and
// its middle, deflate no more than 3 % smaller than in a noise block, its header left out (a
// chunk's block has it once for all its noise planes; libdeflate's blocks of a window pay theirs).
// Planes too small to probe are deflated.
constexpr std::size_t kProbeWindow = 2048;
bool plane_is_noise(libdeflate_compressor* c, const unsigned char* plane, std::size_t n) {
  if (n < 4 * kProbeWindow) return false;
  thread_local std::vector<unsigned char> scratch;
  std::size_t noise = 0, deflated = 0;
  for (const unsigned char* window : {plane, plane + n / 2}) {
    scratch.clear();
    append_noise_block(window, kProbeWindow, scratch);
    noise += scratch.size() - noise_code().header_bytes;
    scratch.resize(libdeflate_deflate_compress_bound(c, kProbeWindow));
    const std::size_t size = libdeflate_deflate_compress(c, window, kProbeWindow, scratch.data(), scratch.size());
    deflated += size == 0 ? kProbeWindow : size;
  }
  return double(deflated) >= 0.97 * double(noise);
}

}  // namespace
#endif

std::size_t noise_plane_count(const unsigned char* shuffled, std::size_t n, std::size_t element_size, int level) {
#ifdef RBMC_HAVE_LIBDEFLATE
  libdeflate_compressor* c = compressor_at(level);
  std::size_t planes = 0;
  while (planes < element_size && plane_is_noise(c, shuffled + planes * n, n)) ++planes;
  return planes;
#else
  (void)shuffled, (void)n, (void)element_size, (void)level;
  return 0;
#endif
}

std::vector<unsigned char> shuffle_and_deflate(const unsigned char* data, std::size_t bytes, std::size_t element_size,
                                               int level) {
  // HDF5's shuffle filter (H5Zshuffle.c): byte j of element i goes to j · n + i; bytes beyond the
  // last whole element stay in place at the end.
  const std::size_t n = bytes / element_size;
  std::vector<unsigned char> shuffled(bytes);
  for (std::size_t j = 0; j < element_size; ++j)
    for (std::size_t i = 0; i < n; ++i) shuffled[j * n + i] = data[i * element_size + j];
  std::memcpy(shuffled.data() + n * element_size, data + n * element_size, bytes - n * element_size);
#ifdef RBMC_HAVE_LIBDEFLATE
  libdeflate_compressor* c = compressor_at(level);
  const std::size_t noise_planes = noise_plane_count(shuffled.data(), n, element_size, level);
  std::vector<unsigned char> out;
  if (noise_planes == 0) {
    out.resize(libdeflate_zlib_compress_bound(c, bytes));
    const std::size_t size = libdeflate_zlib_compress(c, shuffled.data(), bytes, out.data(), out.size());
    if (size == 0) throw Hdf5Error("libdeflate failed to compress a chunk");
    out.resize(size);
    return out;
  }
  // The zlib format (RFC 1950): CMF 0x78 (deflate, 32 KiB window) and FLG 0x01 (the check bits,
  // the fastest level), the deflate blocks, the Adler-32 of the uncompressed bytes.
  const std::size_t noise = noise_planes * n, rest = bytes - noise;
  out.reserve(2 + noise_block_bound(noise) + (rest > 0 ? libdeflate_deflate_compress_bound(c, rest) : 5) + 4);
  out.push_back(0x78);
  out.push_back(0x01);
  append_noise_block(shuffled.data(), noise, out);  // ends on a byte: the next block starts one
  if (rest > 0) {
    const std::size_t at = out.size();
    out.resize(at + libdeflate_deflate_compress_bound(c, rest));
    const std::size_t size = libdeflate_deflate_compress(c, shuffled.data() + noise, rest, out.data() + at, out.size() - at);
    if (size == 0) throw Hdf5Error("libdeflate failed to compress a chunk");
    out.resize(at + size);  // its last block is the final one
  } else {
    const unsigned char final_empty[5] = {0x01, 0x00, 0x00, 0xFF, 0xFF};  // an empty stored block, final
    out.insert(out.end(), final_empty, final_empty + 5);
  }
  const std::uint32_t adler = libdeflate_adler32(1, shuffled.data(), bytes);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<unsigned char>(adler >> shift));
#else
  uLongf size = compressBound(uLong(bytes));
  std::vector<unsigned char> out(size);
  if (compress2(out.data(), &size, shuffled.data(), uLong(bytes), level) != Z_OK)
    throw Hdf5Error("zlib failed to compress a chunk");
  out.resize(size);
#endif
  return out;
}

namespace {

// The elements' S bytes gathered from the S planes, an element written at once (the size known,
// the compiler unrolls the gather: about 1.7 × faster than a byte loop of unknown size).
template <std::size_t S>
void unshuffle_elements(const unsigned char* planes, std::size_t n, unsigned char* out) {
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char element[S];
    for (std::size_t j = 0; j < S; ++j) element[j] = planes[j * n + i];
    std::memcpy(out + i * S, element, S);
  }
}

}  // namespace

void inflate_and_unshuffle(const unsigned char* in, std::size_t in_bytes, bool inflate, bool unshuffle,
                           std::size_t element_size, unsigned char* out, std::size_t bytes, const char* what) {
  thread_local std::vector<unsigned char> inflated;
  const unsigned char* shuffled = in;
  if (inflate) {
    inflated.resize(bytes);
#ifdef RBMC_HAVE_LIBDEFLATE
    thread_local struct Decompressor {
      libdeflate_decompressor* d = libdeflate_alloc_decompressor();
      ~Decompressor() {
        if (d != nullptr) libdeflate_free_decompressor(d);
      }
    } decompressor;
    if (decompressor.d == nullptr) throw Hdf5Error("libdeflate could not allocate a decompressor");
    std::size_t size = 0;
    const libdeflate_result r = libdeflate_zlib_decompress(decompressor.d, in, in_bytes, inflated.data(), bytes, &size);
    if (r != LIBDEFLATE_SUCCESS || size != bytes)
#else
    uLongf size = uLongf(bytes);
    if (uncompress(inflated.data(), &size, in, uLong(in_bytes)) != Z_OK || size != bytes)
#endif
      throw Hdf5Error(std::string("a chunk of ") + what + " does not inflate to its " + std::to_string(bytes) +
                      " bytes: the file is damaged");
    shuffled = inflated.data();
  } else if (in_bytes != bytes) {
    throw Hdf5Error(std::string("a chunk of ") + what + " holds " + std::to_string(in_bytes) + " bytes, not its " +
                    std::to_string(bytes) + ": the file is damaged");
  }
  if (!unshuffle) {
    std::memcpy(out, shuffled, bytes);
    return;
  }
  // shuffle_and_deflate's shuffle undone: byte j of element i is at j · n + i.
  const std::size_t n = bytes / element_size;
  if (element_size == 8)
    unshuffle_elements<8>(shuffled, n, out);
  else if (element_size == 4)
    unshuffle_elements<4>(shuffled, n, out);
  else
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < element_size; ++j) out[i * element_size + j] = shuffled[j * n + i];
  std::memcpy(out + n * element_size, shuffled + n * element_size, bytes - n * element_size);
}

}  // namespace rbmc

// The chunks rbmc deflates must inflate, with zlib (HDF5's deflate filter is zlib's inflate), to
// exactly the shuffled bytes: the reference is zlib's decoder and a shuffle written here.
#include "host/io/shuffled_deflate.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

namespace rbmc {
namespace {

using Bytes = std::vector<unsigned char>;

// zlib's inflate of a stream: raw deflate (window_bits −15) or the zlib format (15, Adler-32
// checked); fails the test where zlib finds the stream invalid or not ended.
Bytes inflated(const Bytes& stream, std::size_t expected_size, int window_bits) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, window_bits), Z_OK);
  Bytes out(expected_size + 16);
  z.next_in = const_cast<unsigned char*>(stream.data());
  z.avail_in = uInt(stream.size());
  z.next_out = out.data();
  z.avail_out = uInt(out.size());
  const int status = inflate(&z, Z_FINISH);
  EXPECT_EQ(status, Z_STREAM_END) << (z.msg != nullptr ? z.msg : "");
  EXPECT_EQ(z.avail_in, 0u) << "bytes left after the stream's end";
  out.resize(out.size() - z.avail_out);
  inflateEnd(&z);
  return out;
}

Bytes random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 g(seed);
  Bytes b(n);
  for (auto& x : b) x = static_cast<unsigned char>(g());
  return b;
}

// append_noise_block, closed by an empty final stored block, as a raw deflate stream.
Bytes noise_stream(const Bytes& data) {
  Bytes s;
  append_noise_block(data.data(), data.size(), s);
  const unsigned char final_empty[5] = {0x01, 0x00, 0x00, 0xFF, 0xFF};
  s.insert(s.end(), final_empty, final_empty + 5);
  return s;
}

// The noise block, runs of one byte as matches: every length about the limits (a run's least of 12,
// a match's 3 and 258), the code's 9-bit literals (254, 255) and 8-bit ones, runs at either end
// and across words.
TEST(ShuffledDeflate, NoiseBlockInflatesToItsInput) {
  for (std::size_t n : {0, 1, 7, 8, 9, 63, 64, 65, 1000, 65535, 65536, 65537, 200001}) {
    const Bytes data = random_bytes(n, std::uint32_t(n));
    const Bytes s = noise_stream(data);
    EXPECT_EQ(inflated(s, n, -15), data) << n;
    // Noise: 8 bits a byte but 9 for two byte values in 256, the header (about 60 bytes), the end.
    EXPECT_LE(double(s.size()), double(n) * (1 + 1.0 / 128) + 80) << n;
  }
  for (std::size_t run : {10, 11, 12, 13, 20, 70, 258, 259, 260, 261, 262, 263, 516, 517, 70000}) {
    for (unsigned byte : {0u, 143u, 253u, 254u, 255u}) {
      for (std::size_t offset : {0, 3, 8, 1001}) {
        Bytes data = random_bytes(offset + run + 555, std::uint32_t(run * 7 + byte + offset));
        std::memset(data.data() + offset, int(byte), run);
        const Bytes s = noise_stream(data);
        EXPECT_EQ(inflated(s, data.size(), -15), data) << run << " " << byte << " " << offset;
        // The run as its byte and matches of at most 258 bytes, 13 bits each (length 258 and
        // distance 1) and at most 19 for the last; the noise beside it as above.
        if (run >= 70)
          EXPECT_LT(double(s.size()), double(data.size() - run) * (1 + 1.0 / 128) + 80 + 2.0 + double(run) * 13 / (258 * 8) + 3)
              << "the run written as matches";
      }
      Bytes whole(run, static_cast<unsigned char>(byte));  // the whole input one run, ending it
      EXPECT_EQ(inflated(noise_stream(whole), run, -15), whole) << run;
    }
  }
}

// A chunk's elements as HDF5's shuffle filter lays them out (H5Zshuffle.c): byte j of element i at
// j · n + i, the bytes past the last whole element at the end.
Bytes shuffled(const Bytes& data, std::size_t element) {
  const std::size_t n = data.size() / element;
  Bytes s(data);
  for (std::size_t j = 0; j < element; ++j)
    for (std::size_t i = 0; i < n; ++i) s[j * n + i] = data[i * element + j];
  return s;
}

template <class T>
Bytes bytes_of(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Trajectory-like values: noise in the mantissas' low bytes, and each row NaN after its sample
// stopped (tossed_box's samples stop on landing).
template <class T>
std::vector<T> trajectory_values(std::size_t rows, std::size_t times, std::uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-3, 3);
  std::vector<T> v(rows * times * 3);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t stop = g() % (times + 1);
    for (std::size_t k = 0; k < times; ++k)
      for (std::size_t c = 0; c < 3; ++c)
        v[(r * times + k) * 3 + c] = k < stop ? T(u(g)) : std::numeric_limits<T>::quiet_NaN();
  }
  return v;
}

// How many of a chunk's planes shuffle_and_deflate writes as noise.
std::size_t noise_planes(const Bytes& data, std::size_t element) {
  const Bytes s = shuffled(data, element);
  return noise_plane_count(s.data(), data.size() / element, element, 1);
}

// Every kind of chunk inflates, with zlib's check of the Adler-32, to the shuffled bytes; the noise
// planes go out in a noise block and the planes that deflate through libdeflate.
TEST(ShuffledDeflate, ChunksInflateToTheShuffledBytes) {
  struct Case {
    const char* what;
    Bytes data;
    std::size_t element;
  };
  std::vector<std::uint64_t> ramp(32768);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = 5000 + i;  // a dimension scale's sample index
  std::vector<double> zeros(32768, 0.0), nan(32768, std::numeric_limits<double>::quiet_NaN());
  std::vector<double> noise(32768);
  std::mt19937_64 g(7);
  for (double& x : noise) x = std::ldexp(1 + std::ldexp(double(g() >> 12), -52), int(g() % 3) - 1);  // 52 random bits
  Bytes odd = bytes_of(trajectory_values<double>(300, 32, 4));
  odd.resize(odd.size() - 5);  // bytes past the last whole element
  const std::vector<Case> cases = {
      {"trajectory, double", bytes_of(trajectory_values<double>(341, 32, 1)), 8},
      {"trajectory, float", bytes_of(trajectory_values<float>(682, 32, 2)), 4},
      {"a small chunk", bytes_of(trajectory_values<double>(10, 32, 3)), 8},
      {"past the last element", odd, 8},
      {"noise", bytes_of(noise), 8},
      {"zeros", bytes_of(zeros), 8},
      {"NaN", bytes_of(nan), 8},
      {"ramp", bytes_of(ramp), 8},
      {"random bytes: every plane noise", random_bytes(262144, 5), 8},
      {"random bytes, and bytes past the last element", random_bytes(262144 + 5, 6), 8},
  };
  for (const Case& c : cases) {
    const Bytes stream = shuffle_and_deflate(c.data.data(), c.data.size(), c.element, 1);
    EXPECT_EQ(inflated(stream, c.data.size(), 15), shuffled(c.data, c.element)) << c.what;
  }
#ifdef RBMC_HAVE_LIBDEFLATE
  // Noise planes written as noise; a stopped sample's NaN runs shrink all the same (about half
  // the values), and the exponents' planes are deflated.
  const Bytes trajectory = bytes_of(trajectory_values<double>(341, 32, 1));
  EXPECT_EQ(noise_planes(trajectory, 8), 6u);
  EXPECT_LT(shuffle_and_deflate(trajectory.data(), trajectory.size(), 8, 1).size(), trajectory.size() * 6 / 10);
  EXPECT_EQ(noise_planes(bytes_of(trajectory_values<float>(682, 32, 2)), 4), 3u);  // 7 mantissa bits and 1 of the exponent in the third
  EXPECT_EQ(noise_planes(bytes_of(noise), 8), 6u);
  // Every plane noise: the stream ends with an empty final stored block (or libdeflate's stream of
  // the bytes past the last element), checked by the round trips above.
  EXPECT_EQ(noise_planes(random_bytes(262144, 5), 8), 8u);
  EXPECT_EQ(noise_planes(random_bytes(262144 + 5, 6), 8), 8u);
  // Planes that deflate smaller are deflated: the ramp's lowest byte counts 0 to 255 over and over
  // (no byte repeats, yet it deflates to nearly nothing); zeros; a chunk too small to probe.
  EXPECT_EQ(noise_planes(bytes_of(ramp), 8), 0u);
  EXPECT_LT(shuffle_and_deflate(bytes_of(ramp).data(), ramp.size() * 8, 8, 1).size(), ramp.size() * 8 / 50);
  EXPECT_EQ(noise_planes(bytes_of(zeros), 8), 0u);
  EXPECT_EQ(noise_planes(bytes_of(trajectory_values<double>(10, 32, 3)), 8), 0u);
#endif
}

}  // namespace
}  // namespace rbmc

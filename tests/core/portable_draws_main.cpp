// Prints the bits of test::portable_draws for every test uniform: built with fused multiply-adds
// allowed and available (tests/CMakeLists.txt), as nvcc builds device code by default, for
// portable_math_test.cpp to compare with its own build.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "portable_draws.hpp"

int main() {
  for (double v : rbmc::test::portable_draws(rbmc::test::portable_draw_uniforms())) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::printf("%016" PRIx64 "\n", bits);
  }
}

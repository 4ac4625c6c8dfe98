// sin x and cos x of one angle, the same bits on the host, the device and the CPU's SIMD lanes:
// the splitting's sub-flows (rbmc/integrate/splitting.hpp).
#pragma once

#include <type_traits>

#include "rbmc/math/portable_math.hpp"

namespace rbmc {

// In double, portable::sin_cos_of_radians (fdlibm's kernels, within 1.5 ulp) wherever it reaches,
// so that the CPU and the GPU turn a body alike and the lanes (rbmc/simd/lanes.hpp) take it as
// vectors; beyond 2^19 rad, and in float, the platform's sin and cos (the C library's, CUDA's).
template <class Scalar>
RBMC_HD inline void sincos_hd(Scalar x, Scalar& s, Scalar& c) {
  if constexpr (std::is_same_v<Scalar, double>) {
    if (x <= portable::kSinCosRadiansMax && x >= -portable::kSinCosRadiansMax) {
      portable::sin_cos_of_radians(x, s, c);
      return;
    }
  }
#if defined(__CUDA_ARCH__)
  s = ::sin(x);
  c = ::cos(x);
#else
  s = std::sin(x);
  c = std::cos(x);
#endif
}

}  // namespace rbmc

// Host/device annotations and the scalar helpers every core header uses.
//
// The core is compiled twice: by the host C++ compiler for the CPU backend and the tests,
// and by nvcc for the kernels. RBMC_HD marks a function for both; without nvcc it is empty.
#pragma once

#include <cmath>
#include <cstdint>

#include <Eigen/Core>
// Declared by Core but defined here: cross() (Geometry) and inverse() (LU, closed-form cofactors
// for 3×3, device-safe). Without them nvcc fails at link time with an unresolved extern.
#include <Eigen/Geometry>
#include <Eigen/LU>

#if defined(__CUDACC__)
#define RBMC_HD __host__ __device__
#else
#define RBMC_HD
#endif

// The per-step functions of the right-hand side: always inlined, so that one evaluation compiles
// to one straight-line body. GCC otherwise keeps some of them as calls on the host, which cost
// about as much as the arithmetic (bench/RESULTS.md); nvcc inlines them anyway.
#if defined(__CUDACC__)
#define RBMC_HD_INLINE __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define RBMC_HD_INLINE inline __attribute__((always_inline))
#else
#define RBMC_HD_INLINE inline
#endif

// The integration loops and the per-sample path around them: inlined into the kernel on the
// device, where a call passes its reference arguments through the stack frame (local memory);
// left to the compiler on the host, where forcing it makes GCC's code slower.
#if defined(__CUDACC__)
#define RBMC_HD_KERNEL_INLINE __host__ __device__ __forceinline__
#else
#define RBMC_HD_KERNEL_INLINE inline
#endif

// A rare path the device keeps out of line: its registers are then not taken from the loop around
// it (fixed_step.hpp). On the host, GCC's own choice.
#if defined(__CUDACC__)
#define RBMC_HD_NOINLINE __host__ __device__ __noinline__
#else
#define RBMC_HD_NOINLINE inline
#endif

// The loop that follows unrolled on the device, where a loop to a run-time bound over a vector's
// components puts the vector in local memory (the draw kernel spilled 852 bytes without it:
// bench/RESULTS.md, 2026-12-05). The host compilers unroll such short loops at -O3 themselves, and
// an unknown pragma would warn under -Wall there.
#if defined(__CUDACC__)
#define RBMC_UNROLL _Pragma("unroll")
#else
#define RBMC_UNROLL
#endif

namespace rbmc {

// v's address, which on the device passes through an empty asm, so that the compiler knows
// nothing of where it points: what is read through it comes from memory, and v's values are not
// kept in registers from where v is written to that read. On the host, &v.
template <class T>
RBMC_HD_INLINE const T* opaque_address(const T& v) {
#if defined(__CUDA_ARCH__)
  const T* p = &v;
  asm volatile("" : "+l"(p));
  return p;
#else
  return &v;
#endif
}

// v, read from memory where it is used (opaque_address): a value the loop needs briefly in each
// right-hand side is loaded there (an L1 hit) instead of held through every stage. On the host, v
// itself.
template <class T>
RBMC_HD_INLINE const T& read_in_place(const T& v) {
  return *opaque_address(v);
}

template <class Scalar>
using Vec3 = Eigen::Matrix<Scalar, 3, 1>;
template <class Scalar>
using Mat3 = Eigen::Matrix<Scalar, 3, 3>;

// A parameter of this type does not take part in template argument deduction, so Eigen
// expressions (Vec3<S>::Zero(), a + b) can be passed where the scalar comes from another argument.
template <class T>
struct TypeIdentity {
  using type = T;
};
template <class T>
using NonDeduced = typename TypeIdentity<T>::type;

// Device-safe scalar functions: Eigen's numext dispatches to the CUDA math library under nvcc.
template <class Scalar>
RBMC_HD inline Scalar sqrt_hd(Scalar x) {
  return Eigen::numext::sqrt(x);
}
// Eigen 3.4's numext has no atan2: CUDA's overloads for float and double on the device.
template <class Scalar>
RBMC_HD inline Scalar atan2_hd(Scalar y, Scalar x) {
#if defined(__CUDA_ARCH__)
  return ::atan2(y, x);
#else
  return std::atan2(y, x);
#endif
}
// a < b ? x : y, with both already computed: for one value a choice (the compiler may branch),
// and on the CPU's SIMD lanes a choice lane by lane (rbmc/simd/lanes.hpp), where a branch
// cannot be taken for all of them.
template <class Scalar>
RBMC_HD inline Scalar if_less_hd(Scalar a, Scalar b, Scalar x, Scalar y) {
  return a < b ? x : y;
}
// Whether a < b (NaN: false). The CPU's SIMD lanes answer whether it holds in any lane
// (rbmc/simd/lanes.hpp): a reason to stop that one sample meets stops its whole group, which
// then goes sample by sample.
template <class Scalar>
RBMC_HD inline bool less_in_any_hd(Scalar a, Scalar b) {
  return a < b;
}
template <class Scalar>
RBMC_HD inline bool isfinite_hd(Scalar x) {
  return (Eigen::numext::isfinite)(x);
}
// Whether a coefficient is other than zero (NaN counts). The CPU's SIMD lanes answer for their
// whole group, which they only ask where every lane agrees (rbmc/simd/lanes.hpp).
template <class Scalar>
RBMC_HD inline bool nonzero_hd(Scalar x) {
  return x != Scalar(0);
}
// Whether a length is not positive (NaN counts), where a direction along it is undefined. The
// SIMD lanes never branch on it (rbmc/simd/lanes.hpp): a lane at zero length gets NaN, and its
// group goes back to the one-sample path, which takes this branch.
template <class Scalar>
RBMC_HD inline bool not_positive_hd(Scalar x) {
  return !(x > Scalar(0));
}

}  // namespace rbmc

// Lanes<Scalar, W>: W samples' values of one scalar, advanced by one SIMD instruction per
// operation. The core's arithmetic is templated on its scalar, so instantiated on Lanes it
// integrates W samples at once, each lane with exactly the operations of the one-sample path:
// the same results bit for bit, as long as the compiler contracts nothing into fused
// multiply-adds (the translation units that use Lanes build with -ffp-contract=off).
//
// Host only (the GPU has a thread per sample). GCC's and Clang's vector extensions: the widest
// instructions the enclosing function is compiled for (a function with
// __attribute__((target("avx512f"))) gets zmm registers, one without gets SSE2 pairs).
// There are no comparisons: a branch on a lane's value cannot compile, so code that branches
// per sample stays on the one-sample path, and code that chooses between two computed values
// does so with if_less_hd, lane by lane. isfinite_hd and nonzero_hd answer for all lanes
// together, and not_positive_hd never branches (each says how that stays exact).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "rbmc/dynamics/state.hpp"
#include "rbmc/integrate/state_vector.hpp"
#include "rbmc/math/sincos.hpp"

#if !defined(__GNUC__) || defined(__CUDACC__)
#error "rbmc/simd/lanes.hpp needs GCC's or Clang's vector extensions on the host"
#endif

namespace rbmc {

template <class Scalar, int W>
struct LaneVector;
// The vector types, spelled out: a vector_size that depends on a template parameter is not
// accepted by every GCC.
template <>
struct LaneVector<double, 2> {
  typedef double type __attribute__((vector_size(16)));
};
template <>
struct LaneVector<double, 4> {
  typedef double type __attribute__((vector_size(32)));
};
template <>
struct LaneVector<double, 8> {
  typedef double type __attribute__((vector_size(64)));
};
template <>
struct LaneVector<float, 4> {
  typedef float type __attribute__((vector_size(16)));
};
template <>
struct LaneVector<float, 8> {
  typedef float type __attribute__((vector_size(32)));
};
template <>
struct LaneVector<float, 16> {
  typedef float type __attribute__((vector_size(64)));
};

template <class Scalar, int W>
struct Lanes {
  using Vector = typename LaneVector<Scalar, W>::type;
  using Element = Scalar;
  static constexpr int width = W;
  Vector v;

  Lanes() = default;
  // Every lane the same value, converted as Scalar(s) converts it (how the core writes its
  // constants: Scalar(0.5), Scalar(step)).
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Lanes(T s) {  // NOLINT: implicit, as a scalar's conversions are
    for (int i = 0; i < W; ++i) v[i] = Scalar(s);
  }
  explicit Lanes(Vector x) : v(x) {}

  Scalar operator[](int i) const { return v[i]; }
  void set(int i, Scalar s) { v[i] = s; }

  Lanes& operator+=(const Lanes& o) { v += o.v; return *this; }
  Lanes& operator-=(const Lanes& o) { v -= o.v; return *this; }
  Lanes& operator*=(const Lanes& o) { v *= o.v; return *this; }
  Lanes& operator/=(const Lanes& o) { v /= o.v; return *this; }
};

template <class S, int W>
inline Lanes<S, W> operator+(const Lanes<S, W>& a, const Lanes<S, W>& b) { return Lanes<S, W>(a.v + b.v); }
template <class S, int W>
inline Lanes<S, W> operator-(const Lanes<S, W>& a, const Lanes<S, W>& b) { return Lanes<S, W>(a.v - b.v); }
template <class S, int W>
inline Lanes<S, W> operator*(const Lanes<S, W>& a, const Lanes<S, W>& b) { return Lanes<S, W>(a.v * b.v); }
template <class S, int W>
inline Lanes<S, W> operator/(const Lanes<S, W>& a, const Lanes<S, W>& b) { return Lanes<S, W>(a.v / b.v); }
template <class S, int W>
inline Lanes<S, W> operator-(const Lanes<S, W>& a) { return Lanes<S, W>(-a.v); }
template <class S, int W>
inline Lanes<S, W> operator+(const Lanes<S, W>& a) { return a; }

// Correctly rounded in every lane, as the scalar square root is. Vectorised where the unit is
// built with -fno-math-errno (otherwise each lane checks for a negative argument).
template <class S, int W>
inline Lanes<S, W> sqrt(const Lanes<S, W>& a) {
  Lanes<S, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = __builtin_sqrt(a.v[i]);
  return r;
}
template <int W>
inline Lanes<float, W> sqrt(const Lanes<float, W>& a) {
  Lanes<float, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = __builtin_sqrtf(a.v[i]);
  return r;
}
// The choices below are vector comparisons and blends written as such: GCC vectorises the same
// choice written lane by lane when it stands alone, but inlined into a long function (the
// quantities' attitude angle) it compiled each lane's to a scalar comparison, branch and insert,
// which took most of the quantities' time (bench/RESULTS.md, 2026-11-25, ninth session).
template <class S, int W>
inline Lanes<S, W> abs(const Lanes<S, W>& a) {
  return Lanes<S, W>(a.v < S(0) ? -a.v : a.v);
}
template <class S, int W>
inline Lanes<S, W> sqrt_hd(const Lanes<S, W>& a) {
  return sqrt(a);
}
// Lane by lane, as hd.hpp's if_less_hd is for one value: a comparison and a blend.
template <class S, int W>
inline Lanes<S, W> if_less_hd(const Lanes<S, W>& a, const Lanes<S, W>& b, const Lanes<S, W>& x, const Lanes<S, W>& y) {
  return Lanes<S, W>(a.v < b.v ? x.v : y.v);
}
// A product in every lane, for the core's portable arithmetic (rbmc/math/portable_math.hpp's
// mul, found for Lanes by argument-dependent lookup): a plain product, which no lane fuses
// (-ffp-contract=off).
template <class S, int W>
inline Lanes<S, W> mul(const Lanes<S, W>& a, const Lanes<S, W>& b) {
  return a * b;
}
// The C library's atan2 lane by lane (no vector form of it would be the same bit for bit).
template <class S, int W>
inline Lanes<S, W> atan2_hd(const Lanes<S, W>& y, const Lanes<S, W>& x) {
  Lanes<S, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = std::atan2(y.v[i], x.v[i]);
  return r;
}
// W doubles from memory as lanes (converted as Scalar(x) converts one), and lanes to memory as
// doubles (a float lane widened exactly): one vector load or store where the scalar is double.
template <class S, int W>
inline Lanes<S, W> load_lanes(const double* in) {
  Lanes<S, W> r;
  if constexpr (std::is_same_v<S, double>) {
    std::memcpy(&r.v, in, sizeof r.v);
  } else {
    for (int i = 0; i < W; ++i) r.v[i] = S(in[i]);
  }
  return r;
}
template <class S, int W>
inline void store_lanes(const Lanes<S, W>& a, double* out) {
  if constexpr (std::is_same_v<S, double>) {
    std::memcpy(out, &a.v, sizeof a.v);
  } else {
    for (int i = 0; i < W; ++i) out[i] = double(a.v[i]);
  }
}

#if defined(__x86_64__)
namespace lanes_detail {
typedef double DoublesOf16 __attribute__((vector_size(16)));
typedef double DoublesOf32 __attribute__((vector_size(32)));
typedef double DoublesOf64 __attribute__((vector_size(64)));
// One non-temporal store of a vector's doubles, with the instruction set it needs. Each is used
// only from lanes of its width, which are compiled for that set (cpu_lanes_unit.inc).
inline void stream_doubles(double* out, DoublesOf16 v) { __builtin_ia32_movntpd(out, v); }
__attribute__((target("avx"))) inline void stream_doubles(double* out, DoublesOf32 v) {
  __builtin_ia32_movntpd256(out, v);
}
__attribute__((target("avx512f"))) inline void stream_doubles(double* out, DoublesOf64 v) {
  __builtin_ia32_movntpd512(out, v);
}
template <int Bytes>
struct StreamedVector;
template <>
struct StreamedVector<16> {
  using type = DoublesOf16;
};
template <>
struct StreamedVector<32> {
  using type = DoublesOf32;
};
template <>
struct StreamedVector<64> {
  using type = DoublesOf64;
};
}  // namespace lanes_detail
#endif

// Lanes to memory as doubles, as store_lanes, but with non-temporal stores, which write a line
// without reading it first: for values read again only after many other lines are written (the
// statistics' quantities, a line in each of a batch's thousands of columns per lane group,
// bench/RESULTS.md, 2026-11-25, ninth session). The caller fills whole cache lines by
// consecutive calls (a line left in part is written as parts, each far costlier than the line),
// from `out` at a line's start. The stores are ordered before other threads' reads only after
// stream_fence().
template <class S, int W>
inline void stream_lanes(const Lanes<S, W>& a, double* out) {
#if defined(__x86_64__)
  if constexpr (std::is_same_v<S, double>) {
    using Vector = typename lanes_detail::StreamedVector<int(sizeof(double)) * W>::type;
    Vector v;
    std::memcpy(&v, &a.v, sizeof v);
    lanes_detail::stream_doubles(out, v);
  } else {
    // Each half widened to doubles: the vectors of the double lanes of the same instruction set.
    using Vector = typename lanes_detail::StreamedVector<int(sizeof(double)) * W / 2>::type;
    Vector low, high;
    for (int i = 0; i < W / 2; ++i) {
      low[i] = double(a.v[i]);
      high[i] = double(a.v[W / 2 + i]);
    }
    lanes_detail::stream_doubles(out, low);
    lanes_detail::stream_doubles(out + W / 2, high);
  }
#else
  store_lanes(a, out);
#endif
}
inline void stream_fence() {
#if defined(__x86_64__)
  __builtin_ia32_sfence();
#endif
}
namespace lanes_detail {
template <class Bits, int N>
struct BitsVector {
  typedef Bits type __attribute__((vector_size(sizeof(Bits) * N)));
};
// The OR of N integers in a vector, by halves: each step ORs the vector's two halves (an extract
// and an OR in registers), where reading the lanes one by one stored the vector to the stack and
// loaded it back a lane at a time.
template <class Bits, int N>
inline Bits or_by_halves(const typename BitsVector<Bits, N>::type& v) {
  if constexpr (N == 1) {
    return v[0];
  } else {
    typename BitsVector<Bits, N / 2>::type low, high;
    std::memcpy(&low, &v, sizeof low);
    std::memcpy(&high, reinterpret_cast<const char*>(&v) + sizeof low, sizeof high);
    return or_by_halves<Bits, N / 2>(low | high);
  }
}
}  // namespace lanes_detail

// The OR of every lane's bits: how the lanes answer for all of them at once. Integer work
// without a comparison or a branch per lane (a vector comparison compiled into one ucomisd, setp
// and insert per lane, about 5 % of the loads' evaluation).
template <class S, int W>
inline auto or_of_lane_bits(const typename Lanes<S, W>::Vector& v) {
  using Bits = std::conditional_t<sizeof(S) == 8, std::uint64_t, std::uint32_t>;
  typename lanes_detail::BitsVector<Bits, W>::type bits;
  std::memcpy(&bits, &v, sizeof bits);
  return lanes_detail::or_by_halves<Bits, W>(bits);
}

// True when every lane is finite: a lane that is not makes its group of samples leave the lanes.
template <class S, int W>
inline bool isfinite_hd(const Lanes<S, W>& a) {
  const auto zero = a.v - a.v;  // +0 (no bit set) in a finite lane, NaN in an infinite or NaN one
  return or_of_lane_bits<S, W>(zero) == 0;
}

// True when any lane is other than zero. The core asks it of a damping coefficient
// (Damping::terms); the lanes ask it only of groups whose samples agree on the answer (lane_group.hpp).
template <class S, int W>
inline bool nonzero_hd(const Lanes<S, W>& a) {
  // Some lane has a bit set other than the sign (−0 is zero; NaN is not).
  return (or_of_lane_bits<S, W>(a.v) << 1) != 0;
}
// True when a < b in any lane (hd.hpp's less_in_any_hd): a comparison and a blend, then the
// lanes' OR, as above.
template <class S, int W>
inline bool less_in_any_hd(const Lanes<S, W>& a, const Lanes<S, W>& b) {
  return nonzero_hd(if_less_hd(a, b, Lanes<S, W>(1), Lanes<S, W>(0)));
}
// Never: the lanes do not branch on a length (hd.hpp's not_positive_hd). A lane at zero length
// divides by it into NaN, and its group goes back to the one-sample path, which branches.
template <class S, int W>
inline bool not_positive_hd(const Lanes<S, W>&) {
  return false;
}
// The one-sample path's sine and cosine (rbmc/math/sincos.hpp): in double, where every lane lies
// within the portable polynomial's reach, that polynomial on the vectors (its operations are one
// sample's, lane by lane); otherwise each lane's own, as one sample would compute it.
template <class S, int W>
inline void sincos_hd(const Lanes<S, W>& x, Lanes<S, W>& s, Lanes<S, W>& c) {
  if constexpr (std::is_same_v<S, double>) {
    const Lanes<S, W> zero(0), one(1), reach(portable::kSinCosRadiansMax);
    if (isfinite_hd(x) && !nonzero_hd(if_less_hd(reach, if_less_hd(x, zero, -x, x), one, zero))) {
      portable::sin_cos_of_radians(x, s, c);
      return;
    }
  }
  for (int i = 0; i < W; ++i) {
    S si, ci;
    sincos_hd(x.v[i], si, ci);
    s.v[i] = si;
    c.v[i] = ci;
  }
}

// A state or model of W samples, lane by lane.
template <class S, int W>
inline void set_lane(RigidBodyState<Lanes<S, W>>& x, int lane, const RigidBodyState<S>& one) {
  StateVector<Lanes<S, W>> y = pack(x);
  const StateVector<S> z = pack(one);
  for (int c = 0; c < z.size(); ++c) y(c).set(lane, z(c));
  x = unpack(y);
}
template <class S, int W>
inline RigidBodyState<S> lane_of(const RigidBodyState<Lanes<S, W>>& x, int lane) {
  const StateVector<Lanes<S, W>> y = pack(x);
  StateVector<S> z;
  for (int c = 0; c < z.size(); ++c) z(c) = y(c)[lane];
  return unpack(z);
}
// Lane `lane` of every coefficient of an Eigen matrix of lanes, from (or into) its scalar twin.
template <class S, int W, int R, int C>
inline void set_lane(Eigen::Matrix<Lanes<S, W>, R, C>& m, int lane, const Eigen::Matrix<S, R, C>& one) {
  for (int k = 0; k < R * C; ++k) m.data()[k].set(lane, one.data()[k]);
}

}  // namespace rbmc

namespace Eigen {
// What Eigen needs of a scalar type: Lanes is real, signed, and has no packet math of its own
// (its operations are already vector instructions).
template <class S, int W>
struct NumTraits<rbmc::Lanes<S, W>> : GenericNumTraits<S> {
  using Real = rbmc::Lanes<S, W>;
  using NonInteger = Real;
  using Nested = Real;
  using Literal = Real;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 0,
    ReadCost = 1,
    AddCost = 1,
    MulCost = 1,
  };
  static Real epsilon() { return Real(NumTraits<S>::epsilon()); }
  static Real dummy_precision() { return Real(NumTraits<S>::dummy_precision()); }
  static Real highest() { return Real(NumTraits<S>::highest()); }
  static Real lowest() { return Real(NumTraits<S>::lowest()); }
  static Real quiet_NaN() { return Real(NumTraits<S>::quiet_NaN()); }
  static Real infinity() { return Real(NumTraits<S>::infinity()); }
};
}  // namespace Eigen

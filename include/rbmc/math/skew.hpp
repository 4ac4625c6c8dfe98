// The cross-product matrix: skew(a) b = a × b.
// S(a) of 000 (definition after eq. 1.3); the "a^×" of 001 and the tilde of 004 eq. 21.
#pragma once

#include "rbmc/hd.hpp"

namespace rbmc {

template <class Scalar>
RBMC_HD inline Mat3<Scalar> skew(const Vec3<Scalar>& a) {
  Mat3<Scalar> s;
  s << Scalar(0), -a.z(), a.y(),  //
      a.z(), Scalar(0), -a.x(),   //
      -a.y(), a.x(), Scalar(0);
  return s;
}

}  // namespace rbmc

// A 3×3 matrix times a 3-vector written out. Eigen's fixed-size product is correct everywhere but
// GCC leaves it as a call in the right-hand side's hot loop (30 % of a step in bench/); written
// out, it inlines into the surrounding arithmetic on the host and the device alike.
#pragma once

#include "rbmc/hd.hpp"

namespace rbmc {

template <class Scalar>
RBMC_HD_INLINE Vec3<Scalar> mat3_times(const Mat3<Scalar>& m, const NonDeduced<Vec3<Scalar>>& v) {
  return Vec3<Scalar>(m.coeff(0, 0) * v.coeff(0) + m.coeff(0, 1) * v.coeff(1) + m.coeff(0, 2) * v.coeff(2),
                      m.coeff(1, 0) * v.coeff(0) + m.coeff(1, 1) * v.coeff(1) + m.coeff(1, 2) * v.coeff(2),
                      m.coeff(2, 0) * v.coeff(0) + m.coeff(2, 1) * v.coeff(1) + m.coeff(2, 2) * v.coeff(2));
}

}  // namespace rbmc

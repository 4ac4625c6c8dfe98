// The portable draws (core/portable_draws.hpp) computed on the CUDA device: built only with CUDA.
#pragma once

#include <vector>

namespace rbmc::test {

// (u.size(), kPortableDrawValues), as portable_draws(u) on the host.
std::vector<double> portable_draws_on_device(const std::vector<double>& u);

}  // namespace rbmc::test

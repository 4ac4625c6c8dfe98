// The results file's account of how its samples were drawn: the root attribute `design`, and the
// group /design with the design's parameters, the correlation groups' matrices and every
// dispersion by key path (docs/output-format.md).
#pragma once

#include <hdf5.h>

#include "host/scenario/scenario.hpp"

namespace rbmc {

// Writes them into the file whose root group is `root`.
void write_design(hid_t root, const Scenario& s);

}  // namespace rbmc

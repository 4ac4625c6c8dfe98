// Built instead of host/mpi/mpi_run.cpp when CMake found no MPI: rbmc never runs as MPI ranks.
#include "host/errors.hpp"
#include "host/mpi/mpi_run.hpp"

namespace rbmc {

bool launched_under_mpi() { return false; }

MpiRunOutcome run_under_mpi(Scenario, RunOptions) {
  throw UsageError("this rbmc was built without MPI (CMake found none): install openmpi-bin and libopenmpi-dev and "
                   "rebuild, or split the run with --shard i/n and rbmc merge");
}

std::string mpi_part_path(const std::string& output, std::uint64_t index, std::uint64_t count) {
  return output + ".part-" + std::to_string(index) + "-of-" + std::to_string(count);
}

}  // namespace rbmc

// `rbmc run` under mpirun or srun: one rank per GPU (or per group of cores with --backend cpu),
// one results file. The run is split into parts by global sample index (host/run/merge_shards:
// the parts `rbmc run --shard` writes); each rank integrates its parts into OUT.part-<i>-of-<n>
// with everything a single run has (journal, resume, compressed trajectories); then all ranks
// write OUT together with parallel HDF5 (host/mpi/write_collectively.hpp), and it equals a single
// process's file. docs/scaling.md.
#pragma once

#include <optional>
#include <string>

#include "host/run/run_driver.hpp"
#include "host/scenario/scenario.hpp"

namespace rbmc {

// True when this process was started by an MPI launcher (mpirun, mpiexec, srun with PMI) and the
// build has MPI. A plain `rbmc run` never initialises MPI.
bool launched_under_mpi();

struct MpiRunOutcome {
  int exit_code = 0;                 // this rank's: 0, 2, 4, 5, 130, ...
  std::optional<RunSummary> summary;  // rank 0, on success
  int ranks = 1;
};

// Runs the scenario over the ranks and writes OUT from every rank. A rank that fails (a bad
// device, a full disk) prints its error and ends every rank (MPI_Abort); SIGINT or SIGTERM (which
// mpirun forwards to every rank) keeps each rank's parts for `--resume` under any number of ranks.
MpiRunOutcome run_under_mpi(Scenario scenario, RunOptions options);

// OUT.part-<index>-of-<count>: one rank's part of an MPI run.
std::string mpi_part_path(const std::string& output, std::uint64_t index, std::uint64_t count);

}  // namespace rbmc

// An MPI run's one file, written by all its ranks together with parallel HDF5 (MPI-IO).
//
// Each rank integrates its parts of the run into part files (OUT.part-<i>-of-<n>: what --resume
// continues from, under any number of ranks). Once every part is done, every rank writes the rows
// of its own parts into OUT at their global sample indices, at once: /samples and the kept
// trajectories go to the file system from every rank in parallel, and the compressed datasets
// are compressed on every rank (HDF5 writes filtered datasets collectively). Rank 0 alone then
// adds the merged statistics and totals, which are small, and puts the file in place.
#pragma once

#include <mpi.h>

#include <chrono>
#include <string>
#include <vector>

#include "host/io/results_writer.hpp"

namespace rbmc {

struct CollectiveOutcome {
  RunTotals totals;  // rank 0: the run's, summed over the parts
  std::uint64_t n_samples = 0;
  QuantileAccuracy quantiles;  // rank 0: the merged statistics'
};

// Called by every rank of `comm` together. part_paths: all parts of the run in part order;
// mine: the indices of this rank's parts. Throws on this rank's errors; the caller ends every
// rank then (a rank cannot leave a collective write alone). The file appears at `output` only
// complete; the parts are left for the caller to remove. started: when the MPI run began, for the
// file's elapsed_seconds.
CollectiveOutcome write_collectively(MPI_Comm comm, const std::vector<std::string>& part_paths,
                                     const std::vector<std::uint64_t>& mine, const std::string& output, bool overwrite,
                                     unsigned threads, std::chrono::steady_clock::time_point started);

}  // namespace rbmc

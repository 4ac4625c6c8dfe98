// The parts of one run (`rbmc run --shard i/n`, or an MPI run's ranks) read back block by block as
// the batches a backend produced: what `rbmc merge` and an MPI run's collective write feed the
// results writer with.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/io/results_reader.hpp"
#include "host/io/results_writer.hpp"
#include "host/scenario/scenario.hpp"

namespace rbmc {

// Rows read from a part at once: the memory a merge takes stays flat in the run's size.
inline constexpr std::uint64_t kShardBlockRows = 65536;

struct ShardFile {
  std::string path;
  std::unique_ptr<ResultsReader> reader;
  std::uint64_t index = 0, count = 0;  // part index of count
  std::uint64_t first = 0, rows = 0;   // its samples: [first, first + rows)
  std::uint64_t n_trajectories = 0;    // the trajectories it kept
};

// Opens one part and reads where it lies in the run; throws UsageError unless it is a complete part.
// threads: those that inflate its deflated chunks (0: every core).
ShardFile open_shard(const std::string& path, unsigned threads = 0);

// Opens the parts and checks that they belong together (one scenario, seed, sample count,
// precision, backend and version; every part 0..n-1 once; each complete): throws UsageError
// naming the part and what is wrong. Sorted by part index.
std::vector<ShardFile> open_shards(const std::vector<std::string>& paths, unsigned threads = 0);

// The run's scenario as the parts ran it: the file's text with the seed and sample count used.
Scenario scenario_of_shards(const ResultsReader& first_part);

// Adds a part's totals (root attributes and /timings) to the run's.
void add_shard_totals(const ResultsReader& part, RunTotals& totals);

// The run's device: the parts' one device, or a note that they ran on several.
std::string device_of_shards(const std::vector<ShardFile>& shards);

// Reads one part's rows in order, block by block, as a batch (BatchView) of the run's file.
class ShardBlockReader {
 public:
  // kept_before: the trajectories the parts before this one kept (its first kept one's row in
  // the run's file, before the run's retention limit).
  ShardBlockReader(const Scenario& scenario, const ShardFile& shard, std::uint64_t kept_before);

  // Rows [at, at + n) of the part (after the rows read before): valid until the next read.
  BatchView read(std::uint64_t at, std::size_t n);

 private:
  const Scenario& scenario_;
  const ShardFile& shard_;
  std::vector<std::uint64_t> kept_index_;  // the part's kept trajectories' global sample indices
  std::size_t next_kept_ = 0;
  std::uint64_t kept_before_;
  int n_params_ = 0;
  std::vector<double> inputs_, outputs_, params_, states_;
  std::vector<std::uint8_t> status_;
  std::vector<std::uint64_t> index_;
  std::vector<std::uint32_t> kept_;
};

}  // namespace rbmc

// What a run writes to disk before its file is in place, checked against the free space there
// before any work: a run that cannot fit is refused at once, rather than after hours of
// integration with its disk filled for everything else on it (the finished batches would survive
// the full disk, README "What rbmc promises about files", but only to be resumed elsewhere).
//
// A lower bound of the bytes written, never an estimate, so that a refusal is right (except on a
// file system that compresses what it stores, as ZFS and btrfs can, where the bytes on disk may be
// a few percent fewer: a run's doubles hardly compress):
// - the per-sample datasets are stored uncompressed: their bytes are exact (HDF5's chunk padding
//   and metadata come on top, as `rbmc check`'s plan of the file says);
// - the kept trajectories count where [output] compression = "none" and the rule counts them in
//   advance (by index: all, every, samples, a limit); deflated ones count for nothing in the file;
// - the journal (OUT.journal, removed once the file is in place) holds every finished batch's
//   outputs and statuses, and its kept trajectories, as doubles (its headers come on top);
// - under MPI the parts hold every row before the ranks write OUT from them: the rows twice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "host/scenario/scenario.hpp"

namespace rbmc {

struct DiskNeed {
  std::uint64_t rows = 0;              // the samples written
  std::uint64_t bytes_per_sample = 0;  // of the file's per-sample datasets (stored_bytes_per_sample)
  std::uint64_t file = 0;              // the file's datasets (under MPI, its parts')
  std::uint64_t journal = 0;           // the journal's records (0 without a journal)
  std::uint64_t joined = 0;            // under MPI: OUT, written while the parts are still there
  // The journals are gone before the ranks write OUT: the most the disk holds at once.
  std::uint64_t total() const {
    const std::uint64_t later = journal > joined ? journal : joined, most = ~std::uint64_t(0);
    return file > most - later ? most : file + later;  // saturated: no disk holds that many
  }
};

// What writing `rows` samples of s afresh needs at least. `journal`: whether a journal records
// them; `whole_run`: whether they are the whole run (not a part, a selection or a resume's rest),
// for which the kept trajectories are counted.
DiskNeed disk_need(const Scenario& s, std::uint64_t rows, bool journal, bool whole_run);

// The bytes an unprivileged process may still write on the file system that will hold `output`
// (a file to be created: its directory's), or nothing where that file system does not say
// (statvfs fails, or it reports no size).
std::optional<std::uint64_t> free_bytes_for(const std::string& output);

// Empty when `need` fits in `free` bytes; otherwise the refusal: what needs how much, the free
// space, and what needs less.
std::string disk_shortfall(const std::string& output, const DiskNeed& need, std::uint64_t free);

// Throws Hdf5Error with disk_shortfall's text when `need` does not fit where `output` goes.
void check_disk_space(const std::string& output, const DiskNeed& need);

}  // namespace rbmc

#include "host/run/disk_space.hpp"

#include <sys/statvfs.h>

#include <filesystem>
#include <limits>

#include "host/errors.hpp"
#include "host/scenario/output_schema.hpp"
#include "host/util/decimal_bytes.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

namespace {

// a × b, or the largest count where it overflows (10¹² trajectories of 10⁵ times do): no disk holds either.
std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::uint64_t>::max() : product;
}

std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

}  // namespace

DiskNeed disk_need(const Scenario& s, std::uint64_t rows, bool journal, bool whole_run) {
  DiskNeed need;
  need.rows = rows;
  need.bytes_per_sample = stored_bytes_per_sample(s);
  need.file = need.bytes_per_sample * rows;
  // A journal record: the batch's outputs as doubles and its statuses (JournalBatch).
  if (journal) need.journal = rows * (std::uint64_t(output_column_count(s.events.n)) * sizeof(double) + 1);
  const TrajectoryRetention& kept_rule = s.output.trajectories;
  if (whole_run && s.output_times.n > 0 && kept_rule.kind != TrajectoryRetention::Kind::none) {
    bool exact = true;
    const std::uint64_t kept = planned_trajectories(kept_rule, rows, exact);
    if (exact) {
      const std::uint64_t values = saturating_product(kept, std::uint64_t(s.output_times.n) * kTrajectoryColumns);
      const std::uint64_t real = s.output.storage == OutputSettings::Storage::float32 ? 4 : 8;
      if (s.output.compression == OutputSettings::Compression::none)
        need.file = saturating_sum(need.file, saturating_product(values, real));
      if (journal)  // and their rows
        need.journal = saturating_sum(need.journal, saturating_sum(saturating_product(values, sizeof(double)),
                                                                   kept * sizeof(std::uint32_t)));
    }
  }
  return need;
}

std::optional<std::uint64_t> free_bytes_for(const std::string& output) {
  std::filesystem::path directory = std::filesystem::path(output).parent_path();
  if (directory.empty()) directory = ".";
  struct statvfs fs {};
  if (statvfs(directory.c_str(), &fs) != 0 || fs.f_blocks == 0) return std::nullopt;
  return std::uint64_t(fs.f_bavail) * std::uint64_t(fs.f_frsize);
}

std::string disk_shortfall(const std::string& output, const DiskNeed& need, std::uint64_t free) {
  if (need.total() <= free) return "";
  std::string parts = (need.joined > 0 ? "its parts' " : "the file's ") + decimal_bytes(double(need.file)) + ": " +
                      std::to_string(need.bytes_per_sample) + " bytes a sample for " + std::to_string(need.rows) +
                      " samples";
  if (need.journal > 0)
    parts += "; " + std::string(need.joined > 0 ? "their journals' " : "its journal's ") +
             decimal_bytes(double(need.journal)) + (need.joined > 0 ? " while they run" : "") +
             ", which --no-journal leaves out";
  if (need.joined > 0) parts += "; then " + decimal_bytes(double(need.joined)) + " for the file the ranks join them into";
  return output + ": this run writes at least " + decimal_bytes(double(need.total())) +
         " there before its file is in place (" + parts + "), and that file system has " +
         decimal_bytes(double(free)) +
         " free: run fewer samples, keep fewer per-sample datasets or trajectories ([output] samples, "
         "storage = \"float32\", trajectories), or choose another -o (--no-space-check starts it anyway)";
}

void check_disk_space(const std::string& output, const DiskNeed& need) {
  const std::optional<std::uint64_t> free = free_bytes_for(output);
  if (!free) return;  // not known: the run finds out as it writes
  const std::string shortfall = disk_shortfall(output, need, *free);
  if (!shortfall.empty()) throw Hdf5Error(shortfall);
}

}  // namespace rbmc

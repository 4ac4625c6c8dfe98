// [output] trajectories applied to a run's batches (the run driver's).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/scenario/scenario.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

// Chooses the samples whose trajectories the file keeps ([output] trajectories), batch by batch
// in global index order, so that `limit` keeps the first ones.
class TrajectorySelector {
 public:
  explicit TrajectorySelector(const Scenario& s)
      : rule_(s.output.trajectories), active_(s.output_times.n > 0 && rule_.kind != TrajectoryRetention::Kind::none) {}
  bool active() const { return active_; }
  void set_taken(std::uint64_t n) { taken_ = n; }  // a resumed run: trajectories kept before
  // The most trajectories a batch of n can keep (the rule's limit over the whole run bounds it).
  std::uint64_t most_kept(std::uint64_t n) const { return active_ ? (rule_.limit > 0 ? std::min(rule_.limit, n) : n) : 0; }

  // The rows of a batch of n whose trajectories the file keeps, ascending, by the samples' global
  // indices and their outcomes; counted towards the rule's limit.
  std::vector<std::uint32_t> select(const std::uint64_t* index, const double* outputs, const std::uint8_t* status,
                                    std::size_t n) {
    std::vector<std::uint32_t> rows = rows_kept(index, outputs, status, n);
    taken_ += rows.size();
    return rows;
  }

  // The rows select() will choose, known before the batch is integrated where the rule names its
  // samples by index alone (all, every, samples): into rows, and true. False where it looks at
  // their outcomes (status, event, final).
  bool rows_by_index(const std::uint64_t* index, std::size_t n, std::vector<std::uint32_t>& rows) const {
    using Kind = TrajectoryRetention::Kind;
    if (rule_.kind == Kind::status || rule_.kind == Kind::event || rule_.kind == Kind::final) return false;
    rows = rows_kept(index, nullptr, nullptr, n);
    return true;
  }

 private:
  // outputs and status are read only by the rules on outcomes.
  std::vector<std::uint32_t> rows_kept(const std::uint64_t* index, const double* outputs, const std::uint8_t* status,
                                       std::size_t n) const {
    using Kind = TrajectoryRetention::Kind;
    std::vector<std::uint32_t> rows;
    for (std::size_t i = 0; i < n; ++i) {
      if (rule_.limit > 0 && taken_ + rows.size() >= rule_.limit) break;
      bool keep = true;
      switch (rule_.kind) {
        case Kind::all: break;
        case Kind::none: keep = false; break;
        case Kind::every: keep = index[i] % rule_.every == 0; break;
        case Kind::list: keep = std::binary_search(rule_.samples.begin(), rule_.samples.end(), index[i]); break;
        case Kind::status: keep = status[i] == std::uint8_t(rule_.status); break;
        case Kind::event:
          keep = outputs[std::size_t(output_column::count + kEventColumns * rule_.event + event_column::count) * n + i] > 0;
          break;
        case Kind::final: {
          const double v = outputs[std::size_t(rule_.final_column) * n + i];
          keep = v >= rule_.min && v <= rule_.max;
          break;
        }
      }
      if (keep) rows.push_back(std::uint32_t(i));
    }
    return rows;
  }

  TrajectoryRetention rule_;
  bool active_;
  std::uint64_t taken_ = 0;
};

}  // namespace rbmc

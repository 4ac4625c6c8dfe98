// rbmc info: a human summary of a results file.
#pragma once

#include <cstdio>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "host/scenario/scenario.hpp"

namespace rbmc {

// What rbmc info says of a file, read once, printed as text or JSON.
struct ResultsInfo {
  std::string path, scenario_name, scenario_path, created, rbmc_version, backend, device, precision, design, integrator;
  double n_samples = 0, n_samples_in_run = 0, seed = 0, duration = 0;
  double n_steps = NAN, mean_steps = NAN, total_steps = NAN, wall_seconds = NAN, n_redrawn = 0;
  double elapsed_seconds = NAN;  // an MPI run's, from its start to its file (wall_seconds sums its parts')
  // How the file came to be: a part of a run (--shard), parts joined (rbmc merge, MPI), a resumed run.
  double shard_index = NAN, shard_count = NAN, n_parts = 0, resumed_samples = 0;
  std::string joined_by;
  bool complete = false, statistics = false;
  std::vector<std::string> statistics_quantities;  // the groups under /statistics, in the schema's order
  // Each output time and the samples with a finite value there (the first kept quantity's count):
  // fewer at the later times where samples stopped early (a terminal event). (T,) each.
  std::vector<double> statistics_times;
  std::vector<std::uint64_t> statistics_counts;
  std::uint64_t n_done = 0;  // rows with results (a partial file's rows done)
  std::vector<std::pair<std::string, std::uint64_t>> status_counts;
  double n_trajectories = NAN, n_output_times = NAN;
  std::string retained;
  std::optional<OutputSettings::Compression> trajectory_compression;  // [output] compression; none without trajectories
  std::uint64_t stride = 1;  // the table's: every stride-th sample of a huge file
  // Samples not integrated (invalid_body, invalid_load), with no final state (NaN; their initial
  // one in older files) at time 0: left out of the final-state table.
  std::uint64_t not_integrated = 0;
  struct Row {               // one component of a final-state dataset over the samples that have it
    std::string quantity, units;
    std::uint64_t count = 0;
    double mean = NAN, sd = NAN, min = NAN, p05 = NAN, median = NAN, p95 = NAN, max = NAN;
  };
  std::vector<Row> final_state;
  struct Event {  // one [[events]] entry, from /samples/events/<name>, over the samples with results
    std::string name;
    int index = 0;  // its place in the scenario, which samples/final/stopping_event counts in
    bool terminal = false;
    std::uint64_t occurred = 0;                                    // samples in which it occurred
    std::optional<std::uint64_t> stopped;                          // samples it stopped (with final/stopping_event)
    double first_min = NAN, first_median = NAN, first_max = NAN;  // s: its first occurrence's time there
  };
  std::vector<Event> events;  // in the scenario's order
  // A grid design's axes (key path, number of values), slowest first, and its replicates a
  // point; empty for another design, or where the file's scenario text no longer parses.
  std::vector<std::pair<std::string, std::uint64_t>> grid_axes;
  double grid_replicates = NAN;
};

ResultsInfo read_results_info(const std::string& path);
// Where samples stopped early, what the statistics at each time are over: "all 300 up to 1.2 s, 1
// at 1.3 s, none after 1.3 s" (the first times' count while none has stopped, the last time any
// runs, and whether a later time has none). Empty where every time holds as many as the first.
std::string running_samples_note(const std::vector<double>& times, const std::vector<std::uint64_t>& counts);
void print_results_info(const ResultsInfo& info, std::FILE* out);
void print_results_info_json(const ResultsInfo& info, std::FILE* out);  // rbmc info --json
void print_results_info(const std::string& path, std::FILE* out);

}  // namespace rbmc

// The results file's /statistics group: each kept quantity's count, moments, extremes and
// quantiles over the samples at every output time, with units, meanings and named dimensions
// (docs/output-format.md). And the statistics' mergeable state, which an interrupted run (/resume)
// and a shard (/shard_state) keep so that a resume or rbmc merge continues them exactly.
#pragma once

#include <string>
#include <vector>

#include <hdf5.h>

#include "host/scenario/scenario.hpp"
#include "host/stats/run_statistics.hpp"

namespace rbmc {

class ResultsReader;

// Creates /statistics in `file` from the run's statistics, for the quantities the scenario's
// [output] statistics names. Returns how exact the quantiles written are (from the rank error
// bounds it writes). Settles the sketches first (RunStatistics::settle_sketches: no estimate
// moves), so that its two passes over them, the quantiles and their bounds, sort nothing.
QuantileAccuracy write_statistics_group(hid_t file, RunStatistics& stats, const Scenario& scenario);

// Attaches the statistics' named dimensions (time, then quantile, then xyz) in each quantity's
// group of /statistics, where the file has one: after the group is written, or copied.
void attach_statistics_dimensions(hid_t file, const std::vector<double>& times);

// The statistics' state as a group's datasets (moments, values, value_counts, the sketches') and
// attribute (quantile_samples). With exact_values (RunStatistics::exact_values(), the state then
// save_without_exact_values()'), the values are written from those columns, in their order.
void write_statistics_state(hid_t group, const StatisticsState& state,
                            const std::vector<std::vector<double>>* exact_values = nullptr);
// With exact_values, an exact state's values are read column by column into it (value_counts
// says how many each holds; columns it holds already, RunStatistics::lend_exact_columns', keep
// their room) and the state's `values` stays empty: RunStatistics::restore and absorb take them
// so without a second copy. A sketched state's are read into `values` as ever.
StatisticsState read_statistics_state(const ResultsReader& r, const std::string& group,
                                      std::vector<std::vector<double>>* exact_values = nullptr);

}  // namespace rbmc

// Shards of a run (rbmc run --shard i/n), merged, equal the run itself; parts that do not belong
// together are refused before anything is written.
#include "host/run/merge_shards.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "host/io/results_reader.hpp"
#include "host/run/run_driver.hpp"
#include "host/stats/run_statistics.hpp"
#include "rbmc/random/inverse_transforms.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

namespace fs = std::filesystem;

RunOptions options_for(const std::string& output, std::uint64_t shard = 0, std::uint64_t of = 0) {
  RunOptions o;
  o.output = output;
  o.backend = BackendChoice::cpu;
  o.threads = 2;
  o.batch_size = 37;
  o.progress = false;
  o.shard_index = shard;
  o.shard_count = of;
  return o;
}

TEST(ShardRange, PartsCoverTheRunOnceWithSizesWithinOne) {
  for (const std::uint64_t n_samples : {1ull, 7ull, 1000ull, 1099511627776ull})
    for (const std::uint64_t parts : {1ull, 3ull, 7ull, 1000ull}) {
      std::uint64_t next = 0, smallest = ~0ull, largest = 0;
      for (std::uint64_t i = 0; i < parts; ++i) {
        const ShardRange r = shard_range(i, parts, n_samples);
        ASSERT_EQ(r.first, next);
        next += r.count;
        smallest = std::min(smallest, r.count);
        largest = std::max(largest, r.count);
      }
      EXPECT_EQ(next, n_samples);
      EXPECT_LE(largest - smallest, 1u);
    }
  EXPECT_EQ(parse_shard("2/5"), (std::pair<std::uint64_t, std::uint64_t>{2, 5}));
  for (const char* bad : {"5/5", "1/0", "a/3", "3", "-1/4", "1/"}) EXPECT_THROW(parse_shard(bad), UsageError) << bad;
}

// Three parts with statistics, a trajectory limit that the first part alone fills, and quantile
// sketches (1 MiB of quantile memory): merged, they are the one run's file, but for the sketches,
// merged in another order, whose quantiles are each within their bounds.
TEST(MergeShards, PartsMergedEqualTheWholeRun) {
  test::TempDir dir;
  const std::string text = test::valid_scenario_text(600, 0.5, 0.01) +
                           "[output]\ninterval = 0.01\ntrajectories = { every = 3, limit = 150 }\nquantile_memory_mb = 1\n";
  const Scenario s = parse_scenario(text, "box.toml");
  run_scenario(s, options_for(dir.file("whole.h5")));
  std::vector<std::string> parts;
  for (std::uint64_t i = 0; i < 3; ++i) {
    parts.push_back(dir.file("part" + std::to_string(i) + ".h5"));
    run_scenario(s, options_for(parts.back(), i, 3));
  }
  const MergeSummary m = merge_shards({parts[2], parts[0], parts[1]}, dir.file("merged.h5"), false, 2);
  EXPECT_EQ(m.n_samples, 600u);
  const ResultsReader whole(dir.file("whole.h5")), merged(dir.file("merged.h5"));
  EXPECT_EQ(merged.number_attribute("", "complete"), 1);
  EXPECT_FALSE(merged.has_attribute("", "shard_count"));
  EXPECT_FALSE(merged.has("shard_state"));
  EXPECT_EQ(merged.uint64s("samples/index").data, whole.uint64s("samples/index").data);
  EXPECT_EQ(merged.uint8s("samples/status").data, whole.uint8s("samples/status").data);
  for (const char* d : {"samples/body/mass", "samples/body/inertia", "samples/initial/orientation", "samples/final/position",
                        "samples/final/angular_velocity", "samples/final/steps", "samples/params/body.mass",
                        "trajectories/position", "trajectories/angular_velocity"})
    EXPECT_EQ(merged.doubles(d).data, whole.doubles(d).data) << d;
  EXPECT_EQ(merged.uint64s("trajectories/sample_index").data.size(), 150u);
  EXPECT_EQ(merged.uint64s("trajectories/sample_index").data, whole.uint64s("trajectories/sample_index").data);
  EXPECT_EQ(merged.number_attribute("", "total_steps"), whole.number_attribute("", "total_steps"));
  EXPECT_EQ(merged.number_attribute("", "n_status_ok"), 600);
  // The statistics: sketches of the same k over every sample; the moments merged in another
  // order, so equal to rounding.
  EXPECT_EQ(merged.string_attribute("statistics", "quantile_method"), whole.string_attribute("statistics", "quantile_method"));
  EXPECT_NE(whole.string_attribute("statistics", "quantile_method").find("sketch"), std::string::npos);
  EXPECT_EQ(merged.number_attribute("statistics", "quantile_samples"), 600);
  EXPECT_EQ(whole.number_attribute("statistics", "quantile_samples"), 600);
  // The last output time is the end: the quantiles of ω there against the samples' final ω, each
  // within its recorded 95 % bound taken at 99.99 % (as RunStatistics.SketchedQuantilesStayWithinTheirRankBound).
  const std::vector<double> omega = whole.doubles("samples/final/angular_velocity").data;
  for (const ResultsReader* file : {&whole, &merged}) {
    const std::vector<double> q = file->doubles("statistics/angular_velocity/quantiles").data,
                              bound = file->doubles("statistics/angular_velocity/quantile_rank_error_95").data;
    const std::size_t last = bound.size() / 3 - 1;
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t p = 0; p < 5; ++p) {
        const double x = q[(last * 5 + p) * 3 + c], b = bound[last * 3 + c] * std::sqrt(std::log(2 / 1e-4) / std::log(40.0));
        double below = 0, at_or_below = 0;
        for (std::size_t i = c; i < omega.size(); i += 3) {
          below += omega[i] < x;
          at_or_below += omega[i] <= x;
        }
        const double target = kQuantileProbabilities[p] * 599 / 600;
        EXPECT_GE(target, below / 600 - b - 1.0 / 600) << c << " " << p;
        EXPECT_LE(target, at_or_below / 600 + b) << c << " " << p;
      }
  }
  for (const char* q : {"angular_velocity", "attitude_angle", "kinetic_energy"}) {
    const std::string g = std::string("statistics/") + q;
    const std::vector<double> a = merged.doubles(g + "/mean").data, b = whole.doubles(g + "/mean").data,
                              sa = merged.doubles(g + "/sd").data, sb = whole.doubles(g + "/sd").data;
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-13 * (std::abs(b[i]) + sb[i]) + 1e-300) << q << " mean " << i;
      EXPECT_NEAR(sa[i], sb[i], 1e-10 * sb[i] + 1e-300) << q << " sd " << i;
    }
  }
}

// Parts that keep some quantities' statistics ([output] statistics, here with exact quantiles)
// merge into the whole run's: the same order statistics, the moments to rounding, and no other
// quantity's group.
// SIGINT or SIGTERM (the flag their handler sets) stops a merge between blocks: no merged file,
// no temporary beside it, an older file at the output kept, the parts untouched.
TEST(MergeShards, AnInterruptedMergeWritesNothing) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(300, 0.2, 0.01), "box.toml");
  std::vector<std::string> parts;
  for (std::uint64_t i = 0; i < 2; ++i) {
    parts.push_back(dir.file("part" + std::to_string(i) + ".h5"));
    run_scenario(s, options_for(parts.back(), i, 2));
  }
  const std::uintmax_t part_size = std::filesystem::file_size(parts[0]);
  dir.write("merged.h5", "an older file");
  interrupt_requested() = true;
  EXPECT_THROW(merge_shards(parts, dir.file("merged.h5"), true, 1), Interrupted);
  interrupt_requested() = false;
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 3u);  // the parts and the older file: nothing beside them
  std::ifstream older(dir.file("merged.h5"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(older), {}), "an older file");
  EXPECT_EQ(std::filesystem::file_size(parts[0]), part_size);
  merge_shards(parts, dir.file("merged.h5"), true, 1);  // and the merge goes through once asked again
  EXPECT_EQ(ResultsReader(dir.file("merged.h5")).number_attribute("", "complete"), 1);
}

TEST(MergeShards, PartsKeepingSomeQuantitiesMergeIntoTheirStatistics) {
  test::TempDir dir;
  const std::string text = test::valid_scenario_text(300, 0.5, 0.01) +
                           "[output]\ninterval = 0.05\nstatistics = [\"kinetic_energy\", \"angular_velocity\"]\n";
  const Scenario s = parse_scenario(text, "box.toml");
  run_scenario(s, options_for(dir.file("whole.h5")));
  std::vector<std::string> parts;
  for (std::uint64_t i = 0; i < 2; ++i) {
    parts.push_back(dir.file("part" + std::to_string(i) + ".h5"));
    run_scenario(s, options_for(parts.back(), i, 2));
  }
  merge_shards({parts[1], parts[0]}, dir.file("merged.h5"), false, 2);
  const ResultsReader whole(dir.file("whole.h5")), merged(dir.file("merged.h5"));
  ASSERT_NE(whole.string_attribute("statistics", "quantile_method").find("exact"), std::string::npos);
  for (const char* q : {"kinetic_energy", "angular_velocity"}) {
    const std::string g = std::string("statistics/") + q;
    EXPECT_EQ(merged.doubles(g + "/quantiles").data, whole.doubles(g + "/quantiles").data) << q;
    EXPECT_EQ(merged.doubles(g + "/count").data, whole.doubles(g + "/count").data) << q;
    const std::vector<double> a = merged.doubles(g + "/mean").data, b = whole.doubles(g + "/mean").data;
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-14 * (std::abs(b[i]) + 1)) << q << i;
  }
  for (const char* q : {"position", "velocity", "attitude_angle", "potential_energy"})
    EXPECT_FALSE(merged.has(std::string("statistics/") + q)) << q;
}

// The merged file's /timings add up the parts' stage by stage; a part written before a stage
// was timed (here `setup`, timed since 2026-11-27) adds nothing to it instead of failing the merge.
TEST(MergeShards, TimingsAddUpThePartsAndToleratePartsWithoutAStage) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(80, 0.2, 0.01), "box.toml");
  for (std::uint64_t i = 0; i < 2; ++i) run_scenario(s, options_for(dir.file("p" + std::to_string(i) + ".h5"), i, 2));
  test::remove_attribute(dir.file("p1.h5"), "setup", "timings");
  merge_shards({dir.file("p0.h5"), dir.file("p1.h5")}, dir.file("merged.h5"), false, 1);
  const ResultsReader p0(dir.file("p0.h5")), p1(dir.file("p1.h5")), merged(dir.file("merged.h5"));
  EXPECT_FALSE(p1.has_attribute("timings", "setup"));
  EXPECT_GT(p0.number_attribute("timings", "setup"), 0.0);
  EXPECT_EQ(merged.number_attribute("timings", "setup"), p0.number_attribute("timings", "setup"));
  EXPECT_EQ(merged.number_attribute("timings", "integrate"),
            p0.number_attribute("timings", "integrate") + p1.number_attribute("timings", "integrate"));
}

TEST(MergeShards, RefusesPartsThatDoNotMakeOneRun) {
  test::TempDir dir;
  const std::string text = test::valid_scenario_text(90, 0.2, 0.01);
  const Scenario s = parse_scenario(text, "box.toml");
  for (std::uint64_t i = 0; i < 3; ++i) run_scenario(s, options_for(dir.file("p" + std::to_string(i) + ".h5"), i, 3));
  RunOptions other = options_for(dir.file("seed.h5"), 2, 3);
  other.seed = 99;
  run_scenario(s, other);
  run_scenario(s, options_for(dir.file("whole.h5")));
  RunOptions cut = options_for(dir.file("cut.h5"), 2, 3);
  cut.batch_size = 10;  // interrupted after the first of three batches
  cut.after_batch = [](std::uint64_t) { interrupt_requested() = true; };
  EXPECT_THROW(run_scenario(s, cut), Interrupted);
  interrupt_requested() = false;
  const auto refusal = [&](const std::vector<std::string>& names) {
    std::vector<std::string> paths;
    for (const std::string& n : names) paths.push_back(dir.file(n));
    try {
      merge_shards(paths, dir.file("out.h5"), false, 1);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("merged");
  };
  EXPECT_NE(refusal({"p0.h5", "p1.h5"}).find("part 2/3 is missing"), std::string::npos);
  EXPECT_NE(refusal({"p0.h5", "p1.h5", "p1.h5"}).find("given twice"), std::string::npos);
  EXPECT_NE(refusal({"p0.h5", "p1.h5", "seed.h5"}).find("another seed"), std::string::npos);
  EXPECT_NE(refusal({"p0.h5", "p1.h5", "whole.h5"}).find("is not a shard"), std::string::npos);
  EXPECT_NE(refusal({"p0.h5", "p1.h5", "cut.h5.partial"}).find("incomplete"), std::string::npos);
  // A part drawn by a build whose draws differ (a file from before the revision was recorded).
  fs::copy_file(dir.file("p2.h5"), dir.file("old.h5"));
  test::remove_attribute(dir.file("old.h5"), "draw_revision");
  EXPECT_EQ(ResultsReader(dir.file("old.h5")).draw_revision(), 1);
  const std::string refused = "draws differ (draw revision 1 against " + std::to_string(kDrawRevision) + ")";
  EXPECT_NE(refusal({"p0.h5", "p1.h5", "old.h5"}).find(refused), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
  EXPECT_EQ(refusal({"p1.h5", "p0.h5", "p2.h5"}), "merged");
  // The merged file given as a part (a second merge over the first's output) is named as such.
  fs::rename(dir.file("out.h5"), dir.file("merged.h5"));
  EXPECT_NE(refusal({"merged.h5", "p0.h5"}).find("merged.h5 is a merged file (joined from 3 parts), not a part"),
            std::string::npos);
}

}  // namespace
}  // namespace rbmc

#include <filesystem>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "host/io/h5_write.hpp"
#include "host/io/results_reader.hpp"
#include "host/io/results_writer.hpp"
#include "host/io/statistics_group.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

namespace fs = std::filesystem;

struct Batch {
  std::vector<double> inputs, outputs, params;
  std::vector<std::uint8_t> status;
};

// Values that identify their row and column, so that a transposition or an offset shows.
Batch make_batch(std::uint64_t first, std::size_t n, int n_params) {
  Batch b;
  b.inputs.resize(n * input_column::count);
  b.outputs.resize(n * output_column_count(0));
  b.params.resize(n * std::size_t(n_params));
  b.status.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double row = double(first + i);
    for (int c = 0; c < input_column::count; ++c) b.inputs[c * n + i] = row + c / 100.0;
    for (int c = 0; c < output_column_count(0); ++c) b.outputs[c * n + i] = -row - c / 100.0;
    for (int c = 0; c < n_params; ++c) b.params[c * n + i] = 1000 + row + c / 100.0;
    b.status[i] = std::uint8_t((first + i) % 3);
  }
  return b;
}

TEST(ResultsFile, RoundTripsEveryDatasetAndAttribute) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(10), "box.toml");
  const std::string path = dir.file("out.h5");
  const int n_params = 1 + 3 + 3 + 3 + 3;  // mass, moments, com, angular velocity, attitude
  {
    ResultsWriter w(path, false, {"cpu", "test device", "double", &s, 10});
    for (const auto& [first, n] : {std::pair<std::uint64_t, std::size_t>{0, 6}, {6, 4}}) {
      const Batch b = make_batch(first, n, n_params);
      StageTimings timings;
      w.write_batch({first, n, b.inputs.data(), b.outputs.data(), b.status.data(), b.params.data()}, timings);
    }
    EXPECT_FALSE(fs::exists(path));  // not before finish
    RunTotals totals;
    totals.wall_seconds = 1.5;
    totals.status_counts = {4, 3, 3};
    w.finish(totals);
  }
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);  // no temporary left

  const ResultsReader r(path);
  EXPECT_EQ(r.string_attribute("", "backend"), "cpu");
  EXPECT_EQ(r.string_attribute("", "device"), "test device");
  EXPECT_EQ(r.string_attribute("", "precision"), "double");
  EXPECT_EQ(r.string_attribute("", "scenario"), s.text);
  EXPECT_EQ(r.number_attribute("", "seed"), 2024);
  EXPECT_EQ(r.number_attribute("", "n_samples"), 10);
  EXPECT_EQ(r.number_attribute("", "wall_seconds"), 1.5);
  EXPECT_EQ(r.number_attribute("", "n_status_ok"), 4);
  EXPECT_FALSE(r.string_attribute("", "rbmc_version").empty());
  EXPECT_EQ(r.string_attribute("", "created").size(), 20u);  // 2026-11-22T10:00:00Z

  const auto index = r.uint64s("samples/index");
  const auto status = r.uint8s("samples/status");
  for (std::uint64_t k = 0; k < 10; ++k) {
    EXPECT_EQ(index.data[k], k);
    EXPECT_EQ(status.data[k], k % 3);
  }
  // Columns land in the right rows and components.
  const auto omega = r.doubles("samples/initial/angular_velocity");
  ASSERT_EQ(omega.shape, (std::vector<std::uint64_t>{10, 3}));
  EXPECT_EQ(omega.data[7 * 3 + 2], 7 + (input_column::omega_b + 2) / 100.0);
  const auto q = r.doubles("samples/final/orientation");
  ASSERT_EQ(q.shape, (std::vector<std::uint64_t>{10, 4}));
  EXPECT_EQ(q.data[8 * 4 + 3], -8 - (output_column::q_wb + 3) / 100.0);
  const auto inertia = r.doubles("samples/body/inertia");
  ASSERT_EQ(inertia.shape, (std::vector<std::uint64_t>{10, 3, 3}));
  EXPECT_EQ(inertia.data[3 * 9 + 1], 3 + (input_column::inertia_c_b + 3) / 100.0);  // xy
  EXPECT_EQ(inertia.data[3 * 9 + 3], inertia.data[3 * 9 + 1]);                     // symmetric
  // Parameter columns follow the scenario's dispersions in order.
  int column = 0;
  for (const Dispersion& d : s.dispersions) {
    if (d.info.input == DispersedInput::principal_moments) break;
    column += d.info.dim;
  }
  const auto moments = r.doubles("samples/params/body.principal_moments");
  ASSERT_EQ(moments.shape, (std::vector<std::uint64_t>{10, 3}));
  EXPECT_EQ(moments.data[2 * 3 + 1], 1000 + 2 + (column + 1) / 100.0);
  EXPECT_EQ(r.doubles("samples/final/time").data[9], -9 - output_column::time / 100.0);

  for (const char* d : {"samples/index", "samples/status", "samples/params/body.mass", "samples/body/mass",
                        "samples/body/center_of_mass", "samples/initial/position", "samples/initial/orientation",
                        "samples/initial/velocity", "samples/final/position", "samples/final/velocity",
                        "samples/final/angular_velocity"}) {
    ASSERT_TRUE(r.has(d)) << d;
    EXPECT_FALSE(r.string_attribute(d, "units").empty()) << d;
  }
  EXPECT_EQ(r.string_attribute("samples/final/velocity", "units"), "m/s");
  EXPECT_EQ(r.string_attribute("samples/initial/angular_velocity", "units"), "rad/s");
}

// Each group's `sample` scale is written apart from HDF5's filters where a batch fills whole chunks
// (ResultsWriter::write_sample_scales), through them elsewhere. Batches that start and end inside
// chunks, one that fills none, and indices that differ from chunk to chunk: every scale must read
// back, through HDF5's shuffle and deflate filters, as every row's own index. The one-value
// datasets, written from their columns as they lie, too.
TEST(ResultsFile, SampleScalesHoldEveryRowsIndexAcrossChunksAndBatches) {
  test::TempDir dir;
  const std::uint64_t n_rows = 70000;  // chunks of 16384 rows: four whole, and a part
  const Scenario s = parse_scenario(test::valid_scenario_text(int(n_rows)), "box.toml");
  const std::string path = dir.file("out.h5");
  const int n_params = 1 + 3 + 3 + 3 + 3;
  const auto index_of = [](std::uint64_t row) { return 3 * row + 7; };
  {
    ResultsWriter w(path, false, {"cpu", "test device", "double", &s, n_rows});
    for (const auto& [first, n] : {std::pair<std::uint64_t, std::size_t>{0, 30000}, {30000, 1000}, {31000, 39000}}) {
      const Batch b = make_batch(first, n, n_params);
      std::vector<std::uint64_t> index(n);
      for (std::size_t i = 0; i < n; ++i) index[i] = index_of(first + i);
      StageTimings timings;
      w.write_batch({first, n, b.inputs.data(), b.outputs.data(), b.status.data(), b.params.data(), nullptr, nullptr,
                     index.data()},
                    timings);
    }
    w.finish(RunTotals{});
  }
  const ResultsReader r(path);
  int scales = 0;
  for (const char* group : {"samples", "samples/params", "samples/body", "samples/initial", "samples/final"}) {
    const std::string scale = std::string(group) + "/sample";
    if (!r.has(scale)) continue;
    ++scales;
    EXPECT_EQ(r.filter_count(scale), 2) << scale;  // shuffle and deflate, as declared
    const auto values = r.uint64s(scale);
    ASSERT_EQ(values.data.size(), n_rows) << scale;
    std::uint64_t wrong = 0;
    for (std::uint64_t k = 0; k < n_rows; ++k) wrong += values.data[k] != index_of(k);
    EXPECT_EQ(wrong, 0u) << scale;
  }
  EXPECT_GE(scales, 4);
  const auto index = r.uint64s("samples/index");
  const auto mass = r.doubles("samples/body/mass");
  const auto time = r.doubles("samples/final/time");
  for (std::uint64_t k : {std::uint64_t(0), std::uint64_t(16383), std::uint64_t(16384), std::uint64_t(29999),
                          std::uint64_t(30000), std::uint64_t(30999), std::uint64_t(31000), std::uint64_t(49152),
                          n_rows - 1}) {
    EXPECT_EQ(index.data[k], index_of(k)) << k;
    EXPECT_EQ(mass.data[k], double(k) + input_column::mass / 100.0) << k;
    EXPECT_EQ(time.data[k], -double(k) - output_column::time / 100.0) << k;
  }
}

TEST(ResultsFile, AnUnfinishedWriterLeavesNothing) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(10), "box.toml");
  {
    ResultsWriter w(dir.file("out.h5"), false, {"cpu", "d", "double", &s, 10});
    EXPECT_TRUE(fs::exists(w.temporary_path()));
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(ResultsFile, RefusesToReplaceAFileWithoutOverwrite) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(10), "box.toml");
  const std::string path = dir.write("out.h5", "precious");
  EXPECT_THROW(ResultsWriter(path, false, {"cpu", "d", "double", &s, 10}), UsageError);
  EXPECT_NO_THROW(ResultsWriter(path, true, {"cpu", "d", "double", &s, 10}));
  EXPECT_THROW(ResultsWriter(dir.file("missing/out.h5"), false, {"cpu", "d", "double", &s, 10}), UsageError);
}

// A finished file takes the place of one it replaces (--overwrite), which is moved aside first
// (h5::close_into_place says why) and then removed: nothing is left beside it. Where the aside name
// is taken, the file is renamed over the old one instead, and what holds the name is left alone;
// what is not a file is never moved.
TEST(ResultsFile, AReplacedFileLeavesNothingBesideTheNewOne) {
  test::TempDir dir;
  const std::string to = dir.write("out.h5", "the old results");
  const auto finished_file = [&](const std::string& name) {
    const std::string from = dir.file(name);
    h5::Handle file(H5Fcreate(from.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "creating " + from);
    h5::write_string_attribute(file.get(), "which", name);
    h5::close_into_place(file, from, to);
  };
  finished_file("first.partial");
  EXPECT_EQ(ResultsReader(to).string_attribute("", "which"), "first.partial");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  fs::create_directories(fs::path(h5::replaced_path(to)) / "occupied");
  finished_file("second.partial");
  EXPECT_EQ(ResultsReader(to).string_attribute("", "which"), "second.partial");
  EXPECT_TRUE(fs::is_directory(fs::path(h5::replaced_path(to)) / "occupied"));
  EXPECT_FALSE(fs::exists(dir.file("second.partial")));
  // A file new at its place replaces nothing.
  fs::remove_all(h5::replaced_path(to));
  fs::remove(to);
  finished_file("third.partial");
  EXPECT_EQ(ResultsReader(to).string_attribute("", "which"), "third.partial");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  // Only a file is moved aside: a directory in the way fails the rename and stays where it is.
  fs::remove(to);
  fs::create_directories(fs::path(to) / "in-the-way");
  EXPECT_THROW(finished_file("fourth.partial"), Hdf5Error);
  EXPECT_TRUE(fs::is_directory(fs::path(to) / "in-the-way"));
  EXPECT_FALSE(fs::exists(h5::replaced_path(to)));
  EXPECT_TRUE(fs::exists(dir.file("fourth.partial")));  // the finished file is kept where it was written
}

// The exact quantiles' values written from their columns where they lie (Ctrl-C's /resume, a
// part's /shard_state) make the state a copy of them makes, empty columns included.
TEST(ResultsFile, ExactValuesWrittenFromTheirColumnsMakeTheSameState) {
  test::TempDir dir;
  StatisticsState copied;
  copied.moments = {1.0, 0.5, 0.25, -1.0, 2.0, 0.0, 2.0, 1.5, 0.5, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  copied.values = {3.0, -1.0, 1e300, 4.0, -0.0};
  copied.value_counts = {3, 0, 2};
  copied.quantile_samples = 3;
  StatisticsState in_place = copied;
  in_place.values.clear();
  const std::vector<std::vector<double>> columns = {{3.0, -1.0, 1e300}, {}, {4.0, -0.0}};
  const std::string path = dir.file("state.h5");
  {
    h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "creating " + path);
    write_statistics_state(h5::create_group(file.get(), "copied").get(), copied);
    write_statistics_state(h5::create_group(file.get(), "in_place").get(), in_place, &columns);
    const std::vector<std::vector<double>> empty(3);  // no values yet: an empty dataset
    StatisticsState none = in_place;
    none.value_counts = {0, 0, 0};
    write_statistics_state(h5::create_group(file.get(), "none").get(), none, &empty);
  }
  const ResultsReader r(path);
  const StatisticsState a = read_statistics_state(r, "copied"), b = read_statistics_state(r, "in_place");
  EXPECT_EQ(b.values, copied.values);
  EXPECT_EQ(std::signbit(b.values.back()), true);
  EXPECT_EQ(b.value_counts, a.value_counts);
  EXPECT_EQ(b.moments, a.moments);
  EXPECT_EQ(b.quantile_samples, a.quantile_samples);
  EXPECT_TRUE(read_statistics_state(r, "none").values.empty());
}

TEST(ResultsFile, ReadingANonHdf5FileIsAnHdf5Error) {
  test::TempDir dir;
  EXPECT_THROW(ResultsReader(dir.write("x.h5", "not hdf5")), Hdf5Error);
}

}  // namespace
}  // namespace rbmc

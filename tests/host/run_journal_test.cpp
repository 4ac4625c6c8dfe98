// The journal keeps whole records only: a record cut short (a kill in the middle of a write) or
// damaged is dropped with everything after it, and appending continues after the last whole one.
#include "host/io/run_journal.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

JournalBatch batch(std::uint64_t first, std::uint64_t n) {
  JournalBatch b;
  b.first = first;
  b.n = n;
  b.redrawn = first % 3;
  for (std::uint64_t i = 0; i < n; ++i) {
    b.outputs.push_back(double(first + i) * 0.5);
    b.status.push_back(std::uint8_t(i % 2));
  }
  b.kept = {0, 2};
  b.trajectories = {1.0, 2.0, 3.0};
  return b;
}

JournalBatchView view_of(const JournalBatch& b) {
  return {b.first, b.n, b.redrawn, JournalArray::of(b.outputs), JournalArray::of(b.status), JournalArray::of(b.kept),
          JournalArray::of(b.trajectories)};
}

std::vector<JournalBatch> read_all(const std::string& path, std::uint64_t* valid = nullptr) {
  std::vector<JournalBatch> out;
  const std::uint64_t v = RunJournal::for_each_record(path, [&](const JournalBatch& b) {
    out.push_back(b);
    return true;
  });
  if (valid != nullptr) *valid = v;
  return out;
}

TEST(RunJournal, KeepsWholeRecordsAndDropsACutShortTail) {
  test::TempDir dir;
  const std::string path = dir.file("out.h5.journal");
  {
    RunJournal j(path, "identity\nscenario\n[run]");
    for (std::uint64_t k = 0; k < 3; ++k) j.append(view_of(batch(k * 10, 10)));
  }
  EXPECT_EQ(RunJournal::read_identity(path), "identity\nscenario\n[run]");
  std::uint64_t valid = 0;
  std::vector<JournalBatch> all = read_all(path, &valid);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(valid, std::filesystem::file_size(path));
  EXPECT_EQ(all[2].first, 20u);
  EXPECT_EQ(all[2].outputs, batch(20, 10).outputs);
  EXPECT_EQ(all[1].redrawn, 1u);
  EXPECT_EQ(all[1].kept, (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(all[1].trajectories, (std::vector<double>{1.0, 2.0, 3.0}));
  // A kill in the middle of the third record's write.
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 7);
  all = read_all(path, &valid);
  ASSERT_EQ(all.size(), 2u);
  // Appending after the last whole record: the cut-short bytes are cut off first.
  {
    RunJournal j(path, "", valid);
    j.append(view_of(batch(20, 5)));
  }
  all = read_all(path);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].n, 5u);
  // A damaged byte inside the second record: it and what follows are dropped.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(valid - 20));
    f.put('\x7f');
  }
  EXPECT_EQ(read_all(path).size(), 1u);
  EXPECT_FALSE(RunJournal::read_identity(dir.file("missing")).has_value());
}

// A journal of another format (format 1 held each batch's statistics) is refused by name, not
// taken for no journal at all (which --resume reported as "no interrupted run to resume").
TEST(RunJournal, AnotherFormatsJournalIsRefusedByName) {
  test::TempDir dir;
  const std::string path = dir.file("out.h5.journal");
  { RunJournal j(path, "identity"); }
  ASSERT_TRUE(RunJournal::read_identity(path).has_value());
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(7);
    f.put('1');
  }
  try {
    RunJournal::read_identity(path);
    ADD_FAILURE() << "a format-1 journal was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(path + " is a journal of another rbmc (format 1; this one reads format 2)"),
              std::string::npos)
        << e.what();
  }
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.put('X');  // not a journal at all: none
  }
  EXPECT_FALSE(RunJournal::read_identity(path).has_value());
}

TEST(RunJournal, RemoveDeletesTheFile) {
  test::TempDir dir;
  const std::string path = dir.file("j");
  RunJournal j(path, "x");
  j.append(view_of(batch(0, 1)));
  j.snapshot_statistics(1, StatisticsState{});
  EXPECT_TRUE(std::filesystem::exists(RunJournal::snapshot_path_for(path)));
  j.remove();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(RunJournal::snapshot_path_for(path)));
  EXPECT_FALSE(j.active());
}

// Exact quantiles' values written from their columns where they lie (a run's snapshot copies
// none of them): the same file, byte for byte, as from a state holding them one after another.
TEST(RunJournal, ExactValuesWrittenFromTheirColumnsMakeTheSameSnapshot) {
  test::TempDir dir;
  StatisticsState copied;
  copied.moments = {1.0, 0.5, 0.25, -1.0, 2.0, 0.0, 2.0, 1.5, 0.5, 0.0, 3.0, 0.0};
  copied.values = {3.0, -1.0, 1e300, 4.0, 5.5};
  copied.value_counts = {3, 2};
  copied.quantile_samples = 3;
  StatisticsState in_place = copied;
  in_place.values.clear();
  const std::vector<std::vector<double>> columns = {{3.0, -1.0, 1e300}, {4.0, 5.5}};
  const auto snapshot_bytes = [&](const std::string& name, const StatisticsState& state,
                                  const std::vector<std::vector<double>>* exact_values) {
    const std::string path = dir.file(name);
    RunJournal(path, "run A").snapshot_statistics(96, state, exact_values);
    std::ifstream in(RunJournal::snapshot_path_for(path), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string a = snapshot_bytes("a", copied, nullptr), b = snapshot_bytes("b", in_place, &columns);
  EXPECT_GT(a.size(), 5 * sizeof(double));
  EXPECT_EQ(a, b);
  const std::optional<StatisticsSnapshot> s = RunJournal::read_statistics_snapshot(dir.file("b"), "run A");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->state.values, copied.values);
  EXPECT_EQ(s->state.value_counts, copied.value_counts);
  // Read back by column, as a resume restores them: the state's values empty, the columns whole.
  std::vector<std::vector<double>> read_columns;
  const std::optional<StatisticsSnapshot> by_column = RunJournal::read_statistics_snapshot(dir.file("b"), "run A", &read_columns);
  ASSERT_TRUE(by_column.has_value());
  EXPECT_TRUE(by_column->state.values.empty());
  EXPECT_EQ(read_columns, columns);
  EXPECT_EQ(by_column->state.moments, copied.moments);
  EXPECT_EQ(by_column->rows, 96u);
}

// The statistics snapshot beside the journal comes back exactly, replaces the last one whole, and
// is not taken when damaged, cut short, another run's, or left by a replaced run.
TEST(RunJournal, StatisticsSnapshotsComeBackExactlyOrNotAtAll) {
  test::TempDir dir;
  const std::string path = dir.file("j"), snapshot = RunJournal::snapshot_path_for(path);
  StatisticsState state;
  state.moments = {1.0, 0.5, 0.25, -1.0, 2.0, 0.0};
  state.values = {3.0, -0.0, 1e300, 4.0};
  state.value_counts = {4};
  state.quantile_samples = 7;
  state.sketch_level_sizes = {1, 3};
  state.sketch_compactions = {2, 0};
  state.sketch_brackets = {-INFINITY, 0.5, INFINITY};
  state.sketch_counts = {9, 8, 1};
  {
    RunJournal j(path, "run A");
    j.snapshot_statistics(64, StatisticsState{});
    j.snapshot_statistics(128, state);  // replaces the first
  }
  std::optional<StatisticsSnapshot> s = RunJournal::read_statistics_snapshot(path, "run A");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->rows, 128u);
  EXPECT_EQ(s->state.moments, state.moments);
  EXPECT_EQ(std::memcmp(s->state.values.data(), state.values.data(), state.values.size() * sizeof(double)), 0);
  EXPECT_EQ(s->state.value_counts, state.value_counts);
  EXPECT_EQ(s->state.quantile_samples, 7u);
  EXPECT_EQ(s->state.sketch_level_sizes, state.sketch_level_sizes);
  EXPECT_EQ(s->state.sketch_compactions, state.sketch_compactions);
  EXPECT_EQ(s->state.sketch_brackets, state.sketch_brackets);
  EXPECT_EQ(s->state.sketch_counts, state.sketch_counts);
  EXPECT_FALSE(std::filesystem::exists(snapshot + ".writing"));
  EXPECT_FALSE(RunJournal::read_statistics_snapshot(path, "run B").has_value());  // another run's
  const auto size = std::filesystem::file_size(snapshot);
  {
    std::fstream f(snapshot, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(size - 20));
    f.put('\x55');  // a damaged value: the checksum fails
  }
  std::vector<std::vector<double>> columns;
  EXPECT_FALSE(RunJournal::read_statistics_snapshot(path, "run A").has_value());
  EXPECT_FALSE(RunJournal::read_statistics_snapshot(path, "run A", &columns).has_value());
  std::filesystem::resize_file(snapshot, size / 2);  // cut short
  EXPECT_FALSE(RunJournal::read_statistics_snapshot(path, "run A").has_value());
  EXPECT_FALSE(RunJournal::read_statistics_snapshot(path, "run A", &columns).has_value());
  EXPECT_TRUE(columns.empty());
  {
    RunJournal fresh(path, "run A");  // a fresh run with this output drops the old snapshot
  }
  EXPECT_FALSE(std::filesystem::exists(snapshot));
}

}  // namespace
}  // namespace rbmc

// What a run needs on disk (host/run/disk_space.hpp) against what runs write: a lower bound of
// the file, the journal's records to the byte, and the refusal of a run that cannot fit.
#include "host/run/disk_space.hpp"

#include <sys/statvfs.h>

#include <filesystem>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "host/io/run_journal.hpp"
#include "host/run/run_driver.hpp"
#include "host/scenario/output_schema.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

namespace fs = std::filesystem;

RunOptions cpu_options(const std::string& output, std::size_t batch) {
  RunOptions o;
  o.output = output;
  o.backend = BackendChoice::cpu;
  o.threads = 2;
  o.batch_size = batch;
  o.progress = false;
  return o;
}

// A complete file holds at least the need, and at most its per-sample datasets, its trajectories
// uncompressed and 3 MiB more: the partly filled last chunk of the inertia's rows (a chunk holds at
// most 2¹⁷ values, 14,563 rows of 9: up to 1 MiB; the other datasets' rows of 1, 3 and 4 values
// fill chunks of 2¹⁴ rows, with 2¹⁵ samples exactly), one chunk of each of the four trajectory
// datasets (about 256 KiB each), and 1 MiB of HDF5's metadata and the `sample` coordinates. The
// kept trajectories are stored as they are ("none") and counted; deflated, they count for nothing.
TEST(DiskSpace, TheFileHoldsAtLeastItsNeedAndNotMuchMore) {
  test::TempDir dir;
  const std::uint64_t n = 32768;
  for (const char* compression : {"none", "deflate"}) {
    const Scenario s = parse_scenario(test::valid_scenario_text(int(n), 0.2, 0.01) +
                                          "[output]\ninterval = 0.05\ntrajectories = { every = 8 }\ncompression = \"" +
                                          compression + "\"\n",
                                      "box.toml");
    const std::string out = dir.file(std::string(compression) + ".h5");
    run_scenario(s, cpu_options(out, 4096));
    const DiskNeed need = disk_need(s, n, true, true);
    const std::uint64_t per_sample = stored_bytes_per_sample(s), trajectories = n / 8 * 5 * 13 * 8;
    EXPECT_EQ(need.rows, n);
    EXPECT_EQ(need.bytes_per_sample, per_sample);
    EXPECT_EQ(need.file, n * per_sample + (compression == std::string("none") ? trajectories : 0)) << compression;
    const std::uint64_t size = fs::file_size(out);
    EXPECT_GE(size, need.file) << compression;
    EXPECT_LE(size, n * per_sample + trajectories + (std::uint64_t(3) << 20)) << compression;
  }
}

// The journal's records hold what the need counts, record by record: each batch's outputs and
// statuses, and with every trajectory kept, those trajectories and their rows. A run stopped by an
// error after some batches keeps its journal.
TEST(DiskSpace, TheJournalsRecordsHoldWhatItsNeedCounts) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(512, 0.2, 0.01) +
                                        "[output]\ninterval = 0.05\ntrajectories = \"all\"\n"
                                        "[[events]]\nname = \"late\"\ntype = \"time_limit\"\ntime = 0.15\n",
                                    "box.toml");
  RunOptions o = cpu_options(dir.file("r.h5"), 64);
  o.after_batch = [](std::uint64_t rows) {
    if (rows >= 256) throw std::runtime_error("stopped for the test");
  };
  EXPECT_THROW(run_scenario(s, o), std::runtime_error);
  std::uint64_t rows = 0;
  RunJournal::for_each_record(RunJournal::path_for(dir.file("r.h5")), [&](const JournalBatch& b) {
    rows += b.n;
    const DiskNeed without = disk_need(s, b.n, true, false), with = disk_need(s, b.n, true, true);
    EXPECT_EQ(b.outputs.size() * sizeof(double) + b.status.size(), without.journal);
    EXPECT_EQ(b.kept.size(), b.n);  // "all"
    EXPECT_EQ(b.trajectories.size() * sizeof(double) + b.kept.size() * sizeof(std::uint32_t),
              with.journal - without.journal);
    return true;
  });
  EXPECT_GE(rows, 128u);
  EXPECT_EQ(disk_need(s, 100, false, true).journal, 0u);  // --no-journal
}

// 2⁴⁰ samples with every trajectory kept at 100,001 times, stored as they are: 11 EB in the file
// and as much in the journal, whose sum a uint64 cannot hold. The need saturates rather than wrap
// to a size some disk has.
TEST(DiskSpace, ANeedBeyondCountingSaturates) {
  const Scenario s = parse_scenario(test::valid_scenario_text(64, 1.0, 0.00001) +
                                        "[output]\ninterval = 0.00001\ntrajectories = \"all\"\ncompression = \"none\"\n",
                                    "box.toml");
  ASSERT_EQ(s.output_times.n, 100001);
  const DiskNeed need = disk_need(s, std::uint64_t(1) << 40, true, true);
  EXPECT_GT(need.file, std::uint64_t(1e19));
  EXPECT_GT(need.journal, std::uint64_t(1e19));
  EXPECT_EQ(need.total(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_NE(disk_shortfall("out.h5", need, std::uint64_t(1) << 60), "");
}

// The free space is the file system's where the output goes, as std::filesystem::space says
// (another process may write between the two calls: within 64 MB); unknown for a directory that
// does not exist.
TEST(DiskSpace, FreeBytesAreThoseOfTheOutputsFileSystem) {
  test::TempDir dir;
  const std::optional<std::uint64_t> free = free_bytes_for(dir.file("out.h5"));
  ASSERT_TRUE(free.has_value());
  const std::uint64_t available = fs::space(dir.path()).available;
  EXPECT_LE(*free, available + (std::uint64_t(64) << 20));
  EXPECT_GE(*free + (std::uint64_t(64) << 20), available);
  EXPECT_FALSE(free_bytes_for(dir.file("missing/out.h5")).has_value());
}

// A need beyond the free space is refused, naming what needs how much; under MPI the journals are
// gone before the ranks write OUT, so the disk holds the parts and the larger of the two.
TEST(DiskSpace, TheShortfallNamesWhatNeedsHowMuch) {
  DiskNeed need;
  need.rows = 1000;
  need.bytes_per_sample = 400;
  need.file = 400000;
  need.journal = 201000;
  EXPECT_EQ(need.total(), 601000u);
  EXPECT_EQ(disk_shortfall("out.h5", need, 601000), "");
  const std::string refused = disk_shortfall("out.h5", need, 600999);
  EXPECT_EQ(refused,
            "out.h5: this run writes at least 601 kB there before its file is in place (the file's 400 kB: 400 bytes a "
            "sample for 1000 samples; its journal's 201 kB, which --no-journal leaves out), and that file system has "
            "601 kB free: run fewer samples, keep fewer per-sample datasets or trajectories ([output] samples, storage "
            "= \"float32\", trajectories), or choose another -o (--no-space-check starts it anyway)");
  need.joined = need.file;
  EXPECT_EQ(need.total(), 800000u);
  EXPECT_NE(disk_shortfall("out.h5", need, 799999).find("its parts' 400 kB"), std::string::npos);
  EXPECT_NE(disk_shortfall("out.h5", need, 799999).find("then 400 kB for the file the ranks join them into"),
            std::string::npos);
  EXPECT_EQ(disk_shortfall("out.h5", need, 800000), "");
}

// A run that cannot fit stops before any work, leaving nothing beside its output; a resumed one
// counts only the rows its partial file does not hold.
TEST(DiskSpace, ARunThatCannotFitIsRefusedBeforeAnyWork) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(64, 0.2, 0.01), "box.toml");
  RunOptions o = cpu_options(dir.file("r.h5"), 0);
  o.samples = std::uint64_t(1) << 40;  // 400 TB of per-sample datasets
  try {
    run_scenario(s, o);
    ADD_FAILURE() << "ran 2^40 samples";
  } catch (const Hdf5Error& e) {
    EXPECT_NE(std::string(e.what()).find("this run writes at least"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace rbmc

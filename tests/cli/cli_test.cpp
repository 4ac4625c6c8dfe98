// rbmc as a user runs it: exit codes, messages, and what is (not) left on disk.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <filesystem>
#include <limits>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <hdf5.h>

#include "../host/test_scenarios.hpp"
#include "host/io/results_reader.hpp"
#include "host/io/run_journal.hpp"
#include "host/scenario/scenario.hpp"
#include "host/util/stage_timings.hpp"
#include "rbmc/sample/sample_status.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a bash script in dir (from a file, so that no outer shell expands it); RBMC names the program.
int run_script(const test::TempDir& dir, const std::string& body) {
  const std::string script = dir.path().string() + ".sh";
  std::ofstream(script) << "cd '" << dir.path().string() << "' || exit 99\nRBMC='" RBMC_EXE "'\n" << body << "\n";
  const int status = std::system(("bash '" + script + "'").c_str());
  fs::remove(script);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Shell: waits (up to a minute) for the run in the background to create its journal, which it
// does once its checks of -o are done and its signal handlers are set, then `seconds` more.
// Signal tests time their signal from there rather than from the process's start, which a
// loaded machine (ctest -j) can delay by more than the fixed sleeps these tests once used.
std::string after_run_started(const std::string& journal, double seconds) {
  char more[32];
  std::snprintf(more, sizeof more, "%.2f", seconds);
  return "for i in $(seq 1200); do [ -e " + journal + " ] && break; sleep 0.05; done; sleep " + more + "; ";
}

// Runs `prefix rbmc args` in dir; prefix may set limits or traps.
Outcome rbmc(const test::TempDir& dir, const std::string& args, const std::string& prefix = "") {
  const int code = run_script(dir, prefix + " exec \"$RBMC\" " + args + " >stdout.txt 2>stderr.txt");
  return {code, slurp(dir.file("stdout.txt")), slurp(dir.file("stderr.txt"))};
}

bool only_logs_in(const test::TempDir& dir, const std::vector<std::string>& allowed) {
  for (const auto& e : fs::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    if (name != "stdout.txt" && name != "stderr.txt" && std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      return false;
  }
  return true;
}

// The samples a run's journal holds, in whole records.
std::uint64_t journal_rows(const std::string& path) {
  std::uint64_t rows = 0;
  RunJournal::for_each_record(path, [&](const JournalBatch& b) {
    rows += b.n;
    return true;
  });
  return rows;
}

TEST(Cli, RunWritesTheFileAndPrintsASummary) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100));
  const Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --threads 2 --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote        out.h5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("body-steps/s"), std::string::npos);
  EXPECT_NE(r.out.find("backend      cpu"), std::string::npos);
  const ResultsReader f(dir.file("out.h5"));
  EXPECT_EQ(f.number_attribute("", "n_samples"), 100);
}

// The summary says how the quantiles were found: exact where every value fits the budget; a
// sketch's largest 95 % rank error bound, the file's own, with a hint where it is above the
// default's 1e-3; nothing without statistics.
TEST(Cli, TheSummarySaysHowExactTheQuantilesAre) {
  test::TempDir dir;
  dir.write("exact.toml", test::valid_scenario_text(100) + "[output]\ninterval = 0.1\n");
  // 51 times × 12 columns share 1 MiB: about 200 doubles a column, the smallest k (64), and 300
  // samples' 1.5 MiB of values do not fit.
  dir.write("sketched.toml", test::valid_scenario_text(300) + "[output]\ninterval = 0.01\nquantile_memory_mb = 1\n");
  dir.write("none.toml", test::valid_scenario_text(100) + "[output]\ninterval = 0.1\nstatistics = false\n");
  const std::string args = " --backend cpu --threads 2 --no-progress";

  const Outcome exact = rbmc(dir, "run exact.toml -o exact.h5" + args);
  ASSERT_EQ(exact.code, 0) << exact.err;
  EXPECT_NE(exact.out.find("  quantiles    exact (every sample's values)\n"), std::string::npos) << exact.out;

  const Outcome none = rbmc(dir, "run none.toml -o none.h5" + args);
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_EQ(none.out.find("quantiles"), std::string::npos) << none.out;

  const Outcome sketched = rbmc(dir, "run sketched.toml -o sketched.h5" + args);
  ASSERT_EQ(sketched.code, 0) << sketched.err;
  const std::string prefix = "  quantiles    sketched (k = 64): ranks within ";
  const std::size_t at = sketched.out.find(prefix);
  ASSERT_NE(at, std::string::npos) << sketched.out;
  const double printed = std::strtod(sketched.out.c_str() + at + prefix.size(), nullptr);
  double largest = 0;
  const ResultsReader f(dir.file("sketched.h5"));
  for (const QuantityInfo& q : kStatisticsQuantities)
    for (const double e : f.doubles(std::string("statistics/") + q.name + "/quantile_rank_error_95").data)
      largest = std::max(largest, e);
  ASSERT_GT(largest, 1e-3);  // the budget's k is small enough for the hint
  EXPECT_LE(std::abs(printed - largest), 0.05 * largest) << sketched.out;  // two significant digits
  EXPECT_NE(sketched.out.find("of p (95 %), above 0.001: a larger [output] quantile_memory_mb narrows them\n", at),
            std::string::npos)
      << sketched.out;

  // A part of that run with fewer samples than its sketch's k has compacted nothing: its quantiles
  // are exact, and the line says so rather than "ranks within 0".
  const Outcome part = rbmc(dir, "run sketched.toml -o part.h5 --shard 0/10" + args);
  ASSERT_EQ(part.code, 0) << part.err;
  EXPECT_NE(part.out.find("  quantiles    sketched (k = 64): exact so far, every value still held\n"), std::string::npos)
      << part.out;
  for (const QuantityInfo& q : kStatisticsQuantities)
    for (const double e : ResultsReader(dir.file("part.h5")).doubles(std::string("statistics/") + q.name + "/quantile_rank_error_95").data)
      ASSERT_EQ(e, 0) << q.name;
}

TEST(Cli, FlagsOverrideTheScenario) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100));
  const Outcome r = rbmc(dir, "run box.toml -o out.h5 --samples 7 --seed 3 --precision float --backend cpu");
  ASSERT_EQ(r.code, 0) << r.err;
  const ResultsReader f(dir.file("out.h5"));
  EXPECT_EQ(f.number_attribute("", "n_samples"), 7);
  EXPECT_EQ(f.number_attribute("", "seed"), 3);
  EXPECT_EQ(f.string_attribute("", "precision"), "float");
}

TEST(Cli, DefaultOutputIsNamedAfterTheScenario) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(10));
  ASSERT_EQ(rbmc(dir, "run box.toml --backend cpu").code, 0);
  EXPECT_TRUE(fs::exists(dir.file("test_box.h5")));  // [scenario] name
}

TEST(Cli, BadScenarioExitsTwoNamingFileLineAndKey) {
  test::TempDir dir;
  std::string text = test::valid_scenario_text(10);
  text.replace(text.find("mass = 2.0"), 10, "mass = 2.0\nmas = 3.0");
  dir.write("bad.toml", text);
  const Outcome r = rbmc(dir, "run bad.toml -o out.h5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.toml:13:1: key 'body.mas': unknown key"), std::string::npos) << r.err;
  EXPECT_TRUE(only_logs_in(dir, {"bad.toml"}));
}

TEST(Cli, MissingScenarioFileExitsTwo) {
  test::TempDir dir;
  const Outcome r = rbmc(dir, "run nowhere.toml -o out.h5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nowhere.toml"), std::string::npos) << r.err;
  EXPECT_TRUE(only_logs_in(dir, {}));
}

TEST(Cli, UnknownFlagOrBadValueExitsTwo) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(10));
  EXPECT_EQ(rbmc(dir, "run box.toml --bogus").code, 2);
  EXPECT_EQ(rbmc(dir, "run box.toml --backend gpu").code, 2);
  EXPECT_EQ(rbmc(dir, "run box.toml --precision half").code, 2);
  EXPECT_EQ(rbmc(dir, "run box.toml --samples 0").code, 2);
  EXPECT_TRUE(only_logs_in(dir, {"box.toml"}));
}

// A bad number names the option, the value and what is wanted (CLI11's own checks printed their
// range's bound, 1.8e308, in 300 digits), exits 2, and writes nothing.
TEST(Cli, BadNumbersSayWhatIsWanted) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(10));
  const std::pair<const char*, const char*> cases[] = {
      {"run box.toml --samples 0", "--samples: 0 is not a whole number of at least 1"},
      {"run box.toml --samples 1e3", "--samples: '1e3' is not a whole number of at least 1 (digits only)"},
      {"run box.toml --seed -1", "--seed: '-1' is not a whole number of at least 0"},
      {"run box.toml --threads 2.5", "--threads: '2.5' is not a whole number of at least 0"},
      {"run box.toml --batch-size 99999999999999999999", "--batch-size: 99999999999999999999 is beyond 2^64 - 1"},
      {"check box.toml --preview 0", "--preview: 0 is not a whole number of at least 1"},
      {"validate box.toml --samples 0", "--samples: 0 is not a whole number of at least 1"},
      {"compare box.toml box.toml --rtol -1", "--rtol: -1 is negative; it must be at least 0"},
      {"compare box.toml box.toml --atol nan", "--atol: 'nan' is not a finite number"},
      {"compare box.toml box.toml --sensitivity-samples -2", "--sensitivity-samples: '-2' is not a whole number"},
  };
  for (const auto& [command, message] : cases) {
    const Outcome r = rbmc(dir, command);
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find(message), std::string::npos) << command << ": " << r.err;
    EXPECT_EQ(r.err.find("not in range"), std::string::npos) << command << ": " << r.err;
  }
  EXPECT_EQ(rbmc(dir, "run box.toml --samples 12 --seed 0 --threads 0 --batch-size 0 -o ok.h5 --no-progress").code, 0);
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "ok.h5"}));
}

TEST(Cli, ExistingOutputIsKeptWithoutOverwrite) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(10));
  dir.write("out.h5", "precious");
  const Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cpu");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir.file("out.h5")), "precious");
  EXPECT_EQ(rbmc(dir, "run box.toml -o out.h5 --backend cpu --overwrite").code, 0);
  EXPECT_NO_THROW(ResultsReader(dir.file("out.h5")));
}

// What a command that needs CUDA says where there is none: exit 4 and "no CUDA device" in a CUDA
// build, exit 3 and "built without CUDA" in a CPU-only one.
void expect_no_cuda(const Outcome& r) {
#if defined(RBMC_HAVE_CUDA)
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
#else
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("built without CUDA"), std::string::npos) << r.err;
#endif
}

TEST(Cli, CudaBackendWithoutDeviceFailsClearly) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(10));
  const Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cuda");
  if (r.code == 0) GTEST_SKIP() << "a CUDA device is present";
  expect_no_cuda(r);
  EXPECT_TRUE(only_logs_in(dir, {"box.toml"}));
}

// rbmc validate: without a GPU it says so before any work, with CUDA's exit code, and leaves no
// file; on the CPU in float it runs both, prints the verdict table, and keeps the two files only
// when asked.
TEST(Cli, ValidateSaysWhenThereIsNoGpuAndJudgesFloatOnTheCpu) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(200));
  Outcome r = rbmc(dir, "validate box.toml");
  if (r.code != 0 && r.code != 6) {
    expect_no_cuda(r);
    // What validates without a GPU (run's advice, --backend cpu, would be refused below).
    EXPECT_NE(r.err.find("without a GPU, rbmc validate --backend cpu --precision float judges"), std::string::npos)
        << r.err;
    EXPECT_TRUE(only_logs_in(dir, {"box.toml"}));
  }
  r = rbmc(dir, "validate box.toml --backend cpu --precision float --no-progress");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("reference cpu double"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("candidate cpu float"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nPASS\n"), std::string::npos) << r.out;
  EXPECT_TRUE(only_logs_in(dir, {"box.toml"}));
  r = rbmc(dir, "validate box.toml --backend cpu --precision float --no-progress --keep kept");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(dir.file("kept/test_box-cpu-double.h5")));
  EXPECT_TRUE(fs::exists(dir.file("kept/test_box-cpu-float.h5")));
  // The reference against itself is refused.
  EXPECT_EQ(rbmc(dir, "validate box.toml --backend cpu").code, 2);
}

// A full disk, simulated by a file-size limit (SIGXFSZ ignored, so writes fail with EFBIG):
// exit code 5, a message, no results file and no temporary; the batches finished before the disk
// filled stay in the journal (smaller than the results file), and once there is room --resume
// completes the run from them.
TEST(Cli, FullDiskLeavesNoFileAndKeepsTheFinishedBatches) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(50000, 0.01, 0.01));
  Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --batch-size 4096", "trap '' XFSZ; ulimit -f 4096;");
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("rbmc: error:"), std::string::npos);
  EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;  // the system's reason, once
  EXPECT_EQ(r.err.find("HDF5-DIAG"), std::string::npos) << r.err;       // not HDF5's own stack dump
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "out.h5.journal"}));
  EXPECT_GE(journal_rows(dir.file("out.h5.journal")), 4096u);
  r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --resume");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ResultsReader(dir.file("out.h5")).number_attribute("", "n_status_ok"), 50000);
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "out.h5"}));
}

// Sobol points stay balanced at powers of two: check and run say so of another count, and only then.
TEST(Cli, ASobolRunOfAnotherCountThanAPowerOfTwoIsToldSo) {
  test::TempDir dir;
  dir.write("sobol.toml", test::every_draw_scenario_text("sobol", "uniform_rotation"));  // 300 samples
  const Outcome check = rbmc(dir, "check sobol.toml");
  EXPECT_EQ(check.code, 0) << check.err;
  EXPECT_NE(check.out.find("  design       sobol: 300 samples are not a power of two, at which Sobol points stay "
                           "balanced (256 or 512 would be)\n"),
            std::string::npos)
      << check.out;
  const std::string args = " -o out.h5 --backend cpu --no-progress --overwrite";
  const Outcome off = rbmc(dir, "run sobol.toml --samples 100" + args);
  EXPECT_EQ(off.code, 0) << off.err;
  EXPECT_NE(off.out.find("  note         100 samples are not a power of two, at which Sobol points stay balanced (64 "
                         "or 128 would be)\n"),
            std::string::npos)
      << off.out;
  const Outcome on = rbmc(dir, "run sobol.toml --samples 128" + args);
  EXPECT_EQ(on.code, 0) << on.err;
  EXPECT_EQ(on.out.find("note"), std::string::npos) << on.out;
}

// A spring whose drawn stiffness can be negative (N(50, 60²): P = Φ(−5/6) = 0.202 a sample) and
// a damping entry whose drawn coefficient can (N(0.1, 1²): 0.460; test::unphysical_loads_scenario_text):
// by default the loads are drawn again until they are physical, the body keeping its draws, and
// the summary says how many samples were; under "reject" each such sample is flagged invalid_load
// and not integrated, with no final state (NaN, at time 0). `rbmc check` previews both; a value
// given outright that no load can have (a grid's) is an error naming the file, line and key.
TEST(Cli, ALoadValueThatIsNotPhysicalIsRedrawnOrFlagged) {
  test::TempDir dir;
  const std::string scenario = test::unphysical_loads_scenario_text(400);
  dir.write("redraw.toml", scenario);
  dir.write("reject.toml", scenario + "[design]\ninvalid_bodies = \"reject\"\n");
  const std::string args = " --backend cpu --no-progress --overwrite";
  const Outcome redraw = rbmc(dir, "run redraw.toml -o redraw.h5" + args);
  ASSERT_EQ(redraw.code, 0) << redraw.err;
  const Outcome reject = rbmc(dir, "run reject.toml -o reject.h5" + args);
  ASSERT_EQ(reject.code, 0) << reject.err;
  const ResultsReader a(dir.file("redraw.h5")), b(dir.file("reject.h5"));
  const std::vector<double> stiffness = a.doubles("samples/params/loads.0.stiffness").data,
                            linear = a.doubles("samples/params/loads.1.linear").data,
                            first_stiffness = b.doubles("samples/params/loads.0.stiffness").data,
                            first_linear = b.doubles("samples/params/loads.1.linear").data;
  const std::vector<std::uint8_t> status = b.uint8s("samples/status").data;
  const std::vector<double> p1 = b.doubles("samples/final/position").data, t1 = b.doubles("samples/final/time").data;
  std::uint64_t unphysical = 0;
  for (std::size_t k = 0; k < 400; ++k) {
    EXPECT_GE(stiffness[k], 0.0) << k;
    EXPECT_GE(linear[k], 0.0) << k;
    const bool physical = first_stiffness[k] >= 0 && first_linear[k] >= 0;
    unphysical += !physical;
    EXPECT_EQ(status[k], std::uint8_t(physical ? SampleStatus::ok : SampleStatus::invalid_load)) << k;
    if (physical) EXPECT_EQ(stiffness[k], first_stiffness[k]) << "a physical first draw is kept";
    EXPECT_EQ(std::isnan(p1[3 * k + 2]), !physical) << k;  // where it ended, where it was integrated
    if (!physical) EXPECT_EQ(t1[k], 0.0) << k;
  }
  // 1 − (1 − 0.2023)(1 − 0.4602) = 0.5694 of 400 samples: 227.8 ± 5 sd (9.9).
  EXPECT_NEAR(double(unphysical), 227.8, 5 * 9.9);
  const std::string n = std::to_string(unphysical);
  EXPECT_NE(redraw.out.find("  redrawn      " + n + " samples drew a body or load value that was not physical"),
            std::string::npos) << redraw.out;
  EXPECT_NE(reject.out.find("  invalid      " + n + " samples with a load value that was not physical, not integrated "
                            "(status invalid_load; policy reject)"),
            std::string::npos) << reject.out;
  EXPECT_EQ(a.number_attribute("", "n_redrawn_bodies"), double(unphysical));
  EXPECT_EQ(b.number_attribute("", "n_status_invalid_load"), double(unphysical));
  // The preview (the first 200 samples) counts them as the run does.
  const Outcome check = rbmc(dir, "check reject.toml --preview 400");
  ASSERT_EQ(check.code, 0) << check.err;
  EXPECT_NE(check.out.find("samples rejected (policy: reject, not integrated): 0 invalid_body, " + n + " invalid_load\n"),
            std::string::npos) << check.out;
  // A grid's negative stiffness is every sample's at that point: refused.
  dir.write("grid.toml", scenario.substr(0, scenario.find("[dispersions]")) +
                             "[design]\ntype = \"grid\"\n[design.axes]\n\"loads.0.stiffness\" = { values = [10.0, -10.0] }\n");
  const Outcome grid = rbmc(dir, "check grid.toml");
  EXPECT_EQ(grid.code, 2) << grid.out;
  EXPECT_NE(grid.err.find("grid.toml:18:41: key 'design.axes.loads.0.stiffness.values': must be non-negative (N/m)"),
            std::string::npos) << grid.err;
}

// A grid whose values alone vary the samples: `rbmc check` previews them (the validity of their
// bodies) instead of calling every sample the nominal one.
TEST(Cli, CheckPreviewsAGridWithoutDispersions) {
  test::TempDir dir;
  dir.write("grid.toml", R"([body]
mass = 1.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[run]
duration = 1.0
step = 0.1
[design]
type = "grid"
[design.axes]
"body.principal_moments" = { values = [[0.1, 0.2, 0.25], [0.1, 0.1, 0.3]] }
)");
  const Outcome r = rbmc(dir, "check grid.toml");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("every sample is the nominal one"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  design       grid of 2 points x 1 replicate: body.principal_moments (2 values)\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  dispersions  none: the samples differ by the grid's values\n"
                       "  validity     0 % of previewed samples redrawn (policy: up to 64 redraws), 1 left invalid "
                       "(1 invalid_body, 0 invalid_load)\n"),
            std::string::npos) << r.out;
}

// A run whose file cannot fit on its disk (10¹² samples: hundreds of terabytes of per-sample
// datasets) is refused before any work, exit 5, saying how much it needs and how much is free; it
// leaves nothing, not even a lock. (The file-size limit keeps a build without the check from
// filling the disk: it would fail later, with another message and a journal left.)
TEST(Cli, ARunThatCannotFitOnItsDiskIsRefusedBeforeAnyWork) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(1000));
  const std::string args = "run box.toml -o out.h5 --backend cpu --no-progress --samples 1000000000000";
  const auto start = std::chrono::steady_clock::now();
  const Outcome r = rbmc(dir, args, "trap '' XFSZ; ulimit -f 4096;");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("rbmc: error: out.h5: this run writes at least"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("for 1000000000000 samples; its journal's"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("and that file system has"), std::string::npos) << r.err;
  EXPECT_TRUE(only_logs_in(dir, {"box.toml"}));
  EXPECT_LT(seconds, 30.0) << "refused only after " << seconds << " s";
  // Without its journal the run needs less, and says so.
  const Outcome no_journal = rbmc(dir, args + " --no-journal", "trap '' XFSZ; ulimit -f 4096;");
  EXPECT_EQ(no_journal.code, 5) << no_journal.err;
  EXPECT_EQ(no_journal.err.find("journal"), std::string::npos) << no_journal.err;
  // --no-space-check starts it (to be stopped and resumed with more room): here it meets the
  // file-size limit instead.
  const Outcome started = rbmc(dir, args + " --no-space-check", "trap '' XFSZ; ulimit -f 4096;");
  EXPECT_EQ(started.code, 5) << started.err;
  EXPECT_NE(started.err.find("File too large"), std::string::npos) << started.err;
  EXPECT_TRUE(fs::exists(dir.file("out.h5.journal")));
}

// SIGINT during a run: exit code 130, and no file that looks complete (none at all).
// The runs that a signal (or a disk limit, or a second process) must meet mid-way take the
// one-sample path (RBMC_CPU_SIMD=off), whose speed their lengths were chosen for: the free body's
// SIMD lanes finish them first on a fast machine. Their results are the same bit for bit.
// SIGINT: exit 130, no file at the output path, the samples done kept in out.h5.partial; --resume
// completes it into out.h5.
TEST(Cli, InterruptKeepsAPartialFileThatResumeCompletes) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100000, 3.0, 0.01));
  ASSERT_EQ(run_script(dir, "RBMC_CPU_SIMD=off \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 256 "
                            "2>stderr.txt & pid=$!; " + after_run_started("out.h5.journal", 0.5) +
                            "kill -INT $pid; wait $pid; echo $? > code.txt"),
            0);
  EXPECT_EQ(slurp(dir.file("code.txt")), "130\n") << slurp(dir.file("stderr.txt"));
  EXPECT_NE(slurp(dir.file("stderr.txt")).find("--resume"), std::string::npos) << slurp(dir.file("stderr.txt"));
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "code.txt", "out.h5.partial"}));
  const auto done_before = std::uint64_t(ResultsReader(dir.file("out.h5.partial")).number_attribute("resume", "rows_done"));
  ASSERT_GT(done_before, 0u);
  const Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --threads 2 --resume --timings --no-progress");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "code.txt", "out.h5"}));
  const ResultsReader out(dir.file("out.h5"));
  EXPECT_EQ(out.number_attribute("", "n_status_ok"), 100000);
  // The summary says what the interrupted run had done; --timings divides this process's stages
  // by this process's wall (the file's timings/wall), not by the whole run's, which includes the
  // interrupted process's half second and more.
  EXPECT_NE(r.out.find("resumed      " + std::to_string(done_before) + " of them finished by the interrupted run, " +
                       std::to_string(100000 - done_before) + " by this one"),
            std::string::npos)
      << r.out;
  // The file says so too, for rbmc info.
  EXPECT_EQ(out.number_attribute("", "resumed_samples"), double(done_before));
  EXPECT_NE(rbmc(dir, "info out.h5").out.find("\n  made         " + std::to_string(done_before) +
                                              " samples finished by an interrupted run, the rest after its --resume\n"),
            std::string::npos);
  const double process_wall = out.number_attribute("timings", "wall"), run_wall = out.number_attribute("", "wall_seconds");
  EXPECT_GT(process_wall, 0.0);
  EXPECT_LT(process_wall, run_wall - 0.5);
  char wall_line[128];
  std::snprintf(wall_line, sizeof wall_line, "  %-11s %8.3f  (since the resume; %.3f s with the interrupted run's)",
                "wall", process_wall, run_wall);
  EXPECT_NE(r.out.find(wall_line), std::string::npos) << r.out;
  double driver = 0;  // the driver thread's stages fit in its process's wall
  for (const char* stage : {"setup", "sample", "transfer", "integrate", "statistics", "gather", "idle"})
    driver += out.number_attribute("timings", stage);
  EXPECT_LE(driver, process_wall);
  EXPECT_EQ(rbmc(dir, "run box.toml -o again.h5 --backend cpu --resume").code, 2);  // nothing to resume
}

// SIGINT and SIGTERM are caught only by the commands that stop cleanly on them (run, validate,
// merge), also in a script's background job, which the shell starts with SIGINT ignored (a Ctrl-C
// on the script stops its runs cleanly); compare, info and check keep the default action, so
// that Ctrl-C ends them at once.
// Caught for every command, they were swallowed by a long compare, which ran on to its verdict
// and exit 0. Read from /proc/PID/status (SigCgt: bit n - 1 for signal n) once the command has
// opened its file.
TEST(Cli, OnlyTheCommandsThatStopCleanlyCatchSignals) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(60000, 0.05, 0.01));
  ASSERT_EQ(rbmc(dir, "run box.toml -o a.h5 --backend cpu --no-progress").code, 0);
  struct Seen {
    unsigned long long caught = 0;
    int code = -1;
    bool read = false;
  };
  const auto signalled = [&](const std::string& command, const std::string& opened) {
    run_script(dir, "\"$RBMC\" " + command + " >/dev/null 2>&1 & pid=$!; for i in $(seq 4000); do "
                    "ls -l /proc/$pid/fd 2>/dev/null | grep -q '" + opened + "' && break; sleep 0.005; done; "
                    "grep SigCgt /proc/$pid/status > caught.txt; kill -TERM $pid; wait $pid; echo $? > code.txt");
    Seen seen;
    seen.read = std::sscanf(slurp(dir.file("caught.txt")).c_str(), "SigCgt: %llx", &seen.caught) == 1;
    seen.code = std::stoi(slurp(dir.file("code.txt")));
    return seen;
  };
  constexpr unsigned long long kIntAndTerm = (1ull << (SIGINT - 1)) | (1ull << (SIGTERM - 1));
  const Seen compare = signalled("compare a.h5 a.h5", "a.h5");
  ASSERT_TRUE(compare.read) << "compare ended before it was looked at";
  EXPECT_EQ(compare.caught & kIntAndTerm, 0u);
  EXPECT_EQ(compare.code, 128 + SIGTERM);  // ended by the signal, not at its verdict
  const Seen run = signalled("run box.toml -o b.h5 --backend cpu --threads 1 --samples 2000000 --no-progress", "b.h5");
  ASSERT_TRUE(run.read) << "the run ended before it was looked at";
  EXPECT_EQ(run.caught & kIntAndTerm, kIntAndTerm);
  EXPECT_EQ(run.code, 130);  // stopped cleanly: its partial file kept
  EXPECT_TRUE(fs::exists(dir.file("b.h5.partial")));
}

// An output that is one of the run's inputs (the scenario file, a table design's file) is refused
// with --overwrite too: the results replaced the user's scenario, exit 0. Both files stay as they
// were.
TEST(Cli, AnOutputThatIsAnInputIsRefused) {
  test::TempDir dir;
  const std::string scenario = test::valid_scenario_text(4);
  dir.write("box.toml", scenario);
  Outcome r = rbmc(dir, "run box.toml -o ./box.toml --overwrite --backend cpu --no-progress");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("-o ./box.toml is the scenario file box.toml: the results would replace it"), std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(dir.file("box.toml")), scenario);
  const std::string table = "body.mass\n2.0\n2.1\n";
  dir.write("rows.csv", table);
  std::string tabled = scenario.substr(0, scenario.find("[dispersions]")) + "[design]\ntype = \"table\"\nfile = \"rows.csv\"\n";
  tabled.erase(tabled.find("samples = 4\n"), 12);  // the table's rows are the samples
  dir.write("table.toml", tabled);
  r = rbmc(dir, "run table.toml -o rows.csv --overwrite --backend cpu --no-progress");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("-o rows.csv is the table design's file rows.csv"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir.file("rows.csv")), table);
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "rows.csv", "table.toml"}));
  EXPECT_EQ(rbmc(dir, "run table.toml -o out.h5 --backend cpu --no-progress").code, 0);  // the table itself is fine
}

// An output that is not a regular file (a named pipe here; /dev/null, as root, the same way) is
// refused before any work, with --overwrite too: the finished file's rename replaced it, exit 0.
// /dev/null is asked only without --overwrite, which never replaced it.
TEST(Cli, AnOutputThatIsADeviceOrPipeIsRefused) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(4));
  ASSERT_EQ(run_script(dir, "mkfifo pipe.h5"), 0);
  for (const std::string& command : {std::string("run box.toml -o pipe.h5 --overwrite --backend cpu --no-progress"),
                                     std::string("merge pipe.h5 box.toml --overwrite")}) {
    const Outcome r = rbmc(dir, command);
    EXPECT_EQ(r.code, 2) << command << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("-o pipe.h5 is a named pipe, not a results file"), std::string::npos) << command << "\n" << r.err;
    EXPECT_TRUE(fs::is_fifo(dir.file("pipe.h5"))) << command;
  }
  const Outcome r = rbmc(dir, "run box.toml -o /dev/null --backend cpu --no-progress");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("-o /dev/null is a character device, not a results file"), std::string::npos) << r.err;
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "pipe.h5"}));
}

// One process per output: while a run writes c.h5, a second run to c.h5 exits 2 at once naming
// the first, and the first's result is the one kept. The lock goes with the process.
TEST(Cli, TwoRunsToOneOutputTheSecondIsRefused) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100000, 3.0, 0.01));
  ASSERT_EQ(run_script(dir, "RBMC_CPU_SIMD=off \"$RBMC\" run box.toml -o c.h5 --backend cpu --threads 1 --seed 1 --no-progress "
                            ">first.txt 2>&1 & pid=$!; " + after_run_started("c.h5.journal", 0) +
                            "\"$RBMC\" run box.toml -o c.h5 --backend cpu --seed 2 >second.txt 2>&1; echo $? > code2.txt; "
                            "echo $pid > pid.txt; kill -INT $pid; wait $pid; echo $? > code1.txt"),
            0);
  EXPECT_EQ(slurp(dir.file("code2.txt")), "2\n") << slurp(dir.file("second.txt"));
  const std::string pid = slurp(dir.file("pid.txt"));
  EXPECT_NE(slurp(dir.file("second.txt")).find("another rbmc process (pid " + pid.substr(0, pid.size() - 1) + ")"),
            std::string::npos)
      << slurp(dir.file("second.txt"));
  EXPECT_EQ(slurp(dir.file("code1.txt")), "130\n");
  EXPECT_FALSE(fs::exists(dir.file("c.h5.lock")));  // released with its process
  // The interrupted first run's partial file is not replaced by a fresh run without --overwrite,
  // and --resume is refused where a complete OUT exists.
  Outcome r = rbmc(dir, "run box.toml -o c.h5 --backend cpu --samples 10");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir.file("c.h5.partial")));
  dir.write("done.h5", "");
  fs::copy_file(dir.file("c.h5.partial"), dir.file("done.h5.partial"));
  r = rbmc(dir, "run box.toml -o done.h5 --backend cpu --seed 1 --resume");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("exists"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir.file("done.h5.partial")));
  // --overwrite starts afresh and discards the partial file.
  r = rbmc(dir, "run box.toml -o c.h5 --backend cpu --samples 10 --overwrite");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("c.h5.partial")));
}

// A resume reads the partial file and works on a copy: a read-only partial file is resumed like
// any other, and the finished file replaces it.
TEST(Cli, AReadOnlyPartialFileIsResumed) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100000, 3.0, 0.01));
  ASSERT_EQ(run_script(dir, "RBMC_CPU_SIMD=off \"$RBMC\" run box.toml -o r.h5 --backend cpu --threads 1 --batch-size 512 2>/dev/null & "
                            "pid=$!; " + after_run_started("r.h5.journal", 0.3) + "kill -INT $pid; wait $pid; true"),
            0);
  ASSERT_TRUE(fs::exists(dir.file("r.h5.partial")));
  fs::permissions(dir.file("r.h5.partial"), fs::perms::owner_read);
  const Outcome r = rbmc(dir, "run box.toml -o r.h5 --backend cpu --resume --no-progress");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "r.h5"}));
}

// Bad requests are refused before any work with exit 2 and a message, and leave nothing behind.
TEST(Cli, BadCountsNamesAndOptionsAreRefused) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(10));
  for (const char* args : {"--samples 18446744073709551615", "--samples 2000000000000", "--seed -1",
                           "--batch-size -1", "--threads 100000", "--only ''"}) {
    const Outcome r = rbmc(dir, std::string("run box.toml -o out.h5 --backend cpu ") + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_TRUE(only_logs_in(dir, {"box.toml"})) << args;
  }
  fs::create_directory(dir.file("outdir"));
  Outcome r = rbmc(dir, "run box.toml -o outdir --backend cpu");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  // An output in a directory that does not exist: said so, nothing created (it once said only
  // that the lock file could not be created).
  r = rbmc(dir, "run box.toml -o missing/out.h5 --backend cpu");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("the directory missing does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("missing")));
  std::string text = test::valid_scenario_text(10);
  dir.write("huge.toml", text.replace(text.find("samples = 10"), 12, "samples = 9223372036854775807"));
  r = rbmc(dir, "check huge.toml");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("run.samples"), std::string::npos) << r.err;
  text = test::valid_scenario_text(10);
  dir.write("escape.toml", text.replace(text.find("name = \"test_box\""), 17, "name = \"../x\""));
  // Nothing may be written beside the test's directory (a file already there is someone else's).
  const fs::path escaped = dir.path().parent_path() / "x.h5";
  const auto stamp = [&escaped] { return fs::exists(escaped) ? fs::last_write_time(escaped) : fs::file_time_type::min(); };
  const fs::file_time_type before = stamp();
  r = rbmc(dir, "run escape.toml --backend cpu");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("scenario.name"), std::string::npos) << r.err;
  EXPECT_EQ(stamp(), before);
  text = test::valid_scenario_text(10);
  const std::string mass = "body.mass = { distribution = \"normal\", sigma = 0.05 }";
  dir.write("fixed.toml", text.replace(text.find(mass), mass.size(), "body.mass = { distribution = \"fixed\", value = -1 }"));
  r = rbmc(dir, "check fixed.toml");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("dispersions.body.mass.value"), std::string::npos) << r.err;
}

// SIGINT in the middle of one large batch (100,000 samples of 2,000 steps on one thread, about
// 40 s of work): the batch is abandoned at once, not finished. The bound of 3 s is loose on
// purpose (the request is seen within one sample, a millisecond); without the check it takes the
// rest of the batch. The samples of the abandoned batch are integrated by --resume.
TEST(Cli, InterruptStopsInTheMiddleOfALargeBatch) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100000, 20.0, 0.01));
  ASSERT_EQ(run_script(dir, "\"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 100000 "
                            "2>stderr.txt & pid=$!; " + after_run_started("out.h5.journal", 0.5) +
                            "start=$(date +%s%N); kill -INT $pid; wait $pid; "
                            "echo $? > code.txt; echo $(( ($(date +%s%N) - start) / 1000000 )) > milliseconds.txt"),
            0);
  EXPECT_EQ(slurp(dir.file("code.txt")), "130\n") << slurp(dir.file("stderr.txt"));
  EXPECT_LT(std::stoi(slurp(dir.file("milliseconds.txt"))), 3000);
  ASSERT_TRUE(fs::exists(dir.file("out.h5.partial")));
  EXPECT_EQ(ResultsReader(dir.file("out.h5.partial")).number_attribute("resume", "rows_done"), 0);
}

// A resume that runs out of disk (a file-size limit just above the partial file's size) exits 5
// and keeps the partial file, resumable: once there is room, --resume completes it. Once, the
// partial file was deleted. The first run is interrupted early (about a tenth of the samples done
// on the development machine), so that the resume has much left to write: interrupted at 41 %
// done, a resume finished within the limit (the partial file, 53 MB, holds the saved quantile
// values too; the final file is 59.5 MB) and the test failed on a faster machine.
TEST(Cli, AResumeThatHitsAFullDiskKeepsThePartialFile) {
  test::TempDir dir;
  std::string text = test::valid_scenario_text(100000, 3.0, 0.01);
  dir.write("box.toml", text + "\n[output]\ninterval = 0.5\ntrajectories = { every = 10 }\n");
  ASSERT_EQ(run_script(dir, "RBMC_CPU_SIMD=off \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 2048 "
                            "--no-progress 2>/dev/null & pid=$!; " + after_run_started("out.h5.journal", 0.3) +
                            "kill -INT $pid; wait $pid; true"),
            0);
  ASSERT_TRUE(fs::exists(dir.file("out.h5.partial")));
  const std::uintmax_t blocks = fs::file_size(dir.file("out.h5.partial")) / 512 + 128;
  Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --threads 2 --resume --no-progress",
                   "trap '' XFSZ; ulimit -f " + std::to_string(blocks) + ";");
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_TRUE(fs::exists(dir.file("out.h5.partial")));
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
  r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --threads 2 --resume --no-progress");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ResultsReader(dir.file("out.h5")).number_attribute("", "n_status_ok"), 100000);
  EXPECT_TRUE(only_logs_in(dir, {"box.toml", "out.h5"}));
}

TEST(Cli, VersionAndHelp) {
  test::TempDir dir;
  const Outcome v = rbmc(dir, "--version");
  EXPECT_EQ(v.code, 0);
  // What a bug report needs: the version, the commit, CUDA, HDF5's version and the options.
  for (const char* line : {"rbmc 0.", "commit ", "CUDA ", "HDF5         1.", "MPI ", "compression "})
    EXPECT_NE(v.out.find(line), std::string::npos) << line << " in " << v.out;
  const Outcome h = rbmc(dir, "run --help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("--precision"), std::string::npos);
  const Outcome help = rbmc(dir, "help run");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("Usage: rbmc run"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--precision"), std::string::npos);
  EXPECT_NE(rbmc(dir, "help").out.find("merge"), std::string::npos);
  EXPECT_EQ(rbmc(dir, "help nonsense").code, 2);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

bool parse_scenario_file_is_grid(const std::string& path) {
  return load_scenario(path).design.kind == Design::Kind::grid;
}

// Every example scenario in configs/ runs as shipped (with few samples).
TEST(Cli, EveryExampleConfigRuns) {
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(std::string(RBMC_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".toml") continue;
    ++seen;
    test::TempDir dir;
    // A grid runs each of its points once (--samples would set the replicates of every point).
    const bool grid = parse_scenario_file_is_grid(entry.path().string());
    const Outcome r = rbmc(dir, "run '" + entry.path().string() + "' -o out.h5 --backend cpu" + (grid ? "" : " --samples 4"));
    EXPECT_EQ(r.code, 0) << entry.path() << ": " << r.err;
    if (r.code == 0) {
      const ResultsReader f(dir.file("out.h5"));
      // Every sample ends normally: at the end time or at a terminal event the scenario declares.
      EXPECT_EQ(f.number_attribute("", "n_status_ok") + f.number_attribute("", "n_status_terminal_event"),
                f.number_attribute("", "n_samples"))
          << entry.path();
    }
  }
  EXPECT_GE(seen, 6);
}

// configs/satellite_gravity_gradient.toml flies one period of a circular orbit: its sample ends
// where it started but for the splitting's lag, 2π a (nh)²/3 along the track (the closed form of
// SplittingOrbit.LagsATurnByTwoPiAThirdOfNhSquared; 4.3 m of a 44,000 km orbit). The config's
// duration and speed are the orbit's to 16 digits: rounded to 5828.5 s and 7546.05 m/s, they put
// the end 72 m short. Tolerance: the lag's next term ((nh)² of it, 10 × for its constant), the
// body's own size in the force (its inertia moves it by (size / a)² ~ 1e-15 relative) and each
// step's rounding of a 7,000 km position (8 eps a step).
TEST(Cli, SatelliteExampleClosesItsOrbitButForTheSplittingsLag) {
  test::TempDir dir;
  const std::string path = std::string(RBMC_SOURCE_DIR) + "/configs/satellite_gravity_gradient.toml";
  const Outcome r = rbmc(dir, "run '" + path + "' -o s.h5 --backend cpu --samples 8 --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  const Scenario s = load_scenario(path);
  ASSERT_TRUE(s.loads.has_central_body);
  const Vec3<double> p0 = s.initial.p_w - s.loads.central_center_w;
  const double a = p0.norm(), n = std::sqrt(s.loads.central_mu / (a * a * a));
  // To 1e-13, they move the end by at most 3 × 2π a 1e-13 = 1.3e-5 m.
  EXPECT_NEAR(s.run.duration * n, 2 * M_PI, 1e-13 * 2 * M_PI) << "one period";
  EXPECT_NEAR(s.initial.v_w.norm(), a * n, 1e-13 * a * n) << "the circular speed";
  const double nh = n * s.step_used(), lag = 2 * M_PI * a * nh * nh / 3;
  const double eps = std::numeric_limits<double>::epsilon();
  const double tolerance = 10 * nh * nh * lag + 1e-15 * a + 8 * double(s.run.n_steps) * eps * a;
  const std::vector<double> p = ResultsReader(dir.file("s.h5")).doubles("samples/final/position").data;
  ASSERT_EQ(p.size(), 24u);
  for (std::size_t k = 0; k < 8; ++k) {
    // The orbit starts on world x, moving along y: the lag is in −y, and x falls by lag²/(2a).
    EXPECT_NEAR(p[3 * k + 1], -lag, tolerance) << "sample " << k;
    EXPECT_NEAR(p[3 * k], a - lag * lag / (2 * a), tolerance) << "sample " << k;
    EXPECT_NEAR(p[3 * k + 2], 0.0, tolerance) << "sample " << k;
  }
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

TEST(Cli, OnlySelectsSamples) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100));
  const Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --only 7,20-22");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ResultsReader(dir.file("out.h5")).uint64s("samples/index").data, (std::vector<std::uint64_t>{7, 20, 21, 22}));
  const Outcome bad = rbmc(dir, "run box.toml -o bad.h5 --backend cpu --only 7,200");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("beyond"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir.file("bad.h5")));
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// `rbmc check` validates without running: the resolved inputs (the events among them) and a
// preview, no file written.
TEST(Cli, CheckPrintsTheResolvedInputs) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100));
  const Outcome r = rbmc(dir, "check box.toml --preview 500");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* expected : {": valid", "body.mass", "normal(mean 2, sd 0.05)", "initial.attitude[2]",
                               "body.principal_moments[1]", "preview of the first 100 samples", "redrawn"})
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  EXPECT_TRUE(only_logs_in(dir, {"box.toml"}));
  EXPECT_EQ(r.out.find("statistics   "), std::string::npos) << "no output times, no statistics\n" << r.out;
  // The statistics a run will keep ([output] statistics).
  dir.write("some.toml",
            test::valid_scenario_text(100) + "[output]\ninterval = 0.1\nstatistics = [\"kinetic_energy\", \"position\"]\n");
  const Outcome some = rbmc(dir, "check some.toml");
  ASSERT_EQ(some.code, 0) << some.err;
  EXPECT_NE(some.out.find("statistics   of position, kinetic_energy at each output time"), std::string::npos) << some.out;
  EXPECT_NE(some.out.find("quantiles    exact: every sample's values fit quantile_memory_mb = 256\n"), std::string::npos)
      << some.out;
  EXPECT_EQ(r.out.find("quantiles"), std::string::npos) << "no statistics, no quantiles\n" << r.out;
  // How the quantiles will be found, as the run then finds them: 10^6 samples' 6 times x 12
  // columns (576 MB) pass the default 256 MiB, whose sketches keep the default k; 300 samples at
  // 51 times in 1 MiB get the smallest k, which the run's summary names too.
  dir.write("many.toml", test::valid_scenario_text(1000000) + "[output]\ninterval = 0.1\n");
  const Outcome many = rbmc(dir, "check many.toml --preview 10");
  ASSERT_EQ(many.code, 0) << many.err;
  EXPECT_NE(many.out.find("quantiles    sketched (k = 5120): rank error within 1e-3 (95 %)\n"), std::string::npos)
      << many.out;
  dir.write("small.toml", test::valid_scenario_text(300) + "[output]\ninterval = 0.01\nquantile_memory_mb = 1\n");
  const Outcome small = rbmc(dir, "check small.toml");
  ASSERT_EQ(small.code, 0) << small.err;
  EXPECT_NE(small.out.find("quantiles    sketched (k = 64, below the default 5120 that keeps the rank error within "
                           "1e-3): a larger quantile_memory_mb than 1 raises it\n"),
            std::string::npos)
      << small.out;
  const Outcome ran = rbmc(dir, "run small.toml -o small.h5 --backend cpu --threads 2 --no-progress");
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_NE(ran.out.find("quantiles    sketched (k = 64)"), std::string::npos) << ran.out;
  EXPECT_TRUE(fs::remove(dir.file("small.h5")));
  // The events as the run detects them, the reference attitude resolved to the initial one (here
  // half a turn about x, not the identity).
  std::string turned = test::valid_scenario_text(100);
  const std::string identity = "attitude = [1.0, 0.0, 0.0, 0.0]";
  turned.replace(turned.find(identity), identity.size(), "attitude = [0.0, 1.0, 0.0, 0.0]");
  dir.write("events.toml", turned + R"(
[[events]]
name = "landing"
type = "cylinder_crossing"
radius = 0.033
height = 0.115
axis = "z"
value = 0.0
direction = "falling"
terminal = true

[[events]]
name = "turned"
type = "attitude_angle"
angle = 1.5
)");
  const Outcome events = rbmc(dir, "check events.toml --preview 10");
  ASSERT_EQ(events.code, 0) << events.err;
  EXPECT_NE(events.out.find("  events       landing: cylinder_crossing: radius 0.033 m, height 0.115 m along body z, about "
                            "[0, 0, 0] m, its lowest point's world z falling through 0 m; terminal\n"
                            "               turned: attitude_angle: the rotation from [0, 1, 0, 0] above 1.5 rad\n"),
            std::string::npos)
      << events.out;
  EXPECT_EQ(r.out.find("  events  "), std::string::npos) << "no events\n" << r.out;
  std::string text = test::valid_scenario_text(100);
  text.replace(text.find("mass = 2.0"), 10, "mass = -2.0");
  dir.write("bad.toml", text);
  const Outcome bad = rbmc(dir, "check bad.toml");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bad.toml:12:"), std::string::npos) << bad.err;
}

// The bytes a sample of a results file's per-sample datasets (dimension scales aside) and of its
// trajectories, as HDF5 declares them: each dataset's elements times its stored type's size.
std::pair<double, double> stored_bytes(const std::string& path, double n_samples) {
  struct Sums {
    double samples = 0, trajectories = 0;
  } sums;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(file, 0) << path;
  H5Ovisit(
      file, H5_INDEX_NAME, H5_ITER_NATIVE,
      [](hid_t root, const char* name, const H5O_info_t* info, void* data) -> herr_t {
        const std::string n = name;
        const bool sample = n.rfind("samples/", 0) == 0, trajectory = n.rfind("trajectories/", 0) == 0;
        if (info->type != H5O_TYPE_DATASET || !(sample || trajectory)) return 0;
        const hid_t ds = H5Dopen2(root, name, H5P_DEFAULT);
        if (H5Aexists(ds, "CLASS") <= 0 && n != "trajectories/time") {  // a dimension scale is a coordinate
          const hid_t space = H5Dget_space(ds), type = H5Dget_type(ds);
          const double bytes = double(H5Sget_simple_extent_npoints(space)) * double(H5Tget_size(type));
          (sample ? static_cast<Sums*>(data)->samples : static_cast<Sums*>(data)->trajectories) += bytes;
          H5Tclose(type);
          H5Sclose(space);
        }
        H5Dclose(ds);
        return 0;
      },
      &sums);
  H5Fclose(file);
  return {sums.samples / n_samples, sums.trajectories};
}

// `rbmc check` plans the file's volume ([output] samples, storage, trajectories) as the run then
// writes it: the bytes a sample of the kept datasets and the trajectories' bytes, counted from the
// written file's datasets (their elements and stored types), in float64 and float32, every
// dataset or a few. A rule decided by the results says "at most".
TEST(Cli, CheckPlansTheFileAsTheRunWritesIt) {
  test::TempDir dir;
  // 1 s at output intervals of 0.1 s: 11 output times.
  const std::string base =
      test::valid_scenario_text(300, 1.0, 0.01) + "[output]\ninterval = 0.1\ntrajectories = { every = 7 }\n";
  for (const std::string& output : {std::string(), std::string("storage = \"float32\"\n"),
                                    std::string("storage = \"float32\"\nsamples = [\"final/position\", \"body\"]\n")}) {
    dir.write("box.toml", base + output);
    const Outcome planned = rbmc(dir, "check box.toml --preview 10");
    ASSERT_EQ(planned.code, 0) << planned.err;
    std::size_t bytes_a_sample = 0, trajectories = 0;
    const std::size_t at = planned.out.find(" bytes a sample");
    ASSERT_NE(at, std::string::npos) << planned.out;
    bytes_a_sample = std::stoul(planned.out.substr(planned.out.rfind(' ', at - 1) + 1));
    const std::size_t of = planned.out.find("trajectories of ");
    ASSERT_NE(of, std::string::npos) << planned.out;
    trajectories = std::stoul(planned.out.substr(of + 16));
    EXPECT_EQ(trajectories, 43u) << planned.out;  // indices 0, 7, ..., 294 of 300
    const bool float32 = !output.empty();
    EXPECT_NE(planned.out.find(float32 ? "in float32" : "in float64"), std::string::npos) << planned.out;
    ASSERT_EQ(rbmc(dir, "run box.toml -o box.h5 --backend cpu --overwrite --no-progress").code, 0);
    const auto [stored, trajectory_bytes] = stored_bytes(dir.file("box.h5"), 300);
    EXPECT_EQ(double(bytes_a_sample), stored) << output;
    // 43 samples' sample_index (8 bytes each) and 13 state values at 11 output times.
    EXPECT_EQ(trajectory_bytes, 43 * 8 + 43 * 11 * 13 * (float32 ? 4 : 8)) << output;
    char expected[64];
    std::snprintf(expected, sizeof expected, ": %.3g kB before compression", 43 * 11 * 13 * (float32 ? 4 : 8) / 1000.0);
    EXPECT_NE(planned.out.find(expected), std::string::npos) << expected << "\n" << planned.out;
  }
  dir.write("rule.toml", test::valid_scenario_text(300) +
                             "[output]\ninterval = 0.1\ntrajectories = { status = \"ok\", limit = 50 }\n");
  const Outcome rule = rbmc(dir, "check rule.toml --preview 10");
  ASSERT_EQ(rule.code, 0) << rule.err;
  EXPECT_NE(rule.out.find("trajectories of at most 50 samples (samples with status ok, the first 50)"), std::string::npos)
      << rule.out;
}

// rbmc compare exits 0 on PASS and 6 on FAIL, with the verdict last; rbmc info summarises a file.
TEST(Cli, CompareAndInfo) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(200));
  ASSERT_EQ(rbmc(dir, "run box.toml -o a.h5 --backend cpu --threads 1").code, 0);
  ASSERT_EQ(rbmc(dir, "run box.toml -o b.h5 --backend cpu --threads 2 --batch-size 13").code, 0);
  ASSERT_EQ(rbmc(dir, "run box.toml -o c.h5 --backend cpu --seed 12345").code, 0);
  Outcome r = rbmc(dir, "compare a.h5 b.h5");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\nPASS\n"), std::string::npos) << r.out;
  r = rbmc(dir, "compare a.h5 c.h5");
  EXPECT_EQ(r.code, 6) << r.out << r.err;
  EXPECT_NE(r.out.find("\nFAIL\n"), std::string::npos) << r.out;
  // Other seeds, 200 samples: too few to show equivalence within a quarter of a standard
  // deviation (the 95 % quantile's own se is about a fifth of one), and the verdict says so; a
  // margin of two sd is shown.
  r = rbmc(dir, "compare a.h5 c.h5 --statistical");
  EXPECT_EQ(r.code, 6) << r.out << r.err;
  EXPECT_NE(r.out.find("too few samples to show agreement"), std::string::npos) << r.out;
  r = rbmc(dir, "compare a.h5 c.h5 --statistical --margin 2");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(rbmc(dir, "compare a.h5 missing.h5").code, 2);
  r = rbmc(dir, "info a.h5");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("samples      200 of a run of 200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("position.z (m)"), std::string::npos) << r.out;
  {
    // The final state's table in line: its header and rows of one width, however long a label
    // ("angular_velocity.x (rad/s)" pushed its row's numbers 4 columns right of the others').
    std::istringstream lines(r.out.substr(r.out.find("  final state  ")));
    std::string line;
    std::size_t rows = 0, width = 0;
    while (std::getline(lines, line)) {
      if (width == 0) width = line.size();
      EXPECT_EQ(line.size(), width) << line << "\n" << r.out;
      ++rows;
    }
    EXPECT_EQ(rows, 11u) << r.out;  // the header; position, velocity, angular velocity; time
    EXPECT_NE(r.out.find("angular_velocity.x (rad/s)"), std::string::npos) << r.out;
  }
  dir.write("junk.h5", "not an HDF5 file");
  EXPECT_EQ(rbmc(dir, "info junk.h5").code, 5);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// A file that keeps only some per-sample datasets, in float32, is compared and summarised on what
// it holds; --timings prints every stage.
TEST(Cli, CompareInfoAndTimingsOnAFileThatKeepsFewDatasets) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(200) +
                            "[output]\nsamples = [\"final/position\", \"final/velocity\", \"body\"]\nstorage = \"float32\"\n");
  Outcome r = rbmc(dir, "run box.toml -o a.h5 --backend cpu --threads 1 --timings --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* stage : kStageNames) EXPECT_NE(r.out.find(std::string("\n  ") + stage + " "), std::string::npos) << stage;
  ASSERT_EQ(rbmc(dir, "run box.toml -o b.h5 --backend cpu --threads 2 --batch-size 13 --no-progress").code, 0);
  r = rbmc(dir, "compare a.h5 b.h5");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("position"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("angular_velocity"), std::string::npos) << r.out;  // not in the files
  r = rbmc(dir, "info a.h5");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("velocity.z (m/s)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("time (s)"), std::string::npos) << r.out;
  // No final state kept: info says so, instead of a table's header over no rows.
  dir.write("status.toml", test::valid_scenario_text(200) + "[output]\nsamples = [\"status\"]\n");
  ASSERT_EQ(rbmc(dir, "run status.toml -o c.h5 --backend cpu --no-progress").code, 0);
  r = rbmc(dir, "info c.h5");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final state  not kept in this file ([output] samples)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("median"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// The datasets a kill must not change: every per-sample dataset and the kept trajectories bit for
// bit, the statistics' moments and quantiles to rounding (the merge of batches is the same).
void expect_same_results(const std::string& path, const std::string& reference, const std::string& when) {
  const ResultsReader a(path), b(reference);
  EXPECT_EQ(a.number_attribute("", "complete"), 1) << when;
  EXPECT_EQ(a.uint64s("samples/index").data, b.uint64s("samples/index").data) << when;
  EXPECT_EQ(a.uint8s("samples/status").data, b.uint8s("samples/status").data) << when;
  for (const char* d : {"samples/body/inertia", "samples/initial/angular_velocity", "samples/final/position",
                        "samples/final/orientation", "samples/final/velocity", "samples/final/angular_velocity",
                        "samples/final/time", "trajectories/angular_velocity", "trajectories/orientation"})
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d << " " << when;
  EXPECT_EQ(a.uint64s("trajectories/sample_index").data, b.uint64s("trajectories/sample_index").data) << when;
  for (const char* d : {"statistics/angular_velocity/mean", "statistics/angular_velocity/sd",
                        "statistics/attitude_angle/quantiles", "statistics/kinetic_energy/mean"}) {
    const std::vector<double> x = a.doubles(d).data, y = b.doubles(d).data;
    ASSERT_EQ(x.size(), y.size()) << d;
    for (std::size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(x[i], y[i], 1e-12 * (1 + std::abs(y[i]))) << d << "[" << i << "] " << when;
  }
}

// Fault injection: SIGKILL at random moments of a run (batches of 64 samples, statistics and kept
// trajectories). After each kill there is either no OUT or a complete one; the journal (or partial
// file) it leaves lets --resume finish a file equal to an uninterrupted run's, replaying the
// batches up to the statistics' last snapshot (every 10 ms here, for a run of about 0.1 s; every
// minute by default) and integrating the rest again. RBMC_KILL_TESTS=100 runs 100 kills
// (bench/RESULTS.md reports them); the suite runs 6.
TEST(Cli, KillNineAtRandomMomentsLosesOnlyTheUnsavedBatches) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(6000, 2.0, 0.002) +
                            "[output]\ninterval = 0.05\ntrajectories = { every = 7 }\n");
  const std::string options = " -o out.h5 --backend cpu --threads 2 --batch-size 64 --no-progress";
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(rbmc(dir, "run box.toml" + options).code, 0);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs::rename(dir.file("out.h5"), dir.file("reference.h5"));
  const char* requested = std::getenv("RBMC_KILL_TESTS");
  const int kills = requested != nullptr ? std::max(1, std::atoi(requested)) : 6;
  std::mt19937 random(20261122);
  std::uniform_real_distribution<double> moment(0.0, 1.1 * wall);
  int complete = 0, resumed = 0, fresh = 0;
  std::uint64_t recovered_rows = 0;
  for (int k = 0; k < kills; ++k) {
    const double at = moment(random);
    const std::string when = "kill " + std::to_string(k) + " at " + std::to_string(at) + " s";
    ASSERT_EQ(run_script(dir, "RBMC_JOURNAL_STATISTICS_INTERVAL=0.01 \"$RBMC\" run box.toml" + options +
                                  " >/dev/null 2>&1 & pid=$!; sleep " +
                                  std::to_string(at) + "; kill -9 $pid 2>/dev/null; wait $pid; true"),
              0);
    if (fs::exists(dir.file("out.h5"))) {
      ++complete;  // the kill came after the run finished
    } else if (fs::exists(dir.file("out.h5.journal")) || fs::exists(dir.file("out.h5.partial"))) {
      ++resumed;
      // The batches finished before the kill are in the journal, whole: --resume replays those
      // up to the statistics' snapshot rather than integrating them again.
      const std::string journal = dir.file("out.h5.journal");
      const std::optional<std::string> identity = RunJournal::read_identity(journal);
      const std::optional<StatisticsSnapshot> saved =
          identity ? RunJournal::read_statistics_snapshot(journal, *identity) : std::nullopt;
      if (saved) recovered_rows += std::min(saved->rows, journal_rows(journal));
      const Outcome r = rbmc(dir, "run box.toml" + options + " --resume");
      ASSERT_EQ(r.code, 0) << r.err << when;
    } else {
      ++fresh;  // killed before its journal existed: nothing was finished
      ASSERT_EQ(rbmc(dir, "run box.toml" + options).code, 0) << when;
    }
    expect_same_results(dir.file("out.h5"), dir.file("reference.h5"), when);
    EXPECT_FALSE(fs::exists(dir.file("out.h5.journal"))) << when;
    EXPECT_FALSE(fs::exists(dir.file("out.h5.partial"))) << when;
    for (const auto& e : fs::directory_iterator(dir.path()))
      EXPECT_EQ(e.path().filename().string().find(".partial-"), std::string::npos) << e.path() << " " << when;
    fs::remove(dir.file("out.h5"));
  }
  std::printf("[ kills    ] %d SIGKILLs over a %.2f s run: %d after it finished, %d resumed (%.0f finished samples "
              "recovered per resume on average), %d restarted\n",
              kills, wall, complete, resumed, resumed > 0 ? double(recovered_rows) / resumed : 0.0, fresh);
  EXPECT_GT(resumed, 0);
  EXPECT_GT(recovered_rows, 0u);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// --no-journal: nothing beside OUT while the run goes, and so nothing to resume after a kill.
TEST(Cli, WithoutTheJournalAKillLeavesNothingToResume) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(100000, 3.0, 0.01));
  ASSERT_EQ(run_script(dir, "RBMC_CPU_SIMD=off \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 256 --no-journal "
                            "--no-progress >/dev/null 2>&1 & pid=$!; sleep 1; ls > during.txt; kill -9 $pid; wait $pid; true"),
            0);
  EXPECT_EQ(slurp(dir.file("during.txt")).find("out.h5.journal"), std::string::npos) << slurp(dir.file("during.txt"));
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
  EXPECT_EQ(rbmc(dir, "run box.toml -o out.h5 --backend cpu --resume").code, 2);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// rbmc run --shard i/n and rbmc merge, as a scheduler's array job would run them; bad parts and
// bad --shard values exit 2 with nothing written.
TEST(Cli, ShardsAndMerge) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(300) + "[output]\ninterval = 0.1\ntrajectories = { limit = 20 }\n");
  ASSERT_EQ(rbmc(dir, "run box.toml -o whole.h5 --backend cpu --no-progress").code, 0);
  for (const char* i : {"0", "1", "2", "3"})
    ASSERT_EQ(rbmc(dir, std::string("run box.toml -o part") + i + ".h5 --backend cpu --no-progress --shard " + i + "/4").code, 0);
  Outcome r = rbmc(dir, "merge merged.h5 part3.h5 part1.h5 part0.h5 part2.h5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("4 parts, 300 samples"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  quantiles    exact (every sample's values)\n  wrote        merged.h5"), std::string::npos) << r.out;
  r = rbmc(dir, "compare whole.h5 merged.h5");
  EXPECT_EQ(r.code, 0) << r.out;
  // rbmc info says how each file was made, and that a joined file's wall time is its parts' sum.
  r = rbmc(dir, "info merged.h5");
  EXPECT_NE(r.out.find("\n  made         joined from 4 parts by rbmc merge\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" s wall (the parts' sum)\n"), std::string::npos) << r.out;
  r = rbmc(dir, "info part2.h5");
  EXPECT_NE(r.out.find("\n  made         part 2/4 of a run (rbmc run --shard); rbmc merge joins the parts\n"),
            std::string::npos) << r.out;
  EXPECT_EQ(rbmc(dir, "info whole.h5").out.find("made"), std::string::npos);
  EXPECT_EQ(ResultsReader(dir.file("merged.h5")).doubles("samples/final/position").data,
            ResultsReader(dir.file("whole.h5")).doubles("samples/final/position").data);
  r = rbmc(dir, "merge other.h5 part0.h5 part1.h5 part2.h5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("part 3/4 is missing"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("other.h5")));
  EXPECT_EQ(rbmc(dir, "merge merged.h5 part0.h5 part1.h5 part2.h5 part3.h5").code, 2);  // exists: --overwrite
  // -o names the merged file, as rbmc run's does.
  r = rbmc(dir, "merge -o merged_o.h5 part2.h5 part0.h5 part3.h5 part1.h5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ResultsReader(dir.file("merged_o.h5")).doubles("samples/final/position").data,
            ResultsReader(dir.file("whole.h5")).doubles("samples/final/position").data);
  EXPECT_EQ(rbmc(dir, "merge merged_o.h5").code, 2);  // the parts missing
  // `rbmc merge part*.h5` takes part0.h5 for the merged file: refused, --overwrite or not, naming
  // what happened; no part is ever written over.
  const std::string part0 = slurp(dir.file("part0.h5"));
  for (const char* command : {"merge part0.h5 part1.h5 part2.h5 part3.h5 --overwrite",
                              "merge -o part2.h5 part0.h5 part1.h5 part2.h5 part3.h5 --overwrite",
                              "merge -o part0.h5 part1.h5 part2.h5 part3.h5 --overwrite"}) {
    r = rbmc(dir, command);
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find("the merged file to write, is part "), std::string::npos) << command << ": " << r.err;
    EXPECT_NE(r.err.find("rbmc merge -o OUT.h5 PARTS..."), std::string::npos) << r.err;
  }
  EXPECT_EQ(slurp(dir.file("part0.h5")), part0);
  for (const char* bad : {"--shard 4/4", "--shard 1", "--shard 0/4 --only 1-3", "--shard 0/1000"})
    EXPECT_EQ(rbmc(dir, std::string("run box.toml -o bad.h5 --backend cpu ") + bad).code, 2) << bad;
  EXPECT_FALSE(fs::exists(dir.file("bad.h5")));
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// Without a terminal (a Slurm log), progress is a line every RBMC_PROGRESS_INTERVAL seconds, and
// it moves within one large batch.
TEST(Cli, ProgressInALogIsLinesThatMoveWithinABatch) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(30000, 3.0, 0.01));  // about a second on one core
  const Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 30000 --no-journal",
                         "export RBMC_PROGRESS_INTERVAL=0.1 RBMC_CPU_SIMD=off;");
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.err);
  std::string line;
  std::vector<unsigned long long> counts;
  while (std::getline(lines, line)) {
    unsigned long long done = 0, total = 0;
    if (std::sscanf(line.c_str(), "rbmc: %llu of %llu samples", &done, &total) == 2) {
      EXPECT_EQ(total, 30000u);
      counts.push_back(done);
    }
  }
  ASSERT_GE(counts.size(), 2u) << r.err;
  EXPECT_TRUE(std::is_sorted(counts.begin(), counts.end()));
  EXPECT_TRUE(std::any_of(counts.begin(), counts.end(), [](unsigned long long c) { return c > 0 && c < 30000; })) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos);  // no bar in a log
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// --json: one valid JSON object (checked by Python's parser) with the verdict and the figures;
// compare's exit code stays the verdict's.
TEST(Cli, InfoAndCompareAsJson) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(200));
  ASSERT_EQ(rbmc(dir, "run box.toml -o a.h5 --backend cpu --no-progress").code, 0);
  ASSERT_EQ(rbmc(dir, "run box.toml -o b.h5 --backend cpu --no-progress --seed 5").code, 0);
  Outcome r = rbmc(dir, "info --json a.h5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"n_samples\":200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"status\":{\"ok\":200}"), std::string::npos) << r.out;
  r = rbmc(dir, "compare --json a.h5 a.h5");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"verdict\":\"PASS\"", 0), 0u) << r.out;
  r = rbmc(dir, "compare --json a.h5 b.h5");
  EXPECT_EQ(r.code, 6);
  EXPECT_EQ(r.out.rfind("{\"verdict\":\"FAIL\"", 0), 0u) << r.out;
  for (const char* command : {"info --json a.h5", "compare --json a.h5 b.h5"})
    EXPECT_EQ(run_script(dir, std::string("\"$RBMC\" ") + command + " | /usr/bin/python3 -m json.tool >/dev/null"), 0)
        << command << ": not valid JSON";
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// A grid's file names its axes: slowest first, with their values, and the run's replicates a
// point (--samples sets them; a run of some samples, --only, still names every axis's values).
TEST(Cli, InfoNamesAGridsAxes) {
  test::TempDir dir;
  dir.write("grid.toml",
            "[run]\nduration = 0.1\nstep = 0.01\n[body]\nmass = 2.0\ninertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]\n"
            "[dispersions]\ninitial.position = { distribution = \"normal\", sigma = 0.1 }\n"
            "[design]\ntype = \"grid\"\n[design.axes]\n"
            "initial.angular_velocity = { values = [[0.1, 3.0, 0.1], [0.1, 4.0, 0.1]] }\n"
            "body.mass = { linspace = [1.0, 2.0, 3] }\n");
  Outcome r = rbmc(dir, "run grid.toml -o g.h5 --backend cpu --no-progress --samples 12 --only 0-4");
  ASSERT_EQ(r.code, 0) << r.err;
  r = rbmc(dir, "info g.h5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  grid         body.mass (3 values) x initial.angular_velocity (2 values), 2 replicates a point\n"),
            std::string::npos)
      << r.out;
  r = rbmc(dir, "info --json g.h5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"grid\":{\"axes\":[{\"key_path\":\"body.mass\",\"values\":3},{\"key_path\":"
                       "\"initial.angular_velocity\",\"values\":2}],\"replicates\":2}"),
            std::string::npos)
      << r.out;
  // Another design has no grid line.
  dir.write("box.toml", test::valid_scenario_text(20));
  ASSERT_EQ(rbmc(dir, "run box.toml -o b.h5 --backend cpu --no-progress").code, 0);
  EXPECT_EQ(rbmc(dir, "info b.h5").out.find("  grid "), std::string::npos);
}

// The last step fails: OUT cannot take the finished file's place (here a directory appeared
// there during the run). Exit 5, and the finished batches stay in the journal; once OUT is free,
// --resume completes the run without integrating them again.
TEST(Cli, AFailedFinalRenameKeepsTheFinishedBatches) {
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(60000, 3.0, 0.01));
  ASSERT_EQ(run_script(dir, "RBMC_CPU_SIMD=off \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 5000 --no-progress "
                            ">stdout.txt 2>stderr.txt & pid=$!; " + after_run_started("out.h5.journal", 0) +
                            "mkdir out.h5; touch out.h5/in-the-way; "
                            "wait $pid; echo $? > code.txt"),
            0);
  EXPECT_EQ(slurp(dir.file("code.txt")), "5\n") << slurp(dir.file("stderr.txt"));
  EXPECT_NE(slurp(dir.file("stderr.txt")).find("--resume"), std::string::npos) << slurp(dir.file("stderr.txt"));
  EXPECT_EQ(journal_rows(dir.file("out.h5.journal")), 60000u);  // every batch was finished
  fs::remove_all(dir.file("out.h5"));
  const Outcome r = rbmc(dir, "run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 5000 --resume --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ResultsReader(dir.file("out.h5")).number_attribute("", "n_status_ok"), 60000);
  EXPECT_FALSE(fs::exists(dir.file("out.h5.journal")));
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// docs/tutorial.md, step 1: the physical pendulum's period T = 4 K(sin(φ₀/2)) / ω₀, ω₀² = m g ξ / J_O
// (004, eqs 91-115), at 90 and 30 degrees. RK4 at h = 0.5 ms errs by about (ω₀ h)^4 ~ 1e-11 and the
// event's cubic interpolant by as little: 1e-6 relative leaves room for the constraint's
// stabilisation and still fails on any wrong inertia, gravity or event time.
// K(k), the complete elliptic integral of the first kind: π / (2 AGM(1, √(1 − k²))).
double complete_elliptic_k(double k) {
  double a = 1, b = std::sqrt(1 - k * k);
  for (int i = 0; i < 40; ++i) {
    const double next = (a + b) / 2;
    b = std::sqrt(a * b);
    a = next;
  }
  return M_PI / (2 * a);
}

TEST(Cli, TutorialPendulumPeriod) {
  test::TempDir dir;
  const Outcome r = rbmc(dir, std::string("run '") + RBMC_SOURCE_DIR + "/docs/tutorial/pendulum_period.toml' -o p.h5 "
                                  "--backend cpu --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  const double m = 10, l = 1, g = 9.81, omega0 = std::sqrt(m * g * (l / 2) / (m * l * l / 3));
  const std::vector<double> quarter = ResultsReader(dir.file("p.h5")).doubles("samples/events/bottom/time").data;
  ASSERT_EQ(quarter.size(), 2u);
  const double amplitude[2] = {M_PI / 2, M_PI / 6};
  for (int i = 0; i < 2; ++i) {
    const double period = 4 * complete_elliptic_k(std::sin(amplitude[i] / 2)) / omega0;
    EXPECT_NEAR(4 * quarter[std::size_t(i)], period, 1e-6 * period) << "amplitude " << amplitude[i];
  }
}

// docs/tutorial.md, section 2: the time between a free body's flips about its intermediate axis
// against the closed form of Euler's equations (Landau and Lifshitz, Mechanics, §37). With
// I₁ < I₂ < I₃, ω₂ = ω₂ₘ sn(λ t + c, k), so ω₂ changes sign every 2 K(k) / λ; for L² < 2 E I₂
// (the body turns about axis 1 between flips), λ² = (I₂ − I₁)(2 E I₃ − L²) / (I₁ I₂ I₃) and
// k² = (I₃ − I₂)(L² − 2 E I₁) / ((I₂ − I₁)(2 E I₃ − L²)); for L² > 2 E I₂, axes 1 and 3 trade
// places. Each sample's sign changes are located by linear interpolation between output times
// Δt = 0.01 s apart, where sn is nearly linear (sn″ = 0 at its zeros): the error is about
// Δt³ λ² / 12 ≈ 3e-8 s, 3e-9 of the ~11 s between flips; RK4's at |ω| h = 0.002 is far below
// that. The samples' dispersed ω put some on each side of the separatrix L² = 2 E I₂.
TEST(Cli, TutorialIntermediateAxisFlip) {
  test::TempDir dir;
  const Outcome r = rbmc(dir, std::string("run '") + RBMC_SOURCE_DIR +
                                  "/docs/tutorial/intermediate_axis_flip.toml' -o f.h5 --backend cpu --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  const ResultsReader f(dir.file("f.h5"));
  const std::vector<double> omega0 = f.doubles("samples/initial/angular_velocity").data, t = f.doubles("trajectories/time").data;
  const Array<double> omega = f.doubles("trajectories/angular_velocity");
  const double i1 = 1, i2 = 2, i3 = 3;
  const std::size_t n = omega.shape[0], n_times = omega.shape[1];
  ASSERT_EQ(n, 8u);
  int below_separatrix = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const double w1 = omega0[3 * s], w2 = omega0[3 * s + 1], w3 = omega0[3 * s + 2];
    const double two_e = i1 * w1 * w1 + i2 * w2 * w2 + i3 * w3 * w3;
    const double l2 = i1 * i1 * w1 * w1 + i2 * i2 * w2 * w2 + i3 * i3 * w3 * w3;
    double lambda, k2;
    if (l2 < two_e * i2) {
      ++below_separatrix;
      lambda = std::sqrt((i2 - i1) * (two_e * i3 - l2) / (i1 * i2 * i3));
      k2 = (i3 - i2) * (l2 - two_e * i1) / ((i2 - i1) * (two_e * i3 - l2));
    } else {
      lambda = std::sqrt((i3 - i2) * (l2 - two_e * i1) / (i1 * i2 * i3));
      k2 = (i2 - i1) * (two_e * i3 - l2) / ((i3 - i2) * (l2 - two_e * i1));
    }
    const double spacing = 2 * complete_elliptic_k(std::sqrt(k2)) / lambda;
    std::vector<double> flips;  // the times ω_y changes sign
    for (std::size_t k = 0; k + 1 < n_times; ++k) {
      const double a = omega.data[(s * n_times + k) * 3 + 1], b = omega.data[(s * n_times + k + 1) * 3 + 1];
      if ((a < 0) != (b < 0)) flips.push_back(t[k] + (t[k + 1] - t[k]) * a / (a - b));
    }
    ASSERT_GE(flips.size(), 3u) << "sample " << s;
    const double measured = (flips.back() - flips.front()) / double(flips.size() - 1);
    EXPECT_NEAR(measured, spacing, 1e-7 * spacing) << "sample " << s;
  }
  EXPECT_GT(below_separatrix, 0);
  EXPECT_LT(below_separatrix, int(n));
}

// docs/tutorial.md, section 3: a disc tossed heads up with its angular momentum at ψ to its normal
// is caught heads up with probability 1/2 + arcsin(cot² ψ) / π (Diaconis, Holmes and Montgomery,
// Dynamical bias in the coin toss, 2007): the normal precesses about the fixed angular momentum,
// n_z = cos² ψ + sin² ψ cos φ, and a random spin makes the precession angle φ at the catch
// uniform. The scenario's 8000 spins put φ at 1600 evenly spaced angles a turn over exactly five
// turns, so the fraction caught heads up is the formula's to within 1/1600 (an arc holds its
// share of an even grid to within one point); RK4's phase error, below 1e-5 rad, moves none.
TEST(Cli, TutorialTossedDisc) {
  test::TempDir dir;
  const Outcome r = rbmc(dir, std::string("run '") + RBMC_SOURCE_DIR +
                                  "/docs/tutorial/tossed_disc.toml' -o d.h5 --backend cpu --no-progress");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<double> q = ResultsReader(dir.file("d.h5")).doubles("samples/final/orientation").data;
  ASSERT_EQ(q.size(), 4u * 8000u);
  double heads = 0;
  for (std::size_t i = 0; i < q.size(); i += 4) heads += 1 - 2 * (q[i + 1] * q[i + 1] + q[i + 2] * q[i + 2]) > 0;
  const double psi = M_PI / 3, cot = 1 / std::tan(psi);
  EXPECT_NEAR(heads / 8000, 0.5 + std::asin(cot * cot) / M_PI, 1.0 / 1600);
}

}  // namespace
}  // namespace rbmc

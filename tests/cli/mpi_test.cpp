// mpirun -n R rbmc run: ranks split the run and write the one file together (parallel HDF5),
// equal to a single process's; an interrupted MPI run resumes under another rank count; a failing rank ends them
// all. Skipped (GTEST_SKIP) in a build without MPI.
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "../host/test_scenarios.hpp"
#include "host/backend/backend.hpp"
#include "host/io/results_reader.hpp"

namespace rbmc {
namespace {

namespace fs = std::filesystem;

#ifdef RBMC_MPIEXEC
constexpr const char* kMpiexec = RBMC_MPIEXEC;
#else
constexpr const char* kMpiexec = "";
#endif

// Runs a bash script in dir with $RBMC and $MPIRUN (oversubscribed: CI has 2 cores; allowed as
// root, as CI runs); returns its exit status.
int script(const test::TempDir& dir, const std::string& body) {
  const std::string path = dir.path().string() + ".sh";
  std::ofstream(path) << "cd '" << dir.path().string() << "' || exit 99\nRBMC='" RBMC_EXE "'\n"
                      << "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1\n"
                      << "MPIRUN='" << kMpiexec << "'\n"
                      << body << "\n";
  const int status = std::system(("bash '" + path + "'").c_str());
  fs::remove(path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_same_file(const std::string& path, const std::string& reference) {
  const ResultsReader a(path), b(reference);
  EXPECT_EQ(a.number_attribute("", "complete"), 1);
  EXPECT_EQ(a.uint64s("samples/index").data, b.uint64s("samples/index").data);
  EXPECT_EQ(a.uint8s("samples/status").data, b.uint8s("samples/status").data);
  for (const char* d : {"samples/body/inertia", "samples/final/position", "samples/final/orientation",
                        "samples/final/angular_velocity", "trajectories/angular_velocity"})
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
  EXPECT_EQ(a.uint64s("trajectories/sample_index").data, b.uint64s("trajectories/sample_index").data);
  for (const char* d : {"statistics/angular_velocity/mean", "statistics/kinetic_energy/sd"}) {
    const std::vector<double> x = a.doubles(d).data, y = b.doubles(d).data;
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-12 * (1 + std::abs(y[i]))) << d;
  }
  EXPECT_EQ(a.doubles("statistics/attitude_angle/quantiles").data, b.doubles("statistics/attitude_angle/quantiles").data);
  EXPECT_EQ(a.number_attribute("", "total_steps"), b.number_attribute("", "total_steps"));
}

// Every fifth sample's trajectory, the first 60: with three parts the limit falls inside the second.
const std::string kScenario = "[output]\ninterval = 0.1\ntrajectories = { every = 5, limit = 60 }\n";

TEST(Mpi, RanksWriteTheFileOneProcessWrites) {
  if (std::string(kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(700) + kScenario);
  ASSERT_EQ(script(dir, "\"$RBMC\" run box.toml -o one.h5 --backend cpu --no-progress >/dev/null"), 0);
  for (const int ranks : {1, 2, 3}) {
    const std::string out = "mpi" + std::to_string(ranks) + ".h5";
    ASSERT_EQ(script(dir, "$MPIRUN -n " + std::to_string(ranks) + " \"$RBMC\" run box.toml -o " + out +
                              " --backend cpu --threads 1 --batch-size 50 >log.txt 2>&1"),
              0)
        << slurp(dir.file("log.txt"));
    EXPECT_NE(slurp(dir.file("log.txt")).find(std::to_string(ranks) + " MPI ranks"), std::string::npos)
        << slurp(dir.file("log.txt"));
    EXPECT_NE(slurp(dir.file("log.txt")).find("  quantiles    exact (every sample's values)\n"), std::string::npos)
        << slurp(dir.file("log.txt"));  // the merged statistics', as one process's summary says
    expect_same_file(dir.file(out), dir.file("one.h5"));
    // The file says how it was made (rbmc info's `made` line).
    const ResultsReader joined(dir.file(out));
    EXPECT_EQ(joined.number_attribute("", "n_parts"), ranks);
    EXPECT_EQ(joined.string_attribute("", "joined_by"), "MPI");
    // The run's own wall time beside its parts' sum, which one rank's parts make alone: within
    // the run's, which the run's summary printed. With 3 ranks the sum is theirs together.
    const double elapsed = joined.number_attribute("", "elapsed_seconds"), sum = joined.number_attribute("", "wall_seconds");
    EXPECT_GT(elapsed, 0);
    EXPECT_LE(sum, ranks * elapsed);
    ASSERT_EQ(script(dir, "\"$RBMC\" info " + out + " > info.txt"), 0);
    EXPECT_NE(slurp(dir.file("info.txt")).find(" s wall (the MPI run's; its parts' "), std::string::npos)
        << slurp(dir.file("info.txt"));
    for (const auto& e : fs::directory_iterator(dir.path()))
      EXPECT_EQ(e.path().filename().string().find(".part-"), std::string::npos) << e.path();
  }
  // Nothing is replaced without --overwrite: every rank stops, rank 0 says why.
  EXPECT_NE(script(dir, "$MPIRUN -n 2 \"$RBMC\" run box.toml -o mpi2.h5 --backend cpu >log.txt 2>&1"), 0);
  EXPECT_NE(slurp(dir.file("log.txt")).find("exists; pass --overwrite"), std::string::npos) << slurp(dir.file("log.txt"));
}

// Issue 15's one-GPU case: two ranks pick their GPU by node-local rank modulo the devices
// present, so on a machine with one GPU they share it, and the file equals one process's on that
// GPU (/samples bit for bit, the statistics to rounding). Skipped without MPI or a CUDA device.
TEST(Mpi, TwoRanksSharingOneGpuWriteTheFileOneProcessWrites) {
  if (std::string(kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  if (!cuda_device_available()) GTEST_SKIP() << "no CUDA device (or a build without CUDA)";
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(700) + kScenario);
  ASSERT_EQ(script(dir, "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} \"$RBMC\" run box.toml -o one.h5 "
                        "--backend cuda --no-progress >/dev/null"),
            0);
  ASSERT_EQ(script(dir, "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} $MPIRUN -x CUDA_VISIBLE_DEVICES -n 2 "
                        "\"$RBMC\" run box.toml -o mpi2.h5 --backend cuda --batch-size 50 >log.txt 2>&1"),
            0)
      << slurp(dir.file("log.txt"));
  expect_same_file(dir.file("mpi2.h5"), dir.file("one.h5"));
}

// The ranks write the parts they have, however many: here 3 ranks write 4 parts (made as shards
// by plain processes), so rank 0 writes twice while the others write once and then take part in
// the collective writes with nothing, and the retention limit falls inside the second part. In
// float32 storage: compressed data must reach HDF5 in the stored type to be written collectively.
TEST(Mpi, RanksWriteTheirPartsTogetherWhateverTheirNumber) {
  if (std::string(kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(700) + "[output]\ninterval = 0.1\nstorage = \"float32\"\n"
                                                         "trajectories = { every = 5, limit = 60 }\n");
  ASSERT_EQ(script(dir, "\"$RBMC\" run box.toml -o one.h5 --backend cpu --no-progress >/dev/null"), 0);
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(script(dir, "\"$RBMC\" run box.toml --shard " + std::to_string(i) + "/4 -o out.h5.part-" + std::to_string(i) +
                              "-of-4 --backend cpu --no-progress >/dev/null"),
              0);
  ASSERT_EQ(script(dir, "$MPIRUN -n 3 \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --resume >log.txt 2>&1"), 0)
      << slurp(dir.file("log.txt"));
  expect_same_file(dir.file("out.h5"), dir.file("one.h5"));
  const ResultsReader r(dir.file("out.h5"));
  EXPECT_EQ(r.number_attribute("", "n_trajectories"), 60);
  for (const auto& e : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename().string().find(".part-"), std::string::npos) << e.path();
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
  }
  // The program says that it writes with parallel HDF5.
  ASSERT_EQ(script(dir, "\"$RBMC\" --version >log.txt 2>&1"), 0);
  EXPECT_NE(slurp(dir.file("log.txt")).find("parallel"), std::string::npos) << slurp(dir.file("log.txt"));
}

// A fault while the ranks write OUT together (here a file-size limit that OUT, but no part,
// exceeds): every rank ends with the error, no file at OUT and no temporary file, and the parts
// are kept, so that --resume writes OUT from them.
TEST(Mpi, AFailureWhileWritingTogetherKeepsThePartsForResume) {
  if (std::string(kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir dir;
  // No statistics: a part's statistics state (every value, for exact quantiles) would make it
  // larger than the whole file.
  dir.write("box.toml", test::valid_scenario_text(2000) +
                            "[output]\ninterval = 0.1\nstatistics = false\ntrajectories = { every = 5, limit = 60 }\n");
  ASSERT_EQ(script(dir, "\"$RBMC\" run box.toml -o one.h5 --backend cpu --no-progress >/dev/null"), 0);
  std::uintmax_t largest_part = 0;
  for (int i = 0; i < 2; ++i) {
    const std::string part = "out.h5.part-" + std::to_string(i) + "-of-2";
    ASSERT_EQ(script(dir, "\"$RBMC\" run box.toml --shard " + std::to_string(i) + "/2 -o " + part +
                              " --backend cpu --no-progress >/dev/null"),
              0);
    largest_part = std::max(largest_part, fs::file_size(dir.file(part)));
  }
  // ulimit -f counts 1024-byte blocks in bash: room for a part, not for the whole file. Set in
  // each rank, not in mpirun, whose own shared-memory files it would limit.
  const std::string limit = std::to_string(largest_part / 1024 + 16);
  // A rank that waited for the failed one forever would hang: `timeout` makes that a failure (124).
  EXPECT_EQ(script(dir, "timeout 120 $MPIRUN -n 2 bash -c \"trap '' XFSZ; ulimit -f " + limit + "; exec '$RBMC' run box.toml -o out.h5 "
                        "--backend cpu --threads 1 --resume\" >log.txt 2>&1"),
            5)  // Hdf5Error's exit code, through MPI_Abort
      << slurp(dir.file("log.txt"));
  EXPECT_NE(slurp(dir.file("log.txt")).find("rbmc: error (rank "), std::string::npos) << slurp(dir.file("log.txt"));
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
  ASSERT_TRUE(fs::exists(dir.file("out.h5.part-0-of-2")) && fs::exists(dir.file("out.h5.part-1-of-2")));
  // A temporary file a killed run left (SIGKILL gives no chance to remove it) goes with the resume.
  dir.write("out.h5.partial-mpi-12345", "left by a killed run");
  ASSERT_EQ(script(dir, "$MPIRUN -n 2 \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --resume >log.txt 2>&1"), 0)
      << slurp(dir.file("log.txt"));
  const ResultsReader a(dir.file("out.h5")), b(dir.file("one.h5"));
  for (const char* d : {"samples/final/position", "samples/final/orientation", "trajectories/orientation"})
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
  EXPECT_EQ(a.uint64s("trajectories/sample_index").data, b.uint64s("trajectories/sample_index").data);
  EXPECT_FALSE(fs::exists(dir.file("out.h5.partial-mpi-12345")));
}

// SIGINT to mpirun (which forwards it to every rank): each rank keeps its part; --resume under
// another number of ranks completes the run into the single process's file.
TEST(Mpi, AnInterruptedRunResumesUnderAnotherRankCount) {
  if (std::string(kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(80000, 1.0, 0.001) + kScenario);  // about 4 s on 2 cores
  ASSERT_EQ(script(dir, "\"$RBMC\" run box.toml -o one.h5 --backend cpu --no-progress >/dev/null"), 0);
  // The interrupted run on the one-sample path (RBMC_CPU_SIMD=off, as the CLI tests' signal tests):
  // the lanes would finish it before the signal; the resume takes them, to the same file.
  script(dir, "RBMC_CPU_SIMD=off $MPIRUN -n 3 \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 1000 >log.txt 2>&1 & "
              "pid=$!; sleep 1; kill -INT $pid; wait $pid; true");
  ASSERT_FALSE(fs::exists(dir.file("out.h5"))) << "the run ended before the interrupt: make it longer";
  EXPECT_NE(slurp(dir.file("log.txt")).find("--resume"), std::string::npos) << slurp(dir.file("log.txt"));
  ASSERT_EQ(script(dir, "$MPIRUN -n 2 \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --batch-size 1000 "
                        "--resume >log.txt 2>&1"),
            0)
      << slurp(dir.file("log.txt"));
  expect_same_file(dir.file("out.h5"), dir.file("one.h5"));
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".part-"), std::string::npos) << e.path();
}

// A rank that fails (here its part's path is a directory) ends every rank with its error; no file
// at OUT, and the other ranks' work kept for --resume.
TEST(Mpi, AFailingRankEndsEveryRank) {
  if (std::string(kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(3000, 2.0, 0.002) + kScenario);
  fs::create_directory(dir.file("out.h5.part-1-of-3"));
  const int code = script(dir, "$MPIRUN -n 3 \"$RBMC\" run box.toml -o out.h5 --backend cpu --threads 1 --overwrite "
                               ">log.txt 2>&1");
  EXPECT_NE(code, 0);
  EXPECT_NE(slurp(dir.file("log.txt")).find("(rank 1 of 3)"), std::string::npos) << slurp(dir.file("log.txt"));
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
}

// An MPI run whose parts and file cannot fit on the disk stops every rank before any work (rank
// 0's check, exit 5), counting the rows twice: its parts', then the file's.
TEST(Mpi, ARunThatCannotFitOnItsDiskStopsEveryRankBeforeAnyWork) {
  if (std::string(kMpiexec).empty()) GTEST_SKIP() << "built without MPI";
  test::TempDir dir;
  dir.write("box.toml", test::valid_scenario_text(1000));
  // (The file-size limit, 256 MiB, keeps a build without the check from filling the disk; Open
  // MPI's own files need more than the few MiB the single-process test allows.)
  const int code = script(dir, "trap '' XFSZ; ulimit -f 262144; $MPIRUN -n 2 \"$RBMC\" run box.toml -o out.h5 --backend cpu "
                               "--threads 1 --samples 1000000000000 >log.txt 2>&1");
  const std::string log = slurp(dir.file("log.txt"));
  EXPECT_EQ(code, 5) << log;
  EXPECT_NE(log.find("this run writes at least"), std::string::npos) << log;
  EXPECT_NE(log.find("for the file the ranks join them into"), std::string::npos) << log;
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_TRUE(e.path().filename() == "box.toml" || e.path().filename() == "log.txt") << e.path();
}

}  // namespace
}  // namespace rbmc

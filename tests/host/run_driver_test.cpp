#include "host/errors.hpp"
#include "host/run/run_driver.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

#include "host/analysis/results_info.hpp"
#include "host/io/h5_handle.hpp"
#include "host/io/results_reader.hpp"
#include "host/io/run_journal.hpp"
#include "host/backend/batch_slots.hpp"
#include "host/run/batch_sizing.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "host/stats/column_moments.hpp"
#include "host/stats/run_statistics.hpp"
#include "host/util/environment.hpp"
#include "rbmc/random/inverse_transforms.hpp"
#include "rbmc/sample/draw_inputs.hpp"
#include "compaction_reference.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

namespace fs = std::filesystem;

RunOptions cpu_options(const std::string& output, unsigned threads, std::size_t batch) {
  RunOptions o;
  o.output = output;
  o.backend = BackendChoice::cpu;
  o.threads = threads;
  o.batch_size = batch;
  o.progress = false;
  return o;
}

TEST(RunDriver, WritesACompleteFile) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(50), "box.toml");
  const RunSummary summary = run_scenario(s, cpu_options(dir.file("r.h5"), 2, 16));
  EXPECT_EQ(summary.n_samples, 50u);
  EXPECT_EQ(summary.totals.status_counts[0], 50u);
  EXPECT_EQ(summary.backend, "cpu");
  const ResultsReader r(dir.file("r.h5"));
  EXPECT_EQ(r.number_attribute("", "n_samples"), 50);
  EXPECT_EQ(r.string_attribute("", "precision"), "double");
  EXPECT_GT(r.number_attribute("", "wall_seconds"), 0);
  const auto time = r.doubles("samples/final/time");
  for (double t : time.data) EXPECT_DOUBLE_EQ(t, 0.5);
  // The dispersed inputs vary across samples and the file holds them.
  const auto mass = r.doubles("samples/body/mass");
  EXPECT_NE(mass.data[0], mass.data[1]);
  EXPECT_EQ(r.doubles("samples/params/body.mass").data, mass.data);
}

// What a killed run of the same output left beside it (its temporary files, and the file it was
// replacing when killed between its two renames) is removed under the output's lock; files of other
// outputs, and names that only look alike, are not.
TEST(RunDriver, AKilledRunsLeftoversOfThisOutputAreRemoved) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(20), "box.toml");
  const std::vector<std::string> leftovers{"r.h5.partial-12", "r.h5.writing-34", "r.h5.replaced-56",
                                           "r.h5.partial.replaced-78"},
      kept{"r.h5.replaced-x", "r.h5.replaced-", "other.h5.replaced-56", "other.h5.partial-12"};
  for (const std::string& f : leftovers) dir.write(f, "left");
  for (const std::string& f : kept) dir.write(f, "kept");
  run_scenario(s, cpu_options(dir.file("r.h5"), 1, 20));
  for (const std::string& f : leftovers) EXPECT_FALSE(fs::exists(dir.file(f))) << f;
  for (const std::string& f : kept) EXPECT_TRUE(fs::exists(dir.file(f))) << f;
  EXPECT_TRUE(fs::exists(dir.file("r.h5")));
}

// Results depend on nothing but the scenario, the seed and the precision: thread count and batch
// size leave every number unchanged, bit for bit.
TEST(RunDriver, ThreadsAndBatchSizeDoNotChangeAnyNumber) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(40), "box.toml");
  run_scenario(s, cpu_options(dir.file("a.h5"), 1, 40));
  run_scenario(s, cpu_options(dir.file("b.h5"), 3, 7));
  run_scenario(s, cpu_options(dir.file("c.h5"), 2, 1));
  const ResultsReader a(dir.file("a.h5")), b(dir.file("b.h5")), c(dir.file("c.h5"));
  for (const char* d : {"samples/final/position", "samples/final/orientation", "samples/final/velocity",
                        "samples/final/angular_velocity", "samples/initial/orientation", "samples/body/inertia"}) {
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
    EXPECT_EQ(a.doubles(d).data, c.doubles(d).data) << d;
  }
}

// Sample k computed alone (a run of one sample whose index is k: the first k+1 samples, last row)
// equals sample k inside a large batch.
TEST(RunDriver, SampleComputedAloneEqualsItsRowInALargeBatch) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(64), "box.toml");
  run_scenario(s, cpu_options(dir.file("all.h5"), 2, 64));
  RunOptions few = cpu_options(dir.file("few.h5"), 1, 1);
  few.samples = 18;  // row 17 is computed in a batch of one
  run_scenario(s, few);
  const ResultsReader all(dir.file("all.h5")), one(dir.file("few.h5"));
  const auto pa = all.doubles("samples/final/position").data, po = one.doubles("samples/final/position").data;
  const auto wa = all.doubles("samples/final/angular_velocity").data,
             wo = one.doubles("samples/final/angular_velocity").data;
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(pa[17 * 3 + c], po[17 * 3 + c]);
    EXPECT_EQ(wa[17 * 3 + c], wo[17 * 3 + c]);
  }
}

TEST(RunDriver, SeedOverrideChangesTheDraws) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(8), "box.toml");
  run_scenario(s, cpu_options(dir.file("a.h5"), 1, 8));
  RunOptions o = cpu_options(dir.file("b.h5"), 1, 8);
  o.seed = 7;
  run_scenario(s, o);
  const ResultsReader a(dir.file("a.h5")), b(dir.file("b.h5"));
  EXPECT_NE(a.doubles("samples/body/mass").data, b.doubles("samples/body/mass").data);
  EXPECT_EQ(b.number_attribute("", "seed"), 7);
}

// An interrupt keeps what is done in OUT.partial, never at OUT: a valid file marked incomplete,
// its rows not reached marked not_run.
TEST(RunDriver, AnInterruptedRunKeepsAPartialFileNotAResult) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(8), "box.toml");
  interrupt_requested() = true;
  EXPECT_THROW(run_scenario(s, cpu_options(dir.file("r.h5"), 1, 2)), Interrupted);
  interrupt_requested() = false;
  EXPECT_FALSE(fs::exists(dir.file("r.h5")));
  const ResultsReader partial(dir.file("r.h5.partial"));
  EXPECT_EQ(partial.number_attribute("", "complete"), 0);
  EXPECT_EQ(partial.number_attribute("resume", "rows_done"), 0);
  for (std::uint8_t status : partial.uint8s("samples/status").data) EXPECT_EQ(status, kStatusNotRun);
}

// Interrupted after its third batch and resumed, a run's file equals an uninterrupted run's:
// every dataset of every sample, the retained trajectories and the statistics, bit for bit.
TEST(RunDriver, AResumedRunEqualsAnUninterruptedOne) {
  test::TempDir dir;
  std::string text = test::valid_scenario_text(100, 0.5, 0.01);
  text += "[output]\ninterval = 0.1\ntrajectories = { every = 7 }\n";
  const Scenario s = parse_scenario(text, "box.toml");
  run_scenario(s, cpu_options(dir.file("whole.h5"), 2, 16));
  RunOptions o = cpu_options(dir.file("r.h5"), 2, 16);
  o.after_batch = [](std::uint64_t rows) {
    if (rows == 48) interrupt_requested() = true;
  };
  EXPECT_THROW(run_scenario(s, o), Interrupted);
  interrupt_requested() = false;
  EXPECT_FALSE(fs::exists(dir.file("r.h5")));
  EXPECT_EQ(ResultsReader(dir.file("r.h5.partial")).number_attribute("resume", "rows_done"), 48);
  // Another scenario cannot resume it.
  RunOptions resume = cpu_options(dir.file("r.h5"), 2, 0);  // the batch size comes from the file
  resume.resume = true;
  EXPECT_THROW(run_scenario(parse_scenario(test::valid_scenario_text(100, 0.5, 0.01), "box.toml"), resume), UsageError);
  // Nor can a build whose draws differ (here: the file's revision taken away, as before it was
  // recorded), and the refusal leaves the interrupted run as it was.
  fs::copy_file(dir.file("r.h5.partial"), dir.file("saved.partial"));
  test::remove_attribute(dir.file("r.h5.partial"), "draw_revision");
  try {
    run_scenario(s, resume);
    ADD_FAILURE() << "resumed a run drawn by another build";
  } catch (const UsageError& e) {
    const std::string refused = "draws differ (draw revision 1; this build's is " + std::to_string(kDrawRevision) + ")";
    EXPECT_NE(std::string(e.what()).find(refused), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(dir.file("r.h5.partial")));
  fs::rename(dir.file("saved.partial"), dir.file("r.h5.partial"));
  run_scenario(s, resume);
  EXPECT_FALSE(fs::exists(dir.file("r.h5.partial")));
  const ResultsReader a(dir.file("whole.h5")), b(dir.file("r.h5"));
  EXPECT_EQ(b.number_attribute("", "complete"), 1);
  EXPECT_FALSE(b.has("resume"));
  for (const char* d : {"samples/final/position", "samples/final/orientation", "samples/final/angular_velocity",
                        "samples/body/inertia", "samples/params/body.mass", "trajectories/position",
                        "statistics/angular_velocity/mean", "statistics/angular_velocity/sd",
                        "statistics/attitude_angle/quantiles"})
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
  EXPECT_EQ(a.uint8s("samples/status").data, b.uint8s("samples/status").data);
  EXPECT_EQ(a.uint64s("trajectories/sample_index").data, b.uint64s("trajectories/sample_index").data);
  EXPECT_EQ(a.number_attribute("", "total_steps"), b.number_attribute("", "total_steps"));
  EXPECT_EQ(a.number_attribute("", "n_status_ok"), b.number_attribute("", "n_status_ok"));
  EXPECT_EQ(a.number_attribute("", "n_trajectories"), b.number_attribute("", "n_trajectories"));
  EXPECT_EQ(b.number_attribute("", "n_trajectories"), 15);  // samples 0, 7, ..., 98
  // The resumed file is rewritten without the resume state it continued from: no dead space, and
  // the root attributes of the run it continued.
  EXPECT_LE(fs::file_size(dir.file("r.h5")), fs::file_size(dir.file("whole.h5")) * 105 / 100);
  EXPECT_EQ(a.string_attribute("", "scenario"), b.string_attribute("", "scenario"));
  EXPECT_EQ(a.number_attribute("", "seed"), b.number_attribute("", "seed"));
  EXPECT_TRUE(b.has_attribute("", "created"));
  // Nothing left to resume.
  EXPECT_THROW(run_scenario(s, resume), UsageError);
}

// With quantile sketches (past a 1 MiB budget: 1500 samples × 51 times × 12 quantities), the
// sketches saved at an interruption and restored give the uninterrupted run's quantiles and
// bounds bit for bit, and the batches and threads do not change them.
TEST(RunDriver, ResumedQuantileSketchesEqualAnUninterruptedRunsSketches) {
  test::TempDir dir;
  std::string text = test::valid_scenario_text(1500, 0.5, 0.01);
  text += "[output]\ninterval = 0.01\nquantile_memory_mb = 1\n";
  const Scenario s = parse_scenario(text, "box.toml");
  run_scenario(s, cpu_options(dir.file("whole.h5"), 2, 256));
  run_scenario(s, cpu_options(dir.file("other.h5"), 1, 100));
  RunOptions o = cpu_options(dir.file("r.h5"), 2, 256);
  o.after_batch = [](std::uint64_t rows) {
    if (rows == 768) interrupt_requested() = true;
  };
  EXPECT_THROW(run_scenario(s, o), Interrupted);
  interrupt_requested() = false;
  RunOptions resume = cpu_options(dir.file("r.h5"), 2, 0);
  resume.resume = true;
  run_scenario(s, resume);
  const ResultsReader a(dir.file("whole.h5")), b(dir.file("r.h5")), c(dir.file("other.h5"));
  ASSERT_NE(a.string_attribute("statistics", "quantile_method").find("sketch"), std::string::npos);
  for (const char* d : {"statistics/angular_velocity/quantiles", "statistics/angular_velocity/quantile_rank_error_95",
                        "statistics/kinetic_energy/quantiles", "statistics/position/quantiles"}) {
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
    EXPECT_EQ(a.doubles(d).data, c.doubles(d).data) << d;
  }
}

// The CPU backend behind a test's own backend: every primitive forwarded, so that the backends
// below override only what they note or change.
class ForwardingCpuBackend : public Backend {
 public:
  ForwardingCpuBackend() : cpu_(make_cpu_backend(Precision::float64, 2)) {}
  std::string name() const override { return cpu_->name(); }
  std::string device() const override { return cpu_->device(); }
  std::size_t max_batch_size(const BatchIntegration& how) const override { return cpu_->max_batch_size(how); }
  void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n, const BatchIntegration& how,
                 const BatchNeeds& needs, StageTimings& timings) override {
    cpu_->integrate(inputs, outputs, status, n, how, needs, timings);
  }
  void reduce_statistics(const BatchIntegration& how, const std::vector<std::uint32_t>& rows, std::vector<Moments>& moments,
                         QuantityValues& values, StageTimings& timings) override {
    cpu_->reduce_statistics(how, rows, moments, values, timings);
  }
  void recycle_quantities(QuantityValues& values) override { cpu_->recycle_quantities(values); }
  void gather_trajectories(const std::vector<std::uint32_t>& rows, std::vector<double>& trajectories,
                           StageTimings& timings) override {
    cpu_->gather_trajectories(rows, trajectories, timings);
  }

 protected:
  std::unique_ptr<Backend> cpu_;
};

// The CPU backend, compacting each batch's columns as the CUDA backend does on the device (the
// tests' reference compaction), and keeping a copy of what it sends for each batch.
class CompactingCpuBackend final : public ForwardingCpuBackend {
 public:
  struct Sent {
    std::vector<Moments> moments;
    std::vector<ColumnBrackets> brackets;
    std::vector<ColumnTally> tallies;
    std::vector<std::uint64_t> offsets;
    std::vector<double> values;
    std::size_t n = 0;
  };
  explicit CompactingCpuBackend(std::vector<Sent>& sent) : sent_(sent) {}
  void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n, const BatchIntegration& how,
                 const BatchNeeds& needs, StageTimings& timings) override {
    n_ = n;
    cpu_->integrate(inputs, outputs, status, n, how, needs, timings);
  }
  bool reduce_statistics_compacted(const BatchIntegration& how, const BatchCompactionRequest& request,
                                   const std::vector<ColumnBrackets>& brackets, std::vector<Moments>& moments,
                                   CompactedColumns& compacted, StageTimings& timings) override {
    if (n_ < 2 * request.keep) return false;
    std::vector<std::uint32_t> rows(n_);
    for (std::size_t i = 0; i < n_; ++i) rows[i] = std::uint32_t(i);
    QuantityValues every;
    cpu_->reduce_statistics(how, rows, moments, every, timings);
    const std::size_t columns = every.size() / n_;
    std::vector<const double*> starts(columns);
    for (std::size_t c = 0; c < columns; ++c) starts[c] = every.data() + c * n_;
    moments.resize(columns);
    column_moments(starts.data(), columns, n_, moments.data());
    Sent sent{moments, brackets, {}, {}, {}, n_};
    test::compact_columns_for_reference(every, n_, columns, request, brackets, sent.tallies, sent.offsets, sent.values);
    compacted.tallies = sent.tallies;
    compacted.offsets = sent.offsets;
    compacted.values.assign(sent.values.begin(), sent.values.end());
    sent_.push_back(std::move(sent));
    return true;
  }

 private:
  std::vector<Sent>& sent_;
  std::size_t n_ = 0;
};

// The CPU backend, noting the buffer each batch's values arrive in from reduce_statistics.
class BufferNotingCpuBackend final : public ForwardingCpuBackend {
 public:
  explicit BufferNotingCpuBackend(std::vector<const double*>& arrived) : arrived_(arrived) {}
  void reduce_statistics(const BatchIntegration& how, const std::vector<std::uint32_t>& rows, std::vector<Moments>& moments,
                         QuantityValues& values, StageTimings& timings) override {
    cpu_->reduce_statistics(how, rows, moments, values, timings);
    arrived_.push_back(values.data());
  }

 private:
  std::vector<const double*>& arrived_;
};

// A batch's quantity values are the backend's until the statistics stage swaps them with a buffer
// of the driver's. The statistics need them no more once added (sketched, or exact: the exact
// quantiles copy them), and the driver gives the buffer back (recycle_quantities): every batch's
// values arrive in the same buffer, the run's one (the main job's is 119 MB). (Before the journal
// left the statistics to its snapshots, exact quantiles kept each batch's values with the batch
// for its record on the writer's thread: three buffers.) The statistics are the same bits.
TEST(RunDriver, StatisticsPassThroughOneBuffer) {
  test::TempDir dir;
  for (const bool sketched : {true, false}) {
    SCOPED_TRACE(sketched ? "sketched" : "exact");
    // 1,000 samples × 21 times × 12 quantities × 8 bytes = 2 MB: sketched within 1 MiB.
    std::string text = test::valid_scenario_text(1000, 0.5, 0.01) + "[output]\ninterval = 0.025\n";
    if (sketched) text += "quantile_memory_mb = 1\n";
    const Scenario s = parse_scenario(text, "box.toml");
    std::vector<const double*> arrived;
    RunOptions o = cpu_options(dir.file("noted.h5"), 2, 100);
    o.overwrite = true;
    o.make_backend = [&arrived] { return std::make_unique<BufferNotingCpuBackend>(arrived); };
    run_scenario(s, o);
    RunOptions plain = cpu_options(dir.file("plain.h5"), 2, 100);
    plain.overwrite = true;
    run_scenario(s, plain);
    ASSERT_EQ(arrived.size(), 10u);  // one a batch
    const std::set<const double*> buffers(arrived.begin(), arrived.end());
    EXPECT_EQ(buffers.size(), 1u);
    const ResultsReader a(dir.file("noted.h5")), b(dir.file("plain.h5"));
    EXPECT_EQ(a.string_attribute("statistics", "quantile_method").find("sketch") != std::string::npos, sketched);
    for (const char* d : {"statistics/angular_velocity/quantiles", "statistics/angular_velocity/mean"})
      EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
  }
}

// The CPU backend with a GPU's memory bound (it would take 2²⁴ samples a batch), noting the size
// of each batch the driver integrates.
class LargeBatchCpuBackend final : public ForwardingCpuBackend {
 public:
  explicit LargeBatchCpuBackend(std::vector<std::size_t>& batches) : batches_(batches) {}
  std::size_t max_batch_size(const BatchIntegration&) const override { return std::size_t(1) << 24; }
  void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n, const BatchIntegration& how,
                 const BatchNeeds& needs, StageTimings& timings) override {
    batches_.push_back(n);
    cpu_->integrate(inputs, outputs, status, n, how, needs, timings);
  }

 private:
  std::vector<std::size_t>& batches_;
};

// Issue 12: memory stays flat in N. However much the backend's memory would hold, a run's
// batches stop at kLargestBatch (host/run/batch_sizing.hpp), here for a run of more than
// 8 × kLargestBatch samples, whose batches would otherwise be an eighth of it (137,500). One step
// and one dataset kept, so that the run is quick.
TEST(RunDriver, DefaultBatchesStopAtTheLargestBatch) {
  test::TempDir dir;
  const int n = 1'100'000;
  const Scenario s =
      parse_scenario(test::valid_scenario_text(n, 0.01, 0.01) + "[output]\nsamples = [\"final/position\"]\n", "box.toml");
  std::vector<std::size_t> batches;
  RunOptions o = cpu_options(dir.file("large.h5"), 2, 0);  // 0: the default batches
  o.journal = false;
  o.make_backend = [&batches] { return std::make_unique<LargeBatchCpuBackend>(batches); };
  const RunSummary summary = run_scenario(s, o);
  EXPECT_EQ(summary.totals.status_counts[std::size_t(SampleStatus::ok)], std::uint64_t(n));
  ASSERT_EQ(batches.size(), (std::size_t(n) + kLargestBatch - 1) / kLargestBatch);
  for (std::size_t i = 0; i + 1 < batches.size(); ++i) EXPECT_EQ(batches[i], kLargestBatch) << i;
  EXPECT_EQ(batches.back(), std::size_t(n) - (batches.size() - 1) * kLargestBatch);
}

// The CUDA backend's way of overlapping batches (Backend::begin_batch), through the same
// BatchSlots, with a CPU backend in each slot: the next batch is drawn (on the host, as the driver
// draws) and integrated in one on the slots' thread while the driver reduces and gathers the batch
// before it from the other. Notes what it was asked to do.
class AheadCpuBackend final : public Backend {
 public:
  struct Noted {
    std::size_t begun = 0, finished = 0, abandoned = 0, dropped = 0, integrated = 0;
  };
  // stop_at: the begun batch (counted from 1) that sees a request to stop as it starts, as it would
  // a SIGINT while it integrates; 0: none.
  explicit AheadCpuBackend(Noted& noted, std::size_t stop_at = 0) : noted_(noted), stop_at_(stop_at) {
    for (Slot& slot : slots_.both()) slot.cpu = make_cpu_backend(Precision::float64, 1);
  }
  std::string name() const override { return "cpu"; }
  std::string device() const override { return "the CPU, two slots"; }
  std::size_t max_batch_size(const BatchIntegration&) const override { return 4096; }
  void integrate(const double* inputs, double* outputs, std::uint8_t* status, std::size_t n, const BatchIntegration& how,
                 const BatchNeeds& needs, StageTimings& timings) override {
    slots_.expect_nothing_begun("integrate");
    ++noted_.integrated;
    slots_.next().cpu->integrate(inputs, outputs, status, n, how, needs, timings);
    slots_.integrated();
  }
  void reduce_statistics(const BatchIntegration& how, const std::vector<std::uint32_t>& rows, std::vector<Moments>& moments,
                         QuantityValues& values, StageTimings& timings) override {
    slots_.current().cpu->reduce_statistics(how, rows, moments, values, timings);
  }
  void gather_trajectories(const std::vector<std::uint32_t>& rows, std::vector<double>& trajectories,
                           StageTimings& timings) override {
    slots_.current().cpu->gather_trajectories(rows, trajectories, timings);
  }
  bool begin_batch(const SamplingPlan& plan, const std::uint64_t* index, std::size_t n,
                   const BatchIntegration& how) override {
    const bool stop = ++noted_.begun == stop_at_;
    Slot& b = slots_.next();
    b.index.assign(index, index + n);  // read before returning, as the driver reuses it
    const int n_model = plan.scenario().model_parameters.n;
    b.inputs.resize(n * std::size_t(input_column_count(n_model)));
    b.params.resize(n * std::size_t(plan.n_parameter_values()));
    b.outputs.resize(n * std::size_t(output_column_count(how.shared.events.n)));
    b.status.resize(n);
    b.seconds = StageTimings{};
    b.redrawn = 0;
    // The run's stop request ends it early (a drop on an error waits for it: its batches are small).
    slots_.begin([this, &plan, &how, n, stop](Slot& begun, const std::atomic<bool>& /*dropped*/) {
      {
        const StageClock clock(&begun.seconds, Stage::sample);
        for (std::size_t i = 0; i < n; ++i)
          begun.redrawn +=
              draw_batch_row(plan.model(), begun.index[i], i, n, begun.inputs.data(), begun.params.data()) > 0;
      }
      BatchIntegration stopped = how;  // a stop seen by this batch alone, as a SIGINT while it integrates
      stopped.stop = &stop_requested_;
      begun.cpu->integrate(begun.inputs.data(), begun.outputs.data(), begun.status.data(), n, stop ? stopped : how,
                           BatchNeeds{}, begun.seconds);
    });
    return true;
  }
  void finish_batch(double* inputs, double* params, const DrawnColumnsWanted& wanted, double* outputs,
                    std::uint8_t* status, std::uint64_t& redrawn, StageTimings& timings, StageTimings& ahead) override {
    const Slot* b = nullptr;
    try {
      b = &slots_.finish(timings);
    } catch (const BatchAbandoned&) {
      ++noted_.abandoned;
      throw;
    }
    ++noted_.finished;
    ahead += b->seconds;
    if (wanted.inputs) std::copy(b->inputs.begin(), b->inputs.end(), inputs);
    if (wanted.params) std::copy(b->params.begin(), b->params.end(), params);
    std::copy(b->outputs.begin(), b->outputs.end(), outputs);
    std::copy(b->status.begin(), b->status.end(), status);
    redrawn += b->redrawn;
  }
  void drop_batch() noexcept override { noted_.dropped += slots_.drop(); }

 private:
  struct Slot {  // a CPU backend, and the batch begun in it in the host's layout
    std::unique_ptr<Backend> cpu;
    std::vector<std::uint64_t> index;
    std::vector<double> inputs, params, outputs;
    std::vector<std::uint8_t> status;
    std::uint64_t redrawn = 0;
    StageTimings seconds;
  };
  Noted& noted_;
  const std::size_t stop_at_;
  const std::atomic<bool> stop_requested_{true};
  BatchSlots<Slot> slots_;  // last: a batch begun is dropped (unnoted) before what it uses goes
};

// Issue 12's overlap, as the CUDA backend does it: each batch after the first is begun while the
// driver still reduces, gathers and writes the one before it. The file is the same bits as a
// plain run's (the draws and their redraws, outputs, statistics with exact and sketched
// quantiles, trajectories), each batch but the first is begun ahead and finished, and the
// integration's time shows as begun ahead.
TEST(RunDriver, BatchesBegunAheadGiveTheFileOfBatchesRunInTurn) {
  test::TempDir dir;
  // The scenario into plain.h5 on the CPU backend, and into ahead.h5 on AheadCpuBackend.
  const auto run_both = [&dir](const Scenario& s, std::size_t batch, AheadCpuBackend::Noted& noted) {
    RunOptions plain = cpu_options(dir.file("plain.h5"), 2, batch);
    plain.overwrite = true;
    run_scenario(s, plain);
    RunOptions o = cpu_options(dir.file("ahead.h5"), 2, batch);
    o.overwrite = true;
    o.make_backend = [&noted] { return std::make_unique<AheadCpuBackend>(noted); };
    return run_scenario(s, o);
  };
  for (const bool sketched : {false, true}) {
    SCOPED_TRACE(sketched ? "sketched" : "exact");
    std::string text = test::valid_scenario_text(1500, 0.5, 0.01);
    text += "[output]\ninterval = 0.01\ntrajectories = { every = 7 }\n";
    if (sketched) text += "quantile_memory_mb = 1\n";  // 1500 × 51 × 12 values: past 1 MiB
    AheadCpuBackend::Noted noted;
    const RunSummary summary = run_both(parse_scenario(text, "box.toml"), 256, noted);
    EXPECT_EQ(noted.integrated, 1u);  // the first batch, in turn
    EXPECT_EQ(noted.begun, 5u);       // 1500 = 5 × 256 + 220: the other five
    EXPECT_EQ(noted.finished, 5u);
    EXPECT_EQ(noted.dropped, 0u);
    EXPECT_GT(summary.totals.integrate_ahead_seconds, 0.0);
    EXPECT_LE(summary.totals.integrate_ahead_seconds, summary.totals.stage_seconds[Stage::integrate]);
    const ResultsReader a(dir.file("plain.h5")), b(dir.file("ahead.h5"));
    EXPECT_EQ(a.string_attribute("statistics", "quantile_method").find("sketch") != std::string::npos, sketched);
    for (const char* d : {"samples/final/position", "samples/final/orientation", "samples/body/inertia",
                          "samples/initial/angular_velocity", "samples/params/body.mass", "trajectories/position",
                          "statistics/angular_velocity/mean", "statistics/angular_velocity/sd",
                          "statistics/attitude_angle/quantiles", "statistics/kinetic_energy/quantiles"})
      EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
    EXPECT_EQ(a.uint8s("samples/status").data, b.uint8s("samples/status").data);
    EXPECT_EQ(a.uint64s("trajectories/sample_index").data, b.uint64s("trajectories/sample_index").data);
    EXPECT_EQ(a.number_attribute("", "total_steps"), b.number_attribute("", "total_steps"));
  }
  // Every kind of draw, bodies redrawn among them: the same draws and redraw count.
  AheadCpuBackend::Noted noted;
  run_both(parse_scenario(test::every_draw_scenario_text("latin_hypercube", "uniform_rotation"), "e.toml"), 64, noted);
  EXPECT_EQ(noted.begun, 4u);  // 300 = 4 × 64 + 44
  const ResultsReader a(dir.file("plain.h5")), b(dir.file("ahead.h5"));
  EXPECT_GT(a.number_attribute("", "n_redrawn_bodies"), 0);
  EXPECT_EQ(a.number_attribute("", "n_redrawn_bodies"), b.number_attribute("", "n_redrawn_bodies"));
  for (const char* d : {"samples/body/mass", "samples/body/inertia", "samples/initial/orientation",
                        "samples/final/position"})
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
}

// A stop while batches are begun ahead: requested between batches, the batch begun is dropped
// (abandoned with the backend, before the run's state it uses goes); requested while a begun batch
// integrates, its finish throws BatchAbandoned and it is integrated again on --resume. Either way
// the resumed file equals an uninterrupted run's.
TEST(RunDriver, AStopWithABatchBegunAheadKeepsTheBatchesBeforeIt) {
  test::TempDir dir;
  const Scenario s = parse_scenario(
      test::valid_scenario_text(200, 0.5, 0.01) + "[output]\ninterval = 0.1\ntrajectories = { every = 7 }\n",
      "box.toml");
  run_scenario(s, cpu_options(dir.file("whole.h5"), 2, 32));
  for (const bool while_integrating : {false, true}) {
    SCOPED_TRACE(while_integrating ? "while a begun batch integrates" : "between batches");
    AheadCpuBackend::Noted noted;
    RunOptions o = cpu_options(dir.file("r.h5"), 2, 32);
    o.overwrite = true;
    // Between batches: after the third is written, with the fourth begun. While integrating: the
    // third begun batch (rows 96 to 128) sees the stop as it starts.
    if (while_integrating) {
      o.make_backend = [&noted] { return std::make_unique<AheadCpuBackend>(noted, 3); };
    } else {
      o.make_backend = [&noted] { return std::make_unique<AheadCpuBackend>(noted); };
      o.after_batch = [](std::uint64_t rows) {
        if (rows == 96) interrupt_requested() = true;
      };
    }
    EXPECT_THROW(run_scenario(s, o), Interrupted);
    interrupt_requested() = false;
    EXPECT_EQ(noted.begun, 3u);
    EXPECT_EQ(noted.finished, 2u);
    EXPECT_EQ(noted.abandoned, while_integrating ? 1u : 0u);
    EXPECT_EQ(noted.dropped, while_integrating ? 0u : 1u);
    EXPECT_EQ(ResultsReader(dir.file("r.h5.partial")).number_attribute("resume", "rows_done"), 96);
    RunOptions resume = cpu_options(dir.file("r.h5"), 2, 0);
    resume.resume = true;
    resume.make_backend = [&noted] { return std::make_unique<AheadCpuBackend>(noted); };
    run_scenario(s, resume);
    const ResultsReader a(dir.file("whole.h5")), b(dir.file("r.h5"));
    for (const char* d : {"samples/final/position", "samples/body/inertia", "trajectories/position",
                          "statistics/angular_velocity/mean", "statistics/attitude_angle/quantiles"})
      EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
    EXPECT_EQ(a.uint8s("samples/status").data, b.uint8s("samples/status").data);
    fs::remove(dir.file("r.h5"));
  }
}

// A backend that compacts its columns (as the GPU does) has each batch's merged into the run's
// statistics on a thread of their own while the next batch is drawn and integrated. The file's
// statistics equal those of the same batches merged one after the other here: the merge read
// each batch's values before the driver reused their buffers two batches later. Each batch is
// classified against the brackets every batch before it left (the previous merge done first):
// open ones until the values offered reach BracketedSketch::kFirstBrackets, then narrower ones,
// outside which the values are counted instead of sent.
TEST(RunDriver, CompactedStatisticsMergeWhileTheNextBatchIntegrates) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(6000, 0.5, 0.01) +
                                        "[output]\ninterval = 0.05\nquantile_memory_mb = 1\n",
                                    "box.toml");
  std::vector<CompactingCpuBackend::Sent> sent;
  RunOptions o = cpu_options(dir.file("c.h5"), 2, 1000);
  o.make_backend = [&sent] { return std::make_unique<CompactingCpuBackend>(sent); };
  const RunSummary summary = run_scenario(s, o);
  ASSERT_EQ(sent.size(), 6u);
  // The merges' share of the statistics stage, which --timings shows apart.
  EXPECT_GT(summary.totals.statistics_merging_seconds, 0.0);
  EXPECT_LT(summary.totals.statistics_merging_seconds, summary.totals.stage_seconds[Stage::statistics]);
  RunStatistics merged(s, 6000, 1);
  ASSERT_FALSE(merged.exact());
  ASSERT_TRUE(merged.bracketed());
  std::vector<ColumnBrackets> brackets;
  std::uint64_t offered = 0;
  for (const CompactingCpuBackend::Sent& b : sent) {
    merged.compaction_brackets(brackets);
    ASSERT_EQ(b.brackets.size(), brackets.size());
    const std::size_t column = quantity::count + quantity::angular_velocity;  // the second time's ω_x
    std::uint64_t kept = 0, finite = 0;
    for (std::size_t c = 0; c < brackets.size(); ++c) {
      for (int j = 0; j < kColumnBrackets; ++j) {
        ASSERT_EQ(b.brackets[c].lo[j], brackets[c].lo[j]) << offered << " " << c << " " << j;
        ASSERT_EQ(b.brackets[c].hi[j], brackets[c].hi[j]) << offered << " " << c << " " << j;
      }
      kept += b.tallies[c].kept;
      finite += std::uint64_t(b.moments[c].count);
    }
    if (offered < BracketedSketch::kFirstBrackets) {
      EXPECT_EQ(brackets[column].lo[2], -INFINITY);
      EXPECT_EQ(kept, finite);
    } else {
      // The median's bracket at least has narrowed (the tails' may not yet: at 5,000 values and
      // this small k, p ∓ their margin lies beyond 0 and 1), and some values are counted instead
      // of sent (44 % are sent here).
      EXPECT_GT(brackets[column].lo[2], -INFINITY);
      EXPECT_LT(kept, finite);
    }
    merged.add_compacted(b.moments, b.tallies, b.offsets, b.values, b.n);
    offered += b.n;
  }
  EXPECT_GE(offered, BracketedSketch::kFirstBrackets + 1000);  // a batch classified against finite brackets
  const auto quantiles = merged.all_quantiles();
  const ResultsReader r(dir.file("c.h5"));
  ASSERT_NE(r.string_attribute("statistics", "quantile_method").find("sketch"), std::string::npos);
  const std::vector<double> file_quantiles = r.doubles("statistics/angular_velocity/quantiles").data;  // (T, 5, 3)
  const std::vector<double> file_means = r.doubles("statistics/angular_velocity/mean").data;           // (T, 3)
  const std::size_t n_times = std::size_t(s.output_times.n), n_p = kQuantileProbabilities.size();
  ASSERT_EQ(file_quantiles.size(), n_times * n_p * 3);
  for (std::size_t k = 0; k < n_times; ++k)
    for (std::size_t c = 0; c < 3; ++c) {
      const std::size_t column = k * quantity::count + quantity::angular_velocity + c;
      EXPECT_EQ(file_means[k * 3 + c], merged.moments()[column].mean) << k << " " << c;
      for (std::size_t j = 0; j < n_p; ++j)
        EXPECT_EQ(file_quantiles[(k * n_p + j) * 3 + c], quantiles[column][j]) << k << " " << c << " " << j;
    }
}

// Runs s into out in batches of `batch` and crashes once `rows` are done (an exception out of the
// run, as a kill -9 leaves it: the journal, and a statistics snapshot if one was taken).
void crash_after(const Scenario& s, const std::string& out, std::size_t batch, std::uint64_t rows) {
  RunOptions o = cpu_options(out, 2, batch);
  o.after_batch = [rows](std::uint64_t done) {
    if (done == rows) throw std::runtime_error("a crash");
  };
  EXPECT_THROW(run_scenario(s, o), std::runtime_error);
}

// A run journals no statistics in its records (a batch's quantities are every sample's values at
// every output time: 30 times its outputs here) but saves its statistics beside the journal
// every RBMC_JOURNAL_STATISTICS_INTERVAL seconds, whether its quantiles are sketched or exact,
// of every quantity or of some. After a crash (an exception out of the run, as a kill -9 leaves
// it: the journal and the snapshot), --resume replays the records up to the snapshot, integrates
// the rest again and gives the uninterrupted run's file: the sketches and the exact quantiles bit
// for bit. With no snapshot yet, the records are dropped and everything is integrated again.
struct JournalledStatistics {
  const char* name;
  const char* output;  // the [output] table's keys
  bool exact;
};

void PrintTo(const JournalledStatistics& p, std::ostream* os) { *os << p.name; }

class StatisticsJournalled : public ::testing::TestWithParam<JournalledStatistics> {};

TEST_P(StatisticsJournalled, AsSnapshotsBesideRecordsOfOutputsAlone) {
  const JournalledStatistics& param = GetParam();
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(1500, 0.5, 0.01) + "[output]\ninterval = 0.01\n" +
                                        param.output,
                                    "box.toml");
  run_scenario(s, cpu_options(dir.file("whole.h5"), 2, 256));
  const ResultsReader whole(dir.file("whole.h5"));
  ASSERT_NE(whole.string_attribute("statistics", "quantile_method").find(param.exact ? "exact" : "sketch"),
            std::string::npos);
  const std::uint64_t outputs_per_row = std::uint64_t(output_column_count(s.events.n));
  for (const char* interval : {"0", "1e9"}) {
    const std::string out = dir.file(std::string("r") + interval + ".h5"), journal = RunJournal::path_for(out);
    ::setenv("RBMC_JOURNAL_STATISTICS_INTERVAL", interval, 1);
    crash_after(s, out, 256, 1024);
    ::unsetenv("RBMC_JOURNAL_STATISTICS_INTERVAL");
    std::uint64_t journalled = 0, record_bytes = 0;
    RunJournal::for_each_record(journal, [&](const JournalBatch& b) {
      EXPECT_EQ(b.outputs.size(), outputs_per_row * b.n);
      journalled += b.n;
      record_bytes += 8 * b.outputs.size() + b.status.size() + 4 * b.kept.size() + 8 * b.trajectories.size() + 128;
      return true;
    });
    EXPECT_GE(journalled, 768u) << interval;
    // The records' bytes are their rows' outputs, statuses and kept trajectories, and a few
    // counts: format 1's moments and quantile values (51 times × 12 doubles a row here, with
    // every quantity's statistics) came on top.
    const std::optional<std::string> identity = RunJournal::read_identity(journal);
    ASSERT_TRUE(identity.has_value());
    EXPECT_LE(fs::file_size(journal), 16 + identity->size() + record_bytes) << interval;
    const std::optional<StatisticsSnapshot> snapshot = RunJournal::read_statistics_snapshot(journal, *identity);
    if (std::string(interval) == "0") {
      ASSERT_TRUE(snapshot.has_value());
      EXPECT_GE(snapshot->rows, 768u);  // after every batch whose record is whole
      EXPECT_LE(snapshot->rows, journalled);
      if (param.exact) {  // every row's values of the kept quantities' columns, and of no other
        std::uint64_t kept_columns = 0;
        for (int c = 0; c < quantity::count; ++c)
          kept_columns += quantity_column_in(s.output.statistics_quantities, c) ? std::uint64_t(s.output_times.n) : 0;
        std::uint64_t values = 0;
        for (std::uint64_t c : snapshot->state.value_counts) values += c;
        EXPECT_EQ(values, kept_columns * snapshot->rows);
      }
    } else {
      EXPECT_FALSE(snapshot.has_value());
    }
    RunOptions resume = cpu_options(out, 2, 0);
    resume.resume = true;
    std::uint64_t first_integrated = 0;  // the rows done after the first batch integrated on resume
    resume.after_batch = [&](std::uint64_t rows) {
      if (first_integrated == 0) first_integrated = rows;
    };
    run_scenario(s, resume);
    // Replayed up to the snapshot, the rest integrated again.
    EXPECT_EQ(first_integrated, (snapshot ? snapshot->rows : 0) + 256) << interval;
    EXPECT_FALSE(fs::exists(journal));
    EXPECT_FALSE(fs::exists(RunJournal::snapshot_path_for(journal)));
    const ResultsReader r(out);
    EXPECT_EQ(whole.doubles("samples/final/position").data, r.doubles("samples/final/position").data) << interval;
    for (const std::string quantity : {"angular_velocity", "kinetic_energy", "attitude_angle", "position"}) {
      if (!whole.has("statistics/" + quantity)) continue;
      for (const char* d : {"quantiles", "mean", "sd", "count"})
        EXPECT_EQ(whole.doubles("statistics/" + quantity + "/" + d).data, r.doubles("statistics/" + quantity + "/" + d).data)
            << quantity << "/" << d << " " << interval;
    }
  }
}

// An interrupted run resumed, that resume killed (its journal beside the first one's partial
// file), resumed again: the statistics are the partial file's, then the journal's snapshot's
// where it has one that the records reach, else the partial file's alone with the records'
// batches integrated again; exact quantiles bit for bit an uninterrupted run's either way (a
// snapshot's values must not replace the partial file's unless the snapshot is taken).
TEST(RunDriver, AResumeKilledAfterAnInterruptionResumesToTheUninterruptedStatistics) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(1500, 0.5, 0.01) + "[output]\ninterval = 0.01\n", "box.toml");
  run_scenario(s, cpu_options(dir.file("whole.h5"), 2, 256));
  const ResultsReader whole(dir.file("whole.h5"));
  ASSERT_NE(whole.string_attribute("statistics", "quantile_method").find("exact"), std::string::npos);
  for (const char* interval : {"0", "1e9"}) {  // a snapshot after every batch, or none
    const std::string out = dir.file(std::string("r") + interval + ".h5");
    RunOptions o = cpu_options(out, 2, 256);
    o.after_batch = [](std::uint64_t rows) {
      if (rows == 512) interrupt_requested() = true;
    };
    EXPECT_THROW(run_scenario(s, o), Interrupted);
    interrupt_requested() = false;
    ::setenv("RBMC_JOURNAL_STATISTICS_INTERVAL", interval, 1);
    RunOptions killed = cpu_options(out, 2, 0);
    killed.resume = true;
    killed.after_batch = [](std::uint64_t rows) {
      if (rows == 1024) throw std::runtime_error("a crash");
    };
    EXPECT_THROW(run_scenario(s, killed), std::runtime_error);
    ::unsetenv("RBMC_JOURNAL_STATISTICS_INTERVAL");
    ASSERT_TRUE(fs::exists(out + ".partial")) << interval;
    RunOptions resume = cpu_options(out, 2, 0);
    resume.resume = true;
    run_scenario(s, resume);
    const ResultsReader r(out);
    for (const std::string quantity : {"angular_velocity", "kinetic_energy", "attitude_angle", "position"})
      for (const char* d : {"quantiles", "mean", "sd", "count"})
        EXPECT_EQ(whole.doubles("statistics/" + quantity + "/" + d).data, r.doubles("statistics/" + quantity + "/" + d).data)
            << quantity << "/" << d << " " << interval;
  }
}

INSTANTIATE_TEST_SUITE_P(
    RunDriver, StatisticsJournalled,
    ::testing::Values(JournalledStatistics{"Sketched", "quantile_memory_mb = 1\n", false},
                      JournalledStatistics{"Exact", "", true},
                      // Some quantities' statistics: the snapshot holds their values alone.
                      JournalledStatistics{"ExactOfSomeQuantities", "statistics = [\"attitude_angle\"]\n", true}),
    [](const ::testing::TestParamInfo<JournalledStatistics>& info) { return std::string(info.param.name); });

// A journal left by a build whose draws differ (its identity names another draw revision, or
// none, as before the revision was recorded) is not replayed: its samples' draws and the rest's
// would differ in their last bits. The refusal names both revisions and keeps the journal.
TEST(RunDriver, AJournalOfABuildWhoseDrawsDifferIsNotResumed) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(64, 0.2, 0.01), "box.toml");
  const std::string out = dir.file("r.h5"), journal = RunJournal::path_for(out);
  RunOptions o = cpu_options(out, 2, 16);
  o.after_batch = [](std::uint64_t rows) {
    if (rows == 32) throw std::runtime_error("a crash");
  };
  EXPECT_THROW(run_scenario(s, o), std::runtime_error);
  const std::optional<std::string> identity = RunJournal::read_identity(journal);
  ASSERT_TRUE(identity.has_value());
  const std::string draws_line = "\ndraws " + std::to_string(kDrawRevision) + "\n";
  const std::size_t at = identity->find(draws_line);
  ASSERT_NE(at, std::string::npos) << *identity;
  { RunJournal older(journal, identity->substr(0, at) + identity->substr(at + draws_line.size() - 1)); }
  RunOptions resume = cpu_options(out, 2, 0);
  resume.resume = true;
  try {
    run_scenario(s, resume);
    ADD_FAILURE() << "replayed a journal drawn by another build";
  } catch (const UsageError& e) {
    const std::string refused = "draws differ (draw revision 1; this build's is " + std::to_string(kDrawRevision) + ")";
    EXPECT_NE(std::string(e.what()).find(refused), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(journal));
}

// The environment's intervals are read like the command line's options: a value that is not a
// number of seconds is a UsageError naming the variable and the value, raised before any file is
// written; RBMC_JOURNAL_STATISTICS_INTERVAL="abc" once meant 0 (a snapshot after every batch)
// and RBMC_PROGRESS_INTERVAL="10s" 10.
TEST(RunDriver, AnIntervalInTheEnvironmentThatIsNotSecondsIsAnErrorBeforeAnyFile) {
  const char* name = "RBMC_TEST_INTERVAL";
  ::unsetenv(name);
  EXPECT_EQ(seconds_from_environment(name, 7.0), 7.0);
  for (const auto& [text, seconds] : std::vector<std::pair<const char*, double>>{
           {"", 7.0}, {"0", 0.0}, {"0.5", 0.5}, {"1e3", 1000.0}, {" 2 ", 2.0}}) {
    ::setenv(name, text, 1);
    EXPECT_EQ(seconds_from_environment(name, 7.0), seconds) << "'" << text << "'";
  }
  ::unsetenv(name);
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(64, 0.5, 0.01), "box.toml");
  for (const char* variable : {"RBMC_PROGRESS_INTERVAL", "RBMC_JOURNAL_STATISTICS_INTERVAL"})
    for (const char* bad : {"abc", "10s", "-1", "inf", "nan", "1e999", "0x"}) {
      ::setenv(variable, bad, 1);
      try {
        run_scenario(s, cpu_options(dir.file("r.h5"), 2, 16));
        ADD_FAILURE() << variable << "=" << bad << " was accepted";
      } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(std::string(variable) + "='" + bad + "'"), std::string::npos) << e.what();
      }
      ::unsetenv(variable);
      EXPECT_TRUE(fs::is_empty(dir.path())) << variable << "=" << bad << " left a file behind";
    }
  run_scenario(s, cpu_options(dir.file("r.h5"), 2, 16));  // and unset, the defaults run
  EXPECT_TRUE(fs::exists(dir.file("r.h5")));
}

// The retention limit holds across a resume: 20 trajectories kept before the interruption (the
// first 20 samples, in the first two batches of 16) and none after it. Once, the resumed run
// kept 20 more, and n_trajectories counted only those.
TEST(RunDriver, AResumedRunKeepsTheTrajectoryLimit) {
  test::TempDir dir;
  std::string text = test::valid_scenario_text(100, 0.5, 0.01);
  text += "[output]\ninterval = 0.1\ntrajectories = { limit = 20 }\n";
  const Scenario s = parse_scenario(text, "box.toml");
  run_scenario(s, cpu_options(dir.file("whole.h5"), 2, 16));
  RunOptions o = cpu_options(dir.file("r.h5"), 2, 16);
  o.after_batch = [](std::uint64_t rows) {
    if (rows == 64) interrupt_requested() = true;
  };
  EXPECT_THROW(run_scenario(s, o), Interrupted);
  interrupt_requested() = false;
  RunOptions resume = cpu_options(dir.file("r.h5"), 2, 0);
  resume.resume = true;
  run_scenario(s, resume);
  const ResultsReader a(dir.file("whole.h5")), b(dir.file("r.h5"));
  EXPECT_EQ(b.uint64s("trajectories/sample_index").data.size(), 20u);
  EXPECT_EQ(b.number_attribute("", "n_trajectories"), 20);
  EXPECT_EQ(a.uint64s("trajectories/sample_index").data, b.uint64s("trajectories/sample_index").data);
  EXPECT_EQ(a.doubles("trajectories/angular_velocity").data, b.doubles("trajectories/angular_velocity").data);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// Loads reach the integrator: a body at rest under a body-fixed torque τ along its principal z
// axis spins up as ω_z = τ t / I_z, which RK4 integrates exactly (a linear function of time).
TEST(RunDriverLoads, BodyTorqueSpinsTheBodyUp) {
  test::TempDir dir;
  const Scenario s = parse_scenario(R"([run]
samples = 3
duration = 2.0
step = 0.01
[body]
mass = 2.0
inertia = [[1, 0, 0], [0, 2, 0], [0, 0, 2.5]]
[[loads]]
type = "torque"
torque = [0.0, 0.0, 0.5]
frame = "body"
)",
                                    "torque.toml");
  RunOptions o;
  o.output = dir.file("t.h5");
  o.backend = BackendChoice::cpu;
  o.progress = false;
  run_scenario(s, o);
  const auto w = ResultsReader(o.output).doubles("samples/final/angular_velocity").data;
  EXPECT_NEAR(w[2], 0.5 * 2.0 / 2.5, 1e-13);
  EXPECT_EQ(w[0], 0.0);
}

// A dispersed load parameter reaches each sample's integration: a mass on a spring to the origin
// with stiffness drawn per sample oscillates as x0 cos(√(k/m) t), k read back from the file.
// RK4's phase error on the oscillator bounds the position error by x0 T ω (ωh)^4 / 120.
TEST(RunDriverLoads, DispersedSpringStiffnessGivesEachSamplesPeriod) {
  test::TempDir dir;
  const Scenario s = parse_scenario(R"([run]
samples = 64
duration = 2.0
step = 0.002
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
position = [0.3, 0.0, 0.0]
[[loads]]
type = "spring"
anchor = [0.0, 0.0, 0.0]
stiffness = 50.0
[dispersions]
loads.0.stiffness = { distribution = "uniform", min = 10.0, max = 200.0 }
[design]
type = "latin_hypercube"
)",
                                    "spring.toml");
  RunOptions o;
  o.output = dir.file("s.h5");
  o.backend = BackendChoice::cpu;
  o.progress = false;
  run_scenario(s, o);
  const ResultsReader r(o.output);
  const auto k = r.doubles("samples/params/loads.0.stiffness").data;
  const auto p = r.doubles("samples/final/position").data;
  ASSERT_EQ(k.size(), 64u);
  for (std::size_t i = 0; i < k.size(); ++i) {
    const double omega = std::sqrt(k[i] / 2.0), wh = omega * 0.002;
    EXPECT_NEAR(p[3 * i], 0.3 * std::cos(omega * 2.0), 0.3 * 2.0 * omega * std::pow(wh, 4) / 120 + 1e-13) << k[i];
  }
  EXPECT_NE(k[0], k[1]);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

std::string read_config(const std::string& name) {
  std::ifstream in(std::string(RBMC_SOURCE_DIR) + "/configs/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// configs/physical_pendulum.toml run for a quarter period: the rod hangs vertically, its centre
// of mass at x = 0, and the pivot carries m g + m ω² ξ = 2.5 m g (ω² = 2 m g ξ / J at the bottom).
TEST(RunDriverConstraints, PendulumScenarioAfterAQuarterPeriod) {
  std::string text = read_config("physical_pendulum.toml");
  const double quarter = std::sqrt((1.0 / 3) / (9.81 * 0.5)) * 1.8540746773013719;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"samples = 10000", "samples = 2"},
                                 {"duration = 7.0", "duration = " + std::to_string(quarter)},
                                 {"step = 0.001", "step = " + std::to_string(quarter / 400)}}) {
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text.replace(text.find(from), from.size(), to);
  }
  text = text.substr(0, text.find("[dispersions]"));
  test::TempDir dir;
  RunOptions o;
  o.output = dir.file("p.h5");
  o.backend = BackendChoice::cpu;
  o.progress = false;
  const Scenario s = parse_scenario(text, "pendulum.toml");
  run_scenario(s, o);
  const ResultsReader r(o.output);
  const auto p = r.doubles("samples/final/position").data, v = r.doubles("samples/final/velocity").data;
  const auto reaction = r.doubles("samples/final/reaction_force").data;
  // to_string keeps 6 decimals of the quarter period: the time is right to ~1e-6 s.
  EXPECT_LE(std::abs(p[0]) / std::abs(v[0]), 2e-6);
  EXPECT_NEAR(reaction[2], 2.5 * 10 * 9.81, 1e-4 * 2.5 * 10 * 9.81);
  EXPECT_NEAR(reaction[0], 0.0, 1e-2);
  // The energy of this conservative pendulum is conserved; the initial state was on the pivot.
  const auto drift = r.doubles("samples/diagnostics/energy_drift").data;
  EXPECT_LE(std::abs(drift[0]), 1e-9);
  EXPECT_FALSE(r.has("samples/diagnostics/angular_momentum_drift"));
  const auto p0 = r.doubles("samples/initial/position").data;
  EXPECT_NEAR(p0[0], 0.5, 1e-15);
}

// A torque-free run records both drifts, each within RK4's bound for its step.
TEST(RunDriverConstraints, FreeBodyRecordsItsInvariantsDrift) {
  test::TempDir dir;
  std::string text = test::valid_scenario_text(20, 2.0, 0.005);
  RunOptions o;
  o.output = dir.file("f.h5");
  o.backend = BackendChoice::cpu;
  o.progress = false;
  run_scenario(parse_scenario(text, "free.toml"), o);
  const ResultsReader r(o.output);
  const double w = 3.1, h = 0.005, duration = 2.0;
  const double bound = duration * w * std::pow(w * h, 4) / 120 + 1e-13;
  for (double d : r.doubles("samples/diagnostics/angular_momentum_drift").data) EXPECT_LE(std::abs(d), bound);
  for (double d : r.doubles("samples/diagnostics/energy_drift").data) EXPECT_LE(std::abs(d), bound);
  EXPECT_FALSE(r.has("samples/final/reaction_force"));
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// An adaptive run records each sample's step counts, and the same seed gives the same counts.
TEST(RunDriverIntegrators, AdaptiveRunRecordsStepCounts) {
  test::TempDir dir;
  std::string text = test::valid_scenario_text(30, 2.0, 0.05);
  text.replace(text.find("step = "), 0, "integrator = \"dopri5\"\nrtol = 1e-8\n");
  const Scenario s = parse_scenario(text, "a.toml");
  RunOptions o;
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.output = dir.file("a.h5");
  run_scenario(s, o);
  o.output = dir.file("b.h5");
  o.threads = 1;
  o.batch_size = 7;
  run_scenario(s, o);
  const ResultsReader a(dir.file("a.h5")), b(dir.file("b.h5"));
  const auto steps = a.doubles("samples/final/steps").data;
  for (double n : steps) EXPECT_GT(n, 5);
  EXPECT_EQ(steps, b.doubles("samples/final/steps").data);
  EXPECT_EQ(a.doubles("samples/final/angular_velocity").data, b.doubles("samples/final/angular_velocity").data);
  for (double t : a.doubles("samples/final/time").data) EXPECT_EQ(t, 2.0);
  EXPECT_EQ(a.string_attribute("", "integrator"), "dopri5");
  EXPECT_EQ(a.number_attribute("", "rtol"), 1e-8);
  // The steps taken, not duration / first step (40 here): each sample's own, and their mean.
  EXPECT_FALSE(a.has_attribute("", "n_steps"));
  double total = 0;
  for (double n : steps) total += n;
  EXPECT_DOUBLE_EQ(a.number_attribute("", "mean_steps"), total / 30);
  EXPECT_EQ(a.number_attribute("", "total_steps"), total);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// Events reach the file: a terminal ground contact per sample, with its time and state, and an
// event that never happens recorded as NaN with count 0.
TEST(RunDriverEvents, EventsAreWrittenPerSample) {
  test::TempDir dir;
  std::string text = test::valid_scenario_text(25, 3.0, 0.01) + R"(
[[events]]
name = "ground"
type = "point_crossing"
point = [0.0, 0.0, 0.0]
axis = "z"
value = 0.0
direction = "falling"
terminal = true

[[events]]
name = "never"
type = "angular_rate_below"
rate = 0.001
)";
  // The origin at the centre of mass, so that it flies a parabola whatever the spin.
  text.replace(text.find("center_of_mass = [0.01, 0.0, -0.02]"), 35, "center_of_mass = [0.0, 0.0, 0.0]");
  text.erase(text.find("body.center_of_mass = "), text.find("initial.angular_velocity = ") - text.find("body.center_of_mass = "));
  RunOptions o;
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.output = dir.file("e.h5");
  run_scenario(parse_scenario(text, "e.toml"), o);
  const ResultsReader r(o.output);
  const auto status = r.uint8s("samples/status").data;
  const auto time = r.doubles("samples/final/time").data, event_time = r.doubles("samples/events/ground/time").data;
  const auto z = r.doubles("samples/events/ground/position").data;
  const auto stopping = r.doubles("samples/final/stopping_event").data;
  for (std::size_t k = 0; k < status.size(); ++k) {
    // From z = 10 at 2 m/s upward: t* = (2 + √(4 + 2 · 9.81 · 10)) / 9.81 = 1.6502 s.
    EXPECT_EQ(status[k], static_cast<std::uint8_t>(SampleStatus::terminal_event));
    EXPECT_NEAR(time[k], (2 + std::sqrt(4 + 2 * 9.81 * 10)) / 9.81, 1e-9);
    EXPECT_EQ(event_time[k], time[k]);
    EXPECT_NEAR(z[3 * k + 2], 0.0, 1e-9);
    EXPECT_EQ(stopping[k], 0);
  }
  for (double t : r.doubles("samples/events/never/time").data) EXPECT_TRUE(std::isnan(t));
  for (double c : r.doubles("samples/events/never/count").data) EXPECT_EQ(c, 0);
  EXPECT_EQ(r.number_attribute("", "n_status_terminal_event"), 25);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// Trajectories: (N, times, dim) with the initial state at t = 0 and the final one at the end.
TEST(RunDriverOutput, TrajectoriesAtOutputTimes) {
  test::TempDir dir;
  const std::string text = test::valid_scenario_text(12, 0.5, 0.01) + "[output]\ninterval = 0.1\n";
  RunOptions o;
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.output = dir.file("t.h5");
  run_scenario(parse_scenario(text, "t.toml"), o);
  const ResultsReader r(o.output);
  const auto time = r.doubles("trajectories/time");
  ASSERT_EQ(time.shape, (std::vector<std::uint64_t>{6}));
  const auto p = r.doubles("trajectories/position"), q = r.doubles("trajectories/orientation");
  ASSERT_EQ(p.shape, (std::vector<std::uint64_t>{12, 6, 3}));
  ASSERT_EQ(q.shape, (std::vector<std::uint64_t>{12, 6, 4}));
  const auto p0 = r.doubles("samples/initial/position").data, p1 = r.doubles("samples/final/position").data;
  for (std::size_t i = 0; i < 12; ++i)
    for (std::size_t c = 0; c < 3; ++c) {
      EXPECT_EQ(p.data[(i * 6 + 0) * 3 + c], p0[i * 3 + c]);
      EXPECT_EQ(p.data[(i * 6 + 5) * 3 + c], p1[i * 3 + c]);
    }
  EXPECT_EQ(r.uint64s("trajectories/sample_index").data[11], 11u);
  EXPECT_EQ(r.string_attribute("trajectories/velocity", "units"), "m/s");
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

TEST(SampleSelection, IndicesAndRanges) {
  EXPECT_EQ(parse_sample_selection("17,42,1000-1003", 2000),
            (std::vector<std::uint64_t>{17, 42, 1000, 1001, 1002, 1003}));
  EXPECT_EQ(parse_sample_selection("5,3,4-6", 10), (std::vector<std::uint64_t>{3, 4, 5, 6}));
  for (const char* bad : {"a", "5-3", "1,,2", "-4", "3-", "10", "1e3"})
    EXPECT_THROW(parse_sample_selection(bad, 10), UsageError) << bad;
}

// --only reruns exactly those samples: equal, bit for bit, to their rows of the full run,
// trajectories included, with /samples/index holding the global indices.
TEST(SampleSelection, RerunEqualsTheFullRunBitForBit) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(64, 0.5, 0.01) + "[output]\ninterval = 0.1\n", "o.toml");
  RunOptions o;
  o.backend = BackendChoice::cpu;
  o.progress = false;
  o.output = dir.file("all.h5");
  run_scenario(s, o);
  o.output = dir.file("some.h5");
  o.only = {3, 17, 40, 41, 42, 63};
  o.threads = 1;
  run_scenario(s, o);
  const ResultsReader all(dir.file("all.h5")), some(dir.file("some.h5"));
  EXPECT_EQ(some.uint64s("samples/index").data, o.only);
  EXPECT_EQ(some.number_attribute("", "n_samples"), 6);
  EXPECT_EQ(some.number_attribute("", "n_samples_in_run"), 64);
  for (const auto& [d, width] : {std::pair<const char*, std::size_t>{"samples/final/orientation", 4},
                                 {"samples/final/angular_velocity", 3},
                                 {"samples/body/inertia", 9},
                                 {"trajectories/position", 18}}) {
    const auto a = all.doubles(d).data, b = some.doubles(d).data;
    for (std::size_t row = 0; row < o.only.size(); ++row)
      for (std::size_t c = 0; c < width; ++c) EXPECT_EQ(b[row * width + c], a[o.only[row] * width + c]) << d;
  }
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// Samples that diverge (a spring whose stiffness is lognormal with log σ = 6 reaches k ~ 1e15,
// where RK4 at 0.01 s is unstable) overflow their quantities before their state turns
// non-finite. Their infinities are counted per output time and left out: mean, sd, min, max and
// quantiles stay finite; count (a uint64) plus non_finite_count never exceeds the samples.
TEST(RunDriverStatistics, InfinitiesAreCountedAndLeftOut) {
  test::TempDir dir;
  const Scenario s = parse_scenario(R"([run]
samples = 400
duration = 2.0
step = 0.01
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[initial]
position = [0.3, 0.0, 0.0]
[[loads]]
type = "spring"
anchor = [0.0, 0.0, 0.0]
stiffness = 50.0
[dispersions]
loads.0.stiffness = { distribution = "lognormal", log_sigma = 6 }
[output]
interval = 0.1
)",
                                    "spring.toml");
  run_scenario(s, cpu_options(dir.file("r.h5"), 2, 64));
  const ResultsReader r(dir.file("r.h5"));
  std::uint64_t overflowed = 0;
  for (const char* q : {"kinetic_energy", "potential_energy", "velocity", "position"}) {
    const std::string g = std::string("statistics/") + q;
    for (const char* d : {"/mean", "/sd", "/min", "/max", "/quantiles"})
      for (double v : r.doubles(g + d).data) ASSERT_TRUE(std::isfinite(v)) << g << d;
    const std::vector<std::uint64_t> count = r.uint64s(g + "/count").data,
                                     non_finite = r.uint64s(g + "/non_finite_count").data;
    const std::size_t dim = non_finite.size() / count.size();
    for (std::size_t k = 0; k < count.size(); ++k)
      for (std::size_t c = 0; c < dim; ++c) {
        EXPECT_LE(count[k] + non_finite[k * dim + c], 400u) << g << " at time " << k;
        overflowed += non_finite[k * dim + c];
      }
    // Stored as unsigned integers.
    const hid_t file = H5Fopen(dir.file("r.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t ds = H5Dopen2(file, (g + "/count").c_str(), H5P_DEFAULT);
    const hid_t type = H5Dget_type(ds);
    EXPECT_EQ(H5Tget_class(type), H5T_INTEGER);
    EXPECT_EQ(H5Tget_sign(type), H5T_SGN_NONE);
    H5Tclose(type);
    H5Dclose(ds);
    H5Fclose(file);
  }
  EXPECT_GT(overflowed, 0u) << "no sample overflowed: the test no longer exercises infinities";
  EXPECT_GT(r.number_attribute("", "n_status_non_finite_state"), 0);
}

// The accuracy guard: a free body spun at up to 100 rad/s per axis with RK4 at 0.01 s (ω h up to
// 1.7, where RK4's error per step, ~(ω h)⁵/120, is no longer small) keeps status ok only where its energy and angular momentum drifted by
// less than the limits (1e-3 by default); the rest end inaccurate, and the counts say so. With
// the limits at 0 the guard is off.
TEST(RunDriverAccuracy, DriftBeyondTheLimitsIsFlaggedInaccurate) {
  test::TempDir dir;
  const std::string text = R"([run]
samples = 200
duration = 1.0
step = 0.01
LIMITS
[body]
mass = 2.0
inertia = [[0.1, 0, 0], [0, 0.2, 0], [0, 0, 0.25]]
[dispersions]
initial.angular_velocity = { distribution = "uniform", min = -100.0, max = 100.0 }
)";
  const auto with = [&](const std::string& limits) {
    std::string t = text;
    return parse_scenario(t.replace(t.find("LIMITS"), 6, limits), "spin.toml");
  };
  const RunSummary guarded = run_scenario(with(""), cpu_options(dir.file("a.h5"), 2, 0));
  const ResultsReader a(dir.file("a.h5"));
  const auto status = a.uint8s("samples/status").data;
  const auto energy = a.doubles("samples/diagnostics/energy_drift").data,
             momentum = a.doubles("samples/diagnostics/angular_momentum_drift").data;
  std::uint64_t inaccurate = 0;
  for (std::size_t i = 0; i < status.size(); ++i) {
    const bool within = std::abs(energy[i]) <= 1e-3 && momentum[i] <= 1e-3;
    if (status[i] == std::uint8_t(SampleStatus::ok)) EXPECT_TRUE(within) << i;
    if (status[i] == std::uint8_t(SampleStatus::inaccurate)) {
      EXPECT_FALSE(within) << i;
      ++inaccurate;
    }
  }
  EXPECT_GT(inaccurate, 10u);
  EXPECT_GT(guarded.totals.status_counts[std::size_t(SampleStatus::ok)], 10u);
  EXPECT_EQ(guarded.totals.status_counts[std::size_t(SampleStatus::inaccurate)], inaccurate);
  EXPECT_EQ(a.number_attribute("", "n_status_inaccurate"), double(inaccurate));
  const RunSummary off = run_scenario(with("max_energy_drift = 0\nmax_momentum_drift = 0"),
                                      cpu_options(dir.file("b.h5"), 2, 0));
  EXPECT_EQ(off.totals.status_counts[std::size_t(SampleStatus::inaccurate)], 0u);
  EXPECT_THROW(with("max_energy_drift = -1"), ScenarioError);
}

// --samples on a grid design sets the replicates of every point; a count that is not a multiple
// of the points is refused with the reason (it once ran point 0 and part of point 1).
TEST(RunDriverDesign, SamplesOnAGridAreReplicatesOfEveryPoint) {
  test::TempDir dir;
  std::ifstream in(std::string(RBMC_SOURCE_DIR) + "/configs/spin_sweep.toml");
  std::stringstream text;
  text << in.rdbuf();
  const Scenario s = parse_scenario(text.str(), "spin_sweep.toml");
  const std::uint64_t points = s.design.n_points();
  RunOptions o = cpu_options(dir.file("r.h5"), 2, 0);
  o.samples = points + 1;
  try {
    run_scenario(s, o);
    ADD_FAILURE() << "not refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of " + std::to_string(points)), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.file("r.h5")));
  o.samples = 3 * points;
  run_scenario(s, o);
  const ResultsReader r(dir.file("r.h5"));
  const auto grid = r.doubles("samples/grid_index").data;
  const std::size_t axes = grid.size() / (3 * points);
  // Every point three times, in order: rows 3p, 3p + 1, 3p + 2 are point p.
  for (std::size_t row = 0; row < 3 * points; ++row)
    EXPECT_EQ(grid[row * axes], grid[(row / 3) * 3 * axes]) << row;
  EXPECT_EQ(r.number_attribute("design", "replicates"), 3);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// Trajectories go to the file in chunks compressed on several threads: whatever the batches and
// threads, the file holds the same values bit for bit, their first and last times equal the
// initial and final states, and the datasets declare HDF5's own filters (any reader reads them).
TEST(RunDriverOutput, CompressedTrajectoriesDoNotDependOnBatchesOrThreads) {
  test::TempDir dir;
  // 51 output times (two time chunks) of 800 samples (three sample chunks).
  const std::string text = test::valid_scenario_text(800, 0.5, 0.01) + "[output]\ninterval = 0.01\n";
  const Scenario s = parse_scenario(text, "t.toml");
  run_scenario(s, cpu_options(dir.file("a.h5"), 1, 800));
  run_scenario(s, cpu_options(dir.file("b.h5"), 3, 97));
  const ResultsReader a(dir.file("a.h5")), b(dir.file("b.h5"));
  for (const char* d : {"trajectories/position", "trajectories/orientation", "trajectories/velocity",
                        "trajectories/angular_velocity"})
    EXPECT_EQ(a.doubles(d).data, b.doubles(d).data) << d;
  const auto w = a.doubles("trajectories/angular_velocity");
  ASSERT_EQ(w.shape, (std::vector<std::uint64_t>{800, 51, 3}));
  const auto w0 = a.doubles("samples/initial/angular_velocity").data, w1 = a.doubles("samples/final/angular_velocity").data;
  for (std::size_t i = 0; i < 800; ++i)
    for (std::size_t c = 0; c < 3; ++c) {
      ASSERT_EQ(w.data[(i * 51 + 0) * 3 + c], w0[i * 3 + c]) << i;
      ASSERT_EQ(w.data[(i * 51 + 50) * 3 + c], w1[i * 3 + c]) << i;
    }
  h5::initialize();
  h5::Handle file(H5Fopen(dir.file("a.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open");
  h5::Handle ds(H5Dopen2(file.get(), "trajectories/position", H5P_DEFAULT), H5Dclose, "open position");
  h5::Handle plist(H5Dget_create_plist(ds.get()), H5Pclose, "plist");
  ASSERT_EQ(H5Pget_nfilters(plist.get()), 2);
  unsigned flags = 0;
  std::size_t n = 0;
  EXPECT_EQ(H5Pget_filter2(plist.get(), 0, &flags, &n, nullptr, 0, nullptr, nullptr), H5Z_FILTER_SHUFFLE);
  n = 0;  // in: room for no parameters
  EXPECT_EQ(H5Pget_filter2(plist.get(), 1, &flags, &n, nullptr, 0, nullptr, nullptr), H5Z_FILTER_DEFLATE);
}

// [output] compression = "none" stores the trajectories' chunks as they are: the same values bit
// for bit as deflated ones, in both storages, resumed after an interruption too, in datasets that
// declare no filter and take every byte of their chunks; the file is then larger, and rbmc info
// says which it holds.
TEST(RunDriverOutput, UncompressedTrajectoriesHoldTheSameValues) {
  test::TempDir dir;
  const std::string text = test::valid_scenario_text(800, 0.5, 0.01) + "[output]\ninterval = 0.01\n";
  const char* parts[] = {"trajectories/position", "trajectories/orientation", "trajectories/velocity",
                         "trajectories/angular_velocity"};
  for (const std::string storage : {"", "storage = \"float32\"\n"}) {
    SCOPED_TRACE(storage.empty() ? "float64" : "float32");
    const Scenario deflated = parse_scenario(text + storage, "t.toml");
    const Scenario stored = parse_scenario(text + storage + "compression = \"none\"\n", "t.toml");
    RunOptions a = cpu_options(dir.file("deflated.h5"), 2, 300), b = cpu_options(dir.file("stored.h5"), 2, 300);
    a.overwrite = b.overwrite = true;
    run_scenario(deflated, a);
    b.after_batch = [](std::uint64_t rows) {
      if (rows == 300) interrupt_requested() = true;
    };
    EXPECT_THROW(run_scenario(stored, b), Interrupted);
    interrupt_requested() = false;
    b.after_batch = nullptr;
    b.resume = true;
    run_scenario(stored, b);
    const ResultsReader x(dir.file("deflated.h5")), y(dir.file("stored.h5"));
    for (const char* d : parts) EXPECT_EQ(x.doubles(d).data, y.doubles(d).data) << d;
    h5::initialize();
    h5::Handle file(H5Fopen(dir.file("stored.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open");
    h5::Handle ds(H5Dopen2(file.get(), "trajectories/velocity", H5P_DEFAULT), H5Dclose, "open velocity");
    h5::Handle plist(H5Dget_create_plist(ds.get()), H5Pclose, "plist");
    EXPECT_EQ(H5Pget_nfilters(plist.get()), 0);
    hsize_t chunk[3];
    ASSERT_EQ(H5Pget_chunk(plist.get(), 3, chunk), 3);
    const hsize_t element = storage.empty() ? 8 : 4;  // 800 rows, 51 times: whole chunks of each
    const hsize_t chunks = (800 + chunk[0] - 1) / chunk[0] * ((51 + chunk[1] - 1) / chunk[1]);
    EXPECT_EQ(H5Dget_storage_size(ds.get()), chunks * chunk[0] * chunk[1] * chunk[2] * element);
    EXPECT_GT(fs::file_size(dir.file("stored.h5")), fs::file_size(dir.file("deflated.h5")));
    // rbmc info says which.
    EXPECT_EQ(read_results_info(dir.file("stored.h5")).trajectory_compression, OutputSettings::Compression::none);
    EXPECT_EQ(read_results_info(dir.file("deflated.h5")).trajectory_compression, OutputSettings::Compression::deflate);
  }
  const std::string none = test::valid_scenario_text(100, 0.5, 0.01) + "[output]\ninterval = 0.1\ntrajectories = \"none\"\n";
  RunOptions o = cpu_options(dir.file("none.h5"), 2, 0);
  run_scenario(parse_scenario(none, "n.toml"), o);
  EXPECT_FALSE(read_results_info(dir.file("none.h5")).trajectory_compression.has_value());
}

// rbmc info's table of final states: each row's mean and standard deviation are those of the
// dataset's values (a two-pass sum in long double, the reference); a row of one number (every
// sample ends at the duration) has that number as its mean and a standard deviation of 0, exactly.
TEST(RunDriverOutput, InfoGivesTheFinalStatesMeanAndSpread) {
  test::TempDir dir;
  run_scenario(parse_scenario(test::valid_scenario_text(300, 0.5, 0.01), "t.toml"), cpu_options(dir.file("r.h5"), 2, 64));
  const ResultsInfo info = read_results_info(dir.file("r.h5"));
  const ResultsReader r(dir.file("r.h5"));
  const std::vector<double> time = r.doubles("samples/final/time").data, position = r.doubles("samples/final/position").data;
  ASSERT_EQ(time.size(), 300u);
  for (double t : time) ASSERT_EQ(t, time[0]);
  const auto row = [&](const std::string& quantity) {
    for (const ResultsInfo::Row& x : info.final_state)
      if (x.quantity == quantity) return x;
    ADD_FAILURE() << "no row " << quantity;
    return ResultsInfo::Row{};
  };
  EXPECT_EQ(row("time").mean, time[0]);
  EXPECT_EQ(row("time").sd, 0.0);
  long double sum = 0, squares = 0;
  for (std::size_t i = 0; i < 300; ++i) sum += position[3 * i];
  const long double mean = sum / 300;
  for (std::size_t i = 0; i < 300; ++i) squares += (position[3 * i] - mean) * (position[3 * i] - mean);
  const double sd = double(std::sqrt(squares / 299));
  ASSERT_GT(sd, 0.0);
  // Both in double over 300 values: a few hundred roundings of 1.1e-16 relative at the most.
  EXPECT_NEAR(row("position.x").mean, double(mean), 1e-13 * sd + 1e-13 * std::abs(double(mean)));
  EXPECT_NEAR(row("position.x").sd, sd, 1e-12 * sd);
}

// [output] samples keeps only the datasets named (and index and status); storage = "float32"
// stores the same numbers rounded to single precision, in half the bytes.
TEST(RunDriverOutput, SamplesAndFloat32StorageChooseWhatTheFileKeeps) {
  test::TempDir dir;
  const std::string base = test::valid_scenario_text(300, 0.5, 0.01);
  run_scenario(parse_scenario(base, "t.toml"), cpu_options(dir.file("full.h5"), 2, 64));
  run_scenario(parse_scenario(base + "[output]\nsamples = [\"final/position\", \"body/mass\"]\nstorage = \"float32\"\n", "t.toml"),
               cpu_options(dir.file("small.h5"), 2, 64));
  const ResultsReader full(dir.file("full.h5")), small(dir.file("small.h5"));
  EXPECT_TRUE(small.has("samples/index"));
  EXPECT_TRUE(small.has("samples/status"));
  EXPECT_FALSE(small.has("samples/final/velocity"));
  EXPECT_FALSE(small.has("samples/initial/position"));
  EXPECT_EQ(small.uint8s("samples/status").data, full.uint8s("samples/status").data);
  for (const char* d : {"samples/final/position", "samples/body/mass"}) {
    const std::vector<double> f = full.doubles(d).data, s = small.doubles(d).data;
    ASSERT_EQ(f.size(), s.size()) << d;
    for (std::size_t i = 0; i < f.size(); ++i) ASSERT_EQ(s[i], double(float(f[i]))) << d << " " << i;
  }
  EXPECT_EQ(small.string_attribute("", "storage").rfind("float32", 0), 0u);
  EXPECT_LT(std::filesystem::file_size(dir.file("small.h5")), std::filesystem::file_size(dir.file("full.h5")) / 3);
}

// The file records the wall time of each stage (rbmc run --timings prints them).
TEST(RunDriverOutput, StageTimingsAreRecorded) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(200, 0.5, 0.01) + "[output]\ninterval = 0.1\n", "t.toml");
  const RunSummary summary = run_scenario(s, cpu_options(dir.file("a.h5"), 2, 64));
  EXPECT_GT(summary.totals.stage_seconds[Stage::integrate], 0.0);
  EXPECT_GT(summary.totals.stage_seconds[Stage::statistics], 0.0);
  EXPECT_GT(summary.totals.stage_seconds[Stage::compress], 0.0);
  // Before the first batch (the backend, the file, the statistics): a part of the wall that the
  // batches' stages, on the same thread after it, do not overlap.
  EXPECT_GT(summary.totals.stage_seconds[Stage::setup], 0.0);
  EXPECT_LE(summary.totals.stage_seconds[Stage::setup] + summary.totals.stage_seconds[Stage::integrate],
            summary.totals.wall_seconds);
  EXPECT_EQ(summary.totals.statistics_merging_seconds, 0.0);  // the CPU's statistics merge on the driver's thread
  EXPECT_GT(summary.totals.statistics_final_seconds, 0.0);    // the final quantiles and their write
  EXPECT_LT(summary.totals.statistics_final_seconds, summary.totals.stage_seconds[Stage::statistics]);
  // Without output times a run has no statistics, and --timings says nothing of them.
  const Scenario plain = parse_scenario(test::valid_scenario_text(200, 0.5, 0.01), "p.toml");
  EXPECT_EQ(run_scenario(plain, cpu_options(dir.file("p.h5"), 2, 64)).totals.statistics_final_seconds, 0.0);
  const ResultsReader r(dir.file("a.h5"));
  for (const char* stage : kStageNames) EXPECT_GE(r.number_attribute("timings", stage), 0.0) << stage;
  EXPECT_EQ(r.number_attribute("timings", "integrate"), summary.totals.stage_seconds[Stage::integrate]);
  EXPECT_LE(r.number_attribute("timings", "integrate"), summary.totals.wall_seconds);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// The bytes of a dataset's storage in a file.
std::uint64_t stored_bytes(const std::string& file, const std::string& dataset) {
  h5::Handle f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open");
  h5::Handle d(H5Dopen2(f.get(), dataset.c_str(), H5P_DEFAULT), H5Dclose, "open " + dataset);
  return H5Dget_storage_size(d.get());
}

// A partial file is no bigger than 1.2 times the finished file plus its resume state (the
// statistics' moments and quantile values, docs/output-format.md), and the resumed file is the
// finished file's size: no dead space.
TEST(RunDriver, APartialFileIsTheFinishedFilesSizePlusItsResumeState) {
  test::TempDir dir;
  const std::string text = test::valid_scenario_text(4000, 0.5, 0.01) +
                           "[output]\ninterval = 0.05\ntrajectories = { every = 3 }\n";
  const Scenario s = parse_scenario(text, "box.toml");
  run_scenario(s, cpu_options(dir.file("whole.h5"), 2, 500));
  RunOptions o = cpu_options(dir.file("r.h5"), 2, 500);
  o.after_batch = [](std::uint64_t rows) {
    if (rows == 3000) interrupt_requested() = true;
  };
  EXPECT_THROW(run_scenario(s, o), Interrupted);
  interrupt_requested() = false;
  const std::string partial = dir.file("r.h5.partial");
  h5::initialize();
  std::uint64_t resume_state = 0;
  for (const char* d : {"resume/values", "resume/moments", "resume/value_counts", "resume/totals"})
    resume_state += stored_bytes(partial, d);
  const double whole = double(fs::file_size(dir.file("whole.h5")));
  EXPECT_LE(double(fs::file_size(partial) - resume_state), 1.2 * whole)
      << fs::file_size(partial) << " bytes, of which resume state " << resume_state;
  EXPECT_FALSE(fs::exists(dir.file("r.h5.journal")));  // the partial file holds all it held
  o.after_batch = nullptr;
  o.resume = true;
  run_scenario(s, o);
  EXPECT_LE(double(fs::file_size(dir.file("r.h5"))), 1.01 * whole);
  EXPECT_GE(double(fs::file_size(dir.file("r.h5"))), 0.99 * whole);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// The file says what ran: the command line's overrides, and every dispersion as data (its
// distribution and parameters per component), not only as the scenario's text.
TEST(RunDriverOutput, DispersionsAndOverridesAreRecorded) {
  test::TempDir dir;
  const Scenario s = parse_scenario(test::valid_scenario_text(20), "box.toml");
  RunOptions o = cpu_options(dir.file("a.h5"), 1, 20);
  o.seed = 77;
  o.samples = 30;
  run_scenario(s, o);
  const ResultsReader r(dir.file("a.h5"));
  EXPECT_EQ(r.string_attribute("", "overrides"), "--samples 30 --seed 77");
  EXPECT_EQ(r.number_attribute("", "seed"), 77);
  EXPECT_EQ(r.string_attribute("design/dispersions/body.mass", "distribution"), "normal");
  EXPECT_EQ(r.doubles("design/dispersions/body.mass/sigma").data, std::vector<double>{0.05});
  EXPECT_EQ(r.doubles("design/dispersions/body.mass/mean").data, r.doubles("design/dispersions/body.mass/nominal").data);
  EXPECT_EQ(r.string_attribute("design/dispersions/body.principal_moments", "distribution"), "uniform");
  const std::vector<double> low = r.doubles("design/dispersions/body.principal_moments/min").data,
                            high = r.doubles("design/dispersions/body.principal_moments/max").data,
                            nominal = r.doubles("design/dispersions/body.principal_moments/nominal").data;
  ASSERT_EQ(low.size(), 3u);
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(nominal[c] - low[c], 0.005, 1e-15);
    EXPECT_NEAR(high[c] - nominal[c], 0.005, 1e-15);
  }
  EXPECT_EQ(r.doubles("design/dispersions/initial.angular_velocity/sigma").data, (std::vector<double>{0.05, 0.05, 0.05}));
}

// The design group names each distribution's parameters by the scenario's keys, so that a group
// written back as a dispersion table is the same dispersion: every kind, its parameters resolved
// (a uniform's half_width as its min and max, a default mean as the nominal value). The file once
// named them low, high and sigma_ln, which a scenario refuses.
TEST(RunDriverOutput, TheDesignGroupReadsBackAsTheScenariosDispersions) {
  const std::string dispersions = R"([dispersions]
body.mass = { distribution = "normal", sigma = 0.05 }
body.principal_moments = { distribution = "uniform", half_width = [0.005, 0.01, 0.02] }
initial.velocity = { distribution = "truncated_normal", sigma = 0.2, min = [0.5, -1, 1], max = [1.5, 1, 3] }
gravity.acceleration = { distribution = "lognormal", median = [0.1, 0.2, 9.81], log_sigma = [0.01, 0.02, 0.03] }
initial.position = { distribution = "fixed", value = [1, 2, 3] }
body.center_of_mass = { distribution = "discrete", values = [[0, 0, 0], [0.01, 0, 0], [0, 0.02, 0]], weights = [1, 2, 5] }
initial.attitude = { distribution = "random_axis", angle_sigma = 0.1 }
initial.angular_velocity = { distribution = "uniform", min = -0.5, max = [0.5, 3.5, 0.5] }
)";
  std::string text = test::valid_scenario_text(10);
  text = text.substr(0, text.find("[dispersions]")) + dispersions;
  test::TempDir dir;
  const Scenario s = parse_scenario(text, "box.toml");
  run_scenario(s, cpu_options(dir.file("a.h5"), 1, 10));
  const ResultsReader r(dir.file("a.h5"));
  // Each group as an inline table, its datasets and number attributes as keys.
  const auto number = [](double x) {
    char t[32];
    std::snprintf(t, sizeof t, "%.17g", x);
    return std::string(t);
  };
  const auto array = [&](const std::vector<double>& v, std::size_t from, std::size_t n) {
    if (n == 1) return number(v[from]);  // a scalar input's parameter (a TOML number)
    std::string a = "[";
    for (std::size_t i = 0; i < n; ++i) a += (i ? ", " : "") + number(v[from + i]);
    return a + "]";
  };
  std::string written = "[dispersions]\n";
  for (const std::string& path : r.children("design/dispersions")) {
    const std::string group = "design/dispersions/" + path;
    std::string entry = path + " = { distribution = \"" + r.string_attribute(group, "distribution") + "\"";
    for (const std::string& name : r.children(group)) {
      if (name == "nominal") continue;
      const Array<double> a = r.doubles(group + "/" + name);
      if (a.shape.size() == 2 && a.shape[1] > 1) {  // a discrete distribution's values, (k, dim)
        std::string rows = "[";
        for (std::size_t k = 0; k < a.shape[0]; ++k)
          rows += (k ? ", " : "") + array(a.data, k * a.shape[1], a.shape[1]);
        entry += ", " + name + " = " + rows + "]";
      } else {
        entry += ", " + name + " = " + array(a.data, 0, a.data.size());
      }
    }
    for (const char* attribute : {"angle_sigma", "max_angle"})
      if (r.has_attribute(group, attribute))
        entry += std::string(", ") + attribute + " = " + number(r.number_attribute(group, attribute));
    written += entry + " }\n";
  }
  const Scenario back = parse_scenario(text.substr(0, text.find("[dispersions]")) + written, "back.toml");
  ASSERT_EQ(back.dispersions.size(), s.dispersions.size()) << written;
  for (const Dispersion& d : s.dispersions) {
    const auto same = std::find_if(back.dispersions.begin(), back.dispersions.end(),
                                   [&](const Dispersion& e) { return e.info.key_path == d.info.key_path; });
    ASSERT_NE(same, back.dispersions.end()) << d.info.key_path;
    EXPECT_EQ(same->kind, d.kind) << d.info.key_path;
    EXPECT_EQ(same->a, d.a) << d.info.key_path;
    EXPECT_EQ(same->b, d.b) << d.info.key_path;
    EXPECT_EQ(same->lo, d.lo) << d.info.key_path;
    EXPECT_EQ(same->hi, d.hi) << d.info.key_path;
    EXPECT_EQ(same->values, d.values) << d.info.key_path;
    // The weights, written as the cumulative sum's steps (one rounding each) and summed and
    // normalised again (two more a step): a few units of the last place of values up to 1.
    ASSERT_EQ(same->cumulative.size(), d.cumulative.size()) << d.info.key_path;
    for (std::size_t k = 0; k < d.cumulative.size(); ++k)
      EXPECT_NEAR(same->cumulative[k], d.cumulative[k], 8 * std::numeric_limits<double>::epsilon()) << d.info.key_path;
  }
}

}  // namespace
}  // namespace rbmc

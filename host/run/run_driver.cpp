#include "host/run/run_driver.hpp"
#include "host/run/batch_sizing.hpp"
#include "host/run/disk_space.hpp"
#include "host/run/progress_report.hpp"
#include "host/run/trajectory_selector.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "host/io/output_lock.hpp"
#include "host/io/run_journal.hpp"
#include "host/io/results_reader.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "host/scenario/output_schema.hpp"
#include "host/util/default_init_allocator.hpp"
#include "host/util/environment.hpp"
#include "host/util/parallel_for.hpp"
#include "host/util/serial_worker.hpp"
#include "host/util/stage_timings.hpp"
#include "rbmc/random/inverse_transforms.hpp"
#include "rbmc/sample/sample_layout.hpp"
#include "rbmc/stats/output_quantities.hpp"
#include "host/stats/run_statistics.hpp"

namespace rbmc {

std::atomic<bool>& interrupt_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {

using Clock = std::chrono::steady_clock;

// Host buffers of one batch, structure of arrays with stride n (rbmc/sample/sample_layout.hpp).
struct HostBatch {
  // Grown unzeroed: every row is written before it is read (drawn or copied back, integrated), and
  // zeroing them first took most of the GPU's sample stage (a batch of 2²⁰ samples' inputs are
  // 300 MB; bench/RESULTS.md, 2026-11-27).
  std::vector<double, DefaultInitAllocator<double>> inputs, outputs, params;
  std::vector<std::uint8_t> status;
  std::vector<std::uint64_t> index;  // each row's global sample index
  // What the backend's primitives reduced of it:
  std::vector<Moments> moments;       // (output times, quantity::count)
  std::vector<std::uint32_t> kept;    // the rows whose trajectories the file keeps, ascending
  std::vector<std::uint32_t> named;   // those rows, known before integration (TrajectorySelector::rows_by_index)
  std::vector<double> trajectories;   // (kept, output times, 13)

  void resize(std::size_t n, int n_model_parameters, int n_param_values, int n_events) {
    inputs.resize(n * std::size_t(input_column_count(n_model_parameters)));
    outputs.resize(n * std::size_t(output_column_count(n_events)));
    params.resize(n * std::size_t(n_param_values));
    status.resize(n);
  }
};

// Stage 1: every sample's inputs from its own streams, in parallel; index[i] is row i's global
// sample index. Returns how many bodies the validity policy redrew.
std::uint64_t sample_batch(const SamplingPlan& plan, const std::uint64_t* index, std::size_t n, unsigned threads,
                           HostBatch& batch) {
  std::atomic<std::uint64_t> redrawn{0};
  parallel_for(n, threads, [&](std::size_t begin, std::size_t end) {
    std::uint64_t local_redrawn = 0;
    for (std::size_t i = begin; i < end; ++i)
      if (draw_batch_row(plan.model(), index[i], i, n, batch.inputs.data(), batch.params.data()) > 0) ++local_redrawn;
    redrawn += local_redrawn;
  });
  return redrawn;
}

// The nominal sample (no dispersion, the scenario's own loads and constraint) integrated once on
// the host in double: its attitude at each output time is the reference of the statistics'
// attitude angle.
std::vector<Quaternion<double>> nominal_attitudes(const Scenario& s) {
  SampleInputs<double> in;
  in.body = s.body;
  in.initial = s.constraint.kind != ConstraintKind::none ? project_onto_constraint(s.constraint, s.initial) : s.initial;
  in.gravity_w = s.gravity_w;
  SharedModel<double> shared = s.shared_model();
  shared.parameters.n = 0;
  const std::size_t n_times = std::size_t(s.output_times.n);
  std::vector<double> trajectory(kTrajectoryColumns * n_times);
  TrajectorySink<double, double> sink{&s.output_times, trajectory.data(), 1, 0, 0};
  run_sample(in, shared, s.integration(), sink);
  std::vector<Quaternion<double>> q(n_times);
  for (std::size_t k = 0; k < n_times; ++k) {
    const double* x = &trajectory[k * kTrajectoryColumns + state_offset::q_wb];
    q[k] = {x[0], x[1], x[2], x[3]};
  }
  return q;
}

// Why an interrupted run drawn by another build cannot be resumed: its finished samples' draws
// and the rest's would differ in their last bits.
std::string draws_differ(const std::string& path, int revision) {
  return "--resume: the interrupted run (" + path + ") was drawn by an rbmc build whose draws differ (draw revision " +
         std::to_string(revision) + "; this build's is " + std::to_string(kDrawRevision) +
         "): run it again without --resume";
}

// The state an interrupted run saved in its file, after checking that this run continues it. Its
// exact quantiles' values are read by column into exact_values (read_statistics_state).
template <class GlobalIndex>
SuspendedRun read_suspended_run(const std::string& path, const Scenario& s, const ResultsMetadata& meta,
                                std::uint64_t n_rows, const GlobalIndex& global_index,
                                std::vector<std::vector<double>>& exact_values) {
  if (!std::filesystem::exists(path)) throw UsageError("--resume: there is no interrupted run to resume (" + path + ")");
  const ResultsReader r(path);
  if (!r.has("resume")) throw UsageError("--resume: " + path + " holds no interrupted run's state");
  const auto differs = [&](const char* what) {
    throw UsageError(std::string("--resume: the interrupted run had another ") + what +
                     "; resume with the same scenario and options");
  };
  if (r.draw_revision() != kDrawRevision)
    throw UsageError(draws_differ(path, r.draw_revision()));
  if (r.string_attribute("", "scenario") != s.text) differs("scenario");
  if (r.number_attribute("", "seed") != double(s.run.seed)) differs("seed");
  if (r.number_attribute("", "n_samples") != double(n_rows) ||
      r.number_attribute("", "n_samples_in_run") != double(s.run.n_samples))
    differs("sample count or --only selection");
  if (r.string_attribute("", "precision") != meta.precision) differs("precision");
  if (r.string_attribute("", "backend") != meta.backend) differs("backend");
  if ((r.has_attribute("", "first_sample") ? std::uint64_t(r.number_attribute("", "first_sample")) : 0) != meta.first_sample)
    differs("--shard part");
  SuspendedRun state;
  state.rows_done = std::uint64_t(r.number_attribute("resume", "rows_done"));
  state.batch_size = std::uint64_t(r.number_attribute("resume", "batch_size"));
  if (state.rows_done > 0 && r.uint64s("samples/index").data[state.rows_done - 1] != global_index(state.rows_done - 1))
    differs("--only selection");
  const std::vector<double> totals = r.doubles("resume/totals").data;
  if (totals.size() != 4 + std::size_t(kSampleStatusCount)) throw UsageError("--resume: " + path + " is damaged");
  state.totals.n_redrawn = std::uint64_t(totals[0]);
  state.totals.steps = std::uint64_t(totals[1]);
  state.totals.rejected_steps = std::uint64_t(totals[2]);
  state.totals.wall_seconds = totals[3];
  for (int c = 0; c < kSampleStatusCount; ++c) state.totals.status_counts[std::size_t(c)] = std::uint64_t(totals[4 + std::size_t(c)]);
  state.statistics = read_statistics_state(r, "resume", &exact_values);
  return state;
}

// What ties a journal to its run: a resume must have the same scenario, seed, rows, precision,
// backend and selection; the batch size is on a line of its own (batch_size_of).
std::string run_identity(const Scenario& s, const ResultsMetadata& meta, const std::vector<std::uint64_t>& only) {
  std::uint64_t selection = 1469598103934665603ull;  // FNV-1a of the --only indices
  for (std::uint64_t k : only) selection = (selection ^ k) * 1099511628211ull;
  return "seed " + std::to_string(s.run.seed) + "\nfirst " + std::to_string(meta.first_sample) + "\nrows " +
         std::to_string(meta.n_samples) + "\nrun " +
         std::to_string(s.run.n_samples) + "\nonly " + std::to_string(only.empty() ? 0 : selection) + "\nprecision " +
         meta.precision + "\nbackend " + meta.backend + "\ndraws " + std::to_string(kDrawRevision) + "\nbatch_size " +
         std::to_string(meta.batch_size) + "\nscenario\n" + s.text;
}

std::string strip_batch_size(const std::string& identity) {
  const std::size_t at = identity.find("\nbatch_size ");
  if (at == std::string::npos) return identity;
  return identity.substr(0, at) + identity.substr(identity.find('\n', at + 1));
}

std::size_t batch_size_of(const std::string& identity, std::size_t otherwise) {
  const std::size_t at = identity.find("\nbatch_size ");
  if (at == std::string::npos) return otherwise;
  const std::size_t v = std::size_t(std::strtoull(identity.c_str() + at + 12, nullptr, 10));
  return v > 0 ? v : otherwise;
}

// Removes OUT.partial-<pid> and OUT.writing-<pid> files a killed run left, and the files it was
// replacing when killed between its two renames (OUT.replaced-<pid>, OUT.partial.replaced-<pid>:
// h5::close_into_place). The caller holds the output's lock, so no live process is writing them.
void remove_leftover_temporaries(const std::string& output) {
  namespace fs = std::filesystem;
  const fs::path out(output);
  const fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  const std::string name = out.filename().string();
  std::error_code e;
  for (const auto& entry : fs::directory_iterator(dir, e)) {
    const std::string f = entry.path().filename().string();
    for (const char* kind : {".partial-", ".writing-", ".replaced-", ".partial.replaced-"}) {
      const std::string prefix = name + kind;
      if (f.size() > prefix.size() && f.compare(0, prefix.size(), prefix) == 0 &&
          f.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
        std::error_code ignored;
        fs::remove(entry.path(), ignored);
      }
    }
  }
}

// Adds a batch's statuses and step counts to the run's totals.
void count_batch(const HostBatch& batch, std::size_t n, std::uint64_t redrawn, RunTotals& totals) {
  totals.n_redrawn += redrawn;
  for (std::size_t i = 0; i < n; ++i) {
    ++totals.status_counts[std::min<int>(batch.status[i], kSampleStatusCount - 1)];
    totals.steps += std::uint64_t(batch.outputs[output_column::steps * n + i]);
    totals.rejected_steps += std::uint64_t(batch.outputs[output_column::rejected_steps * n + i]);
  }
}


// The stages of one batch, each a member below, in the order a batch goes through them (as
// MuJoCo's mj_forward lists its stages): sample → integrate → statistics → gather, and then
// write_stage on the writer's thread. Compacted statistics merge into the run's on a thread of
// their own (`merging`), while the next batch is drawn and integrated. Each adds its wall time to
// its own entry of the timings it is given. What they use is the run's, owned by run_scenario;
// the backend offers primitives and never calls back into them.
struct BatchStages {
  const SamplingPlan& plan;
  const BatchIntegration& how;
  const DrawnColumnsWanted drawn_wanted;  // the drawn columns the file keeps a dataset of
  const unsigned threads;
  Backend& backend;
  RunStatistics& statistics;
  TrajectorySelector& selector;
  SerialWorker& merging;         // the compacted statistics' merges, in batch order
  StageTimings& merge_seconds;   // their time, on that thread
  // The statistics take each batch's quantity values in the statistics stage and need them no
  // more (the journal saves the statistics' state instead): they pass through this one buffer,
  // swapped with the backend's, which takes it back for the next batch (recycle_quantities). On
  // the CPU the run's values then stay in one buffer (59 MB a batch for the main job on 2
  // threads), not two or three whose pages are each faulted in once.
  QuantityValues& quantity_values;
  // A compacting backend's batch: it classifies the columns against the sketches' brackets, and
  // sends its compacted columns into the run's one buffer, which the merge reads before the next
  // batch's statistics stage begins (it waits for it, to read the brackets the merge left).
  std::vector<ColumnBrackets>& brackets;
  CompactedColumns& compacted;

  // Stage sample: rows [0, n) drawn as samples index[0, n), where the backend integrates (the GPU
  // keeps its draws for its kernel and sends back only the columns the file keeps) or else on the
  // host's threads. Returns the validity policy's redraws.
  std::uint64_t sample(HostBatch& batch, std::size_t n, StageTimings& timings) const {
    std::uint64_t redrawn = 0;
    if (!backend.draw_inputs(plan, batch.index.data(), n, batch.inputs.data(), batch.params.data(), drawn_wanted, redrawn,
                             timings)) {
      const StageClock clock(&timings, Stage::sample);
      redrawn = sample_batch(plan, batch.index.data(), n, threads, batch);
    }
    return redrawn;
  }

  // Stage integrate, and the transfers around it. Throws BatchAbandoned on a request to stop
  // (BatchIntegration::stop): the batch's outputs are then undefined.
  // Where the rule names the kept trajectories' samples by index, the backend is told their rows,
  // and may keep only their states (BatchNeeds::state_rows).
  void integrate(HostBatch& batch, std::size_t n, StageTimings& timings) const {
    const bool named = selector.active() && selector.rows_by_index(batch.index.data(), n, batch.named);
    backend.integrate(batch.inputs.data(), batch.outputs.data(), batch.status.data(), n, how,
                      BatchNeeds{named ? &batch.named : nullptr}, timings);
  }

  // Stages sample and integrate of the batch after this one, begun on the backend while this
  // one's statistics and gather run (Backend::begin_batch): the device integrates meanwhile.
  // Returns whether the backend began it; otherwise sample and integrate run when its turn comes.
  bool begin_next(const std::vector<std::uint64_t>& index, std::size_t n) const {
    return backend.begin_batch(plan, index.data(), n, how);
  }

  // The batch begun by begin_next, finished into its host buffers: what sample and integrate
  // would have left there. Returns the validity policy's redraws. Throws BatchAbandoned as
  // integrate does. The backend's time on it before this call goes to `ahead`.
  std::uint64_t finish_begun(HostBatch& batch, StageTimings& timings, StageTimings& ahead) const {
    std::uint64_t redrawn = 0;
    backend.finish_batch(batch.inputs.data(), batch.params.data(), drawn_wanted, batch.outputs.data(),
                         batch.status.data(), redrawn, timings, ahead);
    return redrawn;
  }

  // Stage statistics: the batch's quantities reduced by the backend and merged into the run's. A
  // backend that compacts each column for the sketches where it lies (against their brackets)
  // sends far fewer values; they merge on `merging` while the driver goes on, and the next batch's
  // statistics stage waits for that merge before it reads the brackets and refills `compacted`.
  void reduce_statistics(HostBatch& batch, std::size_t n, StageTimings& timings) const {
    if (!statistics.enabled()) return;
    if (!statistics.exact()) {
      // The brackets as every batch so far left them: the previous batch's merge first (it ran
      // while this batch was drawn and integrated).
      const StageClock waiting(&timings, Stage::idle);
      merging.wait();
      statistics.compaction_brackets(brackets);
    }
    if (backend.reduce_statistics_compacted(how, statistics.compaction_request(batch.index[0]), brackets, batch.moments,
                                            compacted, timings)) {
      // What the job uses outlives `merging` (run_scenario declares it after them); this struct
      // does not, so the job holds no pointer to it.
      merging.submit([&run = statistics, &seconds = merge_seconds, &batch, &sent = compacted, n] {
        const StageClock clock(&seconds, Stage::statistics);
        run.add_compacted(batch.moments, sent.tallies, sent.offsets, sent.values, n);
      });
      return;
    }
    const std::vector<std::uint32_t> rows = statistics.quantile_rows(n);
    backend.reduce_statistics(how, rows, batch.moments, quantity_values, timings);
    const StageClock clock(&timings, Stage::statistics);
    statistics.add(batch.moments, quantity_values, rows.size());
    backend.recycle_quantities(quantity_values);
  }

  // Stage gather: the trajectories the file keeps, chosen batch by batch in global index order.
  // The buffer is resized by the backend rather than cleared here: refilling hundreds of megabytes
  // of the same size in place saves filling them with zeros first.
  void gather(HostBatch& batch, std::size_t n, StageTimings& timings) const {
    batch.kept.clear();
    if (selector.active()) {
      const StageClock clock(&timings, Stage::gather);
      batch.kept = selector.select(batch.index.data(), batch.outputs.data(), batch.status.data(), n);
    }
    if (batch.kept.empty()) batch.trajectories.clear();
    else backend.gather_trajectories(batch.kept, batch.trajectories, timings);
  }
};

// What the file keeps of a batch: its rows, and the trajectories gathered for it.
BatchView view_of(const HostBatch& batch, std::uint64_t first, std::size_t n) {
  const bool kept = !batch.kept.empty();
  return {first, n, batch.inputs.data(), batch.outputs.data(), batch.status.data(), batch.params.data(),
          kept ? &batch.kept : nullptr, kept ? &batch.trajectories : nullptr, batch.index.data()};
}

// Stage write: the batch into the file, then its record into the journal (and the statistics'
// snapshot when one is given), on the writer's thread once the previous batch's write is done. The
// batch's buffers must stay untouched until writing.wait() returns.
void write_stage(SerialWorker& writing, ResultsWriter& writer, RunJournal& journal, StageTimings& writer_seconds,
                 const HostBatch& batch, const BatchView& view, std::uint64_t redrawn,
                 std::shared_ptr<const StatisticsState> snapshot) {
  writing.submit([&writer, &writer_seconds, &journal, &batch, view, redrawn, snapshot] {
    writer.write_batch(view, writer_seconds);
    const StageClock clock(&writer_seconds, Stage::write);
    journal.append({view.first, view.n, redrawn, JournalArray::of(batch.outputs), JournalArray::of(batch.status),
                    JournalArray::of(batch.kept), JournalArray::of(batch.trajectories)});
    if (snapshot) journal.snapshot_statistics(view.first + view.n, *snapshot);
  });
}

}  // namespace

void check_output_is_not_an_input(const Scenario& scenario, const std::string& output) {
  namespace fs = std::filesystem;
  const auto is_output = [&output](const fs::path& input) {
    std::error_code e;  // an input not on disk (a scenario given as text) is not the output
    return fs::equivalent(output, input, e) && !e;
  };
  if (is_output(scenario.path))
    throw UsageError("-o " + output + " is the scenario file " + scenario.path +
                     ": the results would replace it; choose another -o");
  if (scenario.design.kind == Design::Kind::table) {
    const fs::path given(scenario.design.table_file);  // relative to the scenario's directory, as read
    if (is_output(given.is_absolute() ? given : fs::path(scenario.path).parent_path() / given))
      throw UsageError("-o " + output + " is the table design's file " + scenario.design.table_file +
                       ": the results would replace it; choose another -o");
  }
}

RunSummary run_scenario(Scenario scenario, const RunOptions& options) {
  if (options.samples && scenario.design.kind == Design::Kind::grid) {
    // A grid runs every point the same number of times: --samples sets that number.
    const std::uint64_t points = scenario.design.n_points();
    if (*options.samples % points != 0)
      throw UsageError("--samples " + std::to_string(*options.samples) + ": this grid design has " +
                       std::to_string(points) + " points, and every point runs the same number of replicates; give a "
                       "multiple of " + std::to_string(points) + " (" + std::to_string(points) +
                       " x replicates), or omit --samples to run the scenario's " +
                       std::to_string(scenario.run.n_samples));
    scenario.design.replicates = *options.samples / points;
  }
  if (options.samples && scenario.design.kind == Design::Kind::table && *options.samples > scenario.design.n_points())
    throw UsageError("--samples " + std::to_string(*options.samples) + ": the table (" + scenario.design.table_file +
                     ") has " + std::to_string(scenario.design.n_points()) + " rows, one per sample; give at most that");
  if (options.samples && *options.samples > kMaxSamples)
    throw UsageError("--samples " + std::to_string(*options.samples) + " is more than rbmc runs in one file (at most 2^40)");
  if (options.samples) scenario.run.n_samples = *options.samples;
  if (options.seed) scenario.run.seed = *options.seed;
  if (scenario.run.n_samples == 0) throw UsageError("--samples must be positive");
  // The environment's settings, checked before any file is touched. Without a terminal, progress
  // is a log line every RBMC_PROGRESS_INTERVAL seconds. The journal's records carry no
  // statistics: they are saved beside it every RBMC_JOURNAL_STATISTICS_INTERVAL seconds instead,
  // so a kill loses at most that much more than the batches in flight (run_journal.hpp).
  const double progress_interval = seconds_from_environment("RBMC_PROGRESS_INTERVAL", 10);
  const double snapshot_interval = seconds_from_environment("RBMC_JOURNAL_STATISTICS_INTERVAL", 60);
  // The output: checked, and locked against a second process, before any work.
  namespace fs = std::filesystem;
  if (fs::is_directory(options.output))
    throw UsageError("-o " + options.output + " is a directory; name the results file (e.g. " +
                     (fs::path(options.output) / (scenario.name + ".h5")).string() + ")");
  const fs::path output_directory = fs::path(options.output).parent_path();
  if (!output_directory.empty() && !fs::is_directory(output_directory))
    throw UsageError("-o " + options.output + ": the directory " + output_directory.string() +
                     " does not exist; create it (mkdir -p " + output_directory.string() + ") or choose another -o");
  check_output_is_not_special(options.output);
  check_output_is_not_an_input(scenario, options.output);
  const OutputLock lock(options.output);
  const std::string partial = ResultsWriter::suspended_path(options.output);
  if (options.resume && fs::exists(options.output) && !options.overwrite)
    throw UsageError("--resume: " + options.output + " exists, a complete results file; pass --overwrite to replace it "
                     "with the resumed run, or choose another -o");
  const std::string journal_path = RunJournal::path_for(options.output);
  for (const std::string& kept : {partial, journal_path})
    if (!options.resume && fs::exists(kept) && !options.overwrite)
      throw UsageError(kept + " holds an interrupted run of this output: complete it with --resume, or pass "
                       "--overwrite to start afresh and discard it");
  // Under the lock no other process writes this output: temporary files beside it are a killed
  // run's leftovers.
  remove_leftover_temporaries(options.output);
  for (std::uint64_t k : options.only)
    if (k >= scenario.run.n_samples) throw UsageError("--only: sample " + std::to_string(k) + " is beyond the run");
  if (options.shard_count > 0 && !options.only.empty()) throw UsageError("--shard and --only cannot be combined");
  const ShardRange shard = options.shard_count > 0
                               ? shard_range(options.shard_index, options.shard_count, scenario.run.n_samples)
                               : ShardRange{0, scenario.run.n_samples};
  if (shard.count == 0)
    throw UsageError("--shard " + std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count) +
                     ": the run has only " + std::to_string(scenario.run.n_samples) + " samples, so this part is empty");
  // The rows of the file: every sample, or the ones asked for by global index.
  const std::uint64_t n_total = options.only.empty() ? shard.count : options.only.size();
  // A run that cannot fit on its disk stops here (a resumed one once its partial file says how
  // many rows it holds already).
  if (options.space_check && !options.resume)
    check_disk_space(options.output, disk_need(scenario, n_total, options.journal,
                                               options.shard_count == 0 && options.only.empty()));
  const auto start = Clock::now();

  const SamplingPlan plan(scenario);
  std::unique_ptr<Backend> backend = options.make_backend
                                         ? options.make_backend()
                                         : make_backend(options.backend, options.precision, options.threads,
                                                        options.device, options.processes_on_node);
  const unsigned threads = options.threads == 0 ? default_thread_count() : options.threads;

  ResultsMetadata meta;
  meta.backend = backend->name();
  meta.device = backend->device();
  meta.precision = precision_name(options.precision);
  meta.threads = threads;
  if (options.samples) meta.overrides += "--samples " + std::to_string(*options.samples);
  if (options.seed) meta.overrides += std::string(meta.overrides.empty() ? "" : " ") + "--seed " + std::to_string(*options.seed);
  if (!options.only.empty()) meta.overrides += std::string(meta.overrides.empty() ? "" : " ") + "--only (" +
                                               std::to_string(options.only.size()) + " samples)";
  meta.scenario = &scenario;
  meta.n_samples = n_total;
  meta.shard_index = options.shard_index;
  meta.shard_count = options.shard_count;
  meta.first_sample = shard.first;
  const auto global_index = [&](std::uint64_t row) { return options.only.empty() ? shard.first + row : options.only[row]; };
  // A resumed run continues an interrupted one: the same scenario, samples, seed and precision.
  std::optional<SuspendedRun> suspended;
  std::vector<std::vector<double>> suspended_exact_values;  // the statistics' columns, lent to be read into
  const std::string identity = run_identity(scenario, meta, options.only);
  // A journal left by a killed run (OUT.journal) holds the batches it finished after its partial
  // file's (if any): a resume replays them.
  const std::optional<std::string> journal_identity = options.resume ? RunJournal::read_identity(journal_path) : std::nullopt;
  if (journal_identity) {
    // Its header, before the scenario's text: "draws N" there, or none from a build before it.
    const std::string header = journal_identity->substr(0, journal_identity->find("\nscenario\n"));
    const std::size_t at = header.find("\ndraws ");
    const int revision = at == std::string::npos ? 1 : std::atoi(header.c_str() + at + 7);
    if (revision != kDrawRevision) throw UsageError(draws_differ(journal_path, revision));
  }
  if (journal_identity && strip_batch_size(*journal_identity) != strip_batch_size(identity))
    throw UsageError("--resume: the interrupted run (" + journal_path + ") had another scenario, seed, sample count, "
                     "--only selection, precision or backend; resume with the same scenario and options");
  // A shard keeps every value, or a quantile sketch of the same k, as the whole run does (its
  // budget from the run's size), so that merged shards hold what one run holds.
  RunStatistics statistics(scenario, options.shard_count > 0 ? scenario.run.n_samples : n_total, threads);
  if (options.resume && (!journal_identity || fs::exists(partial))) {
    suspended_exact_values = statistics.lend_exact_columns();
    suspended = read_suspended_run(partial, scenario, meta, n_total, global_index, suspended_exact_values);
  }
  // The rows still to write (a journal's records, replayed, are not in a file yet); the journal's
  // own need is not counted, its records so far being on disk already.
  if (options.space_check && options.resume)
    check_disk_space(options.output, disk_need(scenario, n_total - (suspended ? suspended->rows_done : 0), false, false));
  std::unique_ptr<ResultsWriter> writer =
      suspended ? std::make_unique<ResultsWriter>(options.output, meta, ResultsWriter::Resume{})
                : std::make_unique<ResultsWriter>(options.output, options.overwrite, meta);
  TrajectorySelector selector(scenario);
  BatchIntegration how(scenario.integration(), scenario.shared_model());
  how.statistics = statistics.enabled();
  how.keep_states = selector.active();
  how.statistics_quantities = scenario.output.statistics_quantities;
  how.stop = &interrupt_requested();  // SIGINT or SIGTERM abandons the batch in flight
  if (statistics.enabled()) how.nominal_attitudes = nominal_attitudes(scenario);
  // The backend bounds a batch by its memory; default_batch_size adds what every backend shares
  // (host/run/batch_sizing.hpp). What comes to the host whatever the backend: the kept
  // trajectories, and for exact quantiles every sample's quantities (sketched ones are compacted
  // first, or come from batches too small to compact).
  const std::size_t time_bytes = sizeof(double) * std::size_t(scenario.output_times.n);
  BatchSizeNeeds sizing;
  sizing.n_samples = n_total;
  sizing.backend_largest = backend->max_batch_size(how);
  sizing.host_bytes_per_sample = statistics.enabled() && statistics.exact() ? time_bytes * quantity::count : 0;
  sizing.trajectory_bytes = time_bytes * kTrajectoryColumns;
  sizing.trajectories_at_most = selector.most_kept(n_total);
  std::size_t batch_size = options.batch_size > 0 ? std::size_t(std::min<std::uint64_t>(options.batch_size, n_total))
                                                  : default_batch_size(sizing);
  // The same batches as before the interruption: the statistics merge in the same order, so the
  // file equals an uninterrupted run's.
  if (suspended && options.batch_size == 0) batch_size = std::size_t(suspended->batch_size);
  if (journal_identity && options.batch_size == 0) batch_size = batch_size_of(*journal_identity, batch_size);

  RunTotals totals;
  std::uint64_t start_row = 0;
  if (suspended) {
    totals = suspended->totals;
    statistics.restore(suspended->statistics, &suspended_exact_values);
    selector.set_taken(writer->n_trajectories());
    start_row = suspended->rows_done;
  }
  const double wall_before = totals.wall_seconds;
  // Two sets of batch buffers: batch k is written on another thread while batch k + 1 is sampled
  // and integrated (one HDF5 call at a time all the same: the main thread makes none meanwhile).
  // Each thread times its own stages.
  std::array<HostBatch, 2> batches;
  QuantityValues quantity_values;  // BatchStages::quantity_values
  std::vector<ColumnBrackets> brackets;  // BatchStages::brackets
  CompactedColumns compacted;            // BatchStages::compacted
  // The stages every batch goes through (BatchStages), the write on the writer's thread below.
  const std::vector<SampleDataset> kept_datasets = sample_datasets(scenario);
  // Each thread's own: the driver's, the writer's, the merges', and the backend's on the batches
  // it began ahead (Backend::finish_batch).
  StageTimings driver_seconds, writer_seconds, merge_seconds, ahead_seconds;
  std::unique_ptr<RunJournal> journal;
  // Declared after everything their jobs touch (the batches, the statistics, the journal, the
  // timings): when an error unwinds the run, each finishes the job in flight before they are
  // destroyed. (Declared before them, the writer once let a job append to a destroyed journal:
  // heap corruption.)
  SerialWorker writing, merging;
  const BatchStages stages{plan, how,
                           DrawnColumnsWanted{keeps_any(kept_datasets, {SampleSource::inputs, SampleSource::inertia}),
                                              keeps_any(kept_datasets, {SampleSource::params})},
                           threads, *backend, statistics, selector, merging, merge_seconds, quantity_values,
                           brackets, compacted};
  const auto wait_for_writing = [&] {  // rethrows the writer's error here
    const StageClock clock(&driver_seconds, Stage::idle);
    writing.wait();
  };
  const auto wait_for_merging = [&] {  // before the statistics are read; rethrows a merge's error here
    const StageClock clock(&driver_seconds, Stage::idle);
    merging.wait();
  };
  ProgressReport progress(options.progress, n_total, start_row, progress_interval);
  how.progress = &progress.in_batch();
  // However the run ends, a batch the backend began ahead is dropped before what it uses (`how`,
  // `progress`) goes.
  struct DropBegunBatch {
    Backend& backend;
    ~DropBegunBatch() { backend.drop_batch(); }
  } drop_begun_batch{*backend};
  // On SIGINT or SIGTERM, between batches: the file so far is kept for --resume.
  const auto suspend = [&](std::uint64_t rows_done) {
    wait_for_writing();
    wait_for_merging();
    totals.wall_seconds = wall_before + std::chrono::duration<double>(Clock::now() - start).count();
    // The exact quantiles' values are written where they lie, not copied (run_statistics.hpp).
    const std::vector<std::vector<double>>* exact_values = statistics.exact() ? &statistics.exact_values() : nullptr;
    writer->suspend({rows_done, batch_size, totals, statistics.save_without_exact_values(), exact_values});
    journal->remove();  // OUT.partial holds everything it held
    throw Interrupted("interrupted after " + std::to_string(rows_done) + " of " + std::to_string(n_total) +
                      " samples; they are kept in " + ResultsWriter::suspended_path(options.output) +
                      " (not a complete results file): rerun with --resume to complete it");
  };
  // Replay: the journal's batches after start_row, as the killed run finished them; their inputs
  // are drawn again from the samples' streams. The records hold no statistics: where the run
  // keeps them, the records are replayed up to the last statistics snapshot, whose state then
  // replaces the statistics; those after it are dropped and integrated again.
  std::uint64_t journal_bytes = 0;
  if (journal_identity) {
    // The snapshot's exact values are read into the statistics' own columns, lent
    // (RunStatistics::lend_exact_columns) and given back by the restore, where the statistics are
    // fresh: a snapshot not taken then leaves them as they were, empty, only without their room.
    // Where a partial file's state was restored first, they hold values the snapshot may not
    // replace: its values go into columns of their own.
    std::vector<std::vector<double>> snapshot_exact_values;
    if (!suspended) snapshot_exact_values = statistics.lend_exact_columns();
    std::optional<StatisticsSnapshot> snapshot =
        RunJournal::read_statistics_snapshot(journal_path, *journal_identity, &snapshot_exact_values);
    if (snapshot) {
      // Usable only when the journal's whole records, from start_row on, end exactly where it does.
      std::uint64_t reach = start_row;
      bool reached = false;
      RunJournal::for_each_record(journal_path, [&](const JournalBatch& record) {
        if (record.first + record.n <= reach) return true;
        if (record.first != reach || record.n == 0) return false;
        reach += record.n;
        reached = reached || reach == snapshot->rows;
        return true;
      });
      if (!reached) {
        snapshot.reset();
        snapshot_exact_values = {};
      }
    }
    StageTimings replay_seconds;
    // A replayed batch is drawn again where the run draws, so that its inputs in the file are the
    // bits the backend integrated.
    journal_bytes = RunJournal::for_each_record(journal_path, [&](const JournalBatch& record) {
      if (record.first + record.n <= start_row) return true;  // already in the partial file
      if (record.first != start_row || record.n == 0 || start_row + record.n > n_total) return false;
      if (statistics.enabled() && (!snapshot || record.first + record.n > snapshot->rows)) return false;  // after it
      HostBatch& batch = batches[0];
      const std::size_t n = std::size_t(record.n);
      batch.resize(n, scenario.model_parameters.n, plan.n_parameter_values(), scenario.events.n);
      if (record.outputs.size() != batch.outputs.size() || record.status.size() != n) return false;
      batch.index.resize(n);
      for (std::size_t i = 0; i < n; ++i) batch.index[i] = global_index(record.first + i);
      stages.sample(batch, n, replay_seconds);
      batch.outputs.assign(record.outputs.begin(), record.outputs.end());
      batch.status = record.status;
      batch.kept = record.kept;
      batch.trajectories = record.trajectories;
      count_batch(batch, n, record.redrawn, totals);
      if (statistics.enabled() && record.first + record.n == snapshot->rows)
        statistics.restore(snapshot->state, &snapshot_exact_values);
      selector.set_taken(writer->n_trajectories() + batch.kept.size());
      writer->write_batch(view_of(batch, record.first, n), replay_seconds);
      start_row += record.n;
      return true;
    });
  }
  // The replayed rows are done, and were not integrated by this process: without this the first
  // batch's batches_done took them off the samples in flight (a batch begun ahead among them) and
  // the rate counted them.
  progress.found_done(start_row);
  const std::uint64_t resumed_rows = start_row;
  totals.resumed_samples = resumed_rows;
  // From here every finished batch is journalled, so that a kill -9 loses only the batches in flight.
  meta.batch_size = batch_size;
  const std::string this_run = run_identity(scenario, meta, options.only);
  if (!options.journal) {
    std::error_code ignored;
    fs::remove(journal_path, ignored);  // replayed into this run: the partial file takes over on SIGINT
    fs::remove(RunJournal::snapshot_path_for(journal_path), ignored);
  }
  const bool statistics_snapshots = options.journal && statistics.enabled();
  auto last_snapshot = Clock::now();
  journal = !options.journal     ? std::make_unique<RunJournal>()
            : journal_identity ? std::make_unique<RunJournal>(journal_path, this_run, journal_bytes)
                               : std::make_unique<RunJournal>(journal_path, this_run);
  // Everything since the run started: the backend, the file, the statistics, a replay.
  driver_seconds[Stage::setup] += std::chrono::duration<double>(Clock::now() - start).count();
  // The next batch's rows' sample indices, known before its turn: a backend that begins it ahead
  // (Backend::begin_batch) draws and integrates it while this one's statistics and gather run.
  // They wait here, since the batch buffers they go into may still be being written.
  bool begun = false;
  std::vector<std::uint64_t> upcoming;
  const auto indices_from = [&](std::uint64_t first, std::size_t n, std::vector<std::uint64_t>& index) {
    index.resize(n);
    for (std::size_t i = 0; i < n; ++i) index[i] = global_index(first + i);
  };
  int current = 0;
  for (std::uint64_t first = start_row; first < n_total; first += batch_size, current ^= 1) {
    if (interrupt_requested()) suspend(first);  // a batch begun ahead is abandoned with the backend
    HostBatch& batch = batches[std::size_t(current)];
    const std::size_t n = std::size_t(std::min<std::uint64_t>(batch_size, n_total - first));
    {
      const StageClock clock(&driver_seconds, Stage::sample);
      batch.resize(n, scenario.model_parameters.n, plan.n_parameter_values(), scenario.events.n);
      if (first == start_row) indices_from(first, n, batch.index);
      else batch.index.swap(upcoming);
    }
    // Sampled again on --resume if abandoned: counted once integrated.
    std::uint64_t redrawn = 0;
    try {
      if (begun) {
        redrawn = stages.finish_begun(batch, driver_seconds, ahead_seconds);
      } else {
        redrawn = stages.sample(batch, n, driver_seconds);
        stages.integrate(batch, n, driver_seconds);
      }
    } catch (const BatchAbandoned&) {
      suspend(first);  // the batches before this one are kept; this one is integrated again on --resume
    }
    begun = false;
    if (first + n < n_total) {
      const std::size_t next_n = std::size_t(std::min<std::uint64_t>(batch_size, n_total - first - n));
      const StageClock clock(&driver_seconds, Stage::sample);
      indices_from(first + n, next_n, upcoming);
      begun = stages.begin_next(upcoming, next_n);
    }
    count_batch(batch, n, redrawn, totals);
    stages.reduce_statistics(batch, n, driver_seconds);
    stages.gather(batch, n, driver_seconds);
    wait_for_writing();  // the previous batch's write, whose buffers the next batch fills
    // The journal's records hold no statistics: the statistics as they are after this batch,
    // taken before the next adds to them, are saved beside it every snapshot_interval instead.
    // Sketches are copied (bounded by their k) and written with the record on the writer's
    // thread; exact quantiles' values, which may fill most of memory, are written from where they
    // are, here, once the record is (the driver adds nothing to them meanwhile).
    const bool snapshot_due = statistics_snapshots && first + n < n_total &&
                              std::chrono::duration<double>(Clock::now() - last_snapshot).count() >= snapshot_interval;
    std::shared_ptr<const StatisticsState> snapshot;
    if (snapshot_due && !statistics.exact()) {
      wait_for_merging();
      const StageClock clock(&driver_seconds, Stage::statistics);
      snapshot = std::make_shared<const StatisticsState>(statistics.save());
    }
    write_stage(writing, *writer, *journal, writer_seconds, batch, view_of(batch, first, n), redrawn,
                std::move(snapshot));
    if (snapshot_due && statistics.exact()) {
      wait_for_writing();
      wait_for_merging();  // none in flight where the quantiles are exact (nothing is compacted): for certainty
      const StageClock clock(&driver_seconds, Stage::statistics);
      journal->snapshot_statistics(first + n, statistics.save_without_exact_values(), &statistics.exact_values());
    }
    if (snapshot_due) last_snapshot = Clock::now();
    progress.batches_done(first + n);
    if (options.after_batch) options.after_batch(first + n);
  }
  wait_for_writing();
  wait_for_merging();
  QuantileAccuracy quantiles;
  if (statistics.enabled()) {
    const double before = driver_seconds[Stage::statistics];
    {
      const StageClock clock(&driver_seconds, Stage::statistics);
      quantiles = writer->write_statistics(statistics);
    }
    totals.statistics_final_seconds = driver_seconds[Stage::statistics] - before;
  }

  totals.stage_seconds = driver_seconds;
  totals.stage_seconds += writer_seconds;
  totals.stage_seconds += merge_seconds;
  totals.stage_seconds += ahead_seconds;
  totals.integrate_ahead_seconds = ahead_seconds[Stage::integrate];
  totals.statistics_merging_seconds = merge_seconds[Stage::statistics];
  totals.process_wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  totals.wall_seconds = wall_before + totals.process_wall_seconds;
  // A shard keeps its statistics' state, which rbmc merge needs to merge them exactly.
  // Its exact quantiles' values are written where they lie, not copied.
  const bool is_part = options.shard_count > 0;
  const StatisticsState merge_state = is_part ? statistics.save_without_exact_values() : StatisticsState{};
  writer->finish(totals, is_part ? &merge_state : nullptr,
                 is_part && statistics.exact() ? &statistics.exact_values() : nullptr);
  journal->remove();
  // A fresh run with --overwrite replaced an interrupted one: its partial file is discarded.
  if (!options.resume) {
    std::error_code ignored;
    fs::remove(partial, ignored);
  }

  RunSummary summary;
  summary.backend = meta.backend;
  summary.device = meta.device;
  summary.precision = meta.precision;
  summary.output = options.output;
  summary.n_samples = n_total;
  // dopri5 chooses its steps per sample: the mean of the steps taken, not duration / first step.
  summary.n_steps = scenario.run.integrator == IntegratorKind::dopri5
                        ? std::int64_t(std::llround(double(totals.steps) / double(std::max<std::uint64_t>(1, n_total))))
                        : scenario.run.n_steps;
  summary.totals = totals;
  summary.body_steps_per_second = double(totals.steps) / totals.wall_seconds;
  summary.resumed_samples = resumed_rows;
  summary.quantiles = quantiles;
  return summary;
}

}  // namespace rbmc

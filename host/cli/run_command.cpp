#include "host/cli/run_command.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include "host/cli/number_checks.hpp"
#include "host/cli/stop_signals.hpp"
#include "host/errors.hpp"
#include "host/io/run_journal.hpp"
#include "host/mpi/mpi_run.hpp"
#include "host/run/merge_shards.hpp"
#include "host/run/run_driver.hpp"
#include "host/sampling/designs.hpp"
#include "host/util/parallel_for.hpp"
#include "host/scenario/scenario.hpp"

namespace rbmc::cli {

namespace {

struct RunArguments {
  std::string scenario;
  RunOptions options;
  std::uint64_t samples = 0, seed = 0;
  std::string backend = "auto", precision = "double", only;
  bool timings = false;
  std::string shard;
};

// How the quantiles were found. A sketch's rank error bound is said where a user would otherwise
// meet it only in the file: above 1e-3 (a quantile_memory_mb below the default's) the 0.95
// quantile is no longer between the true 0.949 and 0.951 ones, and the line says how to narrow it.
void print_quantile_accuracy(const QuantileAccuracy& q) {
  constexpr double kDefaultBound = 1e-3;  // docs/output-format.md, "Quantiles"
  switch (q.method) {
    case QuantileAccuracy::Method::none:
      return;
    case QuantileAccuracy::Method::exact:
      std::printf("  quantiles    exact (every sample's values)\n");
      return;
    case QuantileAccuracy::Method::sketched:
      // A part of a large run, or a run barely over its budget, may not have compacted yet.
      if (q.max_rank_error_95 == 0) {
        std::printf("  quantiles    sketched (k = %d): exact so far, every value still held\n", q.sketch_k);
        return;
      }
      std::printf("  quantiles    sketched (k = %d): ranks within %.2g of p (95 %%)", q.sketch_k, q.max_rank_error_95);
      if (q.max_rank_error_95 > kDefaultBound)
        std::printf(", above %g: a larger [output] quantile_memory_mb narrows them", kDefaultBound);
      std::printf("\n");
      return;
  }
}

void print_summary(const Scenario& s, const RunSummary& r) {
  std::printf("rbmc run: %s (%s)\n", s.name.c_str(), s.path.c_str());
  std::printf("  samples      %llu", static_cast<unsigned long long>(r.n_samples));
  const char* sep = " (";
  for (int c = 0; c < kSampleStatusCount; ++c) {
    if (r.totals.status_counts[c] == 0) continue;
    std::printf("%s%s %llu", sep, status_name(static_cast<SampleStatus>(c)),
                static_cast<unsigned long long>(r.totals.status_counts[c]));
    sep = ", ";
  }
  std::printf(")\n");
  if (r.resumed_samples > 0)
    std::printf("  resumed      %llu of them finished by the interrupted run, %llu by this one\n",
                static_cast<unsigned long long>(r.resumed_samples),
                static_cast<unsigned long long>(r.n_samples - r.resumed_samples));
  const auto samples = [](std::uint64_t n) {
    return std::to_string(n) + (n == 1 ? " sample" : " samples");
  };
  if (r.totals.n_redrawn > 0)
    std::printf("  redrawn      %s drew a body or load value that was not physical and drew again (validity policy)\n",
                samples(r.totals.n_redrawn).c_str());
  const char* policy = s.design.invalid_bodies == Design::InvalidBodies::reject ? "reject" : "redraw, 64 attempts";
  if (const std::uint64_t invalid = r.totals.status_counts[int(SampleStatus::invalid_body)]; invalid > 0)
    std::printf("  invalid      %llu bod%s not physical and not integrated (status invalid_body; policy %s)\n",
                static_cast<unsigned long long>(invalid), invalid == 1 ? "y was" : "ies were", policy);
  if (const std::uint64_t invalid = r.totals.status_counts[int(SampleStatus::invalid_load)]; invalid > 0)
    std::printf("  invalid      %s with a load value that was not physical, not integrated (status invalid_load; "
                "policy %s)\n",
                samples(invalid).c_str(), policy);
  if (s.run.integrator == IntegratorKind::dopri5) {
    std::printf("  integration  dopri5, rtol %.3g, atol %.3g: %.4g steps per sample on average (%llu rejected), %.6g s\n",
                s.run.rtol, s.run.atol, double(r.totals.steps) / double(r.n_samples),
                static_cast<unsigned long long>(r.totals.rejected_steps), s.run.duration);
  } else {
    std::printf("  integration  %s, %lld steps of %.6g s (%.6g s)\n", integrator_name(s.run.integrator),
                static_cast<long long>(r.n_steps), s.step_used(), s.run.duration);
  }
  std::printf("  throughput   %.3g body-steps/s (%.2f s wall)\n", r.body_steps_per_second, r.totals.wall_seconds);
  std::printf("  backend      %s: %s\n", r.backend.c_str(), r.device.c_str());
  std::printf("  precision    %s\n", r.precision.c_str());
  print_quantile_accuracy(r.quantiles);
  std::printf("  wrote        %s\n", r.output.c_str());
}

// --timings: where this process's wall time went, stage by stage (a resumed run's stages are
// timed since the resume). The writer's stages overlap the driver's, so the shares may add up to
// more than 100 %.
void print_timings(const RunSummary& r) {
  const double wall = r.totals.process_wall_seconds > 0 ? r.totals.process_wall_seconds : r.totals.wall_seconds;
  std::printf("  stage        seconds  share of wall\n");
  for (int i = 0; i < int(Stage::count); ++i) {
    const Stage stage = Stage(i);
    const double t = r.totals.stage_seconds[stage];
    const bool writer_thread = stage == Stage::compress || stage == Stage::write;
    std::printf("  %-11s %8.3f  %5.1f %%", stage_name(stage), t, 100 * t / std::max(wall, 1e-9));
    if (writer_thread) std::printf("  (writer thread, overlaps the next batch)");
    // Which part of the statistics overlaps the next batch (the GPU's sketches' merges), and which
    // follows the last batch (the final quantiles and write).
    if (stage == Stage::statistics && r.totals.statistics_merging_seconds > 0)
      std::printf("  (%.3f s of it merging on its own thread, overlaps the next batch)",
                  r.totals.statistics_merging_seconds);
    if (stage == Stage::integrate && r.totals.integrate_ahead_seconds > 0)
      std::printf("  (%.3f s of it begun ahead, overlaps the previous batch)", r.totals.integrate_ahead_seconds);
    if (stage == Stage::statistics && r.totals.statistics_final_seconds > 0)
      std::printf("  (%.3f s of it after the last batch: the final quantiles and their write)",
                  r.totals.statistics_final_seconds);
    std::printf("\n");
  }
  std::printf("  %-11s %8.3f", "wall", wall);
  if (r.resumed_samples > 0) std::printf("  (since the resume; %.3f s with the interrupted run's)", r.totals.wall_seconds);
  std::printf("\n");
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArguments>();
  CLI::App* run = app.add_subcommand("run", "Run a scenario's Monte Carlo samples and write an HDF5 results file");
  run->add_option("scenario", args->scenario, "Scenario file (TOML)")->required();
  run->add_option("-o,--output", args->options.output, "Results file (default: <scenario name>.h5 here)");
  run->add_option("--samples", args->samples, "Number of samples (overrides run.samples)")->check(whole_number_check(1));
  run->add_option("--seed", args->seed, "Random seed (overrides run.seed)")->check(whole_number_check(0));
  run->add_option("--backend", args->backend, "auto: CUDA when a device is present, else the CPU")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  run->add_option("--threads", args->options.threads, "CPU threads (0 = all cores)")->check(whole_number_check(0));
  run->add_option("--precision", args->precision, "Arithmetic of the integration")
      ->check(CLI::IsMember({"double", "float"}));
  run->add_option("--batch-size", args->options.batch_size, "Samples per batch (0 = the backend's choice)")
      ->check(whole_number_check(0));
  run->add_option("--only", args->only, "Run just these samples by global index, e.g. 17,42,1000-1010");
  run->add_option("--shard", args->shard,
                  "Run the i-th (from 0) of n contiguous parts of the run, e.g. 0/4; rbmc merge joins the parts");
  run->add_flag("--overwrite", args->options.overwrite, "Replace an existing results file");
  run->add_flag("--resume", args->options.resume,
                "Complete the interrupted run kept in OUTPUT.partial (same scenario and options)");
  run->add_flag_callback("--no-journal", [args] { args->options.journal = false; },
                         "Do not journal finished batches (faster; a kill -9 then loses all but a SIGINT-saved partial file)");
  run->add_flag_callback("--no-space-check", [args] { args->options.space_check = false; },
                         "Start a run even where its file and journal cannot fit in the free space (to stop it and "
                         "resume it with more room)");
  run->add_flag("--timings", args->timings, "Print the wall time of each stage of the run (also in the file's /timings)");
  run->add_flag_callback("--no-progress", [args] { args->options.progress = false; }, "No progress bar");
  run->callback([args, run] {
    stop_cleanly_on_signals();
    Scenario scenario = load_scenario(args->scenario);
    RunOptions& o = args->options;
    if (run->count("--samples")) o.samples = args->samples;
    if (run->count("--seed")) o.seed = args->seed;
    o.backend = args->backend == "cpu"    ? BackendChoice::cpu
                : args->backend == "cuda" ? BackendChoice::cuda
                                          : BackendChoice::automatic;
    o.precision = args->precision == "float" ? Precision::float32 : Precision::float64;
    if (o.output.empty()) o.output = scenario.name + ".h5";
    // More threads than 4 per core only slows a run down: a typo, most likely.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (o.threads > 4 * cores)
      throw UsageError("--threads " + std::to_string(o.threads) + ": this machine has " + std::to_string(cores) +
                       " hardware threads; give at most " + std::to_string(4 * cores) + " (0 uses them all)");
    if (run->count("--only") && args->only.empty()) throw UsageError("--only: give the samples, e.g. 17,42,1000-1010");
    if (!args->only.empty())
      o.only = parse_sample_selection(args->only, o.samples ? *o.samples : scenario.run.n_samples);
    if (run->count("--shard")) std::tie(o.shard_index, o.shard_count) = parse_shard(args->shard);
    // A run that fails (a full disk, a device error) after finishing batches keeps them in its
    // journal: say so, in the error's own type.
    const auto kept_hint = [&o] {
      return std::filesystem::exists(RunJournal::path_for(o.output))
                 ? "; the batches finished before the failure are kept in " + RunJournal::path_for(o.output) +
                       ": fix the cause and rerun with --resume to complete the run"
                 : std::string();
    };
    if (launched_under_mpi()) {
      // One rank of an MPI run: the ranks split the run, rank 0 merges and reports.
      const MpiRunOutcome outcome = run_under_mpi(scenario, o);
      if (outcome.summary) {
        print_summary(scenario, *outcome.summary);
        if (args->timings) print_timings(*outcome.summary);
      }
      std::fflush(stdout);
      if (outcome.exit_code != 0) std::exit(outcome.exit_code);
      return;
    }
    RunSummary summary;
    try {
      summary = run_scenario(scenario, o);
    } catch (const Hdf5Error& e) {
      throw Hdf5Error(e.what() + kept_hint());
    } catch (const CudaError& e) {
      throw CudaError(e.what() + kept_hint());
    }
    print_summary(scenario, summary);
    if (scenario.design.kind == Design::Kind::sobol && o.shard_count == 0 && o.only.empty()) {
      const std::string note = sobol_balance_note(summary.n_samples);
      if (!note.empty()) std::printf("  note         %s\n", note.c_str());
    }
    if (args->timings) print_timings(summary);
  });
}

void add_merge_command(CLI::App& app) {
  struct Arguments {
    std::string output;
    std::vector<std::string> files;
    bool overwrite = false;
    unsigned threads = 0;
  };
  auto args = std::make_shared<Arguments>();
  CLI::App* merge = app.add_subcommand(
      "merge", "Join the parts of a run (rbmc run --shard i/n) into the file one run would have written");
  // Both `rbmc merge OUT PARTS...` and, as `rbmc run` names its file, `rbmc merge -o OUT PARTS...`.
  merge->add_option("files", args->files,
                    "The merged file, then the parts' files (every part of the run once, in any order); "
                    "with -o, the parts only")
      ->required();
  merge->add_option("-o,--output", args->output, "Merged results file (else the first of the files)");
  merge->add_flag("--overwrite", args->overwrite, "Replace an existing merged file");
  merge->add_option("--threads", args->threads, "Threads for the quantiles and compression (0 = all cores)");
  merge->callback([args] {
    stop_cleanly_on_signals();
    std::vector<std::string> shards = args->files;
    std::string output = args->output;
    if (output.empty()) {
      if (shards.size() < 2) throw UsageError("merge: name the merged file and its parts (rbmc merge -o OUT.h5 PARTS...)");
      output = shards.front();
      shards.erase(shards.begin());
    }
    const MergeSummary m = merge_shards(shards, output, args->overwrite,
                                        args->threads == 0 ? default_thread_count() : args->threads);
    std::printf("rbmc merge: %llu parts, %llu samples\n", static_cast<unsigned long long>(m.n_shards),
                static_cast<unsigned long long>(m.n_samples));
    print_quantile_accuracy(m.quantiles);  // the merged statistics', as a run of them all prints it
    std::printf("  wrote        %s\n", m.output.c_str());
  });
}

}  // namespace rbmc::cli

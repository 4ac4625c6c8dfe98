#include "host/run/run_driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "host/sampling/sampling_plan.hpp"
#include "host/util/parallel_for.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

std::atomic<bool>& interrupt_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {

using Clock = std::chrono::steady_clock;

// Host buffers of one batch, structure of arrays with stride n (rbmc/sample/sample_layout.hpp).
struct HostBatch {
  std::vector<double> inputs, outputs, params, trajectory;
  std::vector<std::uint8_t> status;
  std::vector<std::uint64_t> index;  // each row's global sample index

  void resize(std::size_t n, int n_model_parameters, int n_param_values, int n_events, int n_output_times) {
    inputs.resize(n * std::size_t(input_column_count(n_model_parameters)));
    outputs.resize(n * std::size_t(output_column_count(n_events)));
    trajectory.resize(n * kTrajectoryColumns * std::size_t(n_output_times));
    params.resize(n * std::size_t(n_param_values));
    status.resize(n);
  }
};

// Stage 1: every sample's inputs from its own streams, in parallel; index[i] is row i's global
// sample index. Returns how many bodies the validity policy redrew.
std::uint64_t sample_batch(const SamplingPlan& plan, const std::uint64_t* index, std::size_t n, unsigned threads,
                           HostBatch& batch) {
  const int n_params = plan.n_parameter_values(), n_model = plan.scenario().model_parameters.n;
  std::atomic<std::uint64_t> redrawn{0};
  parallel_for(n, threads, [&](std::size_t begin, std::size_t end) {
    std::vector<double> params(std::size_t(n_params) + 1);
    std::uint64_t local_redrawn = 0;
    for (std::size_t i = begin; i < end; ++i) {
      SampleInputs<double> in;
      if (plan.sample(index[i], in, params.data()) > 0) ++local_redrawn;
      store_sample_inputs(batch.inputs.data(), n, i, in, n_model);
      for (int c = 0; c < n_params; ++c) batch.params[std::size_t(c) * n + i] = params[std::size_t(c)];
    }
    redrawn += local_redrawn;
  });
  return redrawn;
}

class ProgressBar {
 public:
  ProgressBar(bool enabled, std::uint64_t total)
      : enabled_(enabled && ::isatty(STDERR_FILENO)), total_(total), start_(Clock::now()) {}
  ~ProgressBar() {
    if (shown_) std::fputc('\n', stderr);
  }
  void update(std::uint64_t done) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    if (!enabled_ || elapsed < 1.0) return;  // short runs print nothing
    const double fraction = double(done) / double(total_);
    const int width = 40, filled = int(fraction * width);
    const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    std::fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %llu/%llu samples  %.0f s left ", filled,
                 "########################################", width - filled, "", 100 * fraction,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), eta);
    std::fflush(stderr);
    shown_ = true;
  }

 private:
  bool enabled_, shown_ = false;
  std::uint64_t total_;
  Clock::time_point start_;
};

}  // namespace

std::vector<std::uint64_t> parse_sample_selection(const std::string& text, std::uint64_t n_samples) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  const auto number = [&](const std::string& item, const std::string& s) -> std::uint64_t {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19)
      throw UsageError("--only: '" + item + "' is not a sample index or a range a-b");
    const std::uint64_t v = std::stoull(s);
    if (v >= n_samples)
      throw UsageError("--only: sample " + s + " is beyond the run's " + std::to_string(n_samples) + " samples");
    return v;
  };
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t dash = item.find('-');
    if (dash == std::string::npos) {
      out.push_back(number(item, item));
    } else {
      const std::uint64_t a = number(item, item.substr(0, dash)), b = number(item, item.substr(dash + 1));
      if (b < a) throw UsageError("--only: the range '" + item + "' runs backwards");
      if (b - a > 100000000) throw UsageError("--only: the range '" + item + "' is too large");
      for (std::uint64_t k = a; k <= b; ++k) out.push_back(k);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

RunSummary run_scenario(Scenario scenario, const RunOptions& options) {
  if (options.samples) scenario.run.n_samples = *options.samples;
  if (options.seed) scenario.run.seed = *options.seed;
  if (scenario.run.n_samples == 0) throw UsageError("--samples must be positive");
  for (std::uint64_t k : options.only)
    if (k >= scenario.run.n_samples) throw UsageError("--only: sample " + std::to_string(k) + " is beyond the run");
  const auto start = Clock::now();

  const SamplingPlan plan(scenario);
  std::unique_ptr<Backend> backend = make_backend(options.backend, options.precision, options.threads);
  const unsigned threads = options.threads == 0 ? default_thread_count() : options.threads;

  ResultsMetadata meta;
  meta.backend = backend->name();
  meta.device = backend->device();
  meta.precision = precision_name(options.precision);
  meta.scenario = &scenario;
  // The rows of the file: every sample, or the ones asked for by global index.
  const std::uint64_t n_total = options.only.empty() ? scenario.run.n_samples : options.only.size();
  meta.n_samples = n_total;
  ResultsWriter writer(options.output, options.overwrite, meta);
  const auto global_index = [&](std::uint64_t row) { return options.only.empty() ? row : options.only[row]; };
  std::size_t batch_size = options.batch_size > 0 ? options.batch_size : backend->max_batch_size();
  // Trajectories take 13 values per output time per sample: keep a batch's buffer near 512 MiB.
  const std::size_t trajectory_bytes = sizeof(double) * kTrajectoryColumns * std::size_t(scenario.output_times.n);
  if (trajectory_bytes > 0 && options.batch_size == 0)
    batch_size = std::max<std::size_t>(1, std::min(batch_size, (std::size_t(512) << 20) / trajectory_bytes));
  batch_size = std::size_t(std::min<std::uint64_t>(batch_size, n_total));
  const BatchIntegration how{scenario.integration(), scenario.shared_model()};

  RunTotals totals;
  HostBatch batch;
  ProgressBar progress(options.progress, n_total);
  for (std::uint64_t first = 0; first < n_total; first += batch_size) {
    if (interrupt_requested()) throw Interrupted("interrupted; no results file was written");
    const std::size_t n = std::size_t(std::min<std::uint64_t>(batch_size, n_total - first));
    batch.resize(n, scenario.model_parameters.n, plan.n_parameter_values(), scenario.events.n,
                 scenario.output_times.n);
    batch.index.resize(n);
    for (std::size_t i = 0; i < n; ++i) batch.index[i] = global_index(first + i);
    totals.n_redrawn += sample_batch(plan, batch.index.data(), n, threads, batch);
    double* trajectory = scenario.output_times.n > 0 ? batch.trajectory.data() : nullptr;
    backend->run_batch(batch.inputs.data(), batch.outputs.data(), trajectory, batch.status.data(), n, how);
    for (std::size_t i = 0; i < n; ++i) {
      ++totals.status_counts[std::min<int>(batch.status[i], kSampleStatusCount - 1)];
      totals.steps += std::uint64_t(batch.outputs[output_column::steps * n + i]);
      totals.rejected_steps += std::uint64_t(batch.outputs[output_column::rejected_steps * n + i]);
    }
    writer.write_batch({first, n, batch.inputs.data(), batch.outputs.data(), batch.status.data(), batch.params.data(),
                        trajectory, batch.index.data()});
    progress.update(first + n);
  }
  if (interrupt_requested()) throw Interrupted("interrupted; no results file was written");

  totals.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  writer.finish(totals);

  RunSummary summary;
  summary.backend = meta.backend;
  summary.device = meta.device;
  summary.precision = meta.precision;
  summary.output = options.output;
  summary.n_samples = n_total;
  summary.n_steps = scenario.run.n_steps;
  summary.totals = totals;
  summary.body_steps_per_second = double(totals.steps) / totals.wall_seconds;
  return summary;
}

}  // namespace rbmc

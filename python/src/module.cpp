// rbmc's Python module (`import rbmc`, the compiled part `rbmc._rbmc`): the command line's run,
// check, info, compare and validate as functions, on the same C++ as the program. The package's
// Python part (python/rbmc/) gives them their documented signatures and opens results with xarray.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <hdf5.h>

#include "host/analysis/compare_results.hpp"
#include "host/analysis/results_info.hpp"
#include "host/analysis/validate_run.hpp"
#include "host/errors.hpp"
#include "host/run/disk_space.hpp"
#include "host/run/run_driver.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "host/scenario/scenario.hpp"
#include "python/src/scenario_from_python.hpp"

namespace py = pybind11;

namespace rbmc::python {

namespace {

// What a report function prints to a FILE*, as a string (the JSON the command line prints).
std::string printed(const std::function<void(std::FILE*)>& print) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&buffer, &size);
  if (out == nullptr) throw std::runtime_error("open_memstream failed");
  try {
    print(out);
  } catch (...) {
    std::fclose(out);
    std::free(buffer);
    throw;
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

extern "C" void on_sigint(int) { interrupt_requested() = true; }

// Ctrl-C during a run: Python's own handler cannot run while C++ holds the thread, so for the
// run's length SIGINT sets rbmc's flag, as the command line's handler does. The run then keeps
// its finished batches for resume=True and raises rbmc.Interrupted (a KeyboardInterrupt).
// Signals reach only the main thread's handler: elsewhere nothing is installed.
class SigintStopsTheRun {
 public:
  SigintStopsTheRun() {
    interrupt_requested() = false;
    const py::object threading = py::module_::import("threading");
    if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    installed_ = ::sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~SigintStopsTheRun() {
    if (installed_) ::sigaction(SIGINT, &previous_, nullptr);
  }
  SigintStopsTheRun(const SigintStopsTheRun&) = delete;
  SigintStopsTheRun& operator=(const SigintStopsTheRun&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

BackendChoice backend_choice(const std::string& name, bool automatic_allowed) {
  if (name == "cpu") return BackendChoice::cpu;
  if (name == "cuda") return BackendChoice::cuda;
  if (name == "auto" && automatic_allowed) return BackendChoice::automatic;
  throw UsageError("backend: '" + name + "' is not one of " + (automatic_allowed ? "'auto', " : "") + "'cpu', 'cuda'");
}

Precision precision_choice(const std::string& name) {
  if (name == "double") return Precision::float64;
  if (name == "float") return Precision::float32;
  throw UsageError("precision: '" + name + "' is not 'double' or 'float'");
}

py::dict summary_dict(const RunSummary& r) {
  py::dict statuses, timings;
  for (int c = 0; c < kSampleStatusCount; ++c)
    if (r.totals.status_counts[c] > 0) statuses[status_name(SampleStatus(c))] = r.totals.status_counts[c];
  for (int i = 0; i < int(Stage::count); ++i) timings[stage_name(Stage(i))] = r.totals.stage_seconds[Stage(i)];
  timings["wall"] = r.totals.process_wall_seconds;  // what the stages divide: this process's (since a resume)
  py::dict d;
  d["output"] = r.output;
  d["backend"] = r.backend;
  d["device"] = r.device;
  d["precision"] = r.precision;
  d["samples"] = r.n_samples;
  d["steps"] = r.n_steps;
  d["statuses"] = statuses;
  d["redrawn"] = r.totals.n_redrawn;
  d["resumed_samples"] = r.resumed_samples;  // of samples, those an interrupted run had finished
  d["wall_seconds"] = r.totals.wall_seconds;
  d["body_steps_per_second"] = r.body_steps_per_second;
  d["timings"] = timings;
  // How exact the quantiles are, as rbmc run's summary says it (QuantileAccuracy); None without statistics.
  if (r.quantiles.method == QuantileAccuracy::Method::none) {
    d["quantiles"] = py::none();
  } else {
    py::dict q;
    q["method"] = r.quantiles.method == QuantileAccuracy::Method::exact ? "exact" : "sketched";
    q["sketch_k"] = r.quantiles.sketch_k;
    q["max_rank_error_95"] = r.quantiles.max_rank_error_95;
    d["quantiles"] = q;
  }
  return d;
}

// `only`: "17,42,1000-1010" as on the command line, or an iterable of global indices.
std::vector<std::uint64_t> sample_selection(const py::handle& only, std::uint64_t n_samples) {
  if (py::isinstance<py::str>(only)) return parse_sample_selection(only.cast<std::string>(), n_samples);
  std::string text;
  for (py::handle k : only) text += (text.empty() ? "" : ",") + std::string(py::str(k));
  if (text.empty()) throw UsageError("only: give at least one sample");
  return parse_sample_selection(text, n_samples);
}

py::dict run(const py::handle& scenario_given, std::optional<std::string> output, std::optional<std::uint64_t> samples,
             std::optional<std::uint64_t> seed, const std::string& backend, const std::string& precision,
             unsigned threads, std::size_t batch_size, bool overwrite, bool resume, bool journal, bool space_check,
             bool progress, const py::object& only, std::optional<std::string> shard) {
  Scenario scenario = scenario_from_python(scenario_given);
  RunOptions o;
  o.samples = samples;
  o.seed = seed;
  o.backend = backend_choice(backend, true);
  o.precision = precision_choice(precision);
  o.threads = threads;
  o.batch_size = batch_size;
  o.overwrite = overwrite;
  o.resume = resume;
  o.journal = journal;
  o.space_check = space_check;
  o.progress = progress;
  o.output = output.value_or(scenario.name + ".h5");
  if (!only.is_none()) o.only = sample_selection(only, samples.value_or(scenario.run.n_samples));
  if (shard) std::tie(o.shard_index, o.shard_count) = parse_shard(*shard);
  SigintStopsTheRun sigint;
  RunSummary summary;
  {
    py::gil_scoped_release unlocked;  // other Python threads run while this one integrates
    summary = run_scenario(std::move(scenario), o);
  }
  return summary_dict(summary);
}

py::dict check(const py::handle& scenario_given, std::uint64_t preview) {
  const Scenario s = scenario_from_python(scenario_given);
  std::vector<std::string> dispersed, given;
  for (const Dispersion& d : s.dispersions) dispersed.push_back(d.info.key_path);
  for (const GridAxis& a : s.design.axes) given.push_back(a.info.key_path);
  py::dict d;
  d["name"] = s.name;
  d["description"] = s.description;
  d["path"] = s.path;
  d["samples"] = s.run.n_samples;
  d["seed"] = s.run.seed;
  d["integrator"] = integrator_name(s.run.integrator);
  d["duration"] = s.run.duration;
  d["steps"] = s.run.integrator == IntegratorKind::dopri5 ? py::object(py::none()) : py::object(py::int_(s.run.n_steps));
  d["design"] = s.design.name();
  d["dispersed"] = dispersed;
  d["design_inputs"] = given;
  d["text"] = s.text;
  py::dict events;  // in the scenario's order
  for (int i = 0; i < s.events.n; ++i) events[py::str(s.event_names[std::size_t(i)])] = describe_event(s.events.events[i]);
  d["events"] = events;
  // What the run writes at least before its file is in place (rbmc run refuses a disk with less free).
  const DiskNeed need = disk_need(s, s.run.n_samples, true, true);
  d["bytes_per_sample"] = need.bytes_per_sample;
  d["disk_bytes"] = need.total();
  d["journal_bytes"] = need.journal;
  // The first samples' validity, as `rbmc check` previews it (docs/scenario.md, "Validity policy").
  const DrawPreview p = preview_draws(SamplingPlan(s), std::min<std::uint64_t>(preview, s.run.n_samples));
  py::dict validity;
  validity["previewed"] = p.n;
  validity["redrawn"] = p.redrawn;
  validity["invalid_body"] = p.invalid_bodies;
  validity["invalid_load"] = p.invalid_loads;
  validity["policy"] = s.design.invalid_bodies == Design::InvalidBodies::reject ? "reject" : "redraw";
  d["validity"] = validity;
  return d;
}

CompareOptions compare_options(bool statistical, std::optional<double> rtol, std::optional<double> atol, double margin,
                               double rank_margin, double alpha, std::size_t sensitivity_samples) {
  CompareOptions o;
  o.statistical = statistical;
  o.rtol = rtol;
  o.atol = atol;
  o.margin = margin;
  o.rank_margin = rank_margin;
  o.alpha = alpha;
  o.sensitivity_samples = sensitivity_samples;
  return o;
}

// (the JSON of `rbmc compare --json`, the text of `rbmc compare`)
std::pair<std::string, std::string> compare(const std::string& a, const std::string& b, const CompareOptions& o) {
  py::gil_scoped_release unlocked;
  const Comparison c = compare_results(a, b, o);
  return {printed([&](std::FILE* f) { print_comparison_json(c, o, f); }),
          printed([&](std::FILE* f) { print_comparison(c, o, f); })};
}

py::dict validate(const py::handle& scenario_given, std::optional<std::uint64_t> samples,
                  std::optional<std::uint64_t> seed, const std::string& backend, const std::string& precision,
                  unsigned threads, const std::string& keep, bool progress, const CompareOptions& compare_with) {
  const Scenario scenario = scenario_from_python(scenario_given);
  ValidateOptions o;
  o.scenario = scenario.path;
  o.samples = samples;
  o.seed = seed;
  o.candidate = backend_choice(backend, false);
  o.precision = precision_choice(precision);
  o.threads = threads;
  o.keep = keep;
  o.progress = progress;
  o.compare = compare_with;
  SigintStopsTheRun sigint;
  Validation v;
  {
    py::gil_scoped_release unlocked;
    v = validate_scenario(scenario, o);
  }
  py::dict d;
  d["reference"] = v.reference;
  d["candidate"] = v.candidate;
  d["reference_seconds"] = v.reference_seconds;
  d["candidate_seconds"] = v.candidate_seconds;
  d["reference_file"] = v.reference_file.empty() ? py::object(py::none()) : py::object(py::str(v.reference_file));
  d["candidate_file"] = v.candidate_file.empty() ? py::object(py::none()) : py::object(py::str(v.candidate_file));
  d["comparison_json"] = printed([&](std::FILE* f) { print_comparison_json(v.comparison, o.compare, f); });
  d["text"] = printed([&](std::FILE* f) { print_validation(v, o, f); });
  return d;
}

std::string info(const std::string& path) {
  const ResultsInfo r = read_results_info(path);
  return printed([&](std::FILE* f) { print_results_info_json(r, f); });
}

py::dict build() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  py::dict d;
  d["version"] = RBMC_VERSION;
#ifdef RBMC_HAVE_CUDA
  d["cuda"] = true;
#else
  d["cuda"] = false;
#endif
  d["cuda_device"] = cuda_device_available();  // a usable GPU is present (and CUDA is built)
  d["hdf5"] = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
  return d;
}

// rbmc's typed errors as the package's exception classes (python/rbmc/errors.py).
void raise_as(const char* name, const py::tuple& args) {
  const py::object type = py::module_::import("rbmc.errors").attr(name);
  PyErr_SetObject(type.ptr(), type(*args).ptr());
}

void translate_errors(std::exception_ptr error) {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const ScenarioError& e) {
    raise_as("ScenarioError", py::make_tuple(e.what(), e.file(), e.line(), e.column(), e.key_path()));
  } catch (const UsageError& e) {
    raise_as("UsageError", py::make_tuple(e.what()));
  } catch (const NotBuiltWithCuda& e) {
    raise_as("NotBuiltWithCuda", py::make_tuple(e.what()));
  } catch (const CudaError& e) {
    raise_as("CudaError", py::make_tuple(e.what()));
  } catch (const Hdf5Error& e) {
    raise_as("OutputError", py::make_tuple(e.what()));
  } catch (const Interrupted& e) {
    // A run's message says how to resume it; from Python that is the same call with resume=True
    // (rbmc.validate's says what is left: it resumes nothing).
    const std::string what = e.what();
    raise_as("Interrupted", py::make_tuple(what.find("--resume") == std::string::npos
                                               ? what
                                               : what + " (from Python: the same rbmc.run call with resume=True)"));
  }
}

}  // namespace

}  // namespace rbmc::python

PYBIND11_MODULE(_rbmc, m) {
  using namespace rbmc::python;
  namespace rb = rbmc;
  m.doc() = "rbmc's compiled core; use the package `rbmc`, whose functions document their arguments";
  py::register_exception_translator(translate_errors);
  py::class_<rb::CompareOptions>(m, "CompareOptions");
  m.def("compare_options", &compare_options);
  const rb::CompareOptions defaults;  // the command line's, so that one place sets them
  py::dict compare_defaults;
  compare_defaults["margin"] = defaults.margin;
  compare_defaults["rank_margin"] = defaults.rank_margin;
  compare_defaults["alpha"] = defaults.alpha;
  compare_defaults["sensitivity_samples"] = defaults.sensitivity_samples;
  m.attr("compare_defaults") = compare_defaults;
  py::list status_names;  // samples/status codes 0, 1, ...: their names
  for (int c = 0; c < rb::kSampleStatusCount; ++c) status_names.append(rb::status_name(rb::SampleStatus(c)));
  m.attr("status_names") = status_names;
  m.def("run", &run, py::arg("scenario"), py::arg("output"), py::arg("samples"), py::arg("seed"), py::arg("backend"),
        py::arg("precision"), py::arg("threads"), py::arg("batch_size"), py::arg("overwrite"), py::arg("resume"),
        py::arg("journal"), py::arg("space_check"), py::arg("progress"), py::arg("only"), py::arg("shard"));
  m.def("check", &check, py::arg("scenario"), py::arg("preview"));
  m.def("compare", &compare, py::arg("a"), py::arg("b"), py::arg("options"));
  m.def("validate", &validate, py::arg("scenario"), py::arg("samples"), py::arg("seed"), py::arg("backend"),
        py::arg("precision"), py::arg("threads"), py::arg("keep"), py::arg("progress"), py::arg("options"));
  m.def("info", &info, py::arg("path"));
  m.def("build", &build);
}

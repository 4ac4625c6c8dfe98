#include "host/io/results_writer.hpp"

#include "rbmc/stats/output_quantities.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "host/io/design_group.hpp"
#include "host/io/dimension_scales.hpp"
#include "host/io/h5_write.hpp"
#include "host/io/results_reader.hpp"
#include "host/io/statistics_group.hpp"
#include "host/io/trajectory_chunks.hpp"
#include "host/scenario/output_schema.hpp"
#include "rbmc/sample/sample_layout.hpp"

#ifndef RBMC_VERSION
#define RBMC_VERSION "unknown"
#endif

namespace rbmc {

using h5::close_into_place;
using h5::create_group;
using h5::write_array;
using h5::write_scalar_attribute;
using h5::write_string_attribute;

std::string iso8601_utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void check_output_is_not_special(const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code e;
  const fs::file_status status = fs::status(output, e);  // through a symbolic link, to what it names
  if (e || !fs::exists(status) || fs::is_regular_file(status) || fs::is_directory(status)) return;
  const char* kind = fs::is_character_file(status) ? "a character device"
                     : fs::is_block_file(status)   ? "a block device"
                     : fs::is_fifo(status)         ? "a named pipe"
                     : fs::is_socket(status)       ? "a socket"
                                                   : "not a regular file";
  throw UsageError("-o " + output + " is " + kind + ", not a results file: rbmc writes the file beside it and renames "
                   "it into place, which would replace it; name a file (to keep no results, one in a temporary "
                   "directory)");
}

namespace {

// Named dimensions for xarray (host/io/dimension_scales.hpp): each per-sample group's `sample`
// coordinate and its rows' axes (xyz, wxyz, row and column), and the trajectories' sample, time
// and component. Creates the scales a file lacks and uses those it has.
void attach_sample_dimensions(hid_t file, const std::vector<SampleDataset>& schema, std::uint64_t n_rows) {
  DimensionScales scales(file);
  for (const SampleDataset& d : schema) {
    h5::Handle ds(H5Dopen2(file, d.path.c_str(), H5P_DEFAULT), H5Dclose, "opening " + d.path);
    const std::string group = d.path.substr(0, d.path.rfind('/'));
    DimensionScales::attach(ds.get(), 0, scales.samples(group, n_rows, false));
    if (d.row_shape.size() == 1)
      DimensionScales::attach(ds.get(), 1, scales.component(group, d.components, d.row_shape[0], d.row_axis));
    if (d.row_shape.size() == 2) {  // the inertia tensor
      DimensionScales::attach(ds.get(), 1, scales.labels(group, "row", {"x", "y", "z"}));
      DimensionScales::attach(ds.get(), 2, scales.labels(group, "column", {"x", "y", "z"}));
    }
  }
  if (H5Lexists(file, "trajectories", H5P_DEFAULT) <= 0 || H5Lexists(file, "trajectories/sample_index", H5P_DEFAULT) <= 0)
    return;
  // `sample` here: the kept samples' global indices.
  const hid_t sample = scales.samples("trajectories", 0, true), time = scales.existing("trajectories/time", "time");
  h5::Handle kept(H5Dopen2(file, "trajectories/sample_index", H5P_DEFAULT), H5Dclose, "opening trajectories/sample_index");
  DimensionScales::attach(kept.get(), 0, sample);
  for (const TrajectoryPart& part : trajectory_parts()) {
    const std::string path = std::string("trajectories/") + part.name;
    h5::Handle ds(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose, "opening " + path);
    DimensionScales::attach(ds.get(), 0, sample);
    DimensionScales::attach(ds.get(), 1, time);
    const std::vector<std::string> labels = part.dim == 4 ? std::vector<std::string>{"w", "x", "y", "z"}
                                                          : std::vector<std::string>{"x", "y", "z"};
    DimensionScales::attach(ds.get(), 2, scales.component("trajectories", labels, hsize_t(part.dim)));
  }
}

// samples/status's type: an enum over uint8 naming every status code and not_run.
h5::Handle status_enum_type() {
  h5::Handle type(H5Tenum_create(H5T_STD_U8LE), H5Tclose, "H5Tenum_create");
  for (int c = 0; c < kSampleStatusCount; ++c) {
    const std::uint8_t v = std::uint8_t(c);
    h5::check_status(H5Tenum_insert(type.get(), status_name(static_cast<SampleStatus>(c)), &v), "H5Tenum_insert");
  }
  const std::uint8_t not_run = kStatusNotRun;
  h5::check_status(H5Tenum_insert(type.get(), "not_run", &not_run), "H5Tenum_insert");
  return type;
}

}  // namespace

ResultsWriter::ResultsWriter(std::string path, bool overwrite, const ResultsMetadata& meta)
    : path_(std::move(path)),
      n_rows_(meta.n_samples),
      scenario_(meta.scenario),
      schema_(sample_datasets(*meta.scenario)),
      threads_(meta.threads) {
  namespace fs = std::filesystem;
  if (!overwrite && fs::exists(path_))
    throw UsageError("output file " + path_ + " exists; pass --overwrite to replace it");
  const fs::path parent = fs::path(path_).parent_path();
  if (!parent.empty() && !fs::is_directory(parent))
    throw UsageError("output directory " + parent.string() + " does not exist");
  if (meta.collective != nullptr) collective_ = *meta.collective;
  temporary_path_ = collective_ ? collective_->temporary_path : path_ + ".partial-" + std::to_string(::getpid());
  h5::initialize();
  status_type_ = status_enum_type();
  file_ = h5::Handle(H5Fcreate(temporary_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                               collective_ ? collective_->file_access : H5P_DEFAULT),
                     H5Fclose, "creating " + temporary_path_);

  const Scenario& s = *meta.scenario;
  const hid_t root = file_.get();
  write_string_attribute(root, "rbmc_version", RBMC_VERSION);
  write_string_attribute(root, "backend", meta.backend);
  write_string_attribute(root, "device", meta.device);
  write_string_attribute(root, "precision", meta.precision);
  write_scalar_attribute<std::uint64_t>(root, "seed", H5T_NATIVE_UINT64, s.run.seed);
  write_scalar_attribute<std::uint64_t>(root, "draw_revision", H5T_NATIVE_UINT64, std::uint64_t(meta.draw_revision));
  write_scalar_attribute<std::uint64_t>(root, "n_samples", H5T_NATIVE_UINT64, meta.n_samples);
  // A file may hold a subset of a run (--only): the run's own size, for aligning files.
  write_scalar_attribute<std::uint64_t>(root, "n_samples_in_run", H5T_NATIVE_UINT64, s.run.n_samples);
  if (meta.shard_count > 0) {
    // One part of a run (rbmc run --shard): rbmc merge joins the parts into the run's file.
    write_scalar_attribute<std::uint64_t>(root, "shard_index", H5T_NATIVE_UINT64, meta.shard_index);
    write_scalar_attribute<std::uint64_t>(root, "shard_count", H5T_NATIVE_UINT64, meta.shard_count);
    write_scalar_attribute<std::uint64_t>(root, "first_sample", H5T_NATIVE_UINT64, meta.first_sample);
  }
  write_string_attribute(root, "scenario", s.text);
  // What ran, where the command line changed the text above (its samples and seed then differ
  // from n_samples_in_run and seed, which are the ones used).
  write_string_attribute(root, "overrides", meta.overrides);
  write_string_attribute(root, "scenario_name", s.name);
  write_string_attribute(root, "scenario_path", s.path);
  write_string_attribute(root, "created", collective_ ? collective_->created : iso8601_utc_now());
  write_string_attribute(root, "integrator", integrator_name(s.run.integrator));
  write_scalar_attribute<double>(root, "step", H5T_NATIVE_DOUBLE, s.integration().step);
  if (s.run.integrator == IntegratorKind::dopri5) {
    write_scalar_attribute<double>(root, "rtol", H5T_NATIVE_DOUBLE, s.run.rtol);
    write_scalar_attribute<double>(root, "atol", H5T_NATIVE_DOUBLE, s.run.atol);
    write_scalar_attribute<double>(root, "min_step", H5T_NATIVE_DOUBLE, s.run.min_step);
    write_scalar_attribute<double>(root, "max_step", H5T_NATIVE_DOUBLE, s.run.max_step);
    write_scalar_attribute<std::int64_t>(root, "max_steps", H5T_NATIVE_INT64, s.run.max_steps);
  }
  // Fixed steps: the steps of every sample. dopri5 takes its own per sample: finish() records their mean.
  if (s.run.integrator != IntegratorKind::dopri5) write_scalar_attribute<std::int64_t>(root, "n_steps", H5T_NATIVE_INT64, s.run.n_steps);
  write_scalar_attribute<double>(root, "duration", H5T_NATIVE_DOUBLE, s.run.duration);

  for (const char* g : {"samples", "samples/params", "samples/body", "samples/initial", "samples/final"}) create_group(root, g);
  if (s.events.n > 0) create_group(root, "samples/events");
  for (int e = 0; e < s.events.n; ++e) {
    h5::Handle group = create_group(root, "samples/events/" + s.event_names[std::size_t(e)]);
    write_string_attribute(group.get(), "terminal", s.events.events[e].terminal ? "true" : "false");
    write_scalar_attribute<std::int64_t>(group.get(), "index", H5T_NATIVE_INT64, e);
  }
  if (s.design.kind == Design::Kind::grid) create_group(root, "samples/grid");
  if (s.design.kind == Design::Kind::table) create_group(root, "samples/table");
  if (s.conserves_energy() || s.conserves_momentum()) create_group(root, "samples/diagnostics");
  // The per-sample datasets, from the one table that declares them (host/scenario/output_schema.hpp).
  for (const SampleDataset& d : schema_) {
    const hid_t type = d.source == SampleSource::status ? status_type_.get() : stored_type(d.type);
    const hid_t id = create(d.path, type, std::vector<hsize_t>(d.row_shape.begin(), d.row_shape.end()), d.units,
                            d.description).id.get();
    sample_scales_.insert(d.path.substr(0, d.path.rfind('/')) + "/sample");
    if (d.source == SampleSource::status) {
      // CF's flag attributes: xarray and netCDF tools name the codes.
      std::string meanings;
      for (int c = 0; c < kSampleStatusCount; ++c) meanings += std::string(c ? " " : "") + status_name(static_cast<SampleStatus>(c));
      write_string_attribute(id, "flag_meanings", meanings + " not_run (codes 0.." + std::to_string(kSampleStatusCount - 1) +
                                                      ", and " + std::to_string(kStatusNotRun) + ")");
    }
  }
  if (s.output.storage == OutputSettings::Storage::float32)
    write_string_attribute(root, "storage", "float32: real per-sample and trajectory values rounded to single precision");
  if (s.output_times.n > 0) {
    h5::Handle group = create_group(root, "trajectories");
    const hsize_t n_times = hsize_t(s.output_times.n);
    {
      std::vector<double> t(n_times);
      for (int k = 0; k < s.output_times.n; ++k) t[std::size_t(k)] = s.output_times.at(k);
      h5::Handle space(H5Screate_simple(1, &n_times, nullptr), H5Sclose, "dataspace for trajectories/time");
      h5::Handle ds(H5Dcreate2(root, "trajectories/time", H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT),
                    H5Dclose, "creating trajectories/time");
      h5::check_status(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.data()),
                       "writing trajectories/time");
      write_string_attribute(ds.get(), "units", "s");
      write_string_attribute(ds.get(), "description", "output times");
    }
    if (s.output.trajectories.kind != TrajectoryRetention::Kind::none) {
      // Retained samples are appended as the run finds them: extendible, chunked, compressed.
      create("trajectories/sample_index", H5T_NATIVE_UINT64, {}, "1", "global index of each trajectory's sample", true);
      for (const TrajectoryPart& part : trajectory_parts()) create_trajectory_part(part, n_times, 0);
      write_string_attribute(group.get(), "retained", retention_text(s.output.trajectories));
    }
  }
  if (!collective_) {
    attach_sample_dimensions(root, schema_, n_rows_);
  } else {
    // Parallel HDF5 cannot write variable-length strings (the label scales): only the `sample`
    // scales, which the batches fill, are created here; the Reopen constructor attaches the rest.
    DimensionScales scales(root);
    for (const std::string& scale : sample_scales_) scales.samples(scale.substr(0, scale.rfind('/')), n_rows_, false);
    if (H5Lexists(root, "trajectories/sample_index", H5P_DEFAULT) > 0) scales.samples("trajectories", 0, true);
  }
  if (collective_ && s.output_times.n > 0 && s.output.trajectories.kind != TrajectoryRetention::Kind::none) {
    // The processes write their kept trajectories side by side: the datasets get their final
    // extent now (changing it is collective, and each process keeps a different number).
    for (const char* name : {"trajectories/sample_index", "trajectories/sample"}) {
      const hsize_t rows = collective_->n_trajectories;
      h5::check_status(H5Dset_extent(dataset(name).id.get(), &rows), std::string("sizing ") + name);
    }
    for (const TrajectoryPart& part : trajectory_parts()) {
      const hsize_t dims[3] = {collective_->n_trajectories, hsize_t(s.output_times.n), hsize_t(part.dim)};
      h5::check_status(H5Dset_extent(dataset(std::string("trajectories/") + part.name).id.get(), dims),
                       std::string("sizing trajectories/") + part.name);
    }
  }
  write_design(root, s);
  if (s.design.kind == Design::Kind::grid) {
    write_scalar_attribute<std::uint64_t>(root, "grid_points", H5T_NATIVE_UINT64, s.design.n_points());
    write_scalar_attribute<std::uint64_t>(root, "replicates", H5T_NATIVE_UINT64, s.design.replicates);
  }
}

ResultsWriter::~ResultsWriter() {
  if (finished_) return;
  if (collective_) {
    // Closing is collective, and the other processes are not closing now: the run ends every
    // process (MPI_Abort) after this. The identifiers are abandoned and the file removed.
    for (Dataset& d : datasets_) (void)d.id.release();
    datasets_.clear();
    (void)file_.release();
    (void)status_type_.release();
    std::error_code ignored;
    std::filesystem::remove(temporary_path_, ignored);
    return;
  }
  datasets_.clear();
  // One quiet close. When it fails (its flush hits the same full disk), HDF5 1.10 leaves the ID
  // half-closed and a second close crashes, so the ID is abandoned; h5::initialize() turned off
  // HDF5's at-exit teardown, which would otherwise close it again and crash.
  const hid_t id = file_.release();
  if (id >= 0) (void)H5Fclose(id);
  // A run that failed: its temporary file goes (a resumed run's partial file was never touched).
  std::error_code ignored;
  std::filesystem::remove(temporary_path_, ignored);
}

ResultsWriter::Dataset& ResultsWriter::create(const std::string& name, hid_t type, std::vector<hsize_t> row_shape,
                                              const std::string& units, const std::string& description,
                                              bool extendible) {
  std::size_t row_size = 1;
  for (hsize_t d : row_shape) row_size *= d;
  // Chunks of whole rows, about 16384 scalars per row size-1 dataset and never much above 1 MiB.
  const hsize_t rows_per_chunk = std::max<hsize_t>(1, std::min<hsize_t>(16384, (hsize_t(1) << 17) / row_size));
  // An extendible dataset starts empty and grows by appended rows.
  std::vector<hsize_t> dims{extendible ? 0 : n_rows_}, max_dims{extendible ? H5S_UNLIMITED : n_rows_},
      chunk{extendible ? rows_per_chunk : std::min<hsize_t>(std::max<hsize_t>(n_rows_, 1), rows_per_chunk)};
  for (hsize_t d : row_shape) {
    dims.push_back(d);
    max_dims.push_back(d);
    chunk.push_back(d);
  }
  h5::Handle space(H5Screate_simple(int(dims.size()), dims.data(), max_dims.data()), H5Sclose, "dataspace for " + name);
  h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate");
  h5::check_status(H5Pset_chunk(plist.get(), int(chunk.size()), chunk.data()), "H5Pset_chunk");
  if (name == "samples/status") {
    // Rows not written yet (an interrupted run's) read as "not_run", never as "ok".
    const std::uint8_t not_run = kStatusNotRun;
    h5::check_status(H5Pset_fill_value(plist.get(), type, &not_run), "H5Pset_fill_value");  // the enum's not_run
  }
  // Collective writing writes every row of a complete run: no fill values written beforehand
  // (parallel HDF5 allocates a dataset whole when it is created).
  if (collective_) h5::check_status(H5Pset_fill_time(plist.get(), H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
  if (extendible) {
    h5::check_status(H5Pset_shuffle(plist.get()), "H5Pset_shuffle");
    h5::check_status(H5Pset_deflate(plist.get(), TrajectoryChunks::kDeflateLevel), "H5Pset_deflate");
  }
  h5::Handle ds(H5Dcreate2(file_.get(), name.c_str(), type, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT),
                H5Dclose, "creating dataset " + name);
  write_string_attribute(ds.get(), "units", units);
  write_string_attribute(ds.get(), "description", description);
  datasets_.push_back({name, std::move(ds), std::move(row_shape), row_size});
  return datasets_.back();
}

void ResultsWriter::write_rows(Dataset& d, hid_t memory_type, std::uint64_t first, std::size_t n, const void* rows) {
  std::vector<hsize_t> start{first}, count{hsize_t(n)};
  for (hsize_t x : d.row_shape) {
    start.push_back(0);
    count.push_back(x);
  }
  h5::Handle file_space(H5Dget_space(d.id.get()), H5Sclose, "H5Dget_space " + d.name);
  if (n == 0)  // a collective write's share of a process with no rows left
    h5::check_status(H5Sselect_none(file_space.get()), "selecting no rows of " + d.name);
  else
    h5::check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                     "selecting rows of " + d.name);
  h5::Handle memory_space(H5Screate_simple(int(count.size()), count.data(), nullptr), H5Sclose, "H5Screate_simple");
  static const double nothing = 0;
  h5::check_status(H5Dwrite(d.id.get(), memory_type, memory_space.get(), file_space.get(),
                            collective_ ? collective_->transfer : H5P_DEFAULT, n == 0 ? &nothing : rows),
                   "writing " + d.name + " to " + temporary_path_);
}

hid_t ResultsWriter::stored_type(StoredType t) const {
  switch (t) {
    case StoredType::real:
      return scenario_->output.storage == OutputSettings::Storage::float32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    case StoredType::int64: return H5T_STD_I64LE;
    case StoredType::uint64: return H5T_STD_U64LE;
    case StoredType::uint8: return H5T_STD_U8LE;
  }
  return H5T_IEEE_F64LE;
}

// One extendible (kept, output times, dim) trajectory dataset, in chunks compressed on every core
// (host/io/trajectory_chunks.hpp); rows_in_file: what a resumed file holds already.
void ResultsWriter::create_trajectory_part(const TrajectoryPart& part, hsize_t n_times, hsize_t rows_in_file) {
  const std::string name = std::string("trajectories/") + part.name;
  const hsize_t dim = hsize_t(part.dim);
  if (!resumed_) {
    const std::array<hsize_t, 3> chunk = trajectory_chunk_shape(n_times, dim);
    const hsize_t dims[3] = {0, n_times, dim}, max_dims[3] = {H5S_UNLIMITED, n_times, dim};
    h5::Handle space(H5Screate_simple(3, dims, max_dims), H5Sclose, "dataspace for " + name);
    h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate");
    h5::check_status(H5Pset_chunk(plist.get(), 3, chunk.data()), "H5Pset_chunk");
    // The filters the chunks were compressed with, declared for every reader (none: stored as they are).
    if (scenario_->output.compression == OutputSettings::Compression::deflate) {
      h5::check_status(H5Pset_shuffle(plist.get()), "H5Pset_shuffle");
      h5::check_status(H5Pset_deflate(plist.get(), TrajectoryChunks::kDeflateLevel), "H5Pset_deflate");
    }
    h5::Handle ds(H5Dcreate2(file_.get(), name.c_str(), stored_type(StoredType::real), space.get(), H5P_DEFAULT,
                             plist.get(), H5P_DEFAULT),
                  H5Dclose, "creating dataset " + name);
    write_string_attribute(ds.get(), "units", part.units);
    write_string_attribute(ds.get(), "description", part.description);
    datasets_.push_back({name, std::move(ds), {n_times, dim}, std::size_t(n_times * dim)});
  }
  // Collectively, HDF5 writes them through the dataset's filters, on every process
  // (write_trajectories_collectively).
  if (collective_) return;
  const bool float32 = scenario_->output.storage == OutputSettings::Storage::float32;
  const bool deflate = scenario_->output.compression == OutputSettings::Compression::deflate;
  trajectory_chunks_.emplace_back(dataset(name).id.get(), name, n_times, dim, float32, deflate, rows_in_file);
}

void ResultsWriter::write_batch(const BatchView& b, StageTimings& timings) {
  h5::initialize();  // on the writer's thread
  if (b.first + b.n > n_rows_) throw Hdf5Error("internal error: batch beyond the end of " + path_);
  std::vector<std::uint64_t> index(b.n);
  for (std::size_t i = 0; i < b.n; ++i) index[i] = b.index != nullptr ? b.index[i] : b.first + i;
  const bool keeps_trajectories =
      scenario_->output_times.n > 0 && scenario_->output.trajectories.kind != TrajectoryRetention::Kind::none;
  if (collective_ && keeps_trajectories) {
    write_trajectories_collectively(index.data(), b);
  } else if (b.trajectories != nullptr && !b.kept->empty()) {
    append_trajectories(index.data(), *b.kept, *b.trajectories, timings);
  }
  const StageClock clock(&timings, Stage::write);
  const Design& design = scenario_->design;
  const std::size_t n_axes = design.axes.size();
  std::vector<double> coordinates;  // (n, axes): a function of each row's global index, not carried in the batch
  if (design.gives_values()) {
    coordinates.resize(b.n * n_axes);
    for (std::size_t i = 0; i < b.n; ++i) {
      const std::vector<std::uint64_t> c = design.coordinates(index[i]);
      for (std::size_t j = 0; j < n_axes; ++j) coordinates[i * n_axes + j] = double(c[j]);
    }
  }
  write_sample_scales(b.first, b.n, index.data());
  // Every dataset's rows, from the batch's structure-of-arrays columns, as its schema entry says.
  for (const SampleDataset& d : schema_) {
    Dataset& out = dataset(d.path);
    const std::size_t dim = d.row_size();
    // Rows of a one-value dataset are its column as it lies: written from there, not copied.
    const double* rows = scratch_.data();
    const auto from_columns = [&](const double* columns) {
      const double* first_column = columns + std::size_t(d.column) * b.n;
      if (dim == 1) {
        rows = first_column;
        return;
      }
      scratch_.resize(b.n * dim);
      rows = scratch_.data();
      for (std::size_t i = 0; i < b.n; ++i)
        for (std::size_t c = 0; c < dim; ++c) scratch_[i * dim + c] = first_column[c * b.n + i];
    };
    switch (d.source) {
      case SampleSource::index: write_rows(out, H5T_NATIVE_UINT64, b.first, b.n, index.data()); continue;
      case SampleSource::status: write_rows(out, status_type_.get(), b.first, b.n, b.status); continue;
      case SampleSource::params: from_columns(b.params); break;
      case SampleSource::inputs: from_columns(b.inputs); break;
      case SampleSource::outputs: from_columns(b.outputs); break;  // HDF5 converts counts to int64
      case SampleSource::inertia: {
        // The six stored components (xx, yy, zz, xy, xz, yz) back into a full symmetric 3×3.
        static constexpr int kFromSix[9] = {0, 3, 4, 3, 1, 5, 4, 5, 2};
        scratch_.resize(b.n * 9);
        rows = scratch_.data();
        for (std::size_t i = 0; i < b.n; ++i)
          for (int e = 0; e < 9; ++e) scratch_[i * 9 + e] = b.inputs[(d.column + kFromSix[e]) * b.n + i];
        break;
      }
      case SampleSource::grid_index: rows = coordinates.data(); break;
      case SampleSource::grid_value: {
        const GridAxis& axis = design.axes[std::size_t(d.column)];
        scratch_.resize(b.n * dim);
        rows = scratch_.data();
        for (std::size_t i = 0; i < b.n; ++i)
          for (std::size_t c = 0; c < dim; ++c)
            scratch_[i * dim + c] = axis.values[std::size_t(coordinates[i * n_axes + std::size_t(d.column)])][c];
        break;
      }
    }
    write_rows(out, H5T_NATIVE_DOUBLE, b.first, b.n, rows);
  }
}

// Every group's `sample` scale holds the same indices (host/io/dimension_scales.hpp). Deflating
// them through HDF5's filters, scale by scale, took a fifth of the writer's thread on a run that
// keeps final states only (bench/RESULTS.md, 2026-11-26, seventeenth session). The chunks the batch
// fills whole are shuffled and deflated once, as HDF5's filters would, and stored in every scale
// with H5Dwrite_chunk; any HDF5 reader reads them as before. The rows of chunks the batch fills in
// part go through HDF5, which merges them with the rows already there; so do collective writes,
// which HDF5 coordinates across the processes.
void ResultsWriter::write_sample_scales(std::uint64_t first, std::size_t n, const std::uint64_t* index) {
  if (collective_) {  // every process writes each scale together, also one with no rows left
    for (const std::string& scale : sample_scales_) write_rows(dataset(scale), H5T_NATIVE_UINT64, first, n, index);
    return;
  }
  if (sample_scales_.empty() || n == 0) return;
  // Opened first: dataset() may append to datasets_, which would move the ones already found.
  for (const std::string& scale : sample_scales_) (void)dataset(scale);
  std::vector<Dataset*> scales;
  for (const std::string& scale : sample_scales_) scales.push_back(&dataset(scale));
  // The chunk's rows and filters, as this file's scales were created (a resumed file's included).
  hsize_t chunk = 0;
  bool direct = H5Tequal(H5T_NATIVE_UINT64, H5T_STD_U64LE) > 0;
  for (Dataset* d : scales) {
    h5::Handle plist(H5Dget_create_plist(d->id.get()), H5Pclose, "H5Dget_create_plist " + d->name);
    hsize_t rows = 0;
    const auto filter = [&plist](unsigned i) {
      return H5Pget_filter2(plist.get(), i, nullptr, nullptr, nullptr, 0, nullptr, nullptr);
    };
    const bool filtered =
        H5Pget_nfilters(plist.get()) == 2 && filter(0) == H5Z_FILTER_SHUFFLE && filter(1) == H5Z_FILTER_DEFLATE;
    if (H5Pget_layout(plist.get()) != H5D_CHUNKED || H5Pget_chunk(plist.get(), 1, &rows) != 1 || !filtered ||
        (chunk != 0 && rows != chunk))
      direct = false;
    chunk = rows;
  }
  const std::uint64_t end = first + n;
  const std::uint64_t whole_first = direct ? (first + chunk - 1) / chunk * chunk : end,
                      whole_end = direct ? std::max<std::uint64_t>(whole_first, end / chunk * chunk) : end;
  const auto through_hdf5 = [&](std::uint64_t from, std::uint64_t to) {
    if (to > from)
      for (Dataset* d : scales) write_rows(*d, H5T_NATIVE_UINT64, from, std::size_t(to - from), index + (from - first));
  };
  through_hdf5(first, std::min(whole_first, end));
  for (std::uint64_t at = whole_first; at < whole_end; at += chunk) {
    const std::vector<unsigned char> bytes =
        shuffle_and_deflate(reinterpret_cast<const unsigned char*>(index + (at - first)), std::size_t(chunk) * 8, 8,
                            DimensionScales::kSampleDeflateLevel);
    const hsize_t offset = at;
    for (Dataset* d : scales)
      h5::check_status(H5Dwrite_chunk(d->id.get(), H5P_DEFAULT, 0, &offset, bytes.size(), bytes.data()),
                       "writing a chunk of " + d->name + " to " + temporary_path_);
  }
  through_hdf5(whole_end, end);
}

ResultsWriter::Dataset& ResultsWriter::dataset(const std::string& name) {
  for (Dataset& d : datasets_)
    if (d.name == name) return d;
  if (H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT) <= 0) throw Hdf5Error("internal error: no dataset " + name);
  // A resumed file's datasets, or a dimension scale: open it and learn its row shape.
  h5::Handle ds(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose, "opening " + name + " in " + temporary_path_);
  h5::Handle space(H5Dget_space(ds.get()), H5Sclose, "H5Dget_space " + name);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1) throw Hdf5Error("the rank of " + name + " in " + temporary_path_ + " is not readable");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  h5::check_status(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "dims of " + name);
  std::vector<hsize_t> row_shape(dims.begin() + 1, dims.end());
  std::size_t row_size = 1;
  for (hsize_t d : row_shape) row_size *= d;
  datasets_.push_back({name, std::move(ds), std::move(row_shape), row_size});
  return datasets_.back();
}

ResultsWriter::ResultsWriter(std::string path, const ResultsMetadata& meta, Resume)
    : path_(std::move(path)),
      n_rows_(meta.n_samples),
      scenario_(meta.scenario),
      schema_(sample_datasets(*meta.scenario)),
      threads_(meta.threads),
      resumed_(true) {
  namespace fs = std::filesystem;
  const std::string suspended = suspended_path(path_);
  if (!fs::exists(suspended)) throw UsageError("--resume: there is no interrupted run to resume (" + suspended + ")");
  // The resume works on a copy: the partial file stays untouched, and valid, until the resumed
  // run has put a finished file (or a newer partial file) in its place. A failure on the way (a
  // full disk) only removes the copy.
  temporary_path_ = path_ + ".partial-" + std::to_string(::getpid());
  std::error_code e;
  fs::copy_file(suspended, temporary_path_, fs::copy_options::overwrite_existing, e);
  if (e) {
    std::error_code ignored;
    fs::remove(temporary_path_, ignored);
    throw Hdf5Error("copying " + suspended + " to resume it: " + e.message() + " (" + suspended + " is unchanged)");
  }
  fs::permissions(temporary_path_, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add, e);
  h5::initialize();
  status_type_ = status_enum_type();
  for (const SampleDataset& d : schema_) sample_scales_.insert(d.path.substr(0, d.path.rfind('/')) + "/sample");
  file_ = h5::Handle(H5Fopen(temporary_path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, "opening " + temporary_path_);
  // The trajectories kept before the interruption: the retention limit and n_trajectories go on
  // from them, and new ones are appended after them.
  if (H5Lexists(file_.get(), "trajectories", H5P_DEFAULT) > 0 &&
      H5Lexists(file_.get(), "trajectories/sample_index", H5P_DEFAULT) > 0) {
    h5::Handle space(H5Dget_space(dataset("trajectories/sample_index").id.get()), H5Sclose, "H5Dget_space");
    hsize_t kept = 0;
    h5::check_status(H5Sget_simple_extent_dims(space.get(), &kept, nullptr), "the extent of trajectories/sample_index");
    n_trajectories_ = kept;
    for (const TrajectoryPart& part : trajectory_parts())
      create_trajectory_part(part, hsize_t(scenario_->output_times.n), kept);
  }
}

void ResultsWriter::drop_suspended_state() {
  if (!resumed_) return;
  h5::check_status(H5Ldelete(file_.get(), "resume", H5P_DEFAULT), "removing /resume from " + temporary_path_);
  h5::check_status(H5Adelete(file_.get(), "complete"), "removing the attribute complete");
  resumed_state_dropped_ = true;
}

void ResultsWriter::suspend(const SuspendedRun& state) {
  flush_trajectories();
  if (!resumed_state_dropped_) drop_suspended_state();
  const hid_t root = file_.get();
  h5::Handle group = create_group(root, "resume");
  write_string_attribute(group.get(), "description",
                         "an interrupted run's state; rbmc run SCENARIO -o FILE --resume completes it");
  write_scalar_attribute<std::uint64_t>(group.get(), "rows_done", H5T_NATIVE_UINT64, state.rows_done);
  write_scalar_attribute<std::uint64_t>(group.get(), "batch_size", H5T_NATIVE_UINT64, state.batch_size);
  write_scalar_attribute<std::uint64_t>(group.get(), "n_trajectories", H5T_NATIVE_UINT64, n_trajectories_);

  std::vector<double> totals{double(state.totals.n_redrawn), double(state.totals.steps),
                             double(state.totals.rejected_steps), state.totals.wall_seconds};
  for (std::uint64_t c : state.totals.status_counts) totals.push_back(double(c));
  write_array(group.get(), "totals", totals, {hsize_t(totals.size())});
  write_statistics_state(group.get(), state.statistics, state.exact_values);
  group.close("closing /resume");
  write_scalar_attribute<std::uint64_t>(root, "complete", H5T_NATIVE_UINT64, 0);
  for (Dataset& d : datasets_) d.id.close("closing " + d.name);
  datasets_.clear();
  close_into_place(file_, temporary_path_, suspended_path(path_));
  finished_ = true;  // nothing left for the destructor to remove
}

void ResultsWriter::append_rows(Dataset& d, hid_t memory_type, std::size_t n, const void* rows) {
  h5::Handle space(H5Dget_space(d.id.get()), H5Sclose, "H5Dget_space " + d.name);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1) throw Hdf5Error("H5Sget_simple_extent_ndims failed for " + d.name);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
    throw Hdf5Error("H5Sget_simple_extent_dims failed for " + d.name);
  const hsize_t first = dims[0];
  dims[0] += n;
  h5::check_status(H5Dset_extent(d.id.get(), dims.data()), "extending " + d.name);
  write_rows(d, memory_type, first, n, rows);
}

void ResultsWriter::append_trajectories(const std::uint64_t* index, const std::vector<std::uint32_t>& kept,
                                        const std::vector<double>& trajectories, StageTimings& timings) {
  // Each kept row holds, at each output time, p (3), q (4), v (3), ω (3).
  const std::size_t n_times = std::size_t(scenario_->output_times.n), n = kept.size();
  {
    const StageClock clock(&timings, Stage::write);
    std::vector<std::uint64_t> sample_index(n);
    for (std::size_t r = 0; r < n; ++r) sample_index[r] = index[kept[r]];
    append_rows(dataset("trajectories/sample_index"), H5T_NATIVE_UINT64, n, sample_index.data());
    append_rows(dataset("trajectories/sample"), H5T_NATIVE_UINT64, n, sample_index.data());  // its coordinate
  }
  // Each part's chunks compressed straight from the kept rows (13 values a time).
  if (trajectories.size() != n * n_times * kTrajectoryColumns)
    throw std::logic_error("ResultsWriter::append_trajectories: the kept rows' trajectories are missing");
  const std::vector<TrajectoryPart>& parts = trajectory_parts();
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const TrajectoryRows part{trajectories.data(), n, kTrajectoryColumns, std::size_t(parts[p].first)};
    trajectory_chunks_[p].append(part, threads_, timings);
  }
  n_trajectories_ += n;
}

// Collective writing: the batch's kept trajectories at their rows of the file, written by every
// process together (an empty share where a process has none), compressed by HDF5's filters.
void ResultsWriter::write_trajectories_collectively(const std::uint64_t* index, const BatchView& b) {
  const std::size_t n_times = std::size_t(scenario_->output_times.n);
  const std::size_t n = b.kept != nullptr ? b.kept->size() : 0;
  std::vector<std::uint64_t> sample_index(n);
  for (std::size_t r = 0; r < n; ++r) sample_index[r] = index[(*b.kept)[r]];
  write_rows(dataset("trajectories/sample_index"), H5T_NATIVE_UINT64, b.trajectory_row, n, sample_index.data());
  write_rows(dataset("trajectories/sample"), H5T_NATIVE_UINT64, b.trajectory_row, n, sample_index.data());
  for (const TrajectoryPart& part : trajectory_parts()) {
    const std::size_t dim = std::size_t(part.dim);
    part_rows_.resize(n * n_times * dim);
    for (std::size_t k = 0; k < n * n_times; ++k)
      for (std::size_t c = 0; c < dim; ++c)
        part_rows_[k * dim + c] = (*b.trajectories)[k * kTrajectoryColumns + std::size_t(part.first) + c];
    const Dataset& out = dataset(std::string("trajectories/") + part.name);
    if (scenario_->output.storage == OutputSettings::Storage::float32) {
      // Rounded here as TrajectoryChunks rounds them: HDF5 writes compressed data collectively
      // only without a type conversion.
      std::vector<float> rounded(part_rows_.begin(), part_rows_.end());
      write_rows(dataset(out.name), H5T_NATIVE_FLOAT, b.trajectory_row, n, rounded.data());
    } else {
      write_rows(dataset(out.name), H5T_NATIVE_DOUBLE, b.trajectory_row, n, part_rows_.data());
    }
  }
  n_trajectories_ += n;
}

void ResultsWriter::close_collectively() {
  for (Dataset& d : datasets_) d.id.close("closing " + d.name);
  datasets_.clear();
  file_.close("closing " + temporary_path_);
  finished_ = true;
}

ResultsWriter::ResultsWriter(std::string path, const ResultsMetadata& meta, Reopen)
    : path_(std::move(path)),
      temporary_path_(meta.collective->temporary_path),
      n_rows_(meta.n_samples),
      scenario_(meta.scenario),
      schema_(sample_datasets(*meta.scenario)),
      threads_(meta.threads),
      n_trajectories_(meta.collective->n_trajectories) {
  h5::initialize();
  status_type_ = status_enum_type();
  file_ = h5::Handle(H5Fopen(temporary_path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, "opening " + temporary_path_);
  attach_sample_dimensions(file_.get(), schema_, n_rows_);  // deferred by the collective constructor
}

// Stores the trajectories' partly filled last chunks: before the file is closed.
void ResultsWriter::flush_trajectories() {
  StageTimings ignored;
  for (TrajectoryChunks& t : trajectory_chunks_) t.flush(threads_, ignored);
}

QuantileAccuracy ResultsWriter::write_statistics(RunStatistics& stats) {
  return write_statistics_group(file_.get(), stats, *scenario_);
}

namespace {

// The run's totals as root attributes of a finished file.
void write_totals(hid_t root, const RunTotals& totals, const Scenario& s, std::uint64_t n_rows,
                  std::uint64_t n_trajectories) {
  write_scalar_attribute<double>(root, "wall_seconds", H5T_NATIVE_DOUBLE, totals.wall_seconds);
  write_scalar_attribute<std::uint64_t>(root, "complete", H5T_NATIVE_UINT64, 1);
  write_scalar_attribute<std::uint64_t>(root, "n_redrawn_bodies", H5T_NATIVE_UINT64, totals.n_redrawn);
  if (s.output_times.n > 0) write_scalar_attribute<std::uint64_t>(root, "n_trajectories", H5T_NATIVE_UINT64, n_trajectories);
  write_scalar_attribute<std::uint64_t>(root, "total_steps", H5T_NATIVE_UINT64, totals.steps);
  if (s.run.integrator == IntegratorKind::dopri5 && n_rows > 0)
    write_scalar_attribute<double>(root, "mean_steps", H5T_NATIVE_DOUBLE, double(totals.steps) / double(n_rows));
  write_scalar_attribute<std::uint64_t>(root, "total_rejected_steps", H5T_NATIVE_UINT64, totals.rejected_steps);
  if (totals.resumed_samples > 0)
    write_scalar_attribute<std::uint64_t>(root, "resumed_samples", H5T_NATIVE_UINT64, totals.resumed_samples);
  if (totals.n_parts > 0) {
    write_scalar_attribute<std::uint64_t>(root, "n_parts", H5T_NATIVE_UINT64, totals.n_parts);
    write_string_attribute(root, "joined_by", totals.joined_by);
  }
  if (totals.elapsed_seconds > 0)
    write_scalar_attribute<double>(root, "elapsed_seconds", H5T_NATIVE_DOUBLE, totals.elapsed_seconds);
  for (int c = 0; c < kSampleStatusCount; ++c)
    write_scalar_attribute<std::uint64_t>(root, std::string("n_status_") + status_name(static_cast<SampleStatus>(c)),
                                          H5T_NATIVE_UINT64, totals.status_counts[c]);
  // Wall time per stage of the pipeline (rbmc run --timings), this process's share of the run.
  if (H5Lexists(root, "timings", H5P_DEFAULT) <= 0) create_group(root, "timings");
  h5::Handle timings(H5Gopen2(root, "timings", H5P_DEFAULT), H5Gclose, "opening /timings");
  write_string_attribute(timings.get(), "units", "s");
  write_string_attribute(timings.get(), "description",
                         "wall time of each stage of the run in this process (a resumed run: since the resume), "
                         "and the process's wall time (wall); "
                         "setup precedes the first batch (the backend and its device, this file, the statistics); "
                         "compress and write run on the writer thread, overlapping the next batch's stages");
  for (int i = 0; i < int(Stage::count); ++i)
    write_scalar_attribute<double>(timings.get(), stage_name(Stage(i)), H5T_NATIVE_DOUBLE, totals.stage_seconds[Stage(i)]);
  write_scalar_attribute<double>(timings.get(), "wall", H5T_NATIVE_DOUBLE, totals.process_wall_seconds);
}

// H5Aiterate2 callback: copies one root attribute to the group in op_data, but `complete`.
herr_t copy_root_attribute(hid_t location, const char* name, const H5A_info_t*, void* op_data) {
  if (std::string(name) == "complete") return 0;
  const hid_t to = *static_cast<const hid_t*>(op_data);
  const hid_t attribute = H5Aopen(location, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(attribute), space = H5Aget_space(attribute);
  const hssize_t points = H5Sget_simple_extent_npoints(space);
  std::vector<unsigned char> buffer(H5Tget_size(type) * std::size_t(points > 0 ? points : 1));
  herr_t status = H5Aread(attribute, type, buffer.data());
  if (status >= 0) {
    const hid_t copy = H5Acreate2(to, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    status = copy < 0 ? -1 : H5Awrite(copy, type, buffer.data());
    if (copy >= 0) H5Aclose(copy);
    if (H5Tis_variable_str(type) > 0) H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer.data());
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(attribute);
  return status < 0 ? -1 : 0;
}

// H5Literate callback: copies one root member to the file in op_data, but /resume.
herr_t copy_root_member(hid_t location, const char* name, const H5L_info_t*, void* op_data) {
  if (std::string(name) == "resume") return 0;
  return H5Ocopy(location, name, *static_cast<const hid_t*>(op_data), name, H5P_DEFAULT, H5P_DEFAULT) < 0 ? -1 : 0;
}

}  // namespace

void ResultsWriter::finish(const RunTotals& totals, const StatisticsState* shard_state,
                           const std::vector<std::vector<double>>* shard_exact_values) {
  flush_trajectories();
  if (shard_state != nullptr && !shard_state->moments.empty()) {
    h5::Handle group = create_group(file_.get(), "shard_state");
    write_string_attribute(group.get(), "description",
                           "this part's statistics state (moments, quantile values), which rbmc merge merges exactly");
    write_statistics_state(group.get(), *shard_state, shard_exact_values);
  }
  for (Dataset& d : datasets_) d.id.close("closing " + d.name);
  datasets_.clear();
  if (resumed_) {
    finish_resumed(totals);
    return;
  }
  write_totals(file_.get(), totals, *scenario_, n_rows_, n_trajectories_);
  close_into_place(file_, temporary_path_, path_);
  finished_ = true;
}

// A resumed run's file holds the resume state it was continued from. Rather than delete that
// (which leaves its space dead in the file) and risk the only copy of the finished samples on the
// last steps, everything but /resume is copied into a new file, which takes OUT's place; the
// partial file is removed only then. Any failure before leaves it as it was, for --resume.
void ResultsWriter::finish_resumed(const RunTotals& totals) {
  h5::check_status(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "flushing " + temporary_path_);
  const std::string writing = path_ + ".writing-" + std::to_string(::getpid());
  try {
    h5::Handle out(H5Fcreate(writing.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "creating " + writing);
    hid_t to = out.get();
    h5::check_status(H5Literate(file_.get(), H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, copy_root_member, &to),
                     "copying " + temporary_path_ + " into " + writing);
    h5::check_status(H5Aiterate2(file_.get(), H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, copy_root_attribute, &to),
                     "copying the attributes of " + temporary_path_);
    write_totals(to, totals, *scenario_, n_rows_, n_trajectories_);
    // The copies' scale references point into the partial file: attached afresh.
    DimensionScales::drop_all_attachments(to);
    attach_sample_dimensions(to, schema_, n_rows_);
    std::vector<double> times(std::size_t(scenario_->output_times.n));
    for (std::size_t k = 0; k < times.size(); ++k) times[k] = scenario_->output_times.at(int(k));
    attach_statistics_dimensions(to, times);
    close_into_place(out, writing, path_);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(writing, ignored);
    throw;  // the destructor puts the partial file back
  }
  file_.close("closing " + temporary_path_);
  std::error_code ignored;
  std::filesystem::remove(temporary_path_, ignored);
  std::filesystem::remove(suspended_path(path_), ignored);  // completed: the partial file is done with
  finished_ = true;
}

}  // namespace rbmc

#include "host/io/run_journal.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <type_traits>

#include "host/errors.hpp"

namespace rbmc {

namespace {

// Format 2: records without statistics (format 1's held moments and exact quantiles' values).
constexpr char kMagic[8] = {'R', 'B', 'M', 'C', 'J', 'N', 'L', '2'};
constexpr std::uint64_t kRecordMagic = 0x434552424d43524aull;  // "JRCMBREC", little-endian

// A checksum of 8-byte words (FNV-1a's multiply over words, then the tail bytes): enough to tell
// a record cut short or overwritten from a whole one, at memory speed.
class Checksum {
 public:
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    // Bytes carried over from the previous piece first, so that pieces hash as one stream.
    if (fill_ > 0) {
      while (fill_ < 8 && i < n) carry_[fill_++] = p[i++];
      if (fill_ < 8) return;
      mix(carry_);
      fill_ = 0;
    }
    for (; i + 8 <= n; i += 8) mix(p + i);
    fill_ = n - i;  // fewer than 8
    std::memcpy(carry_, p + i, fill_);
  }
  std::uint64_t value() const {
    std::uint64_t h = h_;
    for (std::size_t i = 0; i < fill_; ++i) h = (h ^ carry_[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
  }

 private:
  void mix(const unsigned char* w) {
    std::uint64_t x;
    std::memcpy(&x, w, 8);
    h_ = (h_ ^ x) * 0x100000001b3ull;
    h_ ^= h_ >> 32;
  }
  std::uint64_t h_ = 0xcbf29ce484222325ull;
  unsigned char carry_[8] = {};
  std::size_t fill_ = 0;
};

std::uint64_t checksum(const unsigned char* data, std::size_t n) {
  Checksum c;
  c.add(data, n);
  return c.value();
}

// Where a payload's bytes come from: memory (a record read whole) or a file (a snapshot, whose
// values may be most of memory, read where they go).
struct MemorySource {
  const unsigned char* at;
  bool read(void* to, std::size_t n) {
    if (n > 0) std::memcpy(to, at, n);
    at += n;
    return true;
  }
};
struct FileSource {
  std::FILE* f;
  bool read(void* to, std::size_t n) { return n == 0 || std::fread(to, 1, n, f) == n; }
};

// A payload's scalars and arrays (each its element count, then its elements), within its n bytes.
template <class Source>
class Reader {
 public:
  Reader(Source source, std::uint64_t n) : source_(source), n_(n) {}
  template <class T>
  bool get(T& v) {
    if (at_ + sizeof(T) > n_ || !source_.read(&v, sizeof(T))) return false;
    at_ += sizeof(T);
    return true;
  }
  template <class T>
  bool get_array(std::vector<T>& v) {
    std::uint64_t count = 0;
    if (!get(count) || count > (n_ - at_) / sizeof(T)) return false;
    v.resize(std::size_t(count));
    if (!source_.read(v.data(), std::size_t(count) * sizeof(T))) return false;
    at_ += count * sizeof(T);
    return true;
  }
  // A file's array passed over, its element count and offset kept, to be read where it belongs.
  template <class T>
  bool skip_array(std::uint64_t& count, long& offset) {
    static_assert(std::is_same_v<Source, FileSource>, "only a file's arrays are passed over");
    if (!get(count) || count > (n_ - at_) / sizeof(T)) return false;
    offset = std::ftell(source_.f);
    at_ += count * sizeof(T);
    return offset >= 0 && std::fseek(source_.f, long(count * sizeof(T)), SEEK_CUR) == 0;
  }
  bool done() const { return at_ == n_; }

 private:
  Source source_;
  std::uint64_t n_, at_ = 0;
};

}  // namespace

RunJournal::RunJournal(std::string path, const std::string& identity) : path_(std::move(path)), identity_(identity) {
  std::error_code ignored;  // a replaced run's snapshot is not this one's
  std::filesystem::remove(snapshot_path_for(path_), ignored);
  file_ = std::fopen(path_.c_str(), "wb");
  if (file_ == nullptr) throw Hdf5Error("creating " + path_ + ": " + std::strerror(errno));
  const std::uint64_t length = identity.size();
  if (std::fwrite(kMagic, 1, sizeof kMagic, file_) != sizeof kMagic || std::fwrite(&length, sizeof length, 1, file_) != 1 ||
      std::fwrite(identity.data(), 1, identity.size(), file_) != identity.size() || std::fflush(file_) != 0) {
    give_up(std::strerror(errno));
    return;
  }
  valid_bytes_ = sizeof kMagic + sizeof length + identity.size();
}

RunJournal::RunJournal(std::string path, const std::string& identity, std::uint64_t valid_bytes)
    : path_(std::move(path)), identity_(identity) {
  // A record cut short by the kill is cut off, and appending continues after the last whole one.
  if (::truncate(path_.c_str(), off_t(valid_bytes)) != 0) throw Hdf5Error("truncating " + path_ + ": " + std::strerror(errno));
  file_ = std::fopen(path_.c_str(), "ab");
  if (file_ == nullptr) throw Hdf5Error("opening " + path_ + ": " + std::strerror(errno));
  valid_bytes_ = valid_bytes;
}

RunJournal::~RunJournal() {
  if (file_ != nullptr) std::fclose(file_);
}

void RunJournal::give_up(const std::string& why) {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  // The records written so far stay, whole: a record cut short by the failure is cut off.
  if (valid_bytes_ > 0 && ::truncate(path_.c_str(), off_t(valid_bytes_)) == 0) {
    std::fprintf(stderr,
                 "rbmc: warning: cannot write the journal %s (%s): it keeps the batches finished so far, and the run "
                 "goes on without it (a kill -9 from now on loses the batches finished after this)\n",
                 path_.c_str(), why.c_str());
    return;
  }
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
  std::fprintf(stderr, "rbmc: warning: cannot write the journal %s (%s); the run goes on without it\n", path_.c_str(),
               why.c_str());
}

void RunJournal::append(const JournalBatchView& b) {
  if (file_ == nullptr) return;
  // The payload, written piece by piece from the driver's buffers: three counts, then each array
  // as its element count and its bytes.
  const std::uint64_t scalars[3] = {b.first, b.n, b.redrawn};
  const JournalArray* arrays[4] = {&b.outputs, &b.status, &b.kept, &b.trajectories};
  std::uint64_t payload = sizeof scalars;
  for (const JournalArray* a : arrays) payload += sizeof(std::uint64_t) + a->count * a->element_size;
  const std::uint64_t header[2] = {kRecordMagic, payload};
  Checksum sum;
  bool ok = std::fwrite(header, sizeof header, 1, file_) == 1 && std::fwrite(scalars, sizeof scalars, 1, file_) == 1;
  sum.add(scalars, sizeof scalars);
  for (const JournalArray* a : arrays) {
    const std::size_t bytes = std::size_t(a->count * a->element_size);
    ok = ok && std::fwrite(&a->count, sizeof a->count, 1, file_) == 1 &&
         (bytes == 0 || std::fwrite(a->data, 1, bytes, file_) == bytes);
    sum.add(&a->count, sizeof a->count);
    if (bytes > 0) sum.add(a->data, bytes);
  }
  // Whole records only reach the file in order; fflush hands each to the kernel, which keeps it
  // through the process's death (a power cut is another matter: docs/output-format.md).
  const std::uint64_t value = sum.value();
  if (!ok || std::fwrite(&value, sizeof value, 1, file_) != 1 || std::fflush(file_) != 0) {
    give_up(std::strerror(errno));
    return;
  }
  valid_bytes_ += sizeof header + payload + sizeof value;
}

void RunJournal::remove() {
  if (path_.empty()) return;
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
  std::filesystem::remove(snapshot_path_for(path_), ignored);
  std::filesystem::remove(snapshot_path_for(path_) + ".writing", ignored);
}

namespace {
// 2: the sketches' brackets (a snapshot of 1 is not read: the batches after it are integrated again).
constexpr char kSnapshotMagic[8] = {'R', 'B', 'M', 'C', 'S', 'T', 'S', '2'};
}  // namespace

void RunJournal::snapshot_statistics(std::uint64_t rows, const StatisticsState& state,
                                     const std::vector<std::vector<double>>* exact_values) {
  if (file_ == nullptr || snapshot_failed_) return;  // no journal: a snapshot would outlive its records
  // The payload, written piece by piece from the state (no second copy of it): the rows it
  // covers, the quantile samples, then each array as its element count and its bytes, from one
  // piece, or for the values the exact columns' one after another.
  std::vector<std::vector<JournalArray>> arrays = {
      {JournalArray::of(state.moments)},           {JournalArray::of(state.values)},
      {JournalArray::of(state.value_counts)},      {JournalArray::of(state.sketch_level_sizes)},
      {JournalArray::of(state.sketch_compactions)}, {JournalArray::of(state.sketch_brackets)},
      {JournalArray::of(state.sketch_counts)}};
  if (exact_values != nullptr) {
    arrays[1].clear();
    for (const std::vector<double>& column : *exact_values) arrays[1].push_back(JournalArray::of(column));
  }
  const auto count_of = [](const std::vector<JournalArray>& pieces) {
    std::uint64_t n = 0;
    for (const JournalArray& piece : pieces) n += piece.count;
    return n;
  };
  const auto bytes_of = [](const JournalArray& piece) { return std::size_t(piece.count * piece.element_size); };
  const std::uint64_t scalars[2] = {rows, state.quantile_samples};
  std::uint64_t payload_length = sizeof scalars;
  for (const std::vector<JournalArray>& pieces : arrays) {
    payload_length += sizeof(std::uint64_t);
    for (const JournalArray& piece : pieces) payload_length += bytes_of(piece);
  }
  const std::uint64_t identity_length = identity_.size();
  const std::string target = snapshot_path_for(path_), writing = target + ".writing";
  std::FILE* f = std::fopen(writing.c_str(), "wb");
  bool ok = f != nullptr && std::fwrite(kSnapshotMagic, 1, sizeof kSnapshotMagic, f) == sizeof kSnapshotMagic &&
            std::fwrite(&identity_length, sizeof identity_length, 1, f) == 1 &&
            std::fwrite(identity_.data(), 1, identity_.size(), f) == identity_.size() &&
            std::fwrite(&payload_length, sizeof payload_length, 1, f) == 1 && std::fwrite(scalars, sizeof scalars, 1, f) == 1;
  Checksum sum;
  sum.add(scalars, sizeof scalars);
  for (const std::vector<JournalArray>& pieces : arrays) {
    const std::uint64_t count = count_of(pieces);
    ok = ok && std::fwrite(&count, sizeof count, 1, f) == 1;
    sum.add(&count, sizeof count);
    for (const JournalArray& piece : pieces) {
      const std::size_t bytes = bytes_of(piece);
      ok = ok && (bytes == 0 || std::fwrite(piece.data, 1, bytes, f) == bytes);
      if (bytes > 0) sum.add(piece.data, bytes);
    }
  }
  const std::uint64_t value = sum.value();
  ok = ok && std::fwrite(&value, sizeof value, 1, f) == 1;
  const int saved_errno = errno;
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  // The rename replaces the last snapshot whole: a kill leaves the old one or the new one.
  if (ok && std::rename(writing.c_str(), target.c_str()) == 0) return;
  std::error_code ignored;
  std::filesystem::remove(writing, ignored);
  snapshot_failed_ = true;
  std::fprintf(stderr,
               "rbmc: warning: cannot save the statistics beside the journal (%s: %s); a resume after a kill -9 "
               "integrates again the batches after the last saved statistics\n",
               target.c_str(), std::strerror(saved_errno != 0 ? saved_errno : errno));
}

std::optional<StatisticsSnapshot> RunJournal::read_statistics_snapshot(const std::string& path, const std::string& identity,
                                                                       std::vector<std::vector<double>>* exact_values) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(snapshot_path_for(path).c_str(), "rb"), std::fclose);
  std::FILE* f = file.get();
  if (f == nullptr) return std::nullopt;
  char magic[8];
  std::uint64_t identity_length = 0, payload_length = 0, sum = 0;
  if (std::fread(magic, 1, 8, f) != 8 || std::memcmp(magic, kSnapshotMagic, 8) != 0 ||
      std::fread(&identity_length, sizeof identity_length, 1, f) != 1 || identity_length != identity.size())
    return std::nullopt;
  std::string text(identity.size(), '\0');
  if (std::fread(text.data(), 1, text.size(), f) != text.size() || text != identity ||
      std::fread(&payload_length, sizeof payload_length, 1, f) != 1 || payload_length > (std::uint64_t(1) << 40))
    return std::nullopt;
  // The checksum first, streamed: the payload may be most of memory (exact quantiles' values).
  const long payload_at = std::ftell(f);
  if (payload_at < 0) return std::nullopt;
  {
    Checksum streamed;
    std::vector<unsigned char> chunk(std::size_t(1) << 20);
    for (std::uint64_t left = payload_length; left > 0;) {
      const std::size_t n = std::size_t(std::min<std::uint64_t>(left, chunk.size()));
      if (std::fread(chunk.data(), 1, n, f) != n) return std::nullopt;
      streamed.add(chunk.data(), n);
      left -= n;
    }
    if (std::fread(&sum, sizeof sum, 1, f) != 1 || sum != streamed.value()) return std::nullopt;
  }
  // Then the arrays, the values last, where they go.
  if (std::fseek(f, payload_at, SEEK_SET) != 0) return std::nullopt;
  Reader<FileSource> r(FileSource{f}, payload_length);
  StatisticsSnapshot s;
  std::uint64_t n_values = 0;
  long values_at = 0;
  if (!r.get(s.rows) || !r.get(s.state.quantile_samples) || !r.get_array(s.state.moments) ||
      !r.skip_array<double>(n_values, values_at) || !r.get_array(s.state.value_counts) ||
      !r.get_array(s.state.sketch_level_sizes) || !r.get_array(s.state.sketch_compactions) ||
      !r.get_array(s.state.sketch_brackets) || !r.get_array(s.state.sketch_counts) || !r.done() ||
      std::fseek(f, values_at, SEEK_SET) != 0)
    return std::nullopt;
  if (exact_values != nullptr && s.state.sketch_level_sizes.empty()) {
    std::uint64_t total = 0;
    for (std::uint64_t c : s.state.value_counts) total += c;
    if (total != n_values) return std::nullopt;
    exact_values->resize(s.state.value_counts.size());  // lent columns keep their room
    for (std::size_t c = 0; c < s.state.value_counts.size(); ++c) {
      std::vector<double>& column = (*exact_values)[c];
      column.resize(std::size_t(s.state.value_counts[c]));
      if (std::fread(column.data(), sizeof(double), column.size(), f) != column.size()) return std::nullopt;
    }
  } else {
    s.state.values.resize(std::size_t(n_values));
    if (std::fread(s.state.values.data(), sizeof(double), s.state.values.size(), f) != s.state.values.size())
      return std::nullopt;
  }
  return s;
}

std::optional<std::string> RunJournal::read_identity(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return std::nullopt;
  char magic[8];
  std::uint64_t length = 0;
  std::optional<std::string> identity;
  const bool read = std::fread(magic, 1, 8, f) == 8;
  if (read && std::memcmp(magic, kMagic, 8) == 0 && std::fread(&length, sizeof length, 1, f) == 1 &&
      length < (std::uint64_t(1) << 30)) {
    std::string text(std::size_t(length), '\0');
    if (std::fread(text.data(), 1, text.size(), f) == text.size()) identity = std::move(text);
  }
  std::fclose(f);
  // Another rbmc's journal: said so, rather than taken for no journal at all.
  if (read && std::memcmp(magic, kMagic, 7) == 0 && magic[7] != kMagic[7])
    throw UsageError("--resume: " + path + " is a journal of another rbmc (format " + std::string(1, magic[7]) +
                     "; this one reads format " + std::string(1, kMagic[7]) +
                     "): complete the run with that rbmc, or start it afresh with --overwrite");
  return identity;
}

std::uint64_t RunJournal::for_each_record(const std::string& path, const std::function<bool(const JournalBatch&)>& each) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  std::FILE* f = file.get();
  if (f == nullptr) return 0;
  std::uint64_t length = 0, valid = 0;
  char magic[8];
  if (std::fread(magic, 1, 8, f) != 8 || std::fread(&length, sizeof length, 1, f) != 1 || std::fseek(f, long(length), SEEK_CUR) != 0)
    return 0;
  valid = 16 + length;
  std::vector<unsigned char> payload;
  for (;;) {
    std::uint64_t header[2], sum = 0;
    if (std::fread(header, sizeof header, 1, f) != 1 || header[0] != kRecordMagic || header[1] > (std::uint64_t(1) << 40)) break;
    payload.resize(std::size_t(header[1]));
    if (std::fread(payload.data(), 1, payload.size(), f) != payload.size() || std::fread(&sum, sizeof sum, 1, f) != 1 ||
        sum != checksum(payload.data(), payload.size()))
      break;  // cut short by the kill: dropped
    Reader<MemorySource> r(MemorySource{payload.data()}, payload.size());
    JournalBatch b;
    if (!r.get(b.first) || !r.get(b.n) || !r.get(b.redrawn) || !r.get_array(b.outputs) || !r.get_array(b.status) ||
        !r.get_array(b.kept) || !r.get_array(b.trajectories) || !r.done())
      break;
    if (!each(b)) break;
    valid += sizeof header + header[1] + sizeof sum;
  }
  return valid;
}

}  // namespace rbmc

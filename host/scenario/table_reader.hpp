// Reading one TOML table of a scenario (host/scenario/parse_scenario.cpp and the files of its
// sections): every key is consumed explicitly, so that anything left over is an unknown key and
// an error naming the file, line and key path, and values are checked as they are read.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "host/errors.hpp"
#include "host/scenario/scenario.hpp"

namespace rbmc {


inline const char* type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date or time";
    default: return "nothing";
  }
}

// The edits (insertions, deletions, substitutions, swaps of neighbours) between two keys, up to
// a small limit: past it, limit + 1. A misspelt key ("masss", "stpe") is one or two from its key.
inline std::size_t key_edit_distance(std::string_view a, std::string_view b, std::size_t limit = 2) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return limit + 1;
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return std::min(d[a.size()][b.size()], limit + 1);
}

// How far a key may be from another to be taken for its misspelling: one edit in a key of up to
// four letters ("mas", "tpye"), two beyond.
inline bool near_miss(std::string_view a, std::string_view b) {
  const std::size_t allowed = std::min(a.size(), b.size()) <= 4 ? 1 : 2;
  return a != b && key_edit_distance(a, b, allowed) <= allowed;
}

// Reads one TOML table, remembering which keys were used so that the rest can be reported.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string prefix, const std::string& file)
      : table_(table), prefix_(std::move(prefix)), file_(file) {}

  std::string path_of(std::string_view key) const {
    return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
  }

  [[noreturn]] void fail_at(const toml::node& node, std::string_view key, const std::string& msg) const {
    const auto& b = node.source().begin;
    throw ScenarioError(file_, b.line, b.column, path_of(key), msg);
  }
  // An error about `key` where it is missing from the table (at the table's start), or where the
  // table holds a near miss of it that nothing has read ("masss" for "mass"): there, saying so.
  [[noreturn]] void fail_here(std::string_view key, const std::string& msg) const {
    if (table_.get(key) == nullptr)
      for (auto&& [other, node] : table_)
        if (used_.count(std::string(other.str())) == 0 && near_miss(other.str(), key)) {
          const auto& at = other.source().begin;
          throw ScenarioError(file_, at.line, at.column, path_of(key),
                              msg + "; '" + std::string(other.str()) + "' here is not a key: misspelt?");
        }
    const auto& b = table_.source().begin;
    throw ScenarioError(file_, b.line, b.column, path_of(key), msg);
  }

  const toml::node* find(std::string_view key) {
    used_.insert(std::string(key));
    return table_.get(key);
  }

  const toml::table* optional_table(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return nullptr;
    if (!n->is_table()) fail_at(*n, key, std::string("must be a table, not ") + type_name(n->type()));
    return n->as_table();
  }

  double number(const toml::node& n, std::string_view key) const {
    if (!n.is_number()) fail_at(n, key, std::string("must be a number, not ") + type_name(n.type()));
    const double v = *n.value<double>();
    if (!std::isfinite(v)) fail_at(n, key, "must be finite (not inf or nan)");
    return v;
  }

  std::optional<double> optional_number(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    return number(*n, key);
  }

  double required_number(std::string_view key, const char* meaning) {
    const toml::node* n = find(key);
    if (n == nullptr) fail_here(key, std::string("is required (") + meaning + ")");
    return number(*n, key);
  }

  std::optional<std::int64_t> optional_integer(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_integer()) fail_at(*n, key, std::string("must be an integer, not ") + type_name(n->type()));
    return n->as_integer()->get();
  }

  std::optional<std::string> optional_string(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_string()) fail_at(*n, key, std::string("must be a string, not ") + type_name(n->type()));
    return n->as_string()->get();
  }

  // An array of `size` numbers.
  std::vector<double> numbers(const toml::node& n, std::string_view key, std::size_t size) const {
    const toml::array* a = n.as_array();
    if (a == nullptr)
      fail_at(n, key, "must be an array of " + std::to_string(size) + " numbers, not " + type_name(n.type()));
    if (a->size() != size)
      fail_at(n, key, "must have " + std::to_string(size) + " elements, not " + std::to_string(a->size()));
    std::vector<double> out;
    for (const toml::node& e : *a) out.push_back(number(e, key));
    return out;
  }

  std::optional<Vec3<double>> optional_vec3(std::string_view key) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    const auto v = numbers(*n, key, 3);
    return Vec3<double>(v[0], v[1], v[2]);
  }

  // A scalar applies to every component of a vector input; an array gives each one.
  std::optional<std::array<double, 3>> optional_scalar_or_vec(std::string_view key, int dim) {
    const toml::node* n = find(key);
    if (n == nullptr) return std::nullopt;
    std::array<double, 3> out{};
    if (n->is_number()) {
      out.fill(number(*n, key));
    } else if (dim == 1) {
      out[0] = number(*n, key);  // reports the type error
    } else {
      const auto v = numbers(*n, key, static_cast<std::size_t>(dim));
      for (int i = 0; i < dim; ++i) out[i] = v[i];
    }
    return out;
  }

  // Every key not read is unknown: a typo must not silently fall back to a default. The message
  // names the key it is a near miss of, of those this table was asked for and lacks.
  void reject_unknown_keys() const {
    for (auto&& [key, node] : table_) {
      if (used_.count(std::string(key.str())) == 0) {
        std::string message = "unknown key";
        for (const std::string& wanted : used_)
          if (table_.get(wanted) == nullptr && near_miss(key.str(), wanted)) {
            message += " (did you mean '" + wanted + "'?)";
            break;
          }
        const auto& b = key.source().begin;
        throw ScenarioError(file_, b.line, b.column, path_of(key.str()), message);
      }
    }
  }

  const toml::table& table() const { return table_; }
  const std::string& file() const { return file_; }

 private:
  const toml::table& table_;
  std::string prefix_;
  const std::string& file_;
  std::set<std::string> used_;
};

// The values several sections read alike.
inline LoadFrame read_frame(TableReader& r) {
  const std::string frame = r.optional_string("frame").value_or("");
  if (frame == "body") return LoadFrame::body;
  if (frame == "world") return LoadFrame::world;
  if (frame.empty()) r.fail_here("frame", "is required (\"body\": turns with the body, or \"world\": fixed in space)");
  r.fail_at(*r.table().get("frame"), "frame", "must be \"body\" or \"world\", not \"" + frame + "\"");
}

inline Vec3<double> required_vec3(TableReader& r, std::string_view key, const char* meaning) {
  const auto v = r.optional_vec3(key);
  if (!v) r.fail_here(key, std::string("is required (") + meaning + ")");
  return *v;
}

inline double non_negative(TableReader& r, std::string_view key, const char* meaning, double fallback) {
  const double v = r.optional_number(key).value_or(fallback);
  if (v < 0) r.fail_at(*r.table().get(key), key, std::string("must be non-negative (") + meaning + ")");
  return v;
}

}  // namespace rbmc

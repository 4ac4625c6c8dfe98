#include "host/run/run_selection.hpp"

#include <algorithm>

#include "host/errors.hpp"

namespace rbmc {

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

ShardRange shard_range(std::uint64_t index, std::uint64_t count, std::uint64_t n_samples) {
  // ⌊i N / n⌋ without overflow for N ≤ 2^40 and n ≤ 2^20.
  const auto boundary = [&](std::uint64_t i) {
    return (n_samples / count) * i + (n_samples % count) * i / count;
  };
  return {boundary(index), boundary(index + 1) - boundary(index)};
}

std::pair<std::uint64_t, std::uint64_t> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const auto number = [&](const std::string& s) -> std::uint64_t {
    if (s.empty() || s.size() > 7 || s.find_first_not_of("0123456789") != std::string::npos)
      throw UsageError("--shard " + text + ": give i/n, the i-th (from 0) of n parts, e.g. --shard 0/4");
    return std::stoull(s);
  };
  if (slash == std::string::npos) number("");
  const std::uint64_t i = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
  if (n == 0 || n > (1u << 20)) throw UsageError("--shard " + text + ": n must be from 1 to 1048576");
  if (i >= n) throw UsageError("--shard " + text + ": i counts from 0 and must be below n (the last part is " +
                               std::to_string(n - 1) + "/" + std::to_string(n) + ")");
  return {i, n};
}

}  // namespace rbmc

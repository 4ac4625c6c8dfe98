#include "host/stats/run_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "host/util/parallel_for.hpp"
#include "rbmc/random/philox_stream.hpp"
#include "rbmc/stats/output_quantities.hpp"

namespace rbmc {

const std::vector<QuantityInfo>& statistics_quantities() {
  static const std::vector<QuantityInfo> table = {
      {"position", quantity::position, 3, "m", "position of the body origin, world frame"},
      {"velocity", quantity::velocity, 3, "m/s", "velocity of the body origin, world frame"},
      {"angular_velocity", quantity::angular_velocity, 3, "rad/s", "angular velocity, body frame"},
      {"attitude_angle", quantity::attitude_angle, 1, "rad",
       "angle of the rotation from the nominal (undispersed) sample's attitude at the same time"},
      {"kinetic_energy", quantity::kinetic_energy, 1, "J", "kinetic energy"},
      {"potential_energy", quantity::potential_energy, 1, "J",
       "potential energy of uniform gravity and the conservative loads"},
  };
  return table;
}

double quantile_of_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return NAN;
  const double h = double(sorted.size() - 1) * p;
  const std::size_t lo = std::size_t(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - double(lo)) * (sorted[lo + 1] - sorted[lo]);
}

RunStatistics::RunStatistics(const Scenario& scenario, std::uint64_t n_rows, unsigned threads)
    : n_times_(scenario.output.statistics ? scenario.output_times.n : 0), seed_(scenario.run.seed), threads_(threads) {
  if (n_times_ == 0) return;
  const std::size_t columns = std::size_t(n_times_) * quantity::count;
  moments_.assign(columns, Moments{});
  values_.resize(columns);
  const double bytes = double(n_rows) * double(columns) * sizeof(double);
  fraction_ = std::min(1.0, double(scenario.output.quantile_memory) / bytes);
}

std::vector<std::uint32_t> RunStatistics::quantile_rows(const std::uint64_t* index, std::size_t n) const {
  std::vector<std::uint32_t> rows;
  for (std::size_t i = 0; i < n; ++i) {
    // A sample is in the subsample by its own stream: the same samples whatever the batches.
    const bool keep = fraction_ >= 1 || PhiloxStream(seed_, index[i], stream_id("statistics.quantiles")).uniform(0) <= fraction_;
    if (keep) rows.push_back(std::uint32_t(i));
  }
  return rows;
}

void RunStatistics::add(const std::vector<Moments>& moments, const std::vector<double>& values, std::size_t n_rows) {
  // Each thread takes whole columns: the same values in the same order as one thread would.
  const std::size_t columns = moments_.size();
  parallel_for(columns, threads_, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) {
      moments_[c] = merge(moments_[c], moments[c]);
      std::vector<double>& column = values_[c];
      column.reserve(column.size() + n_rows);
      for (std::size_t r = 0; r < n_rows; ++r) {
        const double v = values[c * n_rows + r];
        if (std::isfinite(v)) column.push_back(v);  // as the moments: infinities counted apart
      }
    }
  });
  quantile_samples_ += n_rows;
}

std::array<double, kQuantileProbabilities.size()> RunStatistics::quantiles(std::size_t column) const {
  // The two order statistics each quantile interpolates, by selection rather than a full sort:
  // O(m) per probability instead of O(m log m), which matters over T × 12 columns. The
  // probabilities ascend, so each selection searches only above the previous one's.
  std::vector<double> x = values_[column];
  std::array<double, kQuantileProbabilities.size()> q{};
  if (x.empty()) {
    q.fill(NAN);
    return q;
  }
  std::size_t from = 0;  // x[from..) holds the values not below the previous selection
  for (std::size_t j = 0; j < q.size(); ++j) {
    const double h = double(x.size() - 1) * kQuantileProbabilities[j];
    const std::size_t lo = std::max(from, std::size_t(std::floor(h)));
    std::nth_element(x.begin() + std::ptrdiff_t(from), x.begin() + std::ptrdiff_t(lo), x.end());
    const double below = x[lo];
    const double above = lo + 1 < x.size() ? *std::min_element(x.begin() + std::ptrdiff_t(lo) + 1, x.end()) : below;
    q[j] = below + (h - double(lo)) * (above - below);  // as quantile_of_sorted
    from = lo;
  }
  return q;
}

std::vector<std::array<double, kQuantileProbabilities.size()>> RunStatistics::all_quantiles() const {
  std::vector<std::array<double, kQuantileProbabilities.size()>> q(values_.size());
  parallel_for(values_.size(), threads_, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) q[c] = quantiles(c);
  });
  return q;
}

double RunStatistics::rank_error_95(std::size_t column) const {
  const double m = double(values_[column].size());
  return exact() || m == 0 ? 0.0 : std::sqrt(std::log(2 / 0.05) / (2 * m));
}

StatisticsState RunStatistics::save() const {
  StatisticsState s;
  for (const Moments& m : moments_)
    s.moments.insert(s.moments.end(), {m.count, m.mean, m.m2, m.min, m.max, m.non_finite});
  for (const std::vector<double>& v : values_) {
    s.values.insert(s.values.end(), v.begin(), v.end());
    s.value_counts.push_back(v.size());
  }
  s.quantile_samples = quantile_samples_;
  return s;
}

void RunStatistics::absorb(const StatisticsState& s) {
  if (s.moments.size() != kSavedPerMoment * moments_.size() || s.value_counts.size() != values_.size())
    throw std::runtime_error("the part's statistics do not match this scenario's output times");
  std::size_t at = 0;
  for (std::size_t c = 0; c < moments_.size(); ++c) {
    const double* m = &s.moments[kSavedPerMoment * c];
    moments_[c] = merge(moments_[c], Moments{m[0], m[1], m[2], m[3], m[4], m[5]});
    if (at + s.value_counts[c] > s.values.size()) throw std::runtime_error("the part's quantile values are truncated");
    values_[c].insert(values_[c].end(), s.values.begin() + std::ptrdiff_t(at),
                      s.values.begin() + std::ptrdiff_t(at + s.value_counts[c]));
    at += s.value_counts[c];
  }
  quantile_samples_ += s.quantile_samples;
}

void RunStatistics::restore(const StatisticsState& s) {
  if (s.moments.size() != kSavedPerMoment * moments_.size() || s.value_counts.size() != values_.size())
    throw std::runtime_error("the saved statistics do not match this scenario's output times");
  for (std::size_t c = 0; c < moments_.size(); ++c) {
    const double* m = &s.moments[kSavedPerMoment * c];
    moments_[c] = {m[0], m[1], m[2], m[3], m[4], m[5]};
  }
  std::size_t at = 0;
  for (std::size_t c = 0; c < values_.size(); ++c) {
    if (at + s.value_counts[c] > s.values.size()) throw std::runtime_error("the saved quantile values are truncated");
    values_[c].assign(s.values.begin() + std::ptrdiff_t(at), s.values.begin() + std::ptrdiff_t(at + s.value_counts[c]));
    at += s.value_counts[c];
  }
  quantile_samples_ = s.quantile_samples;
}

}  // namespace rbmc

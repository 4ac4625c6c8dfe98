// Drawing a batch's inputs (rbmc/sample/draw_inputs.hpp) as every backend does: row by row into
// the batch's columns, and from a copy of the plan's tables, as the GPU draws from its own.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "host/sampling/sampling_plan.hpp"
#include "host/scenario/scenario.hpp"
#include "rbmc/sample/draw_inputs.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

struct Drawn {
  std::vector<double> inputs, params;
  int redrawn = 0;
};

// Rows i < index.size() drawn as sample index[i] from `model` into columns.
Drawn draw_rows(const SamplingPlan& plan, const SamplingModel& model, const std::vector<std::uint64_t>& index) {
  const std::size_t n = index.size();
  Drawn d;
  d.inputs.assign(n * std::size_t(input_column_count(plan.scenario().model_parameters.n)), -1.0);
  d.params.assign(n * std::size_t(plan.n_parameter_values()), -1.0);
  for (std::size_t i = 0; i < n; ++i)
    if (draw_batch_row(model, index[i], i, n, d.inputs.data(), d.params.data()) > 0)
      ++d.redrawn;
  return d;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Rows out of order and with gaps, as --only and shards give them.
std::vector<std::uint64_t> scattered_rows(std::uint64_t n_samples) {
  std::vector<std::uint64_t> index;
  for (std::uint64_t k = n_samples; k-- > 0;)
    if (k % 3 != 1) index.push_back(k);
  return index;
}

struct Case {
  const char* design;
  const char* attitude;
};
const Case kCases[] = {{"monte_carlo", "uniform_rotation"}, {"monte_carlo", "random_axis"},
                       {"latin_hypercube", "uniform_rotation"}, {"sobol", "random_axis"}, {"grid", "uniform_rotation"}};

// Row i of the columns is what SamplingPlan::sample draws for sample index[i]: every input, each
// dispersion's drawn values, and the redraws (the scenario's wide mass dispersion makes some, and
// its spring's stiffness, drawn negative in a tenth of the samples, others).
TEST(DrawBatchRow, StoresWhatOneSamplesDrawGives) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.design) + ", " + c.attitude);
    const SamplingPlan plan(parse_scenario(test::every_draw_scenario_text(c.design, c.attitude), "every_draw.toml"));
    const std::vector<std::uint64_t> index = scattered_rows(plan.scenario().run.n_samples);
    const Drawn drawn = draw_rows(plan, plan.model(), index);
    const int n_model = plan.scenario().model_parameters.n, n_params = plan.n_parameter_values();
    ASSERT_EQ(n_model, std::string(c.design) == "grid" ? 6 : 2);  // the spring's dispersed (and swept) values
    int redrawn = 0;
    for (std::size_t i = 0; i < index.size(); ++i) {
      SampleInputs<double> expected;
      std::vector<double> params(static_cast<std::size_t>(n_params));
      if (plan.sample(index[i], expected, params.data()) > 0) ++redrawn;
      const SampleInputs<double> got = load_sample_inputs<double>(drawn.inputs.data(), index.size(), i, n_model);
      EXPECT_EQ(got.body.mass, expected.body.mass);
      EXPECT_EQ(got.body.com_b, expected.body.com_b);
      // The columns keep the tensor's upper triangle (sample_layout.hpp); a turned tensor's
      // lower one may differ from it in the last bit.
      for (const auto& [r, col] : {std::pair{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}})
        EXPECT_EQ(got.body.inertia_c_b(r, col), expected.body.inertia_c_b(r, col));
      EXPECT_EQ(got.initial.p_w, expected.initial.p_w);
      EXPECT_EQ(got.initial.q_wb.w, expected.initial.q_wb.w);
      EXPECT_EQ(got.initial.q_wb.x, expected.initial.q_wb.x);
      EXPECT_EQ(got.initial.q_wb.y, expected.initial.q_wb.y);
      EXPECT_EQ(got.initial.q_wb.z, expected.initial.q_wb.z);
      EXPECT_EQ(got.initial.v_w, expected.initial.v_w);
      EXPECT_EQ(got.initial.omega_b, expected.initial.omega_b);
      EXPECT_EQ(got.gravity_w, expected.gravity_w);
      for (int j = 0; j < n_model; ++j) EXPECT_EQ(got.model_values[j], expected.model_values[j]);
      EXPECT_TRUE(own_values(plan.scenario().model_parameters, got.model_values).physical()) << index[i];
      for (int j = 0; j < n_params; ++j) EXPECT_EQ(drawn.params[std::size_t(j) * index.size() + i], params[std::size_t(j)]);
    }
    EXPECT_EQ(drawn.redrawn, redrawn);
    EXPECT_GT(redrawn, 0);  // the validity policy's path is exercised
  }
}

// The GPU draws from a copy of the tables at another address (sampling_image, then model_at on
// the copy): the same bits as from the plan's own, and every table read from the copy.
TEST(SamplingImage, ACopyOfTheTablesDrawsTheSameBits) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.design) + ", " + c.attitude);
    const SamplingPlan plan(parse_scenario(test::every_draw_scenario_text(c.design, c.attitude), "every_draw.toml"));
    const SamplingImage image = sampling_image(plan);
    const std::vector<unsigned char> copy = image.bytes;  // elsewhere, as in the device's memory
    const SamplingModel model = image.model_at(copy.data());
    const auto inside = [&](const void* p, std::size_t bytes) {
      const auto* b = static_cast<const unsigned char*>(p);
      return b >= copy.data() && b + bytes <= copy.data() + copy.size();
    };
    const SamplingTables& t = plan.tables();
    EXPECT_TRUE(inside(model.units, t.units.size() * sizeof(DrawUnitModel)));
    EXPECT_TRUE(inside(model.dispersions, t.dispersions.size() * sizeof(DispersionModel)));
    EXPECT_TRUE(inside(model.correlations, t.correlations.size() * sizeof(CorrelationModel)));
    EXPECT_TRUE(inside(model.values, t.values.size() * sizeof(double)));
    EXPECT_EQ(model.axes == nullptr, t.axes.empty());
    if (!t.axes.empty()) EXPECT_TRUE(inside(model.axes, t.axes.size() * sizeof(GridAxisModel)));
    EXPECT_EQ(model.sobol == nullptr, t.sobol.empty());
    if (!t.sobol.empty()) EXPECT_TRUE(inside(model.sobol, t.sobol.size() * sizeof(std::uint32_t)));
    const std::vector<std::uint64_t> index = scattered_rows(plan.scenario().run.n_samples);
    const Drawn ours = draw_rows(plan, plan.model(), index), copied = draw_rows(plan, model, index);
    EXPECT_TRUE(same_bits(ours.inputs, copied.inputs));
    EXPECT_TRUE(same_bits(ours.params, copied.params));
    EXPECT_EQ(ours.redrawn, copied.redrawn);
  }
}

}  // namespace
}  // namespace rbmc

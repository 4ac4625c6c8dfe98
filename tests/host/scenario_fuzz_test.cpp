// Hostile and malformed scenarios: random edits of valid ones and hand-made extremes. Every input
// either parses into a scenario whose samples can be drawn, or raises ScenarioError; never a
// crash, a hang or another exception. Deterministic (fixed seeds), so a failure reproduces.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "host/sampling/sampling_plan.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

// Parses, and when it succeeds draws a few samples; returns false on anything but success or a
// ScenarioError.
bool survives(const std::string& text, std::string& failure) {
  try {
    const Scenario s = parse_scenario(text, "fuzz.toml");
    const SamplingPlan plan(s);
    SampleInputs<double> in;
    std::vector<double> params(std::size_t(plan.n_parameter_values()) + 1);
    for (std::uint64_t k = 0; k < 3; ++k) plan.sample(k, in, params.data());
    return true;
  } catch (const ScenarioError&) {
    return true;
  } catch (const std::exception& e) {
    failure = e.what();
    return false;
  }
}

std::vector<std::string> seed_texts() {
  std::vector<std::string> texts{test::valid_scenario_text()};
  for (const auto& entry : std::filesystem::directory_iterator(std::string(RBMC_SOURCE_DIR) + "/configs")) {
    std::ifstream in(entry.path());
    std::stringstream s;
    s << in.rdbuf();
    texts.push_back(s.str());
  }
  return texts;
}

std::string mutate(std::string text, std::mt19937_64& rng) {
  static const std::vector<std::string> tokens = {"nan", "inf", "-inf", "1e308", "-1e308", "1e-320", "0", "-0.0",
                                                  "[", "]", "{", "}", "=", "\"", ",", ".", "[[", "]]", "\n",
                                                  "99999999999999999999", "true", "[]", "{}", "-", "#", "\\"};
  const int edits = 1 + int(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = rng() % text.size();
    switch (rng() % 5) {
      case 0: text.erase(at, 1 + rng() % 8); break;
      case 1: text.insert(at, tokens[rng() % tokens.size()]); break;
      case 2: text[at] = char(32 + rng() % 95); break;
      case 3: {  // duplicate a line
        const std::size_t begin = text.rfind('\n', at), end = text.find('\n', at);
        const std::size_t b = begin == std::string::npos ? 0 : begin + 1;
        text.insert(b, text.substr(b, (end == std::string::npos ? text.size() : end) - b) + "\n");
        break;
      }
      default: {  // replace a number with an extreme
        const std::size_t digit = text.find_first_of("0123456789", at);
        if (digit != std::string::npos) text.replace(digit, 1, tokens[rng() % 8]);
      }
    }
  }
  return text;
}

TEST(ScenarioFuzz, RandomEditsOfValidScenarios) {
  std::mt19937_64 rng(20261122);
  const std::vector<std::string> seeds = seed_texts();
  for (int i = 0; i < 4000; ++i) {
    const std::string text = mutate(seeds[std::size_t(i) % seeds.size()], rng);
    std::string failure;
    ASSERT_TRUE(survives(text, failure)) << "input " << i << ": " << failure << "\n" << text;
  }
}

TEST(ScenarioFuzz, HandMadeExtremes) {
  const std::string base = test::valid_scenario_text();
  std::vector<std::string> inputs = {
      "",
      std::string(100000, '['),
      "a = " + std::string(5000, '[') + std::string(5000, ']'),
      "[run]\nduration = 1.0\nstep = 1e-300\n[body]\nmass = 1.0\ninertia = [[1,0,0],[0,1,0],[0,0,1]]\n",
      "[run]\nduration = 1e308\nstep = 1e-308\n[body]\nmass = 1.0\ninertia = [[1,0,0],[0,1,0],[0,0,1]]\n",
      "[run]\nduration = 1.0\nstep = 0.1\nsamples = 9223372036854775807\n[body]\nmass = 1e308\n"
      "inertia = [[1e308,0,0],[0,1e308,0],[0,0,1e308]]\n",
      base + "[output]\ninterval = 1e-300\n",
      base + "[output]\ntimes = [" + [] {
        std::string s;
        for (int i = 0; i < 100000; ++i) s += (i ? "," : "") + std::to_string(i);
        return s;
      }() + "]\n",
      base + "[[loads]]\n" + std::string("type = \"spring\"\n"),
      std::string("\xff\xfe\x00\x01", 4) + base,
      base.substr(0, base.size() / 2),
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string failure;
    EXPECT_TRUE(survives(inputs[i], failure)) << "input " << i << ": " << failure;
  }
}

}  // namespace
}  // namespace rbmc

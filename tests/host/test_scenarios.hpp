// Scenario texts and temporary files shared by the host tests.
#pragma once

#include <filesystem>
#include <string>

namespace rbmc::test {

// A small valid scenario: an asymmetric box with every spine dispersion.
std::string valid_scenario_text(int samples = 64, double duration = 0.5, double step = 0.01);

// Every kind of draw in one scenario (300 samples; 150 for the grid): each distribution, a correlation group, a
// spring's dispersed parameters and enough mass dispersion that bodies are redrawn. design:
// "monte_carlo", "latin_hypercube", "sobol" or "grid" (two axes over the spring, 6 points of 25
// replicates);
// attitude: "uniform_rotation" or "random_axis".
std::string every_draw_scenario_text(const std::string& design, const std::string& attitude);

// A box on a spring whose stiffness is drawn from N(50, 60²) N/m and under a damping entry whose
// coefficient is drawn from N(0.1, 1²) N s/m: values no load can have (negative) in Φ(−5/6) =
// 20.2 % and Φ(−0.1) = 46.0 % of the samples, 56.9 % of them either (docs/scenario.md, "Validity
// policy"). Over 0.5 s in steps of 0.01 s; `more` is appended (a [design] policy, [output]).
std::string unphysical_loads_scenario_text(int samples, const std::string& more = "");

// Takes an attribute of the root (or of the group `object`) away from a results file, as a file
// written before it was recorded.
void remove_attribute(const std::string& path, const char* name, const char* object = "/");

// A fresh empty directory under the system's temporary directory, removed by its destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes text to name and returns its path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

}  // namespace rbmc::test

#include "test_scenarios.hpp"

#include <hdf5.h>

#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace rbmc::test {

namespace {
std::string exact(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}
}  // namespace

std::string every_draw_scenario_text(const std::string& design, const std::string& attitude) {
  const bool grid = design == "grid";
  return std::string(R"([scenario]
name = "every_draw"

[run]
)") + (grid ? "" : "samples = 300\n") + R"(seed = 7
duration = 0.2
step = 0.01

[body]
mass = 2.0
center_of_mass = [0.0, 0.0, 0.0]
inertia = [[0.0083333333, 0.001, 0.0], [0.001, 0.0166666667, 0.0], [0.0, 0.0, 0.0216666667]]

[initial]
position = [0.0, 0.0, 0.0]
attitude = [0.9, 0.1, 0.3, 0.3]
velocity = [0.0, 0.0, 0.0]
angular_velocity = [0.01, 4.0, 0.01]

[gravity]
acceleration = [0.0, 0.0, -9.81]

[[loads]]
type = "spring"
point = [0.1, 0.0, 0.0]
anchor = [0.0, 0.0, 1.0]
stiffness = 10.0
rest_length = 0.5
damping = 0.1

[dispersions]
body.mass = { distribution = "normal", sigma = 0.5 }
body.center_of_mass = { distribution = "normal", sigma = [0.0005, 0.0005, 0.004] }
body.principal_moments = { distribution = "lognormal", log_sigma = 0.3 }
body.principal_axes = { distribution = "uniform_rotation" }
initial.attitude = { distribution = ")" + attitude + '"' + (attitude == "random_axis" ? ", angle_sigma = 0.1" : "") + R"( }
initial.position = { distribution = "truncated_normal", sigma = 1.0, min = -0.5, max = 0.7 }
initial.velocity = { distribution = "uniform", half_width = [0.1, 0.2, 0.3] }
initial.angular_velocity = { distribution = "discrete", values = [[1, 2, 3], [4, 5, 6], [0, 1, 0]], weights = [1, 2, 3] }
gravity.acceleration = { distribution = "normal", sigma = 0.1 }
loads.0.stiffness = { distribution = "normal", sigma = 8.0 }  # negative in 1 of 9.5 first draws: redrawn
loads.0.rest_length = { distribution = "uniform", min = 0.4, max = 0.6 }

[[correlations]]
inputs = ["body.mass", "body.center_of_mass"]
matrix = [[1.0, 0.0, 0.0, -0.7], [0.0, 1.0, 0.3, 0.0], [0.0, 0.3, 1.0, 0.0], [-0.7, 0.0, 0.0, 1.0]]

[design]
type = ")" + design + "\"\n" + (grid ? R"(replicates = 25

[design.axes]
loads.0.damping = { linspace = [0.0, 0.2, 3] }
loads.0.anchor = { values = [[0.0, 0.0, 1.0], [0.0, 0.5, 1.0]] }
)" : "");
}

std::string unphysical_loads_scenario_text(int samples, const std::string& more) {
  return "[run]\nsamples = " + std::to_string(samples) + R"(
duration = 0.5
step = 0.01
[body]
mass = 1.0
shape = { type = "box", size = [0.3, 0.2, 0.1] }
[[loads]]
type = "spring"
anchor = [0, 0, 1]
stiffness = 50.0
[[loads]]
type = "damping"
linear = 0.1
[dispersions]
loads.0.stiffness = { distribution = "normal", sigma = 60.0 }
loads.1.linear = { distribution = "normal", sigma = 1.0 }
)" + more;
}

std::string valid_scenario_text(int samples, double duration, double step) {
  return R"([scenario]
name = "test_box"
description = "asymmetric box"

[run]
samples = )" + std::to_string(samples) +
         R"(
seed = 2024
duration = )" + exact(duration) +
         R"(
step = )" + exact(step) +
         R"(

[body]
mass = 2.0
center_of_mass = [0.01, 0.0, -0.02]
inertia = [[0.10, 0.0, 0.0],
           [0.0, 0.20, 0.0],
           [0.0, 0.0, 0.25]]

[initial]
position = [0.0, 0.0, 10.0]
attitude = [1.0, 0.0, 0.0, 0.0]
velocity = [1.0, 0.0, 2.0]
angular_velocity = [0.1, 3.0, 0.1]

[gravity]
acceleration = [0.0, 0.0, -9.81]

[dispersions]
body.mass = { distribution = "normal", sigma = 0.05 }
body.principal_moments = { distribution = "uniform", half_width = [0.005, 0.005, 0.005] }
body.center_of_mass = { distribution = "normal", sigma = 0.002 }
initial.angular_velocity = { distribution = "normal", sigma = [0.05, 0.05, 0.05] }
initial.attitude = { distribution = "uniform", min = -0.02, max = 0.02 }
)";
}

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() / ("rbmc-test-" + std::to_string(rd()) + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
  const std::string p = file(name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

void remove_attribute(const std::string& path, const char* name, const char* object) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error("cannot open " + path);
  const herr_t removed = H5Adelete_by_name(file, object, name, H5P_DEFAULT);
  H5Fclose(file);
  if (removed < 0) throw std::runtime_error(path + " has no attribute " + name + " at " + object);
}

}  // namespace rbmc::test

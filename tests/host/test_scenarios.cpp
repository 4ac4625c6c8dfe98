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

void remove_root_attribute(const std::string& path, const char* name) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error("cannot open " + path);
  const herr_t removed = H5Adelete(file, name);
  H5Fclose(file);
  if (removed < 0) throw std::runtime_error(path + " has no root attribute " + name);
}

}  // namespace rbmc::test

#include "host/scenario/scenario.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "host/errors.hpp"
#include "host/scenario/output_schema.hpp"
#include "rbmc/body/shapes.hpp"
#include "rbmc/dynamics/model_values.hpp"
#include "test_scenarios.hpp"

namespace rbmc {
namespace {

// The key path of the error a scenario text gives, or "accepted".
std::string error_key_of(const std::string& text) {
  try {
    parse_scenario(text, "o.toml");
  } catch (const ScenarioError& e) {
    return e.key_path();
  }
  return "accepted";
}

TEST(ParseScenario, ValidScenarioResolvesEveryValue) {
  const Scenario s = parse_scenario(test::valid_scenario_text(64, 0.5, 0.01), "box.toml");
  EXPECT_EQ(s.name, "test_box");
  EXPECT_EQ(s.run.n_samples, 64u);
  EXPECT_EQ(s.run.seed, 2024u);
  EXPECT_EQ(s.run.n_steps, 50);
  EXPECT_DOUBLE_EQ(s.step_used(), 0.01);
  EXPECT_EQ(s.body.mass, 2.0);
  EXPECT_EQ(s.body.com_b, Vec3<double>(0.01, 0, -0.02));
  EXPECT_EQ(s.body.inertia_c_b(2, 2), 0.25);
  EXPECT_EQ(s.initial.omega_b, Vec3<double>(0.1, 3.0, 0.1));
  EXPECT_EQ(s.gravity_w.z(), -9.81);
  ASSERT_EQ(s.dispersions.size(), 5u);
  const auto find = [&](DispersedInput input) -> const Dispersion& {
    for (const Dispersion& d : s.dispersions)
      if (d.info.input == input) return d;
    throw std::runtime_error("not dispersed");
  };
  // A normal dispersion defaults its mean to the nominal value; half_width centres on it.
  const Dispersion& mass = find(DispersedInput::mass);
  EXPECT_EQ(mass.kind, DistributionKind::normal);
  EXPECT_EQ(mass.a[0], 2.0);
  EXPECT_EQ(mass.b[0], 0.05);
  EXPECT_EQ(mass.where.line, 28u);
  const Dispersion& moments = find(DispersedInput::principal_moments);
  EXPECT_EQ(moments.kind, DistributionKind::uniform);
  EXPECT_DOUBLE_EQ(moments.a[1], 0.195);
  EXPECT_DOUBLE_EQ(moments.b[1], 0.205);
  const Dispersion& attitude = find(DispersedInput::attitude);
  EXPECT_EQ(attitude.a[2], -0.02);
  EXPECT_EQ(attitude.b[2], 0.02);
}

TEST(ParseScenario, StepIsShortenedToDivideTheDuration) {
  std::string text = test::valid_scenario_text(8, 1.0, 0.3);
  const Scenario s = parse_scenario(text, "x.toml");
  EXPECT_EQ(s.run.n_steps, 4);
  EXPECT_DOUBLE_EQ(s.step_used(), 0.25);
}

TEST(ParseScenario, MinimalScenarioUsesDefaults) {
  const Scenario s = parse_scenario(R"([run]
duration = 1.0
step = 0.1
[body]
mass = 1.0
inertia = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
)",
                                    "minimal.toml");
  EXPECT_EQ(s.name, "minimal");
  EXPECT_EQ(s.run.n_samples, 1000u);
  EXPECT_EQ(s.gravity_w, Vec3<double>::Zero());
  EXPECT_EQ(s.initial.q_wb.w, 1.0);
  EXPECT_TRUE(s.dispersions.empty());
}

struct BadCase {
  const char* name;
  std::string from, to;  // a replacement in the valid text
  std::string key;       // the key path the error must name
  std::string message;   // a fragment of the message
  std::uint32_t line;    // the line it must name (0: not checked)
};

class BadScenario : public ::testing::TestWithParam<BadCase> {};

// Each bad input is rejected with the file, the line and the key path in the message.
TEST_P(BadScenario, IsRejectedWithFileLineAndKey) {
  const BadCase& c = GetParam();
  std::string text = test::valid_scenario_text();
  const auto at = text.find(c.from);
  ASSERT_NE(at, std::string::npos) << c.from;
  text.replace(at, c.from.size(), c.to);
  try {
    parse_scenario(text, "bad.toml");
    FAIL() << "accepted: " << c.name;
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), "bad.toml");
    EXPECT_EQ(e.key_path(), c.key) << what;
    EXPECT_NE(what.find(c.message), std::string::npos) << what;
    EXPECT_EQ(what.rfind("bad.toml:", 0), 0u) << what;
    if (c.line > 0) EXPECT_EQ(e.line(), c.line) << what;
  }
}

// Line numbers refer to test::valid_scenario_text(); a bad value in a multi-line array is
// reported at the line where its key starts.
INSTANTIATE_TEST_SUITE_P(
    Cases, BadScenario,
    ::testing::Values(
        BadCase{"unknown key", "mass = 2.0", "mass = 2.0\nmas = 3.0", "body.mas", "unknown key", 13},
        BadCase{"unknown table", "[gravity]", "[gravty]", "gravty", "unknown key (did you mean 'gravity'?)", 0},
        // A misspelt key: the error names the key it misses, at the misspelling.
        BadCase{"misspelt optional key", "center_of_mass = ", "center_of_mas = ", "body.center_of_mas",
                "unknown key (did you mean 'center_of_mass'?)", 13},
        BadCase{"misspelt required key", "mass = 2.0", "masss = 2.0", "body.mass",
                "is required (kg); 'masss' here is not a key: misspelt?", 12},
        BadCase{"swapped letters", "step = ", "stpe = ", "run.step", "'stpe' here is not a key: misspelt?", 0},
        BadCase{"wrong type", "mass = 2.0", "mass = \"heavy\"", "body.mass", "must be a number, not a string", 12},
        BadCase{"negative mass", "mass = 2.0", "mass = -2.0", "body.mass", "mass must be positive", 12},
        BadCase{"not positive definite", "[0.0, 0.0, 0.25]]", "[0.0, 0.0, -0.25]]", "body.inertia",
                "positive definite", 14},
        BadCase{"triangle inequality", "[0.0, 0.0, 0.25]]", "[0.0, 0.0, 0.35]]", "body.inertia", "triangle", 14},
        // Three numbers, the principal moments, where the tensor goes: how to write them.
        BadCase{"principal moments as inertia",
                "inertia = [[0.10, 0.0, 0.0],\n           [0.0, 0.20, 0.0],\n           [0.0, 0.0, 0.25]]",
                "inertia = [0.10, 0.20, 0.25]", "body.inertia",
                "must be a 3x3 array of numbers [[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]]; principal moments "
                "[a, b, c] are [[a, 0, 0], [0, b, 0], [0, 0, c]]",
                14},
        BadCase{"asymmetric inertia", "inertia = [[0.10, 0.0, 0.0]", "inertia = [[0.10, 0.01, 0.0]", "body.inertia",
                "symmetric", 14},
        BadCase{"missing required key", "mass = 2.0\n", "", "body.mass", "is required", 0},
        BadCase{"missing duration", "duration = ", "# duration = ", "run.duration", "is required", 0},
        BadCase{"negative step", "step = ", "step = -", "run.step", "must be positive", 0},
        BadCase{"short vector", "velocity = [1.0, 0.0, 2.0]", "velocity = [1.0, 0.0]", "initial.velocity",
                "must have 3 elements", 21},
        BadCase{"non-unit quaternion", "attitude = [1.0, 0.0", "attitude = [2.0, 0.0", "initial.attitude",
                "unit quaternion", 20},
        BadCase{"nan", "mass = 2.0", "mass = nan", "body.mass", "must be finite", 12},
        BadCase{"malformed TOML", "mass = 2.0", "mass = = 2.0", "", "malformed TOML", 12},
        BadCase{"unknown dispersion path", "body.mass = {", "body.density = {", "dispersions.body.density",
                "is not an input this scenario can disperse or sweep", 28},
        BadCase{"misspelt dispersion path", "body.mass = {", "body.masss = {", "dispersions.body.masss",
                "is not an input this scenario can disperse or sweep (did you mean 'body.mass'?)", 28},
        BadCase{"unknown distribution", "distribution = \"normal\", sigma = 0.05",
                "distribution = \"gamma\", sigma = 0.05", "dispersions.body.mass.distribution",
                "unknown distribution", 28},
        BadCase{"negative sigma", "sigma = 0.05 }", "sigma = -0.05 }", "dispersions.body.mass.sigma",
                "non-negative", 28},
        // Other tools' names of a parameter (and those results files once wrote), named before
        // the missing key they stand for ("needs min and max").
        BadCase{"another name of a bound", "distribution = \"normal\", sigma = 0.05",
                "distribution = \"uniform\", low = 1.9, high = 2.1", "dispersions.body.mass.low",
                "unknown key (did you mean 'min'?)", 28},
        BadCase{"unknown distribution key", "sigma = 0.05 }", "sigma = 0.05, mu = 1 }",
                "dispersions.body.mass.mu", "unknown key", 28},
        BadCase{"unknown integrator", "step = ", "integrator = \"euler\"\nstep = ", "run.integrator",
                "unknown integrator", 0},
        // [output]'s names: Python's spelling of a dataset (rbmc.open names them with dots) and
        // a misspelt quantity name the name they miss.
        BadCase{"python spelling of a dataset", "[body]", "[output]\nsamples = [\"final.position\"]\n[body]",
                "output.samples", "(did you mean 'final/position'? the names are paths under /samples)", 0},
        BadCase{"misspelt statistics quantity", "[body]",
                "[output]\ninterval = 0.1\nstatistics = [\"angular_velocty\"]\n[body]", "output.statistics",
                "unknown quantity 'angular_velocty' (did you mean 'angular_velocity'?)", 0},
        BadCase{"samples zero", "samples = 64", "samples = 0", "run.samples", "positive", 6},
        BadCase{"samples float", "samples = 64", "samples = 6.4", "run.samples", "must be an integer", 6}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      std::string n = info.param.name;
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(LoadScenario, MissingFileNamesThePath) {
  try {
    load_scenario("/nonexistent/dir/scenario.toml");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/scenario.toml"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

// A directory or a results file where the scenario goes is named for what it is: a directory read
// as an empty scenario once said "key 'run': the table is required", a results file "malformed
// TOML" at line 1.
TEST(LoadScenario, ADirectoryOrAnHdf5FileIsNamedForWhatItIs) {
  test::TempDir dir;
  const auto message = [](const std::string& path) -> std::string {
    try {
      load_scenario(path);
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.file(), path);
      return e.what();
    }
    ADD_FAILURE() << path << " loaded";
    return "";
  };
  EXPECT_EQ(message(dir.file("")).find(dir.file("") + ": a directory, not a scenario file"), 0u);
  // HDF5's signature starts every file rbmc writes; TOML's parser would stop at its first byte.
  const std::string h5 = dir.write("results.h5", std::string("\x89HDF\r\n\x1a\n", 8) + std::string(64, '\0'));
  EXPECT_EQ(message(h5).find(h5 + ": an HDF5 file (a results file?), not a scenario"), 0u);
  // The signature alone decides: a text that merely starts like it is still TOML's to judge.
  EXPECT_NE(message(dir.write("near.toml", "\x89HDF")).find("malformed TOML"), std::string::npos);
}

TEST(LoadScenario, KeepsTheFileTextVerbatim) {
  test::TempDir dir;
  const std::string text = test::valid_scenario_text();
  const Scenario s = load_scenario(dir.write("s.toml", text));
  EXPECT_EQ(s.text, text);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

std::string with_body(const std::string& body) {
  return "[run]\nduration = 1.0\nstep = 0.1\n[body]\nmass = 2.0\n" + body + "\n";
}

TEST(ParseScenarioShapes, ShapeGivesItsInertia) {
  const Scenario box = parse_scenario(with_body(R"(shape = { type = "box", size = [0.3, 0.2, 0.1] })"), "s.toml");
  EXPECT_EQ(box.body.inertia_c_b, shapes::box(2.0, 0.3, 0.2, 0.1));
  EXPECT_EQ(box.body_shape, "box");
  const Scenario tube = parse_scenario(
      with_body(R"(shape = { type = "hollow_cylinder", inner_radius = 0.1, outer_radius = 0.2, height = 1.0 })"), "s.toml");
  EXPECT_EQ(tube.body.inertia_c_b, shapes::hollow_cylinder(2.0, 0.1, 0.2, 1.0));
  const Scenario rod = parse_scenario(with_body(R"(shape = { type = "slender_rod", length = 1.0, radius = 0.01 })"), "s.toml");
  EXPECT_EQ(rod.body.inertia_c_b, shapes::slender_rod(2.0, 1.0, 0.01));
  for (const char* shape : {R"({ type = "solid_cylinder", radius = 0.1, height = 0.5 })", R"({ type = "solid_sphere", radius = 0.1 })",
                            R"({ type = "thin_disk", radius = 0.1 })"})
    EXPECT_NO_THROW(parse_scenario(with_body(std::string("shape = ") + shape), "s.toml")) << shape;
}

TEST(ParseScenarioShapes, BadShapesNameTheKey) {
  const auto key_of = [](const std::string& body) {
    try {
      parse_scenario(with_body(body), "s.toml");
    } catch (const ScenarioError& e) {
      return e.key_path() + " | " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(key_of(R"(shape = { type = "cone", radius = 1.0 })").rfind("body.shape.type | ", 0), 0u);
  EXPECT_EQ(key_of(R"(shape = { type = "box", size = [0.3, -0.2, 0.1] })").rfind("body.shape.size | ", 0), 0u);
  EXPECT_EQ(key_of(R"(shape = { type = "solid_sphere" })").rfind("body.shape.radius | ", 0), 0u);
  EXPECT_EQ(key_of(R"(shape = { type = "solid_sphere", radius = 1.0, height = 2.0 })").rfind("body.shape.height | ", 0), 0u);
  EXPECT_EQ(key_of(R"(shape = { type = "hollow_cylinder", inner_radius = 0.3, outer_radius = 0.2, height = 1.0 })")
                .rfind("body.shape.inner_radius | ", 0),
            0u);
  EXPECT_EQ(key_of(R"(shape = { type = "box", size = [1, 1, 1] }
inertia = [[1, 0, 0], [0, 1, 0], [0, 0, 1]])")
                .rfind("body.shape | ", 0),
            0u);
  EXPECT_EQ(key_of("").rfind("body.inertia | ", 0), 0u);
  EXPECT_EQ(key_of(R"(shape = "box")").rfind("body.shape | ", 0), 0u);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

std::string with_loads(const std::string& loads) {
  return "[run]\nduration = 1.0\nstep = 0.1\n[body]\nmass = 2.0\ninertia = [[1, 0, 0], [0, 2, 0], [0, 0, 2.5]]\n" + loads;
}

TEST(ParseScenarioLoads, EveryLoadTypeIsRead) {
  // Off the central body's centre, which is the origin by default.
  const Scenario s = parse_scenario(with_loads(R"(
[initial]
position = [7.0e6, 0.0, 0.0]

[[loads]]
type = "point_force"
point = [0.1, 0.0, 0.0]
force = [0.0, 0.0, 2.0]
frame = "body"

[[loads]]
type = "torque"
torque = [0.0, 0.0, 0.5]
frame = "world"

[[loads]]
type = "damping"
linear = 0.1
angular_quadratic = 0.01

[[loads]]
type = "spring"
point = [0.0, 0.0, 0.1]
anchor = [0.0, 0.0, 2.0]
stiffness = 100.0
rest_length = 1.5
damping = 0.2

[[loads]]
type = "central_gravity"
mu = 3.986004418e14
)"),
                                    "loads.toml");
  const LoadSet<double>& l = s.loads;
  ASSERT_EQ(l.n_point_forces, 1);
  EXPECT_EQ(l.point_forces[0].point_b, Vec3<double>(0.1, 0, 0));
  EXPECT_EQ(l.point_forces[0].frame, LoadFrame::body);
  ASSERT_EQ(l.n_torques, 1);
  EXPECT_EQ(l.torques[0].frame, LoadFrame::world);
  EXPECT_EQ(l.linear_damping, 0.1);
  EXPECT_EQ(l.angular_quadratic_damping, 0.01);
  ASSERT_EQ(l.n_springs, 1);
  EXPECT_EQ(l.springs[0].rest_length, 1.5);
  EXPECT_TRUE(l.has_central_body);
  EXPECT_EQ(l.central_center_w, Vec3<double>::Zero());
  EXPECT_FALSE(l.is_conservative());
}

// A load's own value obeys the rule its drawn values obey (model_value_physical, which decides
// invalid_load): a value the scenario may give is one a sample may draw, and the error says the
// rule in the words the grid's and fixed values' errors use.
TEST(ParseScenarioLoads, EachValueObeysTheRuleItsDrawnValuesObey) {
  struct Case {
    const char* entry;  // the load, with {} where the value goes
    const char* key;
    ModelField field;
  };
  const Case cases[] = {
      {"type = \"spring\"\nanchor = [0, 0, 1]\nstiffness = {}\n", "stiffness", ModelField::spring_stiffness},
      {"type = \"spring\"\nanchor = [0, 0, 1]\nstiffness = 1.0\nrest_length = {}\n", "rest_length",
       ModelField::spring_rest_length},
      {"type = \"spring\"\nanchor = [0, 0, 1]\nstiffness = 1.0\ndamping = {}\n", "damping", ModelField::spring_damping},
      {"type = \"damping\"\nlinear = {}\n", "linear", ModelField::linear_damping},
      {"type = \"damping\"\nquadratic = {}\n", "quadratic", ModelField::quadratic_damping},
      {"type = \"damping\"\nangular_linear = {}\n", "angular_linear", ModelField::angular_linear_damping},
      {"type = \"damping\"\nangular_quadratic = {}\n", "angular_quadratic", ModelField::angular_quadratic_damping},
      {"type = \"central_gravity\"\ncenter = [0, 0, -1]\nmu = {}\n", "mu", ModelField::central_mu},
  };
  for (const Case& c : cases) {
    for (const char* v : {"-1e-9", "0.0", "1.0"}) {
      std::string entry = c.entry;
      entry.replace(entry.find("{}"), 2, v);
      SCOPED_TRACE(entry);
      const bool physical = model_value_physical(c.field, std::stod(v));
      try {
        parse_scenario(with_loads("[[loads]]\n" + entry), "l.toml");
        EXPECT_TRUE(physical);
      } catch (const ScenarioError& e) {
        EXPECT_FALSE(physical);
        EXPECT_EQ(e.key_path(), std::string("loads[0].") + c.key);
        EXPECT_NE(std::string(e.what()).find(model_value_rule(c.field)), std::string::npos) << e.what();
      }
    }
  }
}

TEST(ParseScenarioLoads, BadLoadsNameTheKey) {
  const auto key_of = [](const std::string& loads) {
    try {
      parse_scenario(with_loads(loads), "l.toml");
    } catch (const ScenarioError& e) {
      return e.key_path();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(key_of("[[loads]]\ntype = \"magnet\"\n"), "loads[0].type");
  EXPECT_EQ(key_of("[[loads]]\nforce = [1, 0, 0]\n"), "loads[0].type");
  EXPECT_EQ(key_of("[[loads]]\ntype = \"point_force\"\nforce = [1, 0, 0]\n"), "loads[0].frame");
  EXPECT_EQ(key_of("[[loads]]\ntype = \"point_force\"\nforce = [1, 0, 0]\nframe = \"moon\"\n"), "loads[0].frame");
  EXPECT_EQ(key_of("[[loads]]\ntype = \"torque\"\nframe = \"body\"\n"), "loads[0].torque");
  EXPECT_EQ(key_of("[[loads]]\ntype = \"damping\"\nlinear = -1.0\n"), "loads[0].linear");
  EXPECT_EQ(key_of("[[loads]]\ntype = \"damping\"\nlinear = 1.0\n[[loads]]\ntype = \"spring\"\nstiffness = 1.0\n"),
            "loads[1].anchor");
  EXPECT_EQ(key_of("[[loads]]\ntype = \"central_gravity\"\nmu = 0.0\n"), "loads[0].mu");
  // A central body centred where the body's centre of mass starts (the origin, by default both).
  EXPECT_EQ(key_of("[[loads]]\ntype = \"central_gravity\"\nmu = 1.0\n"), "loads[0].center");
  EXPECT_EQ(key_of("[[loads]]\ntype = \"central_gravity\"\nmu = 1.0\ncenter = [0, 0, -1]\n"), "accepted");
  EXPECT_EQ(key_of("[[loads]]\ntype = \"torque\"\ntorque = [0, 0, 1]\nframe = \"body\"\ncolor = \"red\"\n"),
            "loads[0].color");
  EXPECT_EQ(key_of("loads = 3\n"), "body.loads");  // after [body], a key belongs to the body table
  try {
    parse_scenario("loads = 3\n" + with_loads(""), "l.toml");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "loads");
  }
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

TEST(ParseScenarioAttitude, EveryFormGivesTheSameRotation) {
  const std::string base = "[run]\nduration = 1.0\nstep = 0.1\n[body]\nmass = 1.0\ninertia = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n[initial]\n";
  // A quarter turn about z, four ways.
  const double c = std::sqrt(0.5);
  for (const std::string& form : {std::string("attitude = [") + std::to_string(c) + ", 0, 0, " + std::to_string(c) + "]",
                                  std::string("attitude_euler_zxz = [1.5707963267948966, 0, 0]"),
                                  std::string("attitude_euler_zyx = [1.5707963267948966, 0, 0]"),
                                  std::string("attitude_rotation_vector = [0, 0, 1.5707963267948966]")}) {
    const Scenario s = parse_scenario(base + form + "\n", "a.toml");
    EXPECT_NEAR(s.initial.q_wb.w, c, 1e-6) << form;
    EXPECT_NEAR(s.initial.q_wb.z, c, 1e-6) << form;
  }
  try {
    parse_scenario(base + "attitude_euler_zyx = [0, 0, 0]\nattitude_rotation_vector = [0, 0, 1]\n", "a.toml");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "initial.attitude_rotation_vector");
  }
}

// An inertia given about the body origin is moved to the centre of mass: J_O = I_C − m r^× r^×.
TEST(ParseScenarioInertia, InertiaAboutTheOriginIsMovedToTheCentreOfMass) {
  const auto about_origin = [](const std::string& com_z) {
    return parse_scenario("[run]\nduration = 1.0\nstep = 0.1\n[body]\nmass = 2.0\ncenter_of_mass = [0.0, 0.0, " + com_z +
                              "]\ninertia = [[1.5, 0, 0], [0, 1.5, 0], [0, 0, 1.0]]\ninertia_about = \"origin\"\n",
                          "o.toml");
  };
  const Scenario s = about_origin("0.5");
  // I_C = J_O − m (z² on the transverse axes) = 1.5 − 2 · 0.25 = 1.0.
  EXPECT_NEAR(s.body.inertia_c_b(0, 0), 1.0, 1e-15);
  EXPECT_NEAR(s.body.inertia_c_b(1, 1), 1.0, 1e-15);
  EXPECT_NEAR(s.body.inertia_c_b(2, 2), 1.0, 1e-15);
  // A tensor about the origin too small for the centre of mass's distance: physical as given, not
  // once moved (1.5 − 2 · 1 < 0). The error says so, with the moved tensor.
  try {
    about_origin("1.0");
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "body.inertia");
    EXPECT_NE(std::string(e.what()).find("moved there from the origin (parallel axis, I_c = I_o - m (|c|^2 1 - c c^T)) "
                                         "it is [[-0.5, 0, 0], [0, -0.5, 0], [0, 0, 1]] kg m^2"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

std::string with_run(const std::string& run) {
  return "[run]\nduration = 2.0\nstep = 0.1\n" + run + "\n[body]\nmass = 1.0\ninertia = [[1, 0, 0], [0, 2, 0], [0, 0, 2.5]]\n";
}

TEST(ParseScenarioIntegrator, AdaptiveSettingsAndTheirDefaults) {
  const Scenario s = parse_scenario(with_run("integrator = \"dopri5\"\nrtol = 1e-8\nmax_steps = 500"), "i.toml");
  const IntegrationSettings<double> i = s.integration();
  EXPECT_EQ(i.kind, IntegratorKind::dopri5);
  EXPECT_EQ(i.rtol, 1e-8);
  EXPECT_EQ(i.atol, 1e-9);
  EXPECT_EQ(i.max_steps, 500);
  EXPECT_EQ(i.max_step, 2.0);
  EXPECT_EQ(i.min_step, 2.0e-12);
  EXPECT_EQ(i.step, 0.1);  // the first step tried
}

TEST(ParseScenarioIntegrator, BadSettingsNameTheKey) {
  const auto key_of = [](const std::string& run) {
    try {
      parse_scenario(with_run(run), "i.toml");
    } catch (const ScenarioError& e) {
      return e.key_path() + " | " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(key_of("rtol = 1e-6").rfind("run.rtol | ", 0), 0u);  // with rk4: applies to dopri5 only
  EXPECT_EQ(key_of("integrator = \"dopri5\"\natol = 0.0").rfind("run.atol | ", 0), 0u);
  EXPECT_EQ(key_of("integrator = \"dopri5\"\nmax_steps = 0").rfind("run.max_steps | ", 0), 0u);
  EXPECT_EQ(key_of("integrator = \"dopri5\"\nmin_step = 1.0\nmax_step = 0.5").rfind("run.min_step | ", 0), 0u);
  EXPECT_EQ(key_of("integrator = \"euler\"").rfind("run.integrator | ", 0), 0u);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

TEST(ParseScenarioEvents, EventsAreReadInOrder) {
  const Scenario s = parse_scenario(with_run("") + R"(
[[events]]
name = "touchdown"
type = "point_crossing"
point = [0.1, 0.0, -0.05]
axis = "z"
value = 0.0
direction = "falling"
terminal = true

[[events]]
name = "tumbled"
type = "attitude_angle"
angle = 1.0

[[events]]
name = "slow"
type = "angular_rate_below"
rate = 0.1

[[events]]
name = "deadline"
type = "time_limit"
time = 1.5
terminal = true
)",
                                    "e.toml");
  ASSERT_EQ(s.events.n, 4);
  EXPECT_EQ(s.event_names, (std::vector<std::string>{"touchdown", "tumbled", "slow", "deadline"}));
  EXPECT_EQ(s.events.events[0].axis, 2);
  EXPECT_EQ(s.events.events[0].direction, CrossingDirection::falling);
  EXPECT_TRUE(s.events.events[0].terminal);
  EXPECT_FALSE(s.events.events[1].terminal);
  EXPECT_EQ(s.events.events[1].reference.w, 1.0);  // the initial attitude by default
  EXPECT_EQ(s.events.events[3].value, 1.5);
  EXPECT_EQ(s.events.tolerance, 2.0e-12);
}

TEST(ParseScenarioEvents, BadEventsNameTheKey) {
  const auto key_of = [](const std::string& events) {
    try {
      parse_scenario(with_run("") + events, "e.toml");
    } catch (const ScenarioError& e) {
      return e.key_path();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(key_of("[[events]]\ntype = \"time_limit\"\ntime = 1.0\n"), "events[0].name");
  EXPECT_EQ(key_of("[[events]]\nname = \"a b\"\ntype = \"time_limit\"\ntime = 1.0\n"), "events[0].name");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"time_limit\"\ntime = 1.0\n[[events]]\nname = \"a\"\ntype = "
                   "\"time_limit\"\ntime = 2.0\n"),
            "events[1].name");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"explosion\"\n"), "events[0].type");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"point_crossing\"\naxis = \"w\"\nvalue = 0.0\n"), "events[0].axis");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"point_crossing\"\naxis = \"z\"\n"), "events[0].value");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"time_limit\"\ntime = 1.0\nterminal = \"yes\"\n"),
            "events[0].terminal");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"angular_rate_below\"\nrate = -1.0\n"), "events[0].rate");
  // An attitude angle of pi or more is never exceeded; a time limit after the run's end (2 s
  // here) would never come, at the end it may.
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"attitude_angle\"\nangle = 3.1416\n"), "events[0].angle");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"attitude_angle\"\nangle = 3.1415\n"), "accepted");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"time_limit\"\ntime = 2.5\n"), "events[0].time");
  EXPECT_EQ(key_of("[[events]]\nname = \"a\"\ntype = \"time_limit\"\ntime = 2.0\n"), "accepted");
  std::string five;
  for (int i = 0; i < 5; ++i) five += "[[events]]\nname = \"e" + std::to_string(i) + "\"\ntype = \"time_limit\"\ntime = 1.0\n";
  EXPECT_EQ(key_of(five), "events[4].name");
  // A box: three positive edges, and a direction that says which of its points crosses (its
  // lowest falling, its highest rising; no one point for "either").
  const std::string box = "[[events]]\nname = \"a\"\ntype = \"box_crossing\"\naxis = \"z\"\nvalue = 0.0\n";
  EXPECT_EQ(key_of(box + "size = [0.1, 0.2, 0.3]\ndirection = \"falling\"\n"), "accepted");
  EXPECT_EQ(key_of(box + "direction = \"falling\"\n"), "events[0].size");
  EXPECT_EQ(key_of(box + "size = [0.1, 0.0, 0.3]\ndirection = \"falling\"\n"), "events[0].size");
  EXPECT_EQ(key_of(box + "size = [0.1, 0.2]\ndirection = \"falling\"\n"), "events[0].size");
  EXPECT_EQ(key_of(box + "size = [0.1, 0.2, 0.3]\n"), "events[0].direction");
  EXPECT_EQ(key_of(box + "size = [0.1, 0.2, 0.3]\ndirection = \"either\"\n"), "events[0].direction");
  EXPECT_EQ(key_of(box + "size = [0.1, 0.2, 0.3]\ndirection = \"falling\"\npoint = [0.0, 0.0, 0.1]\n"),
            "events[0].point");  // a box has a center, not a point
  // A cylinder: a radius and height, and the direction as the box's.
  const std::string can = "[[events]]\nname = \"a\"\ntype = \"cylinder_crossing\"\naxis = \"z\"\nvalue = 0.0\n";
  const std::string falling = "direction = \"falling\"\n";
  EXPECT_EQ(key_of(can + "radius = 0.03\nheight = 0.1\n" + falling), "accepted");
  EXPECT_EQ(key_of(can + "height = 0.1\n" + falling), "events[0].radius");
  EXPECT_EQ(key_of(can + "radius = 0.03\n" + falling), "events[0].height");
  EXPECT_EQ(key_of(can + "radius = -0.03\nheight = 0.1\n" + falling), "events[0].radius");
  EXPECT_EQ(key_of(can + "radius = 0.03\nheight = -0.1\n" + falling), "events[0].height");
  // A segment (a rod's axis) and a disc (a coin) are cylinders; a point is not.
  EXPECT_EQ(key_of(can + "radius = 0.0\nheight = 0.1\n" + falling), "accepted");
  EXPECT_EQ(key_of(can + "radius = 0.03\nheight = 0.0\n" + falling), "accepted");
  EXPECT_EQ(key_of(can + "radius = 0.0\nheight = 0.0\n" + falling), "events[0].height");
  EXPECT_EQ(key_of(can + "radius = 0.03\nheight = 0.1\n"), "events[0].direction");
  EXPECT_EQ(key_of(can + "radius = 0.03\nheight = 0.1\ndirection = \"either\"\n"), "events[0].direction");
  EXPECT_EQ(key_of(can + "radius = 0.03\nheight = 0.1\nsize = [0.1, 0.1, 0.1]\n" + falling), "events[0].size");
}

// A cylinder's event: its centre (default the origin), its radius twice and half its height, as
// half its bounding box's edges along body x, y, z (its axis).
TEST(ParseScenarioEvents, ACylinderCrossingHoldsItsCentreRadiusAndHalfItsHeight) {
  const Scenario s = parse_scenario(with_run("") + R"(
[[events]]
name = "landing"
type = "cylinder_crossing"
center = [0.0, 0.001, -0.002]
radius = 0.033
height = 0.115
axis = "z"
value = 0.0
direction = "falling"
terminal = true
)",
                                    "e.toml");
  ASSERT_EQ(s.events.n, 1);
  const EventSpec<double>& landing = s.events.events[0];
  EXPECT_EQ(landing.kind, EventKind::cylinder_crossing);
  EXPECT_EQ(landing.point_b, Vec3<double>(0, 0.001, -0.002));
  EXPECT_EQ(landing.half_size_b, Vec3<double>(0.033, 0.033, 0.0575));
  EXPECT_EQ(landing.axis, 2);
  EXPECT_EQ(landing.direction, CrossingDirection::falling);
  EXPECT_TRUE(landing.terminal);
}

// A box's event: its centre (default the origin) and half its edges, along the body axes.
TEST(ParseScenarioEvents, ABoxCrossingHoldsItsCentreAndHalfItsEdges) {
  const Scenario s = parse_scenario(with_run("") + R"(
[[events]]
name = "landing"
type = "box_crossing"
center = [0.0, 0.0, 0.005]
size = [0.148, 0.097, 0.056]
axis = "z"
value = 0.0
direction = "falling"
terminal = true

[[events]]
name = "ceiling"
type = "box_crossing"
size = [0.2, 0.4, 0.6]
axis = "y"
value = 2.0
direction = "rising"
)",
                                    "e.toml");
  ASSERT_EQ(s.events.n, 2);
  const EventSpec<double>& landing = s.events.events[0];
  EXPECT_EQ(landing.kind, EventKind::box_crossing);
  EXPECT_EQ(landing.point_b, Vec3<double>(0, 0, 0.005));
  EXPECT_EQ(landing.half_size_b, Vec3<double>(0.074, 0.0485, 0.028));
  EXPECT_EQ(landing.direction, CrossingDirection::falling);
  EXPECT_TRUE(landing.terminal);
  const EventSpec<double>& ceiling = s.events.events[1];
  EXPECT_EQ(ceiling.point_b, Vec3<double>::Zero());
  EXPECT_EQ(ceiling.half_size_b, Vec3<double>(0.1, 0.2, 0.3));
  EXPECT_EQ(ceiling.axis, 1);
  EXPECT_EQ(ceiling.value, 2.0);
  EXPECT_EQ(ceiling.direction, CrossingDirection::rising);
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

TEST(ParseScenarioIntegrator, SplittingRefusesConstraints) {
  EXPECT_EQ(parse_scenario(with_run("integrator = \"splitting\""), "s.toml").integration().kind, IntegratorKind::splitting);
  try {
    parse_scenario(with_run("integrator = \"splitting\"") + "[constraint]\ntype = \"pivot\"\n", "s.toml");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "constraint.type");
    EXPECT_NE(std::string(e.what()).find("does not handle constraints"), std::string::npos);
  }
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

TEST(ParseScenarioIntegrator, EulerAttitudeWithRk4Only) {
  const Scenario s = parse_scenario(with_run("attitude = \"euler_zxz\"\neuler_threshold = 0.01"), "e.toml");
  EXPECT_TRUE(s.integration().euler_zxz);
  EXPECT_EQ(s.integration().euler_threshold, 0.01);
  const auto key_of = [](const std::string& run) {
    try {
      parse_scenario(with_run(run), "e.toml");
    } catch (const ScenarioError& e) {
      return e.key_path();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(key_of("integrator = \"dopri5\"\nattitude = \"euler_zxz\""), "run.attitude");
  EXPECT_EQ(key_of("attitude = \"euler_zyx\""), "run.attitude");
  EXPECT_EQ(key_of("euler_threshold = 0.01"), "run.euler_threshold");
  EXPECT_EQ(key_of("attitude = \"euler_zxz\"\neuler_threshold = 2.0"), "run.euler_threshold");
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

TEST(ParseScenarioOutput, IntervalOrTimes) {
  const Scenario a = parse_scenario(with_run("") + "[output]\ninterval = 0.5\n", "o.toml");
  EXPECT_EQ(a.output_times.n, 5);  // 0, 0.5, 1, 1.5, 2
  EXPECT_EQ(a.output_times.at(4), 2.0);
  const Scenario b = parse_scenario(with_run("") + "[output]\ntimes = [0.1, 0.7, 2.0]\n", "o.toml");
  EXPECT_EQ(b.output_times.n, 3);
  EXPECT_EQ(b.output_times.at(1), 0.7);
  const auto key_of = [](const std::string& output) { return error_key_of(with_run("") + "[output]\n" + output); };
  EXPECT_EQ(key_of(""), "output.interval");
  EXPECT_EQ(key_of("interval = 0.0\n"), "output.interval");
  EXPECT_EQ(key_of("interval = 2.5\n"), "output.interval");  // the run lasts 2 s: t = 0 alone
  EXPECT_EQ(parse_scenario(with_run("") + "[output]\ninterval = 2.0\n", "o.toml").output_times.n, 2);  // 0 and 2
  EXPECT_EQ(key_of("interval = 0.5\ntimes = [1.0]\n"), "output.times");
  EXPECT_EQ(key_of("times = [0.5, 0.4]\n"), "output.times");
  EXPECT_EQ(key_of("times = [3.0]\n"), "output.times");
  EXPECT_EQ(key_of("every = 0.5\n"), "output.every");
}

// Key paths beyond the spine's, correlation groups and conflicting inputs: each error names the key.
TEST(ParseScenario, ExtendedDispersionErrorsNameTheKey) {
  const std::string base = R"([run]
duration = 1.0
step = 0.1
[body]
mass = 2.0
shape = { type = "box", size = [0.3, 0.2, 0.1] }
[[loads]]
type = "spring"
anchor = [0.0, 0.0, 1.0]
stiffness = 40.0
[dispersions]
body.mass = { distribution = "normal", sigma = 0.1 }
initial.velocity = { distribution = "uniform", half_width = 0.1 }
)";
  const auto error_of = [&](const std::string& more) {
    try {
      parse_scenario(base + more, "bad.toml");
    } catch (const ScenarioError& e) {
      return e.key_path() + " | " + e.what();
    }
    return std::string("(accepted)");
  };
  const auto key_of = [&](const std::string& more) {
    const std::string e = error_of(more);
    return e.substr(0, e.find(" | "));
  };
  // Accepted: the shape's dimensions and the spring's parameters by key path.
  EXPECT_EQ(error_of("body.shape.size = { distribution = \"normal\", sigma = 0.01 }\n"
                     "loads.0.stiffness = { distribution = \"uniform\", min = 30.0, max = 50.0 }\n"
                     "loads.0.anchor = { distribution = \"normal\", sigma = 0.01 }\n"),
            "(accepted)");
  EXPECT_EQ(key_of("loads.1.stiffness = { distribution = \"normal\", sigma = 1.0 }\n"), "dispersions.loads.1.stiffness");
  EXPECT_EQ(key_of("body.shape.radius = { distribution = \"normal\", sigma = 1.0 }\n"), "dispersions.body.shape.radius");
  EXPECT_EQ(key_of("constraint.point = { distribution = \"normal\", sigma = 1.0 }\n"), "dispersions.constraint.point");
  // One description of the inertia and of the attitude at a time.
  EXPECT_NE(error_of("body.principal_moments = { distribution = \"normal\", sigma = 0.001 }\n"
                     "body.shape.size = { distribution = \"normal\", sigma = 0.01 }\n")
                .find("conflicts with body.principal_moments"),
            std::string::npos);
  EXPECT_EQ(key_of("initial.attitude = { distribution = \"normal\", sigma = 0.1 }\n"
                   "initial.attitude_euler_zyx = { distribution = \"normal\", sigma = 0.1 }\n"),
            "dispersions.initial.attitude_euler_zyx");
  // Correlation groups.
  const std::string group = "[[correlations]]\ninputs = [\"body.mass\", \"initial.velocity\"]\n";
  EXPECT_EQ(key_of(group + "matrix = [[1.0, 0.5, 0, 0], [0.5, 1.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]\n"),
            "correlations[0].inputs");  // initial.velocity is uniform, not normal
  const std::string normal_group =
      "initial.angular_velocity = { distribution = \"normal\", sigma = 0.1 }\n"
      "[[correlations]]\ninputs = [\"body.mass\", \"initial.angular_velocity\"]\n";
  EXPECT_EQ(error_of(normal_group + "matrix = [[1.0, 0.5, 0, 0], [0.5, 1.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]\n"),
            "(accepted)");
  EXPECT_NE(error_of(normal_group + "matrix = [[1.0, 0.5, 0, 0], [0.4, 1.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0]]\n")
                .find("symmetric"),
            std::string::npos);
  EXPECT_NE(error_of(normal_group + "matrix = [[1.0, 0.9, 0.9, 0], [0.9, 1.0, -0.9, 0], [0.9, -0.9, 1.0, 0], [0, 0, 0, 1.0]]\n")
                .find("not positive definite"),
            std::string::npos);
  EXPECT_EQ(key_of(normal_group + "matrix = [[1.0, 0.5], [0.5, 1.0]]\n"), "correlations[0].matrix");
  EXPECT_EQ(key_of("[[correlations]]\ninputs = [\"body.mass\", \"gravity.acceleration\"]\nmatrix = []\n"),
            "correlations[0].inputs");  // not dispersed
}

}  // namespace
}  // namespace rbmc

namespace rbmc {
namespace {

// [output] samples chooses the per-sample datasets the file keeps; a name that is not one of this
// scenario's is refused at its own line, with the valid names.
TEST(ParseScenarioOutput, SamplesAndStorage) {
  const Scenario a = parse_scenario(with_run("") + "[output]\nsamples = [\"final/position\", \"body\"]\nstorage = \"float32\"\n",
                                    "o.toml");
  EXPECT_EQ(a.output_times.n, 0);  // no times needed to choose datasets
  EXPECT_EQ(a.output.storage, OutputSettings::Storage::float32);
  std::vector<std::string> kept;
  for (const SampleDataset& d : sample_datasets(a)) kept.push_back(d.short_name());
  EXPECT_EQ(kept, (std::vector<std::string>{"index", "status", "body/mass", "body/center_of_mass", "body/inertia",
                                            "final/position"}));
  try {
    parse_scenario(with_run("") + "[output]\nsamples = [\"final/position\",\n  \"final/spin\"]\n", "o.toml");
    FAIL() << "accepted an unknown dataset";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "output.samples");
    EXPECT_NE(std::string(e.what()).find("final/spin"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("final/angular_velocity"), std::string::npos);  // the valid names
    EXPECT_NE(std::string(e.what()).find("o.toml:"), std::string::npos);
  }
  const auto key_of = [](const std::string& output) { return error_key_of(with_run("") + "[output]\n" + output); };
  EXPECT_EQ(key_of("storage = \"half\"\n"), "output.storage");
  EXPECT_EQ(key_of("samples = []\n"), "output.samples");
  EXPECT_EQ(key_of("samples = [1]\n"), "output.samples");
  EXPECT_EQ(key_of("samples = [\"status\"]\nstatistics = false\n"), "output.interval");
}

// [output] compression: the kept trajectories deflated (the default) or stored as they are; any
// other value is refused at its line, naming the two; it concerns trajectories, so it needs output
// times like them.
TEST(ParseScenarioOutput, TrajectoryCompression) {
  const std::string times = with_run("") + "[output]\ninterval = 0.5\n";
  EXPECT_EQ(parse_scenario(times, "o.toml").output.compression, OutputSettings::Compression::deflate);
  EXPECT_EQ(parse_scenario(times + "compression = \"deflate\"\n", "o.toml").output.compression,
            OutputSettings::Compression::deflate);
  EXPECT_EQ(parse_scenario(times + "compression = \"none\"\n", "o.toml").output.compression,
            OutputSettings::Compression::none);
  try {
    parse_scenario(times + "\ncompression = \"lz4\"\n", "o.toml");
    FAIL() << "accepted an unknown compression";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "output.compression");
    EXPECT_NE(std::string(e.what()).find("o.toml:"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("\"none\""), std::string::npos);
  }
  const auto key_of = [](const std::string& output) { return error_key_of(with_run("") + "[output]\n" + output); };
  EXPECT_EQ(key_of("interval = 0.5\ncompression = 0\n"), "output.compression");
  EXPECT_EQ(key_of("compression = \"none\"\n"), "output.interval");
}

// [output] statistics is true, false, or the quantities whose statistics the file keeps; a name
// that is not a quantity is refused at its own line with the valid names, as are a repeated name,
// an empty list and a string where a list belongs.
TEST(ParseScenarioOutput, StatisticsOfNamedQuantities) {
  const std::string times = with_run("") + "[output]\ninterval = 0.5\n";
  const Scenario all = parse_scenario(times, "o.toml");
  EXPECT_TRUE(all.output.statistics);
  EXPECT_EQ(all.output.statistics_quantities, kAllQuantities);
  const Scenario some = parse_scenario(times + "statistics = [\"attitude_angle\", \"position\"]\n", "o.toml");
  EXPECT_TRUE(some.output.statistics);
  EXPECT_EQ(some.output.statistics_quantities, (1u << 0) | (1u << 3));  // kStatisticsQuantities' order
  for (int c = 0; c < quantity::count; ++c)
    EXPECT_EQ(quantity_column_in(some.output.statistics_quantities, c),
              (c >= quantity::position && c < quantity::position + 3) || c == quantity::attitude_angle)
        << c;
  for (int c = 0; c < quantity::count; ++c) EXPECT_TRUE(quantity_column_in(kAllQuantities, c)) << c;
  EXPECT_FALSE(parse_scenario(times + "statistics = false\n", "o.toml").output.statistics);
  try {
    parse_scenario(times + "statistics = [\"attitude_angle\",\n  \"spin\"]\n", "o.toml");
    FAIL() << "accepted an unknown quantity";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "output.statistics");
    EXPECT_EQ(e.line(), std::uint32_t(std::count(times.begin(), times.end(), '\n') + 2));  // the unknown name's own line
    EXPECT_NE(std::string(e.what()).find("'spin'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("kinetic_energy"), std::string::npos);  // the valid names
    EXPECT_NE(std::string(e.what()).find("o.toml:"), std::string::npos);
  }
  const auto key_of = [&](const std::string& line) { return error_key_of(times + line); };
  EXPECT_EQ(key_of("statistics = []\n"), "output.statistics");
  EXPECT_EQ(key_of("statistics = [1]\n"), "output.statistics");
  EXPECT_EQ(key_of("statistics = \"position\"\n"), "output.statistics");
  EXPECT_EQ(key_of("statistics = [\"position\", \"position\"]\n"), "output.statistics");
}

// What a backend that draws on the device sends back follows from the datasets kept: the inputs'
// columns for /samples/body and /samples/initial, the drawn values for /samples/params.
// How many trajectories a rule keeps of a run's n samples, as `rbmc check` plans them: counted
// where the indices decide (every, a list, and any limit), at most where each sample's results do.
TEST(ParseScenarioOutput, PlannedTrajectories) {
  using Kind = TrajectoryRetention::Kind;
  const auto planned = [](TrajectoryRetention t, std::uint64_t n) {
    bool exact = false;
    const std::uint64_t count = planned_trajectories(t, n, exact);
    return std::make_pair(count, exact);
  };
  TrajectoryRetention t;
  EXPECT_EQ(planned(t, 300), std::make_pair(std::uint64_t(300), true));  // all
  t.limit = 20;
  EXPECT_EQ(planned(t, 300), std::make_pair(std::uint64_t(20), true));
  EXPECT_EQ(planned(t, 12), std::make_pair(std::uint64_t(12), true));
  t = {};
  t.kind = Kind::none;
  EXPECT_EQ(planned(t, 300), std::make_pair(std::uint64_t(0), true));
  t = {};
  t.kind = Kind::every;
  t.every = 7;
  EXPECT_EQ(planned(t, 300), std::make_pair(std::uint64_t(43), true));  // 0, 7, ..., 294
  EXPECT_EQ(planned(t, 295), std::make_pair(std::uint64_t(43), true));  // 294 is the last below 295
  EXPECT_EQ(planned(t, 294), std::make_pair(std::uint64_t(42), true));
  t = {};
  t.kind = Kind::list;
  t.samples = {1, 5, 299, 300, 4000};
  EXPECT_EQ(planned(t, 300), std::make_pair(std::uint64_t(3), true));  // those below 300
  t = {};
  t.kind = Kind::event;
  EXPECT_EQ(planned(t, 300), std::make_pair(std::uint64_t(300), false));
  t.limit = 50;
  EXPECT_EQ(planned(t, 300), std::make_pair(std::uint64_t(50), false));
}

TEST(ParseScenarioOutput, TheDrawnColumnsAFileKeeps) {
  const auto wanted = [](const std::string& samples) {
    const std::string output = samples.empty() ? "" : "[output]\nsamples = [" + samples + "]\n";
    const std::vector<SampleDataset> kept = sample_datasets(parse_scenario(test::valid_scenario_text(10, 1.0, 0.1) + output, "d.toml"));
    return std::make_pair(keeps_any(kept, {SampleSource::inputs, SampleSource::inertia}), keeps_any(kept, {SampleSource::params}));
  };
  EXPECT_EQ(wanted(""), std::make_pair(true, true));  // every dataset
  EXPECT_EQ(wanted("\"final/position\""), std::make_pair(false, false));
  EXPECT_EQ(wanted("\"final\", \"status\""), std::make_pair(false, false));
  EXPECT_EQ(wanted("\"body/inertia\""), std::make_pair(true, false));  // from the inputs' six components
  EXPECT_EQ(wanted("\"initial/orientation\""), std::make_pair(true, false));
  EXPECT_EQ(wanted("\"params\""), std::make_pair(false, true));
}

}  // namespace
}  // namespace rbmc

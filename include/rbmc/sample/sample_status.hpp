// Per-sample outcome codes, written to /samples/status (uint8). Device code never aborts: it
// records one of these and the other samples go on. Documented in docs/output-format.md.
#pragma once

#include <cstdint>

namespace rbmc {

enum class SampleStatus : std::uint8_t {
  ok = 0,                // integrated to the end time
  non_finite_state = 1,  // a NaN or infinity appeared; the sample stopped at the last finite time
  invalid_body = 2,      // its dispersed mass properties were not physical; not integrated
  max_steps_reached = 3, // the adaptive integrator used its step budget before the end time
  step_size_underflow = 4,  // the adaptive step fell below the minimum step to meet the tolerance
  terminal_event = 5,       // a terminal event stopped the sample (final/stopping_event says which)
  euler_singularity = 6,    // the ZXZ Euler angles came within the threshold of θ = 0 or π
  inaccurate = 7,           // reached the end time, but its energy or angular momentum drifted beyond the
                            // accuracy guard's limits ([run] max_energy_drift, max_momentum_drift)
  invalid_load = 8,         // a dispersed load parameter was not physical (a negative stiffness, rest
                            // length or damping coefficient, a central body's μ not positive); not integrated
};

inline constexpr int kSampleStatusCount = 9;

// Whether a sample with this outcome was integrated: not one whose inputs were not physical,
// which has no state at any time, its final state, drifts and reaction NaN (run_sample).
inline constexpr bool was_integrated(SampleStatus s) {
  return s != SampleStatus::invalid_body && s != SampleStatus::invalid_load;
}

inline const char* status_name(SampleStatus s) {
  switch (s) {
    case SampleStatus::ok: return "ok";
    case SampleStatus::non_finite_state: return "non_finite_state";
    case SampleStatus::invalid_body: return "invalid_body";
    case SampleStatus::max_steps_reached: return "max_steps_reached";
    case SampleStatus::step_size_underflow: return "step_size_underflow";
    case SampleStatus::terminal_event: return "terminal_event";
    case SampleStatus::euler_singularity: return "euler_singularity";
    case SampleStatus::inaccurate: return "inaccurate";
    case SampleStatus::invalid_load: return "invalid_load";
  }
  return "unknown";
}

}  // namespace rbmc

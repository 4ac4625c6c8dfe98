// Settings read from the environment, checked like the command line's: a value that is set but
// cannot be used is a UsageError naming the variable, never silently another value.
#pragma once

namespace rbmc {

// A duration in seconds from the environment variable `name`: `otherwise` when it is unset or
// empty. Anything but a finite number ≥ 0 ("10", "0.5", "1e3") throws UsageError.
double seconds_from_environment(const char* name, double otherwise);

}  // namespace rbmc

// The command line's checks of numbers, with messages that say what is wanted. CLI11's
// PositiveNumber and NonNegativeNumber printed their range's upper bound, 1.8e308, in 300 digits
// ("--samples: Value 0 not in range 0.000000 to 1797693134862315708…"), whatever was wrong.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

namespace rbmc {

// A whole number (digits only) of at least `least`, within 64 bits.
inline CLI::Validator whole_number_check(std::uint64_t least) {
  return CLI::Validator(
      [least](std::string& text) -> std::string {
        const std::string wanted = "a whole number of at least " + std::to_string(least);
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "'" + text + "' is not " + wanted + " (digits only)";
        errno = 0;
        const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
        if (errno == ERANGE) return text + " is beyond 2^64 - 1";
        if (value < least) return text + " is not " + wanted;
        return "";
      },
      least == 0 ? "NONNEGATIVE" : least == 1 ? "POSITIVE" : "AT LEAST " + std::to_string(least));
}

// A finite number of at least 0.
inline CLI::Validator non_negative_number_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value))
          return "'" + text + "' is not a finite number";
        if (value < 0) return text + " is negative; it must be at least 0";
        return "";
      },
      "NONNEGATIVE");
}

}  // namespace rbmc

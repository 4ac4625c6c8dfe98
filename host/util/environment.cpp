#include "host/util/environment.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "host/errors.hpp"

namespace rbmc {

double seconds_from_environment(const char* name, double otherwise) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return otherwise;
  char* end = nullptr;
  errno = 0;
  const double seconds = std::strtod(text, &end);
  while (end != nullptr && (*end == ' ' || *end == '\t')) ++end;
  if (end == text || *end != '\0' || errno == ERANGE || !std::isfinite(seconds) || seconds < 0)
    throw UsageError(std::string(name) + "='" + text + "': not a number of seconds (a finite number >= 0, e.g. 10 or "
                     "0.5); unset it for the default");
  return seconds;
}

}  // namespace rbmc

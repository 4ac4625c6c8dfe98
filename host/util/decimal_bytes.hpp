// A byte count in decimal units, as the docs give file sizes: "4.42 MB".
#pragma once

#include <cstdio>
#include <string>

namespace rbmc {

inline std::string decimal_bytes(double bytes) {
  static const char* const kUnits[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  for (; bytes >= 1000 && unit < 5; ++unit) bytes /= 1000;
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.3g %s", bytes, kUnits[unit]);
  return buf;
}

}  // namespace rbmc

// rbmc info: a human summary of a results file.
#pragma once

#include <cstdio>
#include <string>

namespace rbmc {

void print_results_info(const std::string& path, std::FILE* out);

}  // namespace rbmc

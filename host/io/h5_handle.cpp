#include "host/io/h5_handle.hpp"

#include <vector>

namespace rbmc::h5 {

std::string last_error_message() {
  // H5E_WALK_UPWARD starts at the most specific entry (often the system's reason, such as
  // "No space left on device") and ends at the API call that failed.
  std::vector<std::string> entries;
  (void)H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
        if (e->desc != nullptr && e->desc[0] != '\0') static_cast<std::vector<std::string>*>(out)->push_back(e->desc);
        return 0;
      },
      &entries);
  if (entries.empty()) return "unknown HDF5 error";
  // The file driver's entry spells out the system error among many fields; keep just that.
  for (std::string& e : entries) {
    const std::string tag = "error message = '";
    const auto at = e.find(tag);
    if (at != std::string::npos) e = e.substr(at + tag.size(), e.find('\'', at + tag.size()) - at - tag.size());
  }
  if (entries.size() == 1 || entries.front() == entries.back()) return entries.front();
  return entries.back() + " (" + entries.front() + ")";
}

void initialize() {
  static const bool library = [] {
    (void)H5dont_atexit();  // fails harmlessly if the library is already initialised
    return true;
  }();
  // A thread-safe HDF5 (Debian's) keeps an error stack and its printing per thread: turn the
  // printing off on every thread that calls HDF5 (the writer's too), since errors are reported
  // through last_error_message() in the exception's text.
  thread_local const bool quiet = [] {
    (void)H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)library;
  (void)quiet;
}

}  // namespace rbmc::h5

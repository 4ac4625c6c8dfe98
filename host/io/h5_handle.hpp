// RAII for HDF5 identifiers, and checks of every HDF5 return code in every build type.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include <hdf5.h>

#include "host/errors.hpp"

namespace rbmc::h5 {

// The innermost message on HDF5's error stack, which says what actually went wrong
// ("No space left on device", "unable to open file", ...).
std::string last_error_message();

// Called before any other HDF5 call. HDF5 prints its error stack to stderr unless told not to;
// rbmc reports errors itself. HDF5's at-exit teardown is turned off: it would close a file whose
// close already failed (a full disk) a second time and crash; rbmc closes what it opens itself.
void initialize();

inline hid_t check(hid_t id, const std::string& what) {
  if (id < 0) throw Hdf5Error(what + ": " + last_error_message());
  return id;
}
inline void check_status(herr_t status, const std::string& what) {
  if (status < 0) throw Hdf5Error(what + ": " + last_error_message());
}

// While several processes write one file (parallel HDF5), closing an identifier is collective: a
// process unwinding from an error alone would wait in it for the others forever. Within a
// CollectiveSection, a Handle destroyed by an exception abandons its identifier instead; the
// caller then ends every process (MPI_Abort).
class CollectiveSection {
 public:
  CollectiveSection() { ++depth(); }
  ~CollectiveSection() { --depth(); }
  CollectiveSection(const CollectiveSection&) = delete;
  CollectiveSection& operator=(const CollectiveSection&) = delete;
  static bool active() { return depth() > 0; }

 private:
  static int& depth() {
    static thread_local int d = 0;
    return d;
  }
};

// Owns one identifier and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer, const std::string& what) : id_(check(id, what)), closer_(closer) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), closer_(o.closer_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      closer_ = o.closer_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  // Gives up ownership without closing.
  hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }
  // Closes now and reports failure (a close can flush data); the destructor closes quietly.
  void close(const std::string& what) {
    if (id_ < 0) return;
    const herr_t s = closer_(std::exchange(id_, H5I_INVALID_HID));
    check_status(s, what);
  }

 private:
  void reset() noexcept {
    if (id_ < 0) return;
    if (std::uncaught_exceptions() > 0 && CollectiveSection::active()) {
      id_ = H5I_INVALID_HID;  // abandoned (see CollectiveSection)
      return;
    }
    (void)closer_(std::exchange(id_, H5I_INVALID_HID));
  }
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

}  // namespace rbmc::h5

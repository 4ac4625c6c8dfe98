#include "host/io/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "host/errors.hpp"

namespace rbmc {

OutputLock::OutputLock(const std::string& output) : path_(lock_path(output)) {
  // A holder unlinks the file as it lets go: a lock taken on an unlinked file is retried on the new one.
  for (int attempt = 0; attempt < 100; ++attempt) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw UsageError("cannot create the lock file " + path_ + " beside the output: " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char holder[32] = {};
      const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
      ::close(fd_);
      fd_ = -1;
      const std::string pid = n > 0 ? std::string(holder, std::size_t(n)) : std::string("unknown");
      throw UsageError("another rbmc process (pid " + pid.substr(0, pid.find_first_of("\n ")) + ") is writing " +
                       output + " (its lock is " + path_ + "); wait for it, or choose another -o");
    }
    struct stat held {}, named {};
    if (::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd_, 0) == 0) (void)::pwrite(fd_, pid.data(), pid.size(), 0);
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
  throw UsageError("cannot take the lock " + path_ + ": it keeps being replaced");
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  // Removed while still held: a process that opened it meanwhile fails to lock it and says so; one
  // that comes later creates a fresh one.
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace rbmc

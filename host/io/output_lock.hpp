// One process per output: an exclusive advisory lock (flock) on OUT.lock, held from the start of
// a run or resume until its file is in place. A second run or resume to the same OUT fails at
// once, naming the process that holds it. The lock dies with its process (kill -9 included), so a
// stale OUT.lock never blocks a later run.
#pragma once

#include <string>

namespace rbmc {

class OutputLock {
 public:
  // Throws UsageError when another process holds the lock on `output`.
  explicit OutputLock(const std::string& output);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  static std::string lock_path(const std::string& output) { return output + ".lock"; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace rbmc

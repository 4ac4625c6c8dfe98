// One background thread that runs jobs one at a time, in the order given: the run's writes, so
// that batch k is written while batch k + 1 is integrated. One long-lived thread rather than a
// thread per job: a thread per batch made glibc's allocator grow the run's memory with N.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace rbmc {

class SerialWorker {
 public:
  SerialWorker() : thread_([this] { loop(); }) {}
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;
  // Finishes the job in flight (its error, if any, is dropped: an error is already unwinding or
  // the caller waited), then stops.
  ~SerialWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  // Waits for the previous job, then hands this one to the thread.
  void submit(std::function<void()> job) {
    wait();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = std::move(job);
    }
    changed_.notify_all();
  }

  // Waits until no job is queued or running; rethrows the last job's exception.
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !job_ && !running_; });
    if (error_) {
      const std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return job_ || stopping_; });
      if (!job_) return;  // stopping, nothing left
      std::function<void()> job = std::move(job_);
      job_ = nullptr;
      running_ = true;
      lock.unlock();
      try {
        job();
      } catch (...) {
        lock.lock();
        error_ = std::current_exception();
        lock.unlock();
      }
      lock.lock();
      running_ = false;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> job_;
  bool running_ = false, stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace rbmc

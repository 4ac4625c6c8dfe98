#include "host/util/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace rbmc {

unsigned default_thread_count() { return std::max(1u, std::thread::hardware_concurrency()); }

void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t, std::size_t)>& body) {
  if (n == 0) return;
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::min<std::size_t>(n, 1u << 16))));
  if (threads == 1) {
    body(0, n);
    return;
  }
  // About 16 chunks a thread: small enough to balance samples of unequal cost.
  const std::size_t chunk = std::max<std::size_t>(1, n / (std::size_t(threads) * 16));
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto worker = [&] {
    try {
      for (;;) {
        const std::size_t begin = next.fetch_add(chunk);
        if (begin >= n) return;
        body(begin, std::min(n, begin + chunk));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(n);  // the others stop at their next chunk
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace rbmc

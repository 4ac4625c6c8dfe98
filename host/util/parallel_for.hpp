// Splits [0, n) over threads in dynamically claimed chunks; the first exception a worker throws
// is rethrown on the caller's thread after all workers have stopped.
#pragma once

#include <cstddef>
#include <functional>

namespace rbmc {

// Threads to use when the user asks for 0 ("all cores").
unsigned default_thread_count();

void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t begin, std::size_t end)>& body);

}  // namespace rbmc

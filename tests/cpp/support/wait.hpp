// Test support: polling until a condition holds, bounded in time.
// Thread-safety: `done` is called from the calling thread only; it may read state other threads
// change, so it must read it safely (atomics or its own locking).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

namespace mcpcxx::testing {

/// Calls `done` every 2 ms until it returns true (true) or `limit` has passed (false).
inline bool wait_until(const std::function<bool()>& done,
                       std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

/// Waits until `count` equals `expected` (true) or `limit` has passed (false).
inline bool wait_for_count(const std::atomic<int>& count, int expected,
                           std::chrono::milliseconds limit) {
  return wait_until([&] { return count.load() == expected; }, limit);
}

}  // namespace mcpcxx::testing

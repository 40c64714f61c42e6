// Test support shared by the seam contract suites (notification bus, request router, task store):
// bounded waits for asynchronous implementations and a bounded runner that turns a deadlock into
// a clear abort.
// Everything lives in mcpcxx::testing::contract (the seams target is built as one unity unit).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "support/wait.hpp"

namespace mcpcxx::testing::contract {

/// How long a contract test waits for something an implementation may do asynchronously (a
/// delivery, a destruction). Generous: the memory implementations never wait at all.
inline constexpr std::chrono::milliseconds k_async_limit{10000};

/// How long a call that must not deadlock may take before run_or_abort gives up.
inline constexpr std::chrono::milliseconds k_deadlock_limit{10000};

/// Waits (bounded) until `done` holds; the waits of every contract suite go through here.
inline bool eventually(const std::function<bool()>& done) {
  return mcpcxx::testing::wait_until(done, k_async_limit);
}

/// Like eventually(), but checks `done` in a yielding loop for the first few milliseconds before
/// falling back to 2 ms sleeps: for the many short waits of the race tests, which a loaded
/// machine's sleep granularity would otherwise stretch to seconds.
inline bool soon(const std::function<bool()>& done) {
  const auto spin_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
  while (std::chrono::steady_clock::now() < spin_end) {
    if (done()) return true;
    std::this_thread::yield();
  }
  return eventually(done);
}

/// Runs `fn` on its own thread and waits for it; aborts the test program with `what` when it has
/// not returned within k_deadlock_limit (a deadlock would otherwise hang until the ctest timeout).
inline void run_or_abort(const std::function<void()>& fn, const char* what) {
  std::promise<void> finished;
  std::future<void> done = finished.get_future();
  std::thread runner([&] {
    fn();
    finished.set_value();
  });
  if (done.wait_for(k_deadlock_limit) != std::future_status::ready) {
    std::fprintf(stderr, "contract test: %s did not return (deadlock?)\n", what);
    std::fflush(stderr);
    std::abort();
  }
  runner.join();
}

/// Calls `step(i)` for i = 0, 1, ... on its own thread until stop() or destruction (which joins,
/// so a failed ASSERT in the test body never leaves a joinable thread behind).
class background_loop {
 public:
  /// Starts the loop.
  explicit background_loop(std::function<void(std::uint64_t)> step)
      : thread_([this, step = std::move(step)] {
          for (std::uint64_t i = 0; !stop_.load(); ++i) {
            step(i);
            iterations_.store(i + 1);
          }
        }) {}
  background_loop(const background_loop&) = delete;
  background_loop& operator=(const background_loop&) = delete;
  ~background_loop() { stop(); }

  /// Ends the loop after its current step and joins the thread.
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }

  /// Steps completed so far.
  std::uint64_t iterations() const { return iterations_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> iterations_{0};
  std::thread thread_;  // last: starts after the atomics above exist
};

/// Joins every thread of a group on destruction (a failed ASSERT never leaves one joinable).
class thread_group {
 public:
  thread_group() = default;
  thread_group(const thread_group&) = delete;
  thread_group& operator=(const thread_group&) = delete;
  ~thread_group() { join(); }

  /// Starts `fn` on a new thread of the group.
  void spawn(std::function<void()> fn) { threads_.emplace_back(std::move(fn)); }

  /// Waits for every thread started so far.
  void join() {
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  std::vector<std::thread> threads_;
};

}  // namespace mcpcxx::testing::contract

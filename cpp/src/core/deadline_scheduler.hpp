// One background thread firing callbacks at deadlines (per-tool timeouts).
// Thread-safety: schedule() and cancel() may be called from any thread; callbacks run on the
// scheduler thread and must be short.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace mcpcxx::detail {

/// Fires callbacks at steady-clock deadlines.
class deadline_scheduler {
 public:
  using clock = std::chrono::steady_clock;
  deadline_scheduler();
  ~deadline_scheduler();
  deadline_scheduler(const deadline_scheduler&) = delete;
  deadline_scheduler& operator=(const deadline_scheduler&) = delete;

  /// Schedules `fn` at `when`; returns a handle for cancel().
  std::uint64_t schedule(clock::time_point when, std::function<void()> fn);
  /// Cancels a pending callback; no effect if it already ran.
  void cancel(std::uint64_t handle);
  /// Joins the thread and drops pending callbacks; idempotent. Not from a callback.
  void stop();

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::multimap<clock::time_point, std::pair<std::uint64_t, std::function<void()>>> pending_;
  std::uint64_t next_ = 1;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mcpcxx::detail

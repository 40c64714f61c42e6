// detail::renewal_loop: the one thread of a store that keeps its leases alive (the task store,
// the at-most-once call records): it runs `tick` every `period` until stopped.
// Thread-safety: `tick` runs on the loop's own thread with no lock of the owner held; stop() may
// be called from any thread but the loop's, any number of times.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace mcpcxx::detail {

/// Runs a tick periodically on its own thread (see the file comment).
class renewal_loop {
 public:
  /// Starts the thread; the first tick comes one `period` from now. What `tick` throws is dropped:
  /// the owner reports its own store trouble.
  renewal_loop(std::chrono::milliseconds period, std::function<void()> tick);
  ~renewal_loop();
  renewal_loop(const renewal_loop&) = delete;
  renewal_loop& operator=(const renewal_loop&) = delete;

  /// Stops the thread and joins it: no tick runs once it returns.
  void stop();

 private:
  void run();

  const std::chrono::milliseconds period_;
  const std::function<void()> tick_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace mcpcxx::detail

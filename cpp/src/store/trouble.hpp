// detail::trouble_reporter: tells the store_trouble_callback when Redis trouble starts and when it
// ends, not once per failed message.
// Thread-safety: every member may be called from any thread at once; the callback is called
// under the reporter's lock (one report at a time, in order).
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "store/redis_stores.hpp"

namespace mcpcxx::detail {

/// Reports the transitions of one component's Redis health (see the file comment).
class trouble_reporter {
 public:
  /// Reports to `callback` (may be empty) about `component` ("notification bus").
  trouble_reporter(store_trouble_callback callback, std::string component)
      : callback_(std::move(callback)), component_(std::move(component)) {}

  /// A Redis call failed with `why`: reported when it is the first failure since the last ok().
  void failed(std::string_view why) {
    std::lock_guard g(mutex_);
    if (failing_) return;
    failing_ = true;
    say(component_ + ": Redis failed: " + std::string(why));
  }
  /// A Redis call succeeded: reported when the component was failing.
  void ok() {
    std::lock_guard g(mutex_);
    if (!failing_) return;
    failing_ = false;
    say(component_ + ": Redis works again");
  }
  /// Runs the Redis call `fn`, reporting its outcome; a redis::unavailable is reported and
  /// rethrown to the caller.
  template <class Fn>
  auto watch(Fn&& fn) -> decltype(std::forward<Fn>(fn)()) {
    try {
      auto r = std::forward<Fn>(fn)();
      ok();
      return r;
    } catch (const redis::unavailable& x) {
      failed(x.what());
      throw;
    }
  }
  /// Reports `what` unconditionally (something unexpected, not an outage).
  void report(std::string_view what) {
    std::lock_guard g(mutex_);
    say(component_ + ": " + std::string(what));
  }

 private:
  void say(const std::string& text) {
    if (!callback_) return;
    try {
      callback_(text);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failing log must not stop the store
    }
  }

  store_trouble_callback callback_;
  const std::string component_;
  std::mutex mutex_;
  bool failing_ = false;
};

}  // namespace mcpcxx::detail

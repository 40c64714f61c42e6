// detail::guarded_callback: a callback that can be closed while another thread may be calling
// it. After close() returns the callback never runs again and has been destroyed, except when
// close() is called from inside the callback itself (it then finishes that run).
// Thread-safety: call() and close() may be called from any thread at once; concurrent calls of
// one callback run one after the other (their order is the order they took the lock).
#pragma once

#include <atomic>
#include <mutex>
#include <utility>

namespace mcpcxx::detail {

/// A closable callback of type `Fn` (a std::function).
template <class Fn>
class guarded_callback {
 public:
  explicit guarded_callback(Fn fn) : fn_(std::move(fn)) {}

  /// Runs the callback with `args`; false (nothing ran) once closed.
  template <class... Args>
  bool call(Args&&... args) {
    return visit([&](Fn& fn) { fn(std::forward<Args>(args)...); });
  }

  /// Runs `v(callback)` under the same guard as call(); false (nothing ran) once closed.
  template <class Visit>
  bool visit(Visit&& v) {
    std::lock_guard g(running_);
    if (!open_.load(std::memory_order_acquire)) return false;
    ++depth_;
    const running_call leave{*this};
    std::forward<Visit>(v)(fn_);
    return true;
  }

  /// Stops further calls, waits for a call running on another thread, destroys the callback
  /// (from inside the callback: when that call returns).
  void close() {
    open_.store(false, std::memory_order_release);
    std::lock_guard g(running_);  // recursive: a close from inside the callback passes
    if (depth_ == 0) fn_ = nullptr;
  }

  /// False once close() started.
  bool open() const noexcept { return open_.load(std::memory_order_acquire); }

 private:
  // Leaves a call: the outermost one destroys a callback closed while it ran.
  struct running_call {
    explicit running_call(guarded_callback& s) : self(s) {}
    guarded_callback& self;
    running_call(const running_call&) = delete;
    running_call& operator=(const running_call&) = delete;
    ~running_call() {
      if (--self.depth_ == 0 && !self.open_.load(std::memory_order_acquire)) self.fn_ = nullptr;
    }
  };

  Fn fn_;
  int depth_ = 0;  ///< calls running now (nested ones on the running thread); under running_
  std::atomic<bool> open_{true};
  std::recursive_mutex running_;
};

}  // namespace mcpcxx::detail

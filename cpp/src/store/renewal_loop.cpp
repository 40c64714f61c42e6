// The lease-renewal thread of the Redis stores (renewal_loop.hpp).
#include "store/renewal_loop.hpp"

#include <exception>
#include <utility>

namespace mcpcxx::detail {

renewal_loop::renewal_loop(std::chrono::milliseconds period, std::function<void()> tick)
    : period_(period), tick_(std::move(tick)), thread_([this] { run(); }) {}

renewal_loop::~renewal_loop() { stop(); }

void renewal_loop::stop() {
  {
    std::lock_guard g(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void renewal_loop::run() {
  std::unique_lock g(mutex_);
  while (!stopping_) {
    wake_.wait_for(g, period_, [this] { return stopping_; });
    if (stopping_) return;
    g.unlock();
    try {
      tick_();
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): the owner reports it
    }
    g.lock();
  }
}

}  // namespace mcpcxx::detail

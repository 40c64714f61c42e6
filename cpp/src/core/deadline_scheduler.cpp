// Implementation of the deadline scheduler.
#include "core/deadline_scheduler.hpp"

#include "core/worker_pool.hpp"

namespace mcpcxx::detail {

deadline_scheduler::deadline_scheduler()
    : thread_([this] {
        block_stop_signals();
        run();
      }) {}

deadline_scheduler::~deadline_scheduler() { stop(); }

void deadline_scheduler::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  decltype(pending_) dropped;
  {
    std::lock_guard lock(mutex_);
    dropped.swap(pending_);
  }
}

std::uint64_t deadline_scheduler::schedule(clock::time_point when, std::function<void()> fn) {
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    id = next_++;
    pending_.emplace(when, std::make_pair(id, std::move(fn)));
  }
  cv_.notify_all();
  return id;
}

void deadline_scheduler::cancel(std::uint64_t handle) {
  std::lock_guard lock(mutex_);
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->second.first == handle) {
      pending_.erase(it);
      return;
    }
  }
}

void deadline_scheduler::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (pending_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = pending_.begin();
    if (clock::now() < first->first) {
      // A copy: cancel() may erase this node while we wait, and wait_until reads the time again.
      const auto due = first->first;
      cv_.wait_until(lock, due);
      continue;
    }
    auto fn = std::move(first->second.second);
    pending_.erase(first);
    lock.unlock();
    try {
      fn();
    } catch (...) {  // a failing timeout callback must not stop other deadlines
    }
    fn = nullptr;  // release what the callback captured before retaking the lock
    lock.lock();
  }
}

}  // namespace mcpcxx::detail

// Implementation of the worker pool.
#include "engine/worker_pool.hpp"

namespace mcpcxx::detail {

worker_pool::worker_pool(std::size_t threads) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

worker_pool::~worker_pool() { stop(); }

void worker_pool::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void worker_pool::post(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      jobs_.push_back(std::move(job));
      cv_.notify_one();
      return;
    }
  }
  try {
    job();
  } catch (...) {  // same contract as on a worker
  }
}

void worker_pool::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    try {
      job();
    } catch (...) {  // jobs report their own errors; a stray throw must not kill the worker
    }
  }
}

}  // namespace mcpcxx::detail

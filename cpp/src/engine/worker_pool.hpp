// A fixed pool of worker threads running request handlers.
// Thread-safety: post() may be called from any thread; jobs run concurrently on the workers.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mcpcxx::detail {

/// Runs posted jobs on N threads; the destructor drains queued jobs and joins.
class worker_pool {
 public:
  explicit worker_pool(std::size_t threads);
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Queues `job`; a job must not throw (exceptions are swallowed to keep workers alive).
  /// After stop(), jobs run inline on the caller so no request is ever silently dropped.
  void post(std::function<void()> job);
  /// Drains queued jobs and joins the workers; idempotent. Must not be called from a worker.
  void stop();

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mcpcxx::detail

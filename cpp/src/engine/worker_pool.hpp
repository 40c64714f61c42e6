// A pool of worker threads running request handlers, with replacement of stuck workers.
// A handler whose deadline passed while it still runs is "stuck": release_stuck() takes its
// worker out of the pool's count and starts a replacement, so hung handlers never starve the
// others. At most `max_stuck` replacements exist at once; past that bound the pool shrinks
// instead of growing (the stuck count still says so). A replaced worker exits when its handler
// finally returns; one that was not replaced rejoins the pool.
// Thread-safety: post(), release_stuck(), stuck() may be called from any thread; jobs run
// concurrently on the workers; stop() from any thread but a worker.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace mcpcxx::detail {

/// Blocks SIGINT and SIGTERM on the calling thread. Every engine thread (workers, deadlines)
/// calls it first, so a stop signal reaches the thread the transport waits on (sigwait, or the
/// stdio self-pipe handler) and never a handler thread that would take the default action.
void block_stop_signals() noexcept;

/// Runs posted jobs on N threads; the destructor drains queued jobs and joins.
class worker_pool {
 public:
  /// `threads` workers (at least 1); at most `max_stuck` replacement workers at once.
  worker_pool(std::size_t threads, std::size_t max_stuck);
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Queues `job`; a job must not throw (exceptions are swallowed to keep workers alive).
  /// After stop(), jobs run inline on the caller so no request is ever silently dropped.
  void post(std::function<void()> job);
  /// The id of the job running on the calling thread; 0 when not called from a pool job.
  static std::uint64_t current_job() noexcept;
  /// What release_stuck() did.
  enum class release { not_running, replaced, over_bound };
  /// Declares job `job` stuck (its deadline passed); see the file comment. not_running when the
  /// job already returned (or is unknown); over_bound when `max_stuck` replacements already run.
  release release_stuck(std::uint64_t job);
  /// Number of jobs currently declared stuck whose handler has not returned yet.
  std::size_t stuck() const;
  /// Drains queued jobs and joins every worker, stuck ones included (a handler that never
  /// returns blocks here); idempotent. Must not be called from a worker.
  void stop();

 private:
  struct worker {
    std::thread thread;
    std::uint64_t job = 0;  ///< running job id, 0 when idle
    bool stuck = false;
    bool replaced = false;
    bool exited = false;
  };
  void spawn();  // under mutex_
  void run(worker& self);
  /// Runs one job; returns false when this worker was replaced and must exit.
  bool finish_job(worker& self);
  void reap();

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::size_t max_stuck_;
  std::size_t stuck_ = 0;
  std::size_t replacements_ = 0;  ///< replaced workers whose handler still runs
  std::uint64_t next_job_ = 1;
  std::list<worker> workers_;  // stable addresses: each thread holds its own record
};

}  // namespace mcpcxx::detail

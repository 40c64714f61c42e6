// A pool of worker threads running request handlers, with replacement of stuck workers.
// A handler whose deadline passed while it still runs is "stuck": release_stuck() takes its
// worker out of the pool's count and starts a replacement, so hung handlers never starve the
// others. At most `max_stuck` replacements exist at once; past that bound the pool shrinks
// instead of growing (the stuck count still says so). A replaced worker exits when its handler
// finally returns; one that was not replaced rejoins the pool.
// Stopping is bounded: stop(grace) waits at most `grace` for the workers to finish; a worker whose
// handler still runs then is detached, not joined. The pool's state (queue, worker records) is
// shared with every worker thread, so a detached thread keeps it alive and exits cleanly when its
// handler returns, after the pool object is gone; what the handler itself uses is kept alive by
// what its job captured (the exchange owns its session, the session owns the engine).
// The hand-off: the last worker to go idle (nothing queued, nothing running) looks for the next
// job for about 0.1-0.2 ms (yielding its CPU every 64 pauses, so that a thread woken there is not
// held up) before it sleeps on the condition variable, and post() wakes a sleeper
// only when more jobs wait than workers look; a call that follows its predecessor's reply then
// costs no futex wake-up. Other idle workers sleep at once.
// Thread-safety: post(), release_stuck(), stuck() may be called from any thread; jobs run
// concurrently on the workers; stop() from any thread (from a worker only once the pool is
// already stopped: a worker never joins or waits for itself).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace mcpcxx::detail {

/// Blocks SIGINT and SIGTERM on the calling thread. Every engine thread (workers, deadlines)
/// calls it first, so a stop signal reaches the thread the transport waits on (sigwait, or the
/// stdio self-pipe handler) and never a handler thread that would take the default action.
void block_stop_signals() noexcept;

/// Runs posted jobs on N threads; the destructor stops it (waiting without bound if stop() with
/// a grace was not called first).
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

  /// What stop() left behind.
  struct stop_report {
    std::size_t detached = 0;  ///< workers whose handler still ran after the grace
    std::size_t dropped = 0;   ///< queued jobs no worker was free to start within the grace
  };
  /// Lets the workers run the queued jobs and waits up to `grace` (milliseconds::max(): without
  /// bound) for every worker to finish, joining them; then detaches the workers still running a
  /// handler and drops the jobs still queued. Idempotent: later calls return an empty report.
  stop_report stop(std::chrono::milliseconds grace = std::chrono::milliseconds::max());

 private:
  struct worker {
    std::thread thread;
    std::uint64_t job = 0;  ///< running job id, 0 when idle
    bool stuck = false;
    bool replaced = false;
    bool exited = false;  ///< set under the lock as the thread's last act
  };
  /// Everything the worker threads touch; shared with them so a detached one outlives the pool.
  struct core {
    mutable std::mutex mutex;
    std::condition_variable cv;       ///< a job was queued, or stopping
    std::condition_variable exit_cv;  ///< a worker exited
    std::deque<std::function<void()>> jobs;
    std::atomic<std::size_t> queued{0};  ///< jobs.size(), readable without the lock
    std::size_t spinning = 0;            ///< workers looking for a job without sleeping
    std::size_t sleeping = 0;            ///< workers waiting on cv
    std::size_t busy = 0;                ///< workers running a job
    bool stopping = false;
    std::size_t max_stuck = 0;
    std::size_t stuck = 0;
    std::size_t replacements = 0;  ///< replaced workers whose handler still runs
    std::uint64_t next_job = 1;
    std::list<worker> workers;  // stable addresses: each thread holds its own record
  };
  static void spawn(const std::shared_ptr<core>& c);  // under c->mutex
  static void run(core& c, worker& self);
  /// Runs one job; returns false when this worker was replaced and must exit.
  static bool finish_job(core& c, worker& self);
  void reap();

  std::shared_ptr<core> core_;
};

}  // namespace mcpcxx::detail

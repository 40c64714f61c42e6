// A pool of worker threads running request handlers. It keeps `threads` workers (the base) and
// grows on demand up to `max_threads` when the handlers wait instead of computing, so tools that
// sleep, call an HTTP API or wait on a database are not limited to the core count.
//
// Growth (the supervisor thread): while jobs are queued and no worker is idle, the supervisor
// looks every `stall` (2 ms). If no job finished in that time, every worker is waiting on
// something, so it starts one worker per queued job (within the bound). If jobs do finish but
// workers that have run one job for longer than `slow` (10 ms) leave fewer than `threads`
// workers taking new jobs, it starts enough to make up the base again. Quick handlers therefore
// never grow the pool (they finish jobs in every period), and a handler that blocks for ever
// delays the others by at most about `stall`. A grown worker that stays idle for `idle_retire`
// (10 s) exits; the base workers never do.
// Long jobs: a job running for longer than `long_after` is reported once through `on_long` (the
// engine logs it with the job's label, the tool name) and counted by long_running().
// Stuck jobs (the deadline passed while the handler still runs): release_stuck() takes the worker
// out of the count and starts a replacement; at most `max_stuck` replacements at once; past that
// bound the pool shrinks instead of growing (the stuck count still says so). A replaced worker
// exits when its handler finally returns; one that was not replaced rejoins the pool.
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
// Thread-safety: post(), release_stuck(), stuck(), threads() and long_running() may be called from
// any thread; jobs run concurrently on the workers; `on_long` runs on the supervisor thread;
// stop() from any thread (from a worker only once the pool is already stopped: a worker never
// joins or waits for itself).
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
#include <string>
#include <thread>

namespace mcpcxx::detail {

/// Blocks SIGINT and SIGTERM on the calling thread. Every engine thread (workers, deadlines)
/// calls it first, so a stop signal reaches the thread the transport waits on (sigwait, or the
/// stdio self-pipe handler) and never a handler thread that would take the default action.
void block_stop_signals() noexcept;

/// How a worker pool sizes itself (see the file comment).
struct pool_limits {
  std::size_t threads = 2;       ///< base workers, always kept (at least 1)
  std::size_t max_threads = 64;  ///< bound of healthy workers, growth included (>= threads)
  std::size_t max_stuck = 16;    ///< replacement workers for stuck jobs at once
  std::chrono::milliseconds stall{2};
  std::chrono::milliseconds slow{10};
  std::chrono::milliseconds idle_retire{10000};
  std::chrono::milliseconds long_after{30000};
  /// Called once per job that runs longer than long_after: (label, how long so far).
  std::function<void(const std::string& label, std::chrono::milliseconds running)> on_long;
};

/// Runs posted jobs on a growing set of threads; the destructor stops it (waiting without bound
/// if stop() with a grace was not called first).
class worker_pool {
 public:
  /// Starts limits.threads workers and the supervisor.
  explicit worker_pool(pool_limits limits);
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Queues `job`, named `label` in long-job reports; a job must not throw (exceptions are
  /// swallowed to keep workers alive). After stop(), jobs run inline on the caller so no request
  /// is ever silently dropped.
  void post(std::function<void()> job, std::string label = {});
  /// The id of the job running on the calling thread; 0 when not called from a pool job.
  static std::uint64_t current_job() noexcept;
  /// What release_stuck() did.
  enum class release { not_running, replaced, over_bound };
  /// Declares job `job` stuck (its deadline passed); see the file comment. not_running when the
  /// job already returned (or is unknown); over_bound when `max_stuck` replacements already run.
  release release_stuck(std::uint64_t job);
  /// Number of jobs currently declared stuck whose handler has not returned yet.
  std::size_t stuck() const;
  /// Number of jobs running longer than limits.long_after now.
  std::size_t long_running() const;
  /// Number of worker threads alive now (base, grown and stuck ones).
  std::size_t threads() const;

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
  using clock = std::chrono::steady_clock;
  struct job_entry {
    std::function<void()> fn;
    std::string label;
  };
  struct worker {
    std::thread thread;
    std::uint64_t job = 0;  ///< running job id, 0 when idle
    std::string label;      ///< the running job's label
    clock::time_point started;
    bool long_reported = false;
    bool stuck = false;
    bool replaced = false;
    bool base = false;    ///< one of the limits.threads workers, never retired
    bool fresh = true;    ///< has not looked for a job yet (counted in core::starting)
    bool exited = false;  ///< set under the lock as the thread's last act
  };
  /// Everything the worker threads touch; shared with them so a detached one outlives the pool.
  struct core {
    mutable std::mutex mutex;
    std::condition_variable cv;        ///< a job was queued, or stopping
    std::condition_variable exit_cv;   ///< a worker exited
    std::condition_variable super_cv;  ///< wakes the supervisor
    std::deque<job_entry> jobs;
    std::atomic<std::size_t> queued{0};  ///< jobs.size(), readable without the lock
    std::size_t spinning = 0;            ///< workers looking for a job without sleeping
    std::size_t sleeping = 0;            ///< workers waiting on cv
    std::size_t busy = 0;                ///< workers running a job
    std::size_t live = 0;                ///< workers not exited
    std::size_t starting = 0;            ///< workers spawned that have not looked for a job yet
    std::uint64_t completed = 0;         ///< jobs finished since start
    bool supervisor_parked = false;      ///< the supervisor waits without a timeout
    bool stopping = false;
    pool_limits limits;
    std::size_t stuck = 0;
    std::size_t long_running = 0;
    std::size_t replacements = 0;  ///< replaced workers whose handler still runs
    std::uint64_t next_job = 1;
    std::list<worker> workers;  // stable addresses: each thread holds its own record
  };
  static void spawn(const std::shared_ptr<core>& c, bool base);  // under c->mutex
  static void run(core& c, worker& self);
  /// Waits for a job; false when this worker must exit (stopping, or retired).
  static bool next_job(core& c, worker& self, std::unique_lock<std::mutex>& lock, job_entry& job);
  /// Runs one job; returns false when this worker was replaced and must exit.
  static bool finish_job(core& c, worker& self);
  static void supervise(const std::shared_ptr<core>& c);
  static void grow_if_starved(const std::shared_ptr<core>& c, std::uint64_t completed_before);
  static void report_long_jobs(core& c, std::unique_lock<std::mutex>& lock);
  static void join_exited(core& c, std::unique_lock<std::mutex>& lock);

  std::shared_ptr<core> core_;
  std::thread supervisor_;
};

}  // namespace mcpcxx::detail

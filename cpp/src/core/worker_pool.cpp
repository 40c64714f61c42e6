// Implementation of the worker pool.
#include "core/worker_pool.hpp"

#include <algorithm>
#include <csignal>
#include <cxxabi.h>
#include <pthread.h>
#include <system_error>
#include <utility>
#include <vector>

#include "core/cpu_relax.hpp"

namespace mcpcxx::detail {

namespace {
thread_local std::uint64_t t_current_job = 0;

// How long an idle worker looks for the next job before it sleeps: about 0.1-0.2 ms here.
constexpr int k_spin_rounds = 4000;
constexpr int k_rounds_per_yield = 64;
// How often the supervisor looks at long jobs and retired workers when nothing is starved.
constexpr std::chrono::seconds k_idle_look{1};

// Looks for a queued job for about k_spin_rounds pauses, without the pool's lock.
void spin_until_queued(const std::atomic<std::size_t>& queued) {
  for (int i = 0; i < k_spin_rounds && queued.load(std::memory_order_acquire) == 0; ++i) {
    // Yielding now and then lets a thread woken on this CPU (the I/O thread, or a client on
    // the same machine) run at once instead of waiting for the spin to end.
    if (i % k_rounds_per_yield == k_rounds_per_yield - 1) std::this_thread::yield();
    cpu_relax();
  }
}

}  // namespace

void block_stop_signals() noexcept {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

worker_pool::worker_pool(pool_limits limits) : core_(std::make_shared<core>()) {
  limits.threads = std::max<std::size_t>(1, limits.threads);
  limits.max_threads = std::max(limits.max_threads, limits.threads);
  std::lock_guard lock(core_->mutex);
  core_->limits = std::move(limits);
  for (std::size_t i = 0; i < core_->limits.threads; ++i) spawn(core_, true);
  supervisor_ = std::thread([c = core_] {
    block_stop_signals();
    supervise(c);
  });
}

worker_pool::~worker_pool() { stop(); }

void worker_pool::spawn(const std::shared_ptr<core>& c, bool base) {
  worker& w = c->workers.emplace_back();
  w.base = base;
  // The thread owns a reference to the core: if it is detached by stop(), the queue and its own
  // record outlive the pool until its handler returns.
  try {
    w.thread = std::thread([c, &w] {
      block_stop_signals();
      run(*c, w);
    });
  } catch (const std::system_error&) {
    c->workers.pop_back();  // out of threads: the pool stays as it is and tries again later
    return;
  }
  ++c->live;
  ++c->starting;
}

worker_pool::stop_report worker_pool::stop(std::chrono::milliseconds grace) {
  core& c = *core_;
  std::unique_lock lock(c.mutex);
  if (c.stopping) return {};
  c.stopping = true;
  c.cv.notify_all();
  c.super_cv.notify_all();
  lock.unlock();
  if (supervisor_.joinable()) supervisor_.join();  // it never runs a job: it ends at once
  lock.lock();
  auto all_exited = [&c] {
    return std::all_of(c.workers.begin(), c.workers.end(),
                       [](const worker& w) { return w.exited; });
  };
  if (grace == std::chrono::milliseconds::max()) {
    c.exit_cv.wait(lock, all_exited);
  } else {
    c.exit_cv.wait_for(lock, grace, all_exited);
  }
  stop_report report;
  std::deque<job_entry> dropped;
  dropped.swap(c.jobs);  // every worker was busy past the grace: nobody will start these
  report.dropped = dropped.size();
  std::list<worker> exited;
  for (auto it = c.workers.begin(); it != c.workers.end();) {
    auto next = std::next(it);
    if (it->exited) {
      exited.splice(exited.end(), c.workers, it);
    } else {
      it->thread.detach();  // its record stays in the shared core until the thread ends
      ++report.detached;
    }
    it = next;
  }
  lock.unlock();
  for (auto& w : exited) w.thread.join();
  dropped.clear();  // outside the lock: a job's captures may post (inline after stop)
  return report;
}

void worker_pool::post(std::function<void()> job, std::string label) {
  {
    std::lock_guard lock(core_->mutex);
    core& c = *core_;
    if (!c.stopping) {
      c.jobs.push_back({std::move(job), std::move(label)});
      c.queued.store(c.jobs.size(), std::memory_order_release);
      if (c.jobs.size() > c.spinning && c.sleeping > 0) {
        c.cv.notify_one();
      } else if (c.sleeping + c.spinning == 0 && c.supervisor_parked) {
        c.super_cv.notify_one();  // every worker is busy: the supervisor decides whether to grow
      }
      return;
    }
  }
  try {
    job();
  } catch (abi::__forced_unwind&) {
    throw;  // a cancelled thread (pthread_exit at interpreter exit) must unwind, never be swallowed
  } catch (...) {  // same contract as on a worker
  }
}

std::uint64_t worker_pool::current_job() noexcept { return t_current_job; }

worker_pool::release worker_pool::release_stuck(std::uint64_t job) {
  release result = release::not_running;
  std::lock_guard lock(core_->mutex);
  for (auto& w : core_->workers) {
    if (w.job != job || job == 0 || w.stuck) continue;
    w.stuck = true;
    ++core_->stuck;
    result = release::over_bound;
    if (!core_->stopping && core_->replacements < core_->limits.max_stuck) {
      w.replaced = true;
      ++core_->replacements;
      spawn(core_, w.base);
      result = release::replaced;
    }
    break;
  }
  return result;
}

std::size_t worker_pool::stuck() const {
  std::lock_guard lock(core_->mutex);
  return core_->stuck;
}

std::size_t worker_pool::long_running() const {
  std::lock_guard lock(core_->mutex);
  const auto now = clock::now();
  return static_cast<std::size_t>(std::count_if(
      core_->workers.begin(), core_->workers.end(),
      [&](const worker& w) { return w.job != 0 && now - w.started >= core_->limits.long_after; }));
}

std::size_t worker_pool::threads() const {
  std::lock_guard lock(core_->mutex);
  return core_->live;
}

void worker_pool::run(core& c, worker& self) {
  for (;;) {
    job_entry job;
    {
      std::unique_lock lock(c.mutex);
      if (self.fresh) {
        self.fresh = false;
        --c.starting;
      }
      if (!next_job(c, self, lock, job)) {
        self.exited = true;  // stop() or the supervisor joins this thread
        --c.live;
        c.exit_cv.notify_all();
        return;
      }
    }
    t_current_job = self.job;
    try {
      job.fn();
    } catch (abi::__forced_unwind&) {
      throw;         // a cancelled thread (pthread_exit at interpreter exit) must unwind, never be
                     // swallowed
    } catch (...) {  // jobs report their own errors; a stray throw must not kill the worker
    }
    job.fn = nullptr;  // release what the job captured before the worker may exit
    t_current_job = 0;
    if (!finish_job(c, self)) return;
  }
}

bool worker_pool::next_job(core& c, worker& self, std::unique_lock<std::mutex>& lock,
                           job_entry& job) {
  // The last worker to go idle looks for work a little before sleeping: a request that follows
  // its predecessor's reply (one call at a time, the common case of one client) then costs no
  // wake-up. With other jobs still running (requests in flight) it sleeps at once, leaving the
  // CPU to them.
  if (c.jobs.empty() && !c.stopping && c.spinning == 0 && c.busy == 0) {
    ++c.spinning;
    lock.unlock();
    spin_until_queued(c.queued);
    lock.lock();
    --c.spinning;
  }
  ++c.sleeping;
  const auto ready = [&c] { return c.stopping || !c.jobs.empty(); };
  if (self.base) {
    c.cv.wait(lock, ready);
  } else {
    c.cv.wait_for(lock, c.limits.idle_retire, ready);  // a grown worker retires when idle
  }
  --c.sleeping;
  if (c.jobs.empty()) return false;
  job = std::move(c.jobs.front());
  c.jobs.pop_front();
  c.queued.store(c.jobs.size(), std::memory_order_release);
  if (!c.jobs.empty() && c.sleeping + c.spinning == 0 && c.supervisor_parked) {
    c.super_cv.notify_one();  // the last idle worker took a job and others still wait
  }
  ++c.busy;
  self.job = c.next_job++;
  self.label = std::move(job.label);
  self.started = clock::now();
  self.long_reported = false;
  return true;
}

bool worker_pool::finish_job(core& c, worker& self) {
  std::lock_guard lock(c.mutex);
  self.job = 0;
  ++c.completed;
  --c.busy;
  if (!self.stuck) return true;
  self.stuck = false;
  --c.stuck;
  if (!self.replaced) return true;
  --c.replacements;
  --c.live;
  self.exited = true;  // the supervisor or stop() joins this thread
  c.exit_cv.notify_all();
  return false;
}

void worker_pool::supervise(const std::shared_ptr<core>& c) {
  std::unique_lock lock(c->mutex);
  while (!c->stopping) {
    const bool starved = !c->jobs.empty() && c->sleeping + c->spinning + c->starting == 0;
    const std::uint64_t completed_before = c->completed;
    if (starved) {
      c->super_cv.wait_for(lock, c->limits.stall);
    } else {
      c->supervisor_parked = true;
      c->super_cv.wait_for(lock, k_idle_look);
      c->supervisor_parked = false;
    }
    if (c->stopping) break;
    if (starved) grow_if_starved(c, completed_before);
    report_long_jobs(*c, lock);
    join_exited(*c, lock);
  }
}

void worker_pool::grow_if_starved(const std::shared_ptr<core>& c, std::uint64_t completed_before) {
  core& k = *c;
  if (k.jobs.empty() || k.sleeping + k.spinning + k.starting != 0) return;
  // Stuck workers past max_stuck count against the bound: a tool that always hangs must not
  // grow threads without limit (replacements are the only threads beyond it).
  const std::size_t budget = k.limits.max_threads + k.replacements;
  if (k.live >= budget) return;
  const std::size_t healthy = k.live - std::min(k.live, k.stuck);
  std::size_t want = 0;
  if (k.completed == completed_before) {
    want = k.jobs.size();  // nothing finished for a whole period: every worker waits
  } else {
    const auto now = clock::now();
    const auto slow = static_cast<std::size_t>(
        std::count_if(k.workers.begin(), k.workers.end(), [&](const worker& w) {
          return w.job != 0 && !w.stuck && now - w.started > k.limits.slow;
        }));
    const std::size_t taking = healthy - std::min(healthy, slow);
    if (taking < k.limits.threads) want = std::min(k.jobs.size(), k.limits.threads - taking);
  }
  want = std::min(want, budget - k.live);
  for (std::size_t i = 0; i < want; ++i) spawn(c, false);
}

void worker_pool::report_long_jobs(core& c, std::unique_lock<std::mutex>& lock) {
  if (!c.limits.on_long) return;
  const auto now = clock::now();
  std::vector<std::pair<std::string, std::chrono::milliseconds>> due;
  for (auto& w : c.workers) {
    if (w.job == 0 || w.long_reported || now - w.started < c.limits.long_after) continue;
    w.long_reported = true;
    due.emplace_back(w.label,
                     std::chrono::duration_cast<std::chrono::milliseconds>(now - w.started));
  }
  if (due.empty()) return;
  lock.unlock();  // the callback logs: never under the pool's lock
  for (const auto& [label, ran] : due) c.limits.on_long(label, ran);
  lock.lock();
}

void worker_pool::join_exited(core& c, std::unique_lock<std::mutex>& lock) {
  std::list<worker> done;
  for (auto it = c.workers.begin(); it != c.workers.end();) {
    auto next = std::next(it);
    if (it->exited) done.splice(done.end(), c.workers, it);
    it = next;
  }
  if (done.empty()) return;
  lock.unlock();
  for (auto& w : done) w.thread.join();  // it set exited as its last act under the lock
  lock.lock();
}

}  // namespace mcpcxx::detail

// Implementation of the worker pool.
#include "engine/worker_pool.hpp"

#include <csignal>
#include <cxxabi.h>
#include <pthread.h>

#include "engine/cpu_relax.hpp"

namespace mcpcxx::detail {

namespace {
thread_local std::uint64_t t_current_job = 0;

// How long an idle worker looks for the next job before it sleeps: about 0.1-0.2 ms here.
constexpr int k_spin_rounds = 4000;
constexpr int k_rounds_per_yield = 64;

}  // namespace

void block_stop_signals() noexcept {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

worker_pool::worker_pool(std::size_t threads, std::size_t max_stuck)
    : core_(std::make_shared<core>()) {
  if (threads == 0) threads = 1;
  std::lock_guard lock(core_->mutex);
  core_->max_stuck = max_stuck;
  for (std::size_t i = 0; i < threads; ++i) spawn(core_);
}

worker_pool::~worker_pool() { stop(); }

void worker_pool::spawn(const std::shared_ptr<core>& c) {
  worker& w = c->workers.emplace_back();
  // The thread owns a reference to the core: if it is detached by stop(), the queue and its own
  // record outlive the pool until its handler returns.
  w.thread = std::thread([c, &w] {
    block_stop_signals();
    run(*c, w);
  });
}

worker_pool::stop_report worker_pool::stop(std::chrono::milliseconds grace) {
  core& c = *core_;
  std::unique_lock lock(c.mutex);
  if (c.stopping) return {};
  c.stopping = true;
  c.cv.notify_all();
  auto all_exited = [&c] {
    for (const auto& w : c.workers) {
      if (!w.exited) return false;
    }
    return true;
  };
  if (grace == std::chrono::milliseconds::max()) {
    c.exit_cv.wait(lock, all_exited);
  } else {
    c.exit_cv.wait_for(lock, grace, all_exited);
  }
  stop_report report;
  std::deque<std::function<void()>> dropped;
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

void worker_pool::post(std::function<void()> job) {
  {
    std::lock_guard lock(core_->mutex);
    if (!core_->stopping) {
      core_->jobs.push_back(std::move(job));
      core_->queued.store(core_->jobs.size(), std::memory_order_release);
      if (core_->jobs.size() > core_->spinning && core_->sleeping > 0) core_->cv.notify_one();
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
  {
    std::lock_guard lock(core_->mutex);
    for (auto& w : core_->workers) {
      if (w.job != job || job == 0 || w.stuck) continue;
      w.stuck = true;
      ++core_->stuck;
      result = release::over_bound;
      if (!core_->stopping && core_->replacements < core_->max_stuck) {
        w.replaced = true;
        ++core_->replacements;
        spawn(core_);
        result = release::replaced;
      }
      break;
    }
  }
  reap();
  return result;
}

std::size_t worker_pool::stuck() const {
  std::lock_guard lock(core_->mutex);
  return core_->stuck;
}

void worker_pool::reap() {
  std::list<worker> done;
  {
    std::lock_guard lock(core_->mutex);
    if (core_->stopping) return;  // stop() joins or detaches every worker itself
    for (auto it = core_->workers.begin(); it != core_->workers.end();) {
      auto next = std::next(it);
      if (it->exited) done.splice(done.end(), core_->workers, it);
      it = next;
    }
  }
  for (auto& w : done) w.thread.join();  // it set exited as its last act under the lock
}

void worker_pool::run(core& c, worker& self) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(c.mutex);
      // The last worker to go idle looks for work a little before sleeping: a request that
      // follows its predecessor's reply (one call at a time, the common case of one client)
      // then costs no wake-up. With other jobs still running (requests in flight) it sleeps at
      // once, leaving the CPU to them.
      if (c.jobs.empty() && !c.stopping && c.spinning == 0 && c.busy == 0) {
        ++c.spinning;
        lock.unlock();
        for (int i = 0; i < k_spin_rounds && c.queued.load(std::memory_order_acquire) == 0; ++i) {
          // Yielding now and then lets a thread woken on this CPU (the I/O thread, or a client
          // on the same machine) run at once instead of waiting for the spin to end.
          if (i % k_rounds_per_yield == k_rounds_per_yield - 1) std::this_thread::yield();
          cpu_relax();
        }
        lock.lock();
        --c.spinning;
      }
      ++c.sleeping;
      c.cv.wait(lock, [&c] { return c.stopping || !c.jobs.empty(); });
      --c.sleeping;
      if (c.jobs.empty()) {
        self.exited = true;
        c.exit_cv.notify_all();
        return;
      }
      job = std::move(c.jobs.front());
      c.jobs.pop_front();
      c.queued.store(c.jobs.size(), std::memory_order_release);
      ++c.busy;
      self.job = c.next_job++;
    }
    t_current_job = self.job;
    try {
      job();
    } catch (abi::__forced_unwind&) {
      throw;         // a cancelled thread (pthread_exit at interpreter exit) must unwind, never be
                     // swallowed
    } catch (...) {  // jobs report their own errors; a stray throw must not kill the worker
    }
    job = nullptr;  // release what the job captured before the worker may exit
    t_current_job = 0;
    if (!finish_job(c, self)) return;
  }
}

bool worker_pool::finish_job(core& c, worker& self) {
  std::lock_guard lock(c.mutex);
  self.job = 0;
  --c.busy;
  if (!self.stuck) return true;
  self.stuck = false;
  --c.stuck;
  if (!self.replaced) return true;
  --c.replacements;
  self.exited = true;  // reap() or stop() joins this thread
  c.exit_cv.notify_all();
  return false;
}

}  // namespace mcpcxx::detail

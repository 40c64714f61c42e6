// Implementation of the worker pool.
#include "engine/worker_pool.hpp"

#include <csignal>
#include <pthread.h>

namespace mcpcxx::detail {

namespace {
thread_local std::uint64_t t_current_job = 0;
}  // namespace

void block_stop_signals() noexcept {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

worker_pool::worker_pool(std::size_t threads, std::size_t max_stuck) : max_stuck_(max_stuck) {
  if (threads == 0) threads = 1;
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < threads; ++i) spawn();
}

worker_pool::~worker_pool() { stop(); }

void worker_pool::spawn() {
  worker& w = workers_.emplace_back();
  w.thread = std::thread([this, &w] {
    block_stop_signals();
    run(w);
  });
}

void worker_pool::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (;;) {
    std::list<worker> taken;
    {
      std::lock_guard lock(mutex_);
      if (workers_.empty()) return;
      taken.swap(workers_);
    }
    // Joined outside the lock: a stuck worker finishing its job needs it. No worker is spawned
    // once stopping_ is set, so the loop ends.
    for (auto& w : taken) {
      if (w.thread.joinable()) w.thread.join();
    }
  }
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

std::uint64_t worker_pool::current_job() noexcept { return t_current_job; }

worker_pool::release worker_pool::release_stuck(std::uint64_t job) {
  release result = release::not_running;
  {
    std::lock_guard lock(mutex_);
    for (auto& w : workers_) {
      if (w.job != job || job == 0 || w.stuck) continue;
      w.stuck = true;
      ++stuck_;
      result = release::over_bound;
      if (!stopping_ && replacements_ < max_stuck_) {
        w.replaced = true;
        ++replacements_;
        spawn();
        result = release::replaced;
      }
      break;
    }
  }
  reap();
  return result;
}

std::size_t worker_pool::stuck() const {
  std::lock_guard lock(mutex_);
  return stuck_;
}

void worker_pool::reap() {
  std::list<worker> done;
  {
    std::lock_guard lock(mutex_);
    for (auto it = workers_.begin(); it != workers_.end();) {
      auto next = std::next(it);
      if (it->exited) done.splice(done.end(), workers_, it);
      it = next;
    }
  }
  for (auto& w : done) w.thread.join();  // it set exited as its last act under the lock
}

void worker_pool::run(worker& self) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      self.job = next_job_++;
    }
    t_current_job = self.job;
    try {
      job();
    } catch (...) {  // jobs report their own errors; a stray throw must not kill the worker
    }
    job = nullptr;  // release what the job captured before the worker may exit
    t_current_job = 0;
    if (!finish_job(self)) return;
  }
}

bool worker_pool::finish_job(worker& self) {
  std::lock_guard lock(mutex_);
  self.job = 0;
  if (!self.stuck) return true;
  self.stuck = false;
  --stuck_;
  if (!self.replaced) return true;
  --replacements_;
  self.exited = true;  // reap() or stop() joins this thread
  return false;
}

}  // namespace mcpcxx::detail

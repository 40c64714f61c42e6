// The worker pool's hand-off: an idle worker looks for work briefly before it sleeps, and a post
// wakes a sleeper only when no looking worker will take the job. Every job must still run, with
// posts arriving at any moment of that cycle, from several threads, in bursts and one by one.
#include "core/worker_pool.hpp"

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/wait.hpp"

namespace mcpcxx::detail {
namespace {

using namespace std::chrono_literals;
using mcpcxx::testing::wait_for_count;

TEST(worker_pool_test, every_job_runs_whenever_it_is_posted) {
  for (const std::size_t threads : {1u, 2u, 4u}) {
    worker_pool pool({.threads = threads, .max_threads = threads, .max_stuck = 4});
    std::atomic<int> done{0};
    constexpr int k_posters = 3;
    constexpr int k_jobs = 1500;
    std::vector<std::thread> posters;
    posters.reserve(k_posters);
    for (int p = 0; p < k_posters; ++p) {
      posters.emplace_back([&pool, &done, p] {
        std::mt19937 random(static_cast<unsigned>(p) + 1);
        for (int i = 0; i < k_jobs; ++i) {
          pool.post([&done] { done.fetch_add(1); });
          // Sometimes right away (a burst), sometimes after the workers went idle or to sleep.
          const auto pause = random() % 8;
          if (pause == 0) std::this_thread::sleep_for(std::chrono::microseconds(random() % 400));
          if (pause == 1) std::this_thread::yield();
        }
      });
    }
    for (auto& t : posters) t.join();
    EXPECT_TRUE(wait_for_count(done, k_posters * k_jobs, 30s))
        << threads << " workers ran " << done.load() << " of " << k_posters * k_jobs << " jobs";
    pool.stop();
  }
}

TEST(worker_pool_test, a_job_posted_to_an_idle_pool_runs_after_the_workers_slept) {
  worker_pool pool({.threads = 2, .max_threads = 2, .max_stuck = 4});
  std::atomic<int> done{0};
  for (int i = 1; i <= 5; ++i) {
    std::this_thread::sleep_for(20ms);  // far past the idle look-around: every worker sleeps
    pool.post([&done] { done.fetch_add(1); });
    EXPECT_TRUE(wait_for_count(done, i, 10s)) << "job " << i << " was never run";
  }
}

TEST(worker_pool_test, stop_ends_workers_that_were_looking_for_work) {
  worker_pool pool({.threads = 2, .max_threads = 2, .max_stuck = 4});
  std::atomic<int> done{0};
  pool.post([&done] { done.fetch_add(1); });
  ASSERT_TRUE(wait_for_count(done, 1, 10s));
  const auto report = pool.stop(5s);  // a worker may be mid-look: it must still exit and join
  EXPECT_EQ(report.detached, 0u);
  EXPECT_EQ(report.dropped, 0u);
}

// Counts how many jobs run at once and the most seen.
struct concurrency_meter {
  std::atomic<int> now{0};
  std::atomic<int> most{0};
  void enter() {
    const int n = now.fetch_add(1) + 1;
    int m = most.load();
    while (n > m && !most.compare_exchange_weak(m, n)) {
    }
  }
  void leave() { now.fetch_sub(1); }
};

TEST(worker_pool_test, jobs_that_wait_grow_the_pool_past_its_base_up_to_the_bound) {
  worker_pool pool({.threads = 2, .max_threads = 12, .max_stuck = 0});
  concurrency_meter meter;
  std::atomic<int> done{0};
  for (int i = 0; i < 24; ++i) {
    pool.post([&] {
      meter.enter();
      std::this_thread::sleep_for(150ms);  // waits, as a tool calling an API does
      meter.leave();
      done.fetch_add(1);
    });
  }
  ASSERT_TRUE(wait_for_count(done, 24, 30s));
  EXPECT_EQ(meter.most.load(), 12)
      << "waiting jobs must run on grown workers, never past the bound";
  EXPECT_LE(pool.threads(), 12u);
}

TEST(worker_pool_test, quick_jobs_never_grow_the_pool) {
  // A long stall period: only a job that takes that long without any other finishing may grow
  // the pool, so a loaded test machine cannot grow it by descheduling a worker for a moment.
  worker_pool pool({.threads = 2, .max_threads = 32, .max_stuck = 0, .stall = 500ms});
  std::atomic<int> done{0};
  for (int burst = 0; burst < 50; ++burst) {
    for (int i = 0; i < 100; ++i) pool.post([&done] { done.fetch_add(1); });
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(wait_for_count(done, 5000, 30s));
  EXPECT_EQ(pool.threads(), 2u);
}

TEST(worker_pool_test, a_job_that_never_returns_does_not_hold_up_the_next_one) {
  worker_pool pool({.threads = 1, .max_threads = 4, .max_stuck = 0});
  std::promise<void> gate;
  auto opened = gate.get_future().share();
  std::atomic<int> done{0};
  pool.post([opened] { opened.wait_for(30s); }, "tool forever");
  std::this_thread::sleep_for(20ms);  // the only base worker is inside it now
  const auto posted = std::chrono::steady_clock::now();
  std::atomic<std::int64_t> waited_ms{-1};
  pool.post([&] {
    waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - posted)
                    .count();
    done.fetch_add(1);
  });
  ASSERT_TRUE(wait_for_count(done, 1, 10s)) << "the second job waited for the first to return";
  // A few milliseconds in the ordinary case; the bound is loose for sanitizer builds.
  EXPECT_LT(waited_ms.load(), 2000);
  gate.set_value();
}

TEST(worker_pool_test, grown_workers_retire_when_idle_and_the_base_stays) {
  worker_pool pool({.threads = 1, .max_threads = 8, .max_stuck = 0, .idle_retire = 100ms});
  std::atomic<int> done{0};
  for (int i = 0; i < 6; ++i) {
    pool.post([&done] {
      std::this_thread::sleep_for(100ms);
      done.fetch_add(1);
    });
  }
  ASSERT_TRUE(wait_for_count(done, 6, 30s));
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (pool.threads() > 1 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(pool.threads(), 1u);
  pool.post([&done] { done.fetch_add(1); });  // the base worker still serves
  EXPECT_TRUE(wait_for_count(done, 7, 10s));
}

TEST(worker_pool_test, a_long_job_is_reported_once_with_its_label_and_counted) {
  std::mutex m;
  std::vector<std::string> reported;
  pool_limits limits{.threads = 1, .max_threads = 2, .max_stuck = 0, .long_after = 50ms};
  limits.on_long = [&](const std::string& label, std::chrono::milliseconds ran) {
    std::lock_guard lock(m);
    reported.push_back(label + " " + (ran >= 50ms ? "late" : "early"));
  };
  worker_pool pool(std::move(limits));
  std::promise<void> gate;
  auto opened = gate.get_future().share();
  pool.post([opened] { opened.wait_for(30s); }, "tool slow");
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (pool.long_running() == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(pool.long_running(), 1u);
  std::this_thread::sleep_for(2500ms);  // two more supervisor looks: still one report
  gate.set_value();
  pool.stop(5s);
  std::lock_guard lock(m);
  EXPECT_EQ(reported, std::vector<std::string>{"tool slow late"});
}

}  // namespace
}  // namespace mcpcxx::detail

// The worker pool's hand-off: an idle worker looks for work briefly before it sleeps, and a post
// wakes a sleeper only when no looking worker will take the job. Every job must still run, with
// posts arriving at any moment of that cycle, from several threads, in bursts and one by one.
#include "engine/worker_pool.hpp"

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace mcpcxx::detail {
namespace {

using namespace std::chrono_literals;

bool wait_until(const std::atomic<int>& done, int expected, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (done.load() != expected && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(1ms);
  }
  return done.load() == expected;
}

TEST(worker_pool_test, every_job_runs_whenever_it_is_posted) {
  for (const std::size_t threads : {1u, 2u, 4u}) {
    worker_pool pool(threads, 4);
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
    EXPECT_TRUE(wait_until(done, k_posters * k_jobs, 30s))
        << threads << " workers ran " << done.load() << " of " << k_posters * k_jobs << " jobs";
    pool.stop();
  }
}

TEST(worker_pool_test, a_job_posted_to_an_idle_pool_runs_after_the_workers_slept) {
  worker_pool pool(2, 4);
  std::atomic<int> done{0};
  for (int i = 1; i <= 5; ++i) {
    std::this_thread::sleep_for(20ms);  // far past the idle look-around: every worker sleeps
    pool.post([&done] { done.fetch_add(1); });
    EXPECT_TRUE(wait_until(done, i, 10s)) << "job " << i << " was never run";
  }
}

TEST(worker_pool_test, stop_ends_workers_that_were_looking_for_work) {
  worker_pool pool(2, 4);
  std::atomic<int> done{0};
  pool.post([&done] { done.fetch_add(1); });
  ASSERT_TRUE(wait_until(done, 1, 10s));
  const auto report = pool.stop(5s);  // a worker may be mid-look: it must still exit and join
  EXPECT_EQ(report.detached, 0u);
  EXPECT_EQ(report.dropped, 0u);
}

}  // namespace
}  // namespace mcpcxx::detail

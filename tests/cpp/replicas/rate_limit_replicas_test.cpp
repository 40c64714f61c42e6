// The built-in rate limit (mcpcxx::rate_limit) on replicas sharing a real Redis: the bucket is
// one for every replica (calls spread over three replicas, racing, take exactly `burst` tokens),
// it refills at its rate, and Redis down refuses the call with P57 before anything runs.
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mcpcxx/mcpcxx.hpp"

#include "redis/redis_server.hpp"
#include "support/collecting_sink.hpp"
#include "support/wait.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* k_rate_state_key = "q9Tt3n3oJ5Q0R0m1f2yYxQ0y8kTqG4sQmV1oZr7b0cA=";

// A replica with `send`, limited to `burst` calls at once refilling at `per_second`.
struct limited_replica {
  std::unique_ptr<server> srv;
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>(0);

  limited_replica(const std::string& url, double burst, double per_second) {
    server_options o = captured_log{}.options();
    o.log_requests = false;
    o.request_state_key = k_rate_state_key;
    o.store.url = url;
    o.store.key_prefix = "rl-test:";
    srv = std::make_unique<server>(o);
    srv->add_tool({.name = "send"}, [n = runs](const json&, request_context&) {
      ++*n;
      return tool_result::text("sent");
    });
    srv->add_middleware(
        rate_limit({.burst = burst, .per_second = per_second, .per = rate_key::tool}));
  }
};

std::string send_call(int id) {
  return json{
      {"jsonrpc", "2.0"},
      {"id", id},
      {"method", "tools/call"},
      {"params", {{"name", "send"}, {"arguments", json::object()}, {"_meta", modern_meta()}}}}
      .dump();
}

bool limited(const json& reply) {
  const json& r = reply["result"];
  return r.value("isError", false) &&
         r["_meta"]["mcpcxx/error"].value("category", "") == "rate_limited";
}

class rate_limit_replicas : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!redis_server::available()) GTEST_FAIL() << "redis-server missing: run scripts/setup.sh";
    redis = std::make_unique<redis_server>();
  }
  std::unique_ptr<redis_server> redis;
};

TEST_F(rate_limit_replicas, racing_calls_on_three_replicas_share_one_bucket) {
  std::array<limited_replica, 3> rs{limited_replica(redis->url(), 7, 0.01),
                                    limited_replica(redis->url(), 7, 0.01),
                                    limited_replica(redis->url(), 7, 0.01)};
  std::atomic<int> ok{0}, refused{0};
  std::vector<std::thread> callers;
  callers.reserve(6);
  for (int t = 0; t < 6; ++t) {
    callers.emplace_back([&, t] {
      harness h(*rs[static_cast<std::size_t>(t % 3)].srv);
      for (int i = 0; i < 5; ++i) {
        const json r = h.roundtrip(send_call(t * 100 + i));
        (limited(r) ? refused : ok)++;
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(ok.load(), 7);
  EXPECT_EQ(refused.load(), 30 - 7);
  EXPECT_EQ(rs[0].runs->load() + rs[1].runs->load() + rs[2].runs->load(), 7);
}

TEST_F(rate_limit_replicas, the_shared_bucket_refills_at_its_rate_and_says_when) {
  limited_replica a(redis->url(), 1, 2), b(redis->url(), 1, 2);
  harness ha(*a.srv), hb(*b.srv);
  EXPECT_FALSE(limited(ha.roundtrip(send_call(1))));
  const json r = hb.roundtrip(send_call(2));
  ASSERT_TRUE(limited(r)) << r;
  EXPECT_EQ(r["result"]["_meta"]["mcpcxx/error"]["retryAfterSeconds"], 1);
  std::this_thread::sleep_for(600ms);
  EXPECT_FALSE(limited(hb.roundtrip(send_call(3))));
}

TEST_F(rate_limit_replicas, with_redis_down_the_call_gets_p57_and_does_not_run) {
  limited_replica a(redis->url(), 5, 1);
  harness ha(*a.srv);
  redis->kill();
  const json r = ha.roundtrip(send_call(1));
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["code"], -32603);
  EXPECT_EQ(r["error"].value("message", "").rfind("Server unavailable", 0), 0U) << r;
  EXPECT_EQ(a.runs->load(), 0);
  redis->restart();
  EXPECT_TRUE(wait_until([&] { return !ha.roundtrip(send_call(2)).contains("error"); }, 10s));
  EXPECT_EQ(a.runs->load(), 1);
}

}  // namespace
}  // namespace mcpcxx::testing

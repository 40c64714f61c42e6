// The built-in response cache (mcpcxx::response_cache) on replicas sharing a real Redis: what one
// replica cached the other serves, a resource update or a list change on one drops the entry for
// all, private entries never cross callers, Redis expires entries, and Redis down makes requests
// run uncached (logged) instead of failing.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "mcpcxx/mcpcxx.hpp"

#include "redis/redis_server.hpp"
#include "support/collecting_sink.hpp"
#include "support/wait.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* k_cache_state_key = "Zr3m8uH0c2QvX1p9yL4kTn6sB7wE5aJdF0gCiKoRqU8=";

// A replica with a counting read-only tool and resource behind a response cache.
struct cached_replica {
  captured_log log;
  std::unique_ptr<server> srv;
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>(0);

  cached_replica(const std::string& url, std::chrono::milliseconds ttl) {
    server_options o = log.options();
    o.log_requests = false;
    o.request_state_key = k_cache_state_key;
    o.store.url = url;
    o.store.key_prefix = "rc-test:";
    srv = std::make_unique<server>(o);
    srv->add_tool({.name = "lookup", .annotations = {{"readOnlyHint", true}}},
                  [n = runs](const json& a, request_context& ctx) {
                    ++*n;
                    return tool_result::text(a.dump() + " for " + ctx.principal().dump());
                  });
    srv->add_tool({.name = "spare"},
                  [](const json&, request_context&) { return tool_result::text("spare"); });
    srv->add_resource({.uri = "mem://a", .name = "a"},
                      [n = runs](const std::string& u, request_context&) {
                        ++*n;
                        return std::vector<resource_contents>{
                            {.uri = u, .text = u + " #" + std::to_string(n->load())}};
                      });
    srv->add_middleware(response_cache({.ttl = ttl}));
  }
  bool logged(const std::string& text) const {
    for (const auto& l : log.snapshot()) {
      if (l.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

// A replica's registrations publish list_changed on the bus, at once and again at the end of
// the 20 ms coalescing window, and the Redis bridge delivers them to the other replica later
// still; each one drops every cached tool result or read for all replicas. A test that cached
// something before they arrive would see it dropped, so it starts once they have passed.
void let_registrations_settle() { std::this_thread::sleep_for(250ms); }

json call(harness& h, int id, json args = json::object()) {
  return h.roundtrip(modern_request(id, "tools/call", {{"name", "lookup"}, {"arguments", args}}));
}

json read(harness& h, int id) {
  return h.roundtrip(modern_request(id, "resources/read", {{"uri", "mem://a"}}));
}

bool hit(const json& reply) {
  return reply["result"]["_meta"].value("mcpcxx/cache", json::object()).value("hit", false);
}

class response_cache_replicas : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!redis_server::available()) GTEST_FAIL() << "redis-server missing: run scripts/setup.sh";
    redis = std::make_unique<redis_server>();
  }
  std::unique_ptr<redis_server> redis;
};

TEST_F(response_cache_replicas, what_replica_a_cached_replica_b_serves_without_running) {
  cached_replica a(redis->url(), 30s), b(redis->url(), 30s);
  let_registrations_settle();
  harness ha(*a.srv), hb(*b.srv);
  const json first = call(ha, 1, {{"q", 1}});
  EXPECT_FALSE(hit(first));
  const json there = call(hb, 2, {{"q", 1}});
  EXPECT_TRUE(hit(there)) << there;
  EXPECT_EQ(there["result"]["content"], first["result"]["content"]);
  EXPECT_EQ(a.runs->load(), 1);
  EXPECT_EQ(b.runs->load(), 0);
  const auto left = there["result"]["_meta"]["mcpcxx/cache"]["ttlMs"].get<int>();
  EXPECT_GT(left, 0);
  EXPECT_LE(left, 30000);
}

TEST_F(response_cache_replicas, a_resource_update_on_a_drops_the_entry_b_would_serve) {
  cached_replica a(redis->url(), 30s), b(redis->url(), 30s);
  let_registrations_settle();
  harness ha(*a.srv), hb(*b.srv);
  read(ha, 1);
  ASSERT_TRUE(hit(read(hb, 2)));
  a.srv->notify_resource_updated("mem://a");
  const json r = read(hb, 3);
  EXPECT_FALSE(hit(r)) << r;
  EXPECT_EQ(b.runs->load(), 1);
  // b hears of the update through the bus bridge too, and may drop its fresh entry once more
  // when that arrives: a later miss, never a stale hit
}

TEST_F(response_cache_replicas, a_tool_list_change_on_a_drops_tool_results_for_b) {
  cached_replica a(redis->url(), 30s), b(redis->url(), 30s);
  let_registrations_settle();
  harness ha(*a.srv), hb(*b.srv);
  call(ha, 1);
  ASSERT_TRUE(hit(call(hb, 2)));
  a.srv->remove_tool("spare");
  int id = 10;
  EXPECT_TRUE(wait_until([&] { return !hit(call(hb, ++id)); }, 5s));
}

TEST_F(response_cache_replicas, private_entries_never_reach_another_caller_on_any_replica) {
  cached_replica a(redis->url(), 30s), b(redis->url(), 30s);
  let_registrations_settle();
  harness alice(*a.srv), bob(*b.srv), alice_on_b(*b.srv);
  alice.s.set_principal({{"sub", "alice"}});
  bob.s.set_principal({{"sub", "bob"}});
  alice_on_b.s.set_principal({{"sub", "alice"}});
  const json mine = call(alice, 1);
  const json theirs = call(bob, 2);
  EXPECT_FALSE(hit(theirs));
  EXPECT_EQ(theirs["result"]["content"][0]["text"].get<std::string>().find("alice"),
            std::string::npos);
  const json again = call(alice_on_b, 3);
  EXPECT_TRUE(hit(again));
  EXPECT_EQ(again["result"]["content"], mine["result"]["content"]);
}

TEST_F(response_cache_replicas, redis_expires_the_entries) {
  cached_replica a(redis->url(), 200ms);
  let_registrations_settle();
  harness ha(*a.srv);
  call(ha, 1);
  int id = 10;
  EXPECT_TRUE(wait_until([&] { return !hit(call(ha, ++id)); }, 5s));
}

TEST_F(response_cache_replicas, with_redis_down_requests_run_uncached_and_the_log_says_so) {
  cached_replica a(redis->url(), 30s);
  let_registrations_settle();
  harness ha(*a.srv);
  call(ha, 1);
  redis->kill();
  for (int i = 2; i < 4; ++i) {
    const json r = call(ha, i);
    ASSERT_FALSE(r.contains("error")) << r;
    EXPECT_FALSE(r["result"].value("isError", false)) << r;
    EXPECT_FALSE(hit(r));
    EXPECT_FALSE(r["result"]["_meta"].contains("mcpcxx/cache")) << "not cached: no cache hints";
  }
  const json rr = read(ha, 5);
  EXPECT_TRUE(rr["result"].contains("contents")) << rr;
  EXPECT_EQ(a.runs->load(), 4);
  EXPECT_TRUE(a.logged("response cache: Redis failed"));
  redis->restart();
  EXPECT_TRUE(wait_until([&] { return hit(call(ha, 6)); }, 10s));
}

}  // namespace
}  // namespace mcpcxx::testing

// Replicas of one server sharing a real Redis, in one process: two mcpcxx::server objects made
// with the same store URL and key prefix stand for two replicas behind a balancer. What the
// 2026-07-28 era shares through the store (tasks, task control, listen delivery) is checked
// here at the engine; the HTTP transport's legacy sessions and nginx are covered by
// tests/cluster. Also the configuration refusals and the store-outage row P57.
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

constexpr const char* k_key = "q9Tt3n3oJ5Q0R0m1f2yYxQ0y8kTqG4sQmV1oZr7b0cA=";

const json k_task_caps = {{"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}};

std::string modern(const json& id, const std::string& method, json params,
                   const json& caps = k_task_caps) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", caps}};
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

// A replica: a server on the shared store with a task tool that runs until cancelled or
// released, a quick plain tool and a resource.
struct replica {
  std::unique_ptr<server> srv;
  std::shared_ptr<std::atomic<bool>> release = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<int>> cancelled = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> started = std::make_shared<std::atomic<int>>(0);

  explicit replica(const std::string& url, std::chrono::milliseconds lease = 5000ms,
                   std::size_t max_tasks = 1000) {
    server_options o = captured_log{}.options();
    o.log_requests = false;
    o.request_state_key = k_key;
    o.store.url = url;
    o.store.key_prefix = "test:";
    o.store.task_lease = lease;
    o.store.max_tasks = max_tasks;
    o.tasks.poll_interval_ms = 20;
    srv = std::make_unique<server>(o);
    tool_spec slow;
    slow.name = "slow";
    slow.task = task_support::optional;
    srv->add_tool(slow,
                  [r = release, c = cancelled, s = started](const json&, request_context& ctx) {
                    ++*s;
                    while (!*r && !ctx.cancelled()) std::this_thread::sleep_for(5ms);
                    if (ctx.cancelled()) ++*c;
                    return tool_result::text("finished");
                  });
    tool_spec quick;
    quick.name = "quick";
    srv->add_tool(quick, [](const json&, request_context&) { return tool_result::text("ok"); });
    srv->add_resource({.uri = "issues://ENG-1", .name = "ENG-1"},
                      [](const std::string& uri, request_context&) {
                        resource_contents c;
                        c.uri = uri;
                        c.text = "open";
                        return std::vector<resource_contents>{c};
                      });
  }
};

class replicas : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!redis_server::available()) GTEST_FAIL() << "redis-server missing: run scripts/setup.sh";
    redis = std::make_unique<redis_server>();
  }
  std::unique_ptr<redis_server> redis;
};

std::string start_task(harness& h, int id) {
  json r = h.roundtrip(
      modern(id, "tools/call",
             {{"name", "slow"}, {"arguments", json::object()}, {"task", json::object()}}));
  EXPECT_EQ(r["result"]["resultType"], "task") << r;
  return r["result"].value("taskId", std::string());
}

json task_get(harness& h, int id, const std::string& task) {
  return h.roundtrip(modern(id, "tasks/get", {{"taskId", task}}));
}

TEST_F(replicas, a_task_made_on_one_replica_is_read_cancelled_and_finished_from_another) {
  replica a(redis->url()), b(redis->url());
  harness ha(*a.srv, false), hb(*b.srv, false);
  const std::string task = start_task(ha, 1);
  ASSERT_FALSE(task.empty());
  json seen = task_get(hb, 2, task);  // visible on B as soon as A answered
  EXPECT_EQ(seen["result"]["status"], "working") << seen;
  // A task cancelled while still queued never starts its handler (task_calls.cpp), so the cancel
  // waits for the handler to run: under load the pool may start it after B's reads.
  ASSERT_TRUE(wait_until([&] { return a.started->load() == 1; }, 5s)) << "the handler never ran";
  json c = hb.roundtrip(modern(3, "tasks/cancel", {{"taskId", task}}));
  EXPECT_FALSE(c.contains("error")) << c;
  EXPECT_TRUE(wait_until([&] { return a.cancelled->load() == 1; }, 5s))
      << "the cancel on B never reached the handler running on A";
  json after = task_get(ha, 4, task);
  EXPECT_EQ(after["result"]["status"], "cancelled") << after;
}

TEST_F(replicas, a_finished_task_result_is_read_on_the_other_replica) {
  replica a(redis->url()), b(redis->url());
  harness ha(*a.srv, false), hb(*b.srv, false);
  const std::string task = start_task(ha, 1);
  *a.release = true;
  json got;
  EXPECT_TRUE(wait_until(
      [&] {
        got = task_get(hb, 2, task);
        return got["result"].value("status", "") == "completed";
      },
      5s))
      << got;
  EXPECT_EQ(got["result"]["result"]["content"][0]["text"], "finished") << got;
}

TEST_F(replicas, a_task_of_a_replica_that_stopped_is_not_left_working) {
  auto a = std::make_unique<replica>(redis->url(), 300ms);
  replica b(redis->url(), 300ms);
  harness hb(*b.srv, false);
  std::string task;
  {
    harness ha(*a->srv, false);
    task = start_task(ha, 1);
  }
  // Stopping a replica cancels the tasks it runs (its drain) and releases their leases; a
  // SIGKILLed replica's task fails by its lease instead (tests/cluster, tests/cpp/store).
  a.reset();
  json got;
  const auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(wait_until(
      [&] {
        got = task_get(hb, 2, task);
        const std::string st = got["result"].value("status", "");
        return st == "failed" || st == "cancelled";
      },
      5s))
      << got;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2 * 300ms + 1s);
}

TEST_F(replicas, a_resource_update_on_one_replica_reaches_a_listen_stream_on_another) {
  replica a(redis->url()), b(redis->url());
  harness hb(*b.srv, false);
  hb.s.receive(modern(1, "subscriptions/listen",
                      {{"notifications", {{"resourceSubscriptions", {"issues://ENG-1"}}}}},
                      json::object()));
  // The listen acknowledges first; then the update published on A arrives on B's stream.
  ASSERT_TRUE(wait_until([&] { return !hb.sink->frames().empty(); }, 5s));
  bool arrived = wait_until(
      [&] {
        a.srv->notify_resource_updated("issues://ENG-1");
        for (const auto& f : hb.sink->frames()) {
          if (f.frame.value("method", "") == "notifications/resources/updated") return true;
        }
        return false;
      },
      5s);
  std::string seen;
  for (const auto& f : hb.sink->frames()) seen += f.frame.dump() + "\n";
  EXPECT_TRUE(arrived) << "no notifications/resources/updated on B's listen stream:\n" << seen;
}

TEST_F(replicas, with_redis_down_plain_calls_go_on_and_task_calls_get_the_documented_rows) {
  replica a(redis->url());
  harness ha(*a.srv, false);
  const std::string task = start_task(ha, 1);
  redis->kill();
  json plain =
      ha.roundtrip(modern(2, "tools/call", {{"name", "quick"}, {"arguments", json::object()}}));
  ASSERT_TRUE(plain.contains("result")) << plain;
  EXPECT_EQ(plain["result"]["content"][0]["text"], "ok") << plain;
  const auto before = std::chrono::steady_clock::now();
  json get = task_get(ha, 3, task);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 2s);
  ASSERT_TRUE(get.contains("error")) << get;
  EXPECT_EQ(get["error"]["code"], -32603);
  EXPECT_NE(
      get["error"]["message"].get<std::string>().find("Server unavailable: this request needs "
                                                      "the store"),
      std::string::npos)
      << get;  // row P57
  json call = ha.roundtrip(
      modern(4, "tools/call",
             {{"name", "slow"}, {"arguments", json::object()}, {"task", json::object()}}));
  ASSERT_TRUE(call.contains("error")) << call;  // row P57, as P50 for a full task store
  EXPECT_NE(call["error"]["message"].get<std::string>().find("nothing was changed"),
            std::string::npos)
      << call;
  redis->restart();
  EXPECT_TRUE(wait_until(
      [&] {
        json r = ha.roundtrip(
            modern(5, "tools/call",
                   {{"name", "slow"}, {"arguments", json::object()}, {"task", json::object()}}));
        return r.contains("result") && r["result"].value("resultType", "") == "task";
      },
      10s))
      << "tasks did not work again after Redis came back";
  *a.release = true;
}

// Readiness follows the store on an idle replica too (no request in between), both ways, within
// the probe period (2 s) and the store timeout.
TEST_F(replicas, store_ready_follows_redis_without_any_request) {
  replica a(redis->url());
  EXPECT_TRUE(a.srv->store_ready());
  redis->kill();
  EXPECT_TRUE(wait_until([&] { return !a.srv->store_ready(); }, 8s))
      << "still ready after Redis stopped";
  EXPECT_NE(a.srv->metrics_text().find("mcpcxx_store_up 0"), std::string::npos);
  redis->restart();
  EXPECT_TRUE(wait_until([&] { return a.srv->store_ready(); }, 12s))
      << "not ready again after Redis returned";
  EXPECT_NE(a.srv->metrics_text().find("mcpcxx_store_up 1"), std::string::npos);
}

// store.max_tasks bounds the tasks of every replica together: row P50 past it, on either one.
TEST_F(replicas, the_task_bound_is_configured_and_shared_by_the_replicas) {
  replica a(redis->url(), 5000ms, 2), b(redis->url(), 5000ms, 2);
  harness ha(*a.srv, false), hb(*b.srv, false);
  start_task(ha, 1);
  start_task(hb, 2);
  for (harness* h : {&ha, &hb}) {
    json full = h->roundtrip(
        modern(3, "tools/call",
               {{"name", "slow"}, {"arguments", json::object()}, {"task", json::object()}}));
    ASSERT_TRUE(full.contains("error")) << full;
    EXPECT_EQ(full["error"]["code"], -32603) << full;
    EXPECT_EQ(full["error"]["message"].get<std::string>().rfind(
                  "Server busy: the task store is full, so tool slow was not started", 0),
              0u)
        << full;  // row P50
  }
  *a.release = true;
  *b.release = true;
}

TEST(replica_config, a_shared_store_needs_a_request_state_key) {
  if (!redis_server::available()) GTEST_FAIL() << "redis-server missing";
  redis_server redis;
  server_options o;
  o.store.url = redis.url();
  EXPECT_THROW(server{o}, std::invalid_argument);
  try {
    server s{o};
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("openssl rand -base64 32"), std::string::npos);
  }
}

TEST(replica_config, malformed_urls_are_refused_before_anything_connects) {
  for (const char* url : {"redis://h:port", "http://h", "redis://", "unix://rel"}) {
    server_options o;
    o.request_state_key = k_key;
    o.store.url = url;
    EXPECT_THROW(server{o}, std::invalid_argument) << url;
  }
}

TEST(replica_config, an_unreachable_store_fails_within_the_bound_without_the_password) {
  server_options o;
  o.request_state_key = k_key;
  o.store.url = "redis://u:hunter2@127.0.0.1:1/0";
  const auto started = std::chrono::steady_clock::now();
  try {
    server s{o};
    ADD_FAILURE() << "an unreachable store was accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("hunter2"), std::string::npos) << what;
    EXPECT_NE(what.find("127.0.0.1:1"), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(replica_config, memory_and_empty_urls_change_nothing) {
  server_options o;
  o.store.url = "memory:";
  server s{o};
  s.use_store("");
  s.use_store("memory:");
  EXPECT_TRUE(s.store_ready());
  EXPECT_EQ(s.metrics_text().find("mcpcxx_store_up"), std::string::npos);
}

TEST_F(replicas, use_store_attaches_once_and_refuses_another_url) {
  server_options o;
  o.request_state_key = k_key;
  server s{o};
  s.use_store(redis->url());
  s.use_store(redis->url());  // the same store again is no change
  EXPECT_THROW(s.use_store(redis->url(1)), std::invalid_argument);
  EXPECT_TRUE(s.store_ready());
  EXPECT_NE(s.metrics_text().find("mcpcxx_store_up 1"), std::string::npos);
}

}  // namespace
}  // namespace mcpcxx::testing

// At-most-once tools (tool_spec::at_most_once, docs/error-model.md "Repeated calls") on replicas
// sharing a real Redis, in one process as in replicas_test.cpp: identical calls racing on three
// replicas (and on one server without a store) run the handler once; a replica that dies while
// its handler runs leaves a claim the others read as unknown (replica_lost) once its lease lapses
// (a forked child that _exits is the dying replica: destroying a server is no crash, see below);
// Redis down refuses the call with P57 before the handler runs; a task-augmented repeat on
// another replica rejoins the first call's task.
#include <array>
#include <atomic>
#include <chrono>
#include <iostream>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "mcpcxx/mcpcxx.hpp"

#include "redis/redis_server.hpp"
#include "support/collecting_sink.hpp"
#include "support/wait.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* k_state_key = "q9Tt3n3oJ5Q0R0m1f2yYxQ0y8kTqG4sQmV1oZr7b0cA=";
constexpr auto k_pay_takes = 200ms;
// hold's bound: an engine that wrongly runs it then fails a test instead of hanging it.
constexpr auto k_hold_at_most = 3s;

const json k_tasks_extension = {
    {"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}};

std::string modern_request_to(const json& id, const std::string& method, json params,
                              const json& caps = k_tasks_extension) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", caps}};
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

// The identical call the tests repeat: pay 10 to `to`.
std::string pay_call(int id, const std::string& to = "acct-1") {
  return modern_request_to(id, "tools/call",
                           {{"name", "pay"}, {"arguments", {{"to", to}, {"amount", 10}}}});
}

// A call of hold, task-augmented or not: in 2026-07-28 a call of a tool with task support
// becomes a task when the client declares the tasks extension (params.task is the legacy form).
std::string hold_call(int id, bool as_task) {
  json params = {{"name", "hold"}, {"arguments", {{"job", "j-1"}}}};
  if (!as_task) return modern_request_to(id, "tools/call", params, json::object());
  params["task"] = json::object();
  return modern_request_to(id, "tools/call", params);
}

// A replica (a store URL) or a lone server (no URL) with two at-most-once tools (window 1 min):
// pay, which counts its runs and takes k_pay_takes, and hold (task optional), which runs until
// released or cancelled (k_hold_at_most at most).
struct once_replica {
  std::unique_ptr<server> srv;
  std::shared_ptr<std::atomic<int>> pays = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> holds = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<bool>> release = std::make_shared<std::atomic<bool>>(false);

  explicit once_replica(const std::string& url, std::chrono::milliseconds lease = 5000ms) {
    server_options o = captured_log{}.options();
    o.log_requests = false;
    if (!url.empty()) {
      o.request_state_key = k_state_key;
      o.store.url = url;
      o.store.key_prefix = "test:";
    }
    o.at_most_once.lease = lease;
    o.tasks.poll_interval_ms = 20;
    srv = std::make_unique<server>(o);
    tool_spec pay;
    pay.name = "pay";
    pay.at_most_once = at_most_once{.window = 1min};
    srv->add_tool(pay, [n = pays](const json& a, request_context&) {
      ++*n;
      std::this_thread::sleep_for(k_pay_takes);
      return tool_result::text("paid 10 to " + a["to"].get<std::string>());
    });
    tool_spec hold;
    hold.name = "hold";
    hold.task = task_support::optional;
    hold.at_most_once = at_most_once{.window = 1min};
    srv->add_tool(hold, [n = holds, r = release](const json&, request_context& ctx) {
      ++*n;
      const auto end = std::chrono::steady_clock::now() + k_hold_at_most;
      while (!*r && !ctx.cancelled() && std::chrono::steady_clock::now() < end) {
        std::this_thread::sleep_for(5ms);
      }
      return tool_result::text("held");
    });
  }
};

// What a reply to pay is.
enum class answer : std::uint8_t { ran, in_progress, replayed, other };

const json& error_details(const json& reply) {
  static const json k_none = json::object();
  const json& r = reply.contains("result") ? reply["result"] : k_none;
  if (!r.contains("_meta") || !r["_meta"].contains("mcpcxx/error")) return k_none;
  return r["_meta"]["mcpcxx/error"];
}

bool is_replay(const json& reply) {
  const json& r = reply["result"];
  return r.contains("_meta") && r["_meta"].contains("mcpcxx/replay");
}

answer answer_of(const json& reply, const std::string& to = "acct-1") {
  if (!reply.contains("result")) return answer::other;
  const json& r = reply["result"];
  const json& e = error_details(reply);
  if (r.value("isError", false)) {
    const bool t11 =
        e.value("category", "") == "conflict" && e.value("effect", "") == "not_applied";
    return t11 ? answer::in_progress : answer::other;
  }
  if (!r.contains("content") || r["content"].empty() ||
      r["content"][0].value("text", "") != "paid 10 to " + to) {
    return answer::other;
  }
  return is_replay(reply) ? answer::replayed : answer::ran;
}

// The first call's id a refusal or a replay names.
std::string first_call_of(const json& reply) {
  if (is_replay(reply)) return reply["result"]["_meta"]["mcpcxx/replay"].value("callId", "");
  return error_details(reply).value("firstCallId", "");
}

struct tally {
  int ran = 0;
  int in_progress = 0;
  int replayed = 0;
  std::vector<json> others;
};

// Sends pay to `to` on every harness at once (a start barrier), one thread each; counts the
// answers and checks that every refusal and replay names one and the same first call.
tally race(const std::vector<std::unique_ptr<harness>>& hs, const std::string& to) {
  std::vector<json> replies(hs.size());
  {
    std::latch start(static_cast<std::ptrdiff_t>(hs.size()));
    std::vector<std::jthread> threads;
    threads.reserve(hs.size());
    for (std::size_t i = 0; i < hs.size(); ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        replies[i] = hs[i]->roundtrip(pay_call(static_cast<int>(i) + 1, to));
      });
    }
  }
  tally t;
  std::string first;
  for (const json& r : replies) {
    switch (answer_of(r, to)) {
      case answer::ran:
        ++t.ran;
        continue;
      case answer::in_progress:
        ++t.in_progress;
        break;
      case answer::replayed:
        ++t.replayed;
        break;
      case answer::other:
        t.others.push_back(r);
        continue;
    }
    if (first.empty()) first = first_call_of(r);
    EXPECT_EQ(first_call_of(r), first) << "repeats name different first calls: " << r;
  }
  EXPECT_FALSE(first.empty());
  std::cout << "[ counts   ] " << hs.size() << " identical calls to " << to << ": " << t.ran
            << " ran, " << t.in_progress << " in progress (T11), " << t.replayed << " replayed, "
            << t.others.size() << " other\n";
  return t;
}

void expect_one_run(const tally& t, std::size_t calls) {
  EXPECT_EQ(t.ran, 1) << "exactly one reply is the handler's own result";
  EXPECT_EQ(static_cast<std::size_t>(t.in_progress + t.replayed), calls - 1);
  for (const json& r : t.others) ADD_FAILURE() << "neither a result, T11 nor a replay: " << r;
}

class at_most_once_replicas : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!redis_server::available()) GTEST_FAIL() << "redis-server missing: run scripts/setup.sh";
    redis = std::make_unique<redis_server>();
  }
  std::unique_ptr<redis_server> redis;
};

// Three rounds, each with other arguments (a race may go unnoticed in one round).
TEST_F(at_most_once_replicas, of_thirty_identical_calls_on_three_replicas_the_handler_runs_once) {
  std::array<once_replica, 3> rs{once_replica(redis->url()), once_replica(redis->url()),
                                 once_replica(redis->url())};
  std::vector<std::unique_ptr<harness>> hs;
  hs.reserve(30);
  for (int i = 0; i < 30; ++i) hs.push_back(std::make_unique<harness>(*rs.at(i % 3).srv));
  const auto runs = [&] { return *rs[0].pays + *rs[1].pays + *rs[2].pays; };
  for (int round = 1; round <= 3; ++round) {
    const std::string to = "acct-" + std::to_string(round);
    const tally t = race(hs, to);
    EXPECT_EQ(runs(), round) << to << ": handler runs per replica so far: " << *rs[0].pays << " "
                             << *rs[1].pays << " " << *rs[2].pays;
    expect_one_run(t, hs.size());
    // Once the first call finished, a repeat on any replica is its replay.
    for (std::size_t i = 0; i < rs.size(); ++i) {
      harness h(*rs.at(i).srv);
      const json again = h.roundtrip(pay_call(100, to));
      EXPECT_EQ(answer_of(again, to), answer::replayed) << "replica " << i << ": " << again;
    }
    EXPECT_EQ(runs(), round);
  }
}

TEST(at_most_once_one_server, of_fifty_identical_calls_without_a_store_the_handler_runs_once) {
  once_replica lone("");
  std::vector<std::unique_ptr<harness>> hs;
  hs.reserve(50);
  for (int i = 0; i < 50; ++i) hs.push_back(std::make_unique<harness>(*lone.srv));
  const tally t = race(hs, "acct-1");
  EXPECT_EQ(lone.pays->load(), 1);
  expect_one_run(t, hs.size());
  const json again = hs[0]->roundtrip(pay_call(100));
  EXPECT_EQ(answer_of(again), answer::replayed) << again;
  EXPECT_EQ(lone.pays->load(), 1);
}

// The dying replica: a forked child (fork style "fast": the parent's Redis URL, no re-run of the
// test) starts hold as replica A with a 300 ms lease and _exits while the handler runs: no
// settle, no destructor, no renewal, as when the process is killed. Destroying the server instead
// is no crash: ~server leaves the running handler on its detached thread (not cancelled), whose
// claim keeps the records alive, so the lease is still renewed (a repeat gets T11) and the
// handler's result is recorded when it returns (a repeat then gets the replay).
[[noreturn]] void start_hold_and_die(const std::string& url) {
  once_replica a(url, 300ms);
  harness h(*a.srv, false);
  h.s.receive(hold_call(1, false));
  const bool running = wait_until([&] { return a.holds->load() == 1; }, 5s);
  ::_exit(running ? 0 : 3);  // no destructor runs: A's process ends with its handler running
}

class at_most_once_DeathTest : public at_most_once_replicas {};

TEST_F(at_most_once_DeathTest, a_call_whose_replica_died_is_unknown_replica_lost_on_another) {
  GTEST_FLAG_SET(death_test_style, "fast");
  const std::string url = redis->url();
  EXPECT_EXIT(start_hold_and_die(url), ::testing::ExitedWithCode(0), "")
      << "replica A never started the handler";
  const auto died = std::chrono::steady_clock::now();
  once_replica b(url, 300ms);
  harness hb(*b.srv);
  json got;
  int in_progress = 0;
  const bool lost = wait_until(
      [&] {
        got = hb.roundtrip(hold_call(2, false));
        const json& e = error_details(got);
        if (e.value("effect", "") == "not_applied") ++in_progress;  // the lease has not lapsed yet
        return e.value("effect", "") == "unknown";
      },
      5s);
  const auto waited = std::chrono::steady_clock::now() - died;
  ASSERT_TRUE(lost) << "no T12 on B after A died: " << got;
  const json& e = error_details(got);
  EXPECT_TRUE(got["result"].value("isError", false)) << got;
  EXPECT_EQ(e.value("category", ""), "conflict") << got;
  EXPECT_EQ(e.value("reason", ""), "replica_lost") << got;
  EXPECT_EQ(e.value("retryable", true), false) << got;
  EXPECT_LT(waited, 300ms + 2s);
  std::cout << "[ lease    ] T12 replica_lost "
            << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()
            << " ms after A died, after " << in_progress << " T11\n";
  const json again = hb.roundtrip(hold_call(3, false));
  EXPECT_EQ(error_details(again).value("reason", ""), "replica_lost") << again;
  EXPECT_EQ(b.holds->load(), 0) << "the handler ran on B";
}

TEST_F(at_most_once_replicas, with_redis_down_the_call_gets_p57_and_runs_once_redis_is_back) {
  once_replica a(redis->url());
  harness ha(*a.srv);
  redis->kill();
  const json refused = ha.roundtrip(pay_call(1));
  ASSERT_TRUE(refused.contains("error")) << refused;  // row P57
  EXPECT_EQ(refused["error"]["code"], -32603) << refused;
  const std::string message = refused["error"].value("message", "");
  EXPECT_EQ(message.rfind("Server unavailable: this request needs the store", 0), 0u) << refused;
  EXPECT_NE(message.find("nothing was changed"), std::string::npos) << refused;
  EXPECT_EQ(a.pays->load(), 0) << "the handler ran without a claim";
  redis->restart();
  json got;
  EXPECT_TRUE(wait_until(
      [&] {
        got = ha.roundtrip(pay_call(2));
        return answer_of(got) == answer::ran;
      },
      10s))
      << "the call did not run after Redis came back: " << got;
  EXPECT_EQ(a.pays->load(), 1);
  const json again = ha.roundtrip(pay_call(3));
  EXPECT_EQ(answer_of(again), answer::replayed) << again;
  EXPECT_EQ(a.pays->load(), 1);
}

TEST_F(at_most_once_replicas, a_repeat_on_another_replica_of_a_task_call_names_the_same_task) {
  once_replica a(redis->url()), b(redis->url());
  harness ha(*a.srv, false), hb(*b.srv, false);
  const json first = ha.roundtrip(hold_call(1, true));
  ASSERT_EQ(first["result"].value("resultType", ""), "task") << first;
  const std::string task = first["result"].value("taskId", "");
  ASSERT_FALSE(task.empty()) << first;
  const json rejoined = hb.roundtrip(hold_call(2, true));
  EXPECT_EQ(rejoined["result"].value("resultType", ""), "task") << rejoined;
  EXPECT_EQ(rejoined["result"].value("taskId", ""), task) << rejoined;
  const json plain = hb.roundtrip(hold_call(3, false));
  const json& e = error_details(plain);
  EXPECT_TRUE(plain["result"].value("isError", false)) << plain;  // row T11
  EXPECT_EQ(e.value("category", ""), "conflict") << plain;
  EXPECT_EQ(e.value("effect", ""), "not_applied") << plain;
  EXPECT_EQ(e.value("taskId", json()), json(task)) << plain;
  EXPECT_TRUE(wait_until([&] { return a.holds->load() == 1; }, 5s)) << "the task never ran on A";
  EXPECT_EQ(b.holds->load(), 0) << "the handler ran on B";
  *a.release = true;
  json done;
  EXPECT_TRUE(wait_until(
      [&] {
        done = hb.roundtrip(modern_request_to(4, "tasks/get", {{"taskId", task}}));
        return done["result"].value("status", "") == "completed";
      },
      5s))
      << done;
  EXPECT_EQ(b.holds->load(), 0);
}

}  // namespace
}  // namespace mcpcxx::testing

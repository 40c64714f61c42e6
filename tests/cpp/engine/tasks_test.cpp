// Tasks: the in-memory store (bounds, TTL, owners, paging, cursors) and the engine's task runs
// (creation, outcomes, cancellation reaching the handler, the tool deadline, questions answered
// by tasks/update, a plugged-in store, the ids generator).
#include "mcpcxx/tasks.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "mcpcxx/errors.hpp"

#include "support/collecting_sink.hpp"
#include "tasks/tasks.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

task_record record(const std::string& id, const std::string& owner, std::int64_t ttl_ms = 60000) {
  task_record r;
  r.task_id = id;
  r.owner = owner;
  r.created_at = r.last_updated_at = task_record::clock::now();
  r.ttl_ms = ttl_ms;
  r.poll_interval_ms = 100;
  return r;
}

TEST(InMemoryTaskStore, BoundedByMaxTasks) {
  auto store = make_in_memory_task_store({2});
  EXPECT_TRUE(store->create(record("a", "o")));
  EXPECT_TRUE(store->create(record("b", "o")));
  EXPECT_FALSE(store->create(record("c", "o")));
  EXPECT_FALSE(store->create(record("a", "o"))) << "duplicate id";
}

TEST(InMemoryTaskStore, ExpiredRecordsAreFreedAndNeverHandedOut) {
  auto store = make_in_memory_task_store({1});
  ASSERT_TRUE(store->create(record("short", "o", 30)));
  EXPECT_TRUE(store->get("short", "o"));
  std::this_thread::sleep_for(60ms);
  EXPECT_FALSE(store->get("short", "o"));
  EXPECT_FALSE(store->update("short", [](task_record&) {}));
  EXPECT_TRUE(store->create(record("next", "o"))) << "the expired record freed its slot";
}

TEST(InMemoryTaskStore, OwnersSeeOnlyTheirRecords) {
  auto store = make_in_memory_task_store();
  ASSERT_TRUE(store->create(record("mine", "alice")));
  EXPECT_TRUE(store->get("mine", "alice"));
  EXPECT_FALSE(store->get("mine", "bob"));
  auto page = store->list("bob", std::nullopt, 10);
  ASSERT_TRUE(page);
  EXPECT_TRUE(page->tasks.empty());
}

TEST(InMemoryTaskStore, ListPagesOldestFirstAndRefusesForeignCursors) {
  auto store = make_in_memory_task_store();
  for (const char* id : {"t1", "t2", "t3", "t4", "t5"}) ASSERT_TRUE(store->create(record(id, "o")));
  ASSERT_TRUE(store->create(record("other", "x")));
  std::vector<std::string> seen;
  std::optional<std::string> cursor;
  int pages = 0;
  do {
    auto page = store->list("o", cursor, 2);
    ASSERT_TRUE(page);
    for (const auto& r : page->tasks) seen.push_back(r.task_id);
    cursor = page->next_cursor;
    ++pages;
  } while (cursor);
  EXPECT_EQ(seen, (std::vector<std::string>{"t1", "t2", "t3", "t4", "t5"}));
  EXPECT_EQ(pages, 3);
  for (const char* bad : {"", "bogus", "tasks:", "tasks:x", "tasks:1x", "tasks:99999"}) {
    EXPECT_FALSE(store->list("o", std::string(bad), 2)) << bad;
  }
}

TEST(InMemoryTaskStore, UpdateIsAtomicUnderConcurrency) {
  auto store = make_in_memory_task_store();
  ASSERT_TRUE(store->create(record("n", "o")));
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        store->update("n", [](task_record& r) { r.poll_interval_ms += 1; });
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(store->get("n", "o")->poll_interval_ms, 100 + 4 * 500);
}

TEST(TaskVocabulary, NamesAndTerminalStates) {
  EXPECT_EQ(to_string(task_status::input_required), "input_required");
  EXPECT_TRUE(is_terminal(task_status::cancelled));
  EXPECT_FALSE(is_terminal(task_status::working));
  EXPECT_EQ(parse_task_support("required"), task_support::required);
  EXPECT_FALSE(parse_task_support("Required"));
}

TEST(TaskManager, StatusListenerSeesEveryChangeOnce) {
  task_options o;
  o.threads = 1;
  detail::task_manager m(o);
  std::vector<std::string> seen;
  std::mutex mu;
  m.set_status_listener([&](const task_record& r) {
    std::lock_guard lock(mu);
    seen.push_back(std::string(to_string(r.status)) + ":" + r.status_message.value_or(""));
  });
  cancellation_token token;
  auto r = m.create("o", std::nullopt, token);
  ASSERT_TRUE(r);
  m.set_message(r->task_id, "half");
  m.set_input(r->task_id, {{"k", {{"method", "elicitation/create"}}}});
  m.settle(r->task_id, task_status::completed, json::object(), nullptr);
  m.settle(r->task_id, task_status::failed, nullptr, json::object());  // terminal: no change
  EXPECT_FALSE(m.cancel(r->task_id, "other owner"));
  ASSERT_TRUE(m.cancel(r->task_id, "o"));  // terminal: returned unchanged
  std::lock_guard lock(mu);
  EXPECT_EQ(seen,
            (std::vector<std::string>{"working:half", "input_required:half", "completed:half"}));
  EXPECT_FALSE(token.cancelled()) << "cancelling a terminal task fires nobody's token";
}

// ---- the engine ----

const json k_ext = {{"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}},
                    {"elicitation", json::object()}};

std::string modern_call(int id, const std::string& method, json params, const json& caps = k_ext) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", caps}};
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

class engine_tasks : public ::testing::Test {
 protected:
  captured_log log;
  std::shared_ptr<task_store> store = make_in_memory_task_store({3});
  std::shared_ptr<std::atomic<bool>> saw_cancel = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<int>> wait_starts = std::make_shared<std::atomic<int>>(0);
  std::unique_ptr<server> srv;

  /// Waits until the "wait" tool's handler started `n` times.
  bool started(int n) const {
    for (int i = 0; i < 1000 && *wait_starts < n; ++i) std::this_thread::sleep_for(5ms);
    return *wait_starts >= n;
  }

  void SetUp() override {
    server_options o = log.options();
    o.tasks.store = store;
    o.tasks.poll_interval_ms = 20;
    auto n = std::make_shared<std::atomic<int>>(0);
    o.tasks.id_generator = [n] { return "t" + std::to_string(++*n); };
    srv = std::make_unique<server>(o);
    add("wait", task_support::optional,
        [flag = saw_cancel, starts = wait_starts](const json&, request_context& ctx) {
          ++*starts;
          while (!ctx.cancelled()) std::this_thread::sleep_for(5ms);
          *flag = true;
          return tool_result::text("stopped");
        });
    tool_spec slow;
    slow.name = "slow";
    slow.task = task_support::optional;
    slow.timeout = 50ms;
    srv->add_tool(slow, [](const json&, request_context& ctx) {
      while (!ctx.cancelled()) std::this_thread::sleep_for(5ms);
      return tool_result::text("late");
    });
    add("ask", task_support::optional, [](const json&, request_context& ctx) {
      auto answers = ctx.ask_all({{"elicitation/create",
                                   {{"message", "a?"}, {"requestedSchema", {{"type", "object"}}}},
                                   "a"},
                                  {"elicitation/create",
                                   {{"message", "b?"}, {"requestedSchema", {{"type", "object"}}}},
                                   "b"}});
      return tool_result::text(answers[0]["action"].get<std::string>() + "," +
                               answers[1]["action"].get<std::string>());
    });
  }
  void add(const std::string& name, task_support t, tool_handler fn) {
    tool_spec s;
    s.name = name;
    s.task = t;
    srv->add_tool(s, std::move(fn));
  }
  json get(harness& h, const std::string& id) {
    return h.roundtrip(modern_call(90, "tasks/get", {{"taskId", id}}))["result"];
  }
  json poll(harness& h, const std::string& id, const std::string& status) {
    for (int i = 0; i < 500; ++i) {
      json r = get(h, id);
      if (r["status"] == status) return r;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "task " << id << " never became " << status;
    return json();
  }
};

TEST_F(engine_tasks, CancelFiresTheHandlersToken) {
  harness h(*srv);
  json created = h.roundtrip(modern_call(1, "tools/call", {{"name", "wait"}}))["result"];
  ASSERT_EQ(created["resultType"], "task");
  EXPECT_EQ(created["taskId"], "t1");
  EXPECT_EQ(get(h, "t1")["status"], "working");
  ASSERT_TRUE(started(1));
  EXPECT_EQ(h.roundtrip(modern_call(2, "tasks/cancel", {{"taskId", "t1"}}))["result"]["resultType"],
            "complete");
  for (int i = 0; i < 500 && !*saw_cancel; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(*saw_cancel);
  json after = get(h, "t1");
  EXPECT_EQ(after["status"], "cancelled");
  EXPECT_FALSE(after.contains("result")) << "what the handler returned after cancel is dropped";
}

// A task's stored result is the whole T1 result: the details (kept apart from the tree for the
// reply frame) are put back, violations included, as a plain call's reply carries them.
TEST_F(engine_tasks, InvalidArgumentsCompleteTheTaskWithTheWholeDetails) {
  tool_spec typed;
  typed.name = "typed";
  typed.task = task_support::optional;
  typed.input_schema = {
      {"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}, {"required", {"n"}}};
  srv->add_tool(typed, [](const json&, request_context&) { return tool_result::text("ran"); });
  harness h(*srv);
  const json args = {{"name", "typed"}, {"arguments", {{"n", "x"}}}};
  json created = h.roundtrip(modern_call(1, "tools/call", args))["result"];
  ASSERT_EQ(created["resultType"], "task");
  const json stored = poll(h, created["taskId"].get<std::string>(), "completed")["result"];
  json plain = h.roundtrip(modern_call(2, "tools/call", args, json::object()))["result"];
  EXPECT_EQ(stored["isError"], true);
  ASSERT_TRUE(stored["structuredContent"].is_object());
  EXPECT_EQ(stored["structuredContent"]["violations"][0]["keyword"], "type");
  EXPECT_EQ(stored["structuredContent"], stored["_meta"]["mcpcxx/error"]);
  EXPECT_EQ(stored["structuredContent"], plain["structuredContent"]);
  EXPECT_EQ(stored["content"], plain["content"]);
}

TEST_F(engine_tasks, ToolDeadlineCompletesTheTaskWithTheTimeoutResult) {
  harness h(*srv);
  json created = h.roundtrip(modern_call(1, "tools/call", {{"name", "slow"}}))["result"];
  json done = poll(h, created["taskId"], "completed");
  EXPECT_EQ(done["result"]["isError"], true);
  EXPECT_NE(done["result"]["content"][0]["text"].get<std::string>().find("0.05"),
            std::string::npos);
}

TEST_F(engine_tasks, PartialUpdatesKeepTheTaskWaiting) {
  harness h(*srv);
  json created = h.roundtrip(modern_call(1, "tools/call", {{"name", "ask"}}))["result"];
  const std::string id = created["taskId"];
  json parked = poll(h, id, "input_required");
  ASSERT_EQ(parked["inputRequests"].size(), 2u);
  h.roundtrip(modern_call(2, "tasks/update",
                          {{"taskId", id}, {"inputResponses", {{"a", {{"action", "accept"}}}}}}));
  json half = get(h, id);
  EXPECT_EQ(half["status"], "input_required");
  EXPECT_FALSE(half["inputRequests"].contains("a"));
  EXPECT_TRUE(half["inputRequests"].contains("b"));
  h.roundtrip(modern_call(3, "tasks/update",
                          {{"taskId", id}, {"inputResponses", {{"b", {{"action", "decline"}}}}}}));
  json done = poll(h, id, "completed");
  EXPECT_EQ(done["result"]["content"][0]["text"], "accept,decline");
}

TEST_F(engine_tasks, RecordsLiveInThePluggedStoreAndItsBoundRefuses) {
  harness h(*srv);
  for (int i = 1; i <= 3; ++i) h.roundtrip(modern_call(i, "tools/call", {{"name", "wait"}}));
  EXPECT_TRUE(store->get("t1", "")) << "modern requests without a principal share the owner \"\"";
  json refused = h.roundtrip(modern_call(4, "tools/call", {{"name", "wait"}}));
  EXPECT_EQ(refused["error"]["code"], -32603);
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("task store is full"),
            std::string::npos);
  for (const char* id : {"t1", "t2", "t3"}) {
    h.roundtrip(modern_call(9, "tasks/cancel", {{"taskId", id}}));
  }
}

TEST_F(engine_tasks, LegacyTaskResultWaitsForTheOutcome) {
  harness h(*srv);
  h.initialize("2025-11-25");
  json created = h.roundtrip(request(1, "tools/call", {{"name", "slow"}, {"task", {{"ttl", 1}}}}));
  EXPECT_EQ(created["result"]["task"]["ttl"], 1);
  // ttl 1 ms: the record is gone before the deadline settles it; tasks/result says so.
  std::this_thread::sleep_for(5ms);
  json late = h.roundtrip(request(2, "tasks/result", {{"taskId", "t1"}}));
  EXPECT_EQ(late["error"]["code"], -32602);
}

// A task cancelled while it waits for a task thread is answered as cancelled and never starts.
TEST(engine_tasks_queue, ATaskCancelledBeforeItStartsNeverRuns) {
  server_options o;
  o.tasks.threads = 1;
  auto n = std::make_shared<std::atomic<int>>(0);
  o.tasks.id_generator = [n] { return "q" + std::to_string(++*n); };
  server srv(o);
  auto starts = std::make_shared<std::atomic<int>>(0);
  tool_spec spec;
  spec.name = "hold";
  spec.task = task_support::optional;
  srv.add_tool(spec, [starts](const json&, request_context& ctx) {
    ++*starts;
    while (!ctx.cancelled()) std::this_thread::sleep_for(5ms);
    return tool_result::text("held");
  });
  harness h(srv);
  auto call = [&](int id) {
    return h.roundtrip(modern_call(id, "tools/call", {{"name", "hold"}}));
  };
  ASSERT_EQ(call(1)["result"]["taskId"], "q1");
  for (int i = 0; i < 1000 && *starts < 1; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(call(2)["result"]["taskId"], "q2");  // queued: the only task thread is busy
  h.roundtrip(modern_call(3, "tasks/cancel", {{"taskId", "q2"}}));
  h.roundtrip(modern_call(4, "tasks/cancel", {{"taskId", "q1"}}));
  std::this_thread::sleep_for(100ms);  // q2 reaches the task thread now, cancelled
  EXPECT_EQ(starts->load(), 1) << "a cancelled queued task started";
  json q2 = h.roundtrip(modern_call(5, "tasks/get", {{"taskId", "q2"}}));
  EXPECT_EQ(q2["result"]["status"], "cancelled") << q2;
}

// Progress reported by a task reaches tasks/get as its statusMessage without a progressToken
// (pollers never send one), in both eras; the handler holds until the poller saw it.
TEST_F(engine_tasks, ProgressWithoutATokenBecomesTheStatusMessage) {
  auto seen = std::make_shared<std::atomic<bool>>(false);
  add("segments", task_support::optional, [seen](const json&, request_context& ctx) {
    ctx.report_progress(1, 2, "segment 1");
    ctx.report_progress(2, 2, "segment 2");
    for (int i = 0; i < 1000 && !*seen && !ctx.cancelled(); ++i) std::this_thread::sleep_for(2ms);
    return tool_result::text("done");
  });
  harness modern(*srv);
  json created = modern.roundtrip(modern_call(1, "tools/call", {{"name", "segments"}}))["result"];
  const std::string id = created["taskId"].get<std::string>();
  json r = json::object();
  for (int i = 0; i < 500 && r.value("statusMessage", "") != "segment 2"; ++i) {
    std::this_thread::sleep_for(2ms);
    r = get(modern, id);
  }
  EXPECT_EQ(r["statusMessage"], "segment 2");
  *seen = true;
  EXPECT_EQ(poll(modern, id, "completed")["status"], "completed");

  *seen = false;
  harness legacy(*srv);
  legacy.initialize("2025-11-25");
  json task =
      legacy.roundtrip(request(2, "tools/call", {{"name", "segments"}, {"task", json::object()}}));
  const std::string legacy_id = task["result"]["task"]["taskId"].get<std::string>();
  json g = json::object();
  for (int i = 0; i < 500 && g.value("statusMessage", "") != "segment 2"; ++i) {
    std::this_thread::sleep_for(2ms);
    g = legacy.roundtrip(request(3 + i, "tasks/get", {{"taskId", legacy_id}}))["result"];
  }
  EXPECT_EQ(g["statusMessage"], "segment 2");
  *seen = true;
  for (const auto& e : legacy.sink->frames()) {
    EXPECT_NE(e.frame.value("method", ""), "notifications/progress") << "no token, no notification";
  }
}

TEST_F(engine_tasks, StopCancelsRunningTasks) {
  {
    harness h(*srv);
    h.roundtrip(modern_call(1, "tools/call", {{"name", "wait"}}));
    ASSERT_TRUE(started(1));
  }
  srv.reset();  // ~server stops the engine: the task's token fires, its handler returns
  EXPECT_TRUE(*saw_cancel);
}

}  // namespace
}  // namespace mcpcxx::testing

// Async tools (server::add_async_tool): the call holds no worker while it waits, so more calls
// than worker threads are in flight at once; the completion answers once from any thread; the
// deadline, a dropped completion and a synchronous throw each answer the call exactly once.
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"
#include "support/wait.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

/// Completions parked by the handler until the test answers them from its own thread.
struct parked_calls {
  std::mutex mutex;
  std::vector<tool_completion> calls;
  std::vector<json> arguments;
  std::size_t size() {
    std::lock_guard lock(mutex);
    return calls.size();
  }
  void answer_all() {
    std::lock_guard lock(mutex);
    for (std::size_t i = 0; i < calls.size(); ++i) {
      calls[i].complete(tool_result::text("done " + arguments[i]["n"].dump()));
    }
    calls.clear();
    arguments.clear();
  }
};

server_options one_worker() {
  server_options o;
  o.worker_threads = 1;
  o.max_worker_threads = 1;
  return o;
}

TEST(async_tool_test, more_calls_than_workers_are_in_flight_at_once) {
  server srv(one_worker());
  parked_calls parked;
  srv.add_async_tool({.name = "wait"},
                     [&](const json& args, request_context&, tool_completion done) {
                       std::lock_guard lock(parked.mutex);
                       parked.calls.push_back(std::move(done));
                       parked.arguments.push_back(args);
                     });
  harness h(srv, false);
  for (int id = 1; id <= 40; ++id) {
    h.s.receive(modern_request(id, "tools/call", {{"name", "wait"}, {"arguments", {{"n", id}}}}));
  }
  // One worker started all forty: none of them holds it while it waits.
  ASSERT_TRUE(wait_until([&] { return parked.size() == 40; }, 10s)) << parked.size();
  EXPECT_EQ(h.s.in_flight(), 40u);
  std::thread answering([&] { parked.answer_all(); });
  answering.join();
  const auto frames = h.sink->wait_for(40);
  ASSERT_EQ(frames.size(), 40u);
  for (const auto& f : frames) {
    EXPECT_EQ(f.frame["result"]["content"][0]["text"], "done " + f.frame["id"].dump());
  }
  EXPECT_TRUE(wait_until([&] { return h.s.in_flight() == 0; }, 5s));
}

TEST(async_tool_test, the_deadline_answers_and_a_late_completion_is_ignored) {
  server srv(one_worker());
  parked_calls parked;
  srv.add_async_tool({.name = "slow", .timeout = 50ms},
                     [&](const json& args, request_context&, tool_completion done) {
                       std::lock_guard lock(parked.mutex);
                       parked.calls.push_back(std::move(done));
                       parked.arguments.push_back(args);
                     });
  harness h(srv, false);
  h.s.receive(modern_request(1, "tools/call", {{"name", "slow"}, {"arguments", {{"n", 1}}}}));
  auto frames = h.sink->wait_for(1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_TRUE(frames[0].frame["result"]["isError"].get<bool>());
  EXPECT_EQ(frames[0].frame["result"]["_meta"]["mcpcxx/error"]["category"], "timeout");
  parked.answer_all();  // after the timeout: nothing more is sent
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(h.sink->frames().size(), 1u);
  EXPECT_TRUE(wait_until([&] { return h.s.in_flight() == 0; }, 5s));
}

TEST(async_tool_test, a_completion_dropped_unanswered_answers_as_an_unexpected_failure) {
  captured_log log;
  server srv(log.options());
  srv.add_async_tool({.name = "forgetful"},
                     [](const json&, request_context&, const tool_completion&) { /* dropped */ });
  harness h(srv, false);
  h.s.receive(modern_request(1, "tools/call", {{"name", "forgetful"}}));
  auto frames = h.sink->wait_for(1);
  ASSERT_EQ(frames.size(), 1u);
  const json& r = frames[0].frame["result"];
  EXPECT_TRUE(r["isError"].get<bool>());
  EXPECT_EQ(r["_meta"]["mcpcxx/error"]["category"], "internal");
  EXPECT_TRUE(wait_until([&] { return h.s.in_flight() == 0; }, 5s));
}

TEST(async_tool_test, a_tool_error_thrown_while_starting_is_the_tools_failure) {
  server srv(one_worker());
  srv.add_async_tool(
      {.name = "refuses"}, [](const json&, request_context&, const tool_completion&) {
        throw tool_error(
            "Lookup failed: item 7 does not exist. List items first. Do not retry unchanged.",
            error_category::not_found);
      });
  harness h(srv, false);
  h.s.receive(modern_request(1, "tools/call", {{"name", "refuses"}}));
  auto frames = h.sink->wait_for(1);
  ASSERT_EQ(frames.size(), 1u);
  const json& r = frames[0].frame["result"];
  EXPECT_TRUE(r["isError"].get<bool>());
  EXPECT_EQ(r["content"][0]["text"],
            "Lookup failed: item 7 does not exist. List items first. Do not retry unchanged.");
  EXPECT_TRUE(wait_until([&] { return h.s.in_flight() == 0; }, 5s));
}

TEST(async_tool_test, invalid_arguments_are_refused_before_the_handler_starts) {
  server srv(one_worker());
  std::atomic<int> started{0};
  srv.add_async_tool({.name = "typed",
                      .input_schema = {{"type", "object"},
                                       {"properties", {{"n", {{"type", "integer"}}}}},
                                       {"required", {"n"}}}},
                     [&](const json&, request_context&, const tool_completion& done) {
                       ++started;
                       done.complete(tool_result::text("ran"));
                     });
  harness h(srv, false);
  h.s.receive(modern_request(1, "tools/call", {{"name", "typed"}, {"arguments", {{"n", "x"}}}}));
  auto frames = h.sink->wait_for(1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].frame["result"]["_meta"]["mcpcxx/error"]["category"], "invalid_arguments");
  EXPECT_EQ(started.load(), 0);
}

TEST(async_tool_test, registration_refuses_inline_dispatch_and_a_missing_handler) {
  server srv;
  EXPECT_THROW(srv.add_async_tool({.name = "a", .inline_dispatch = true},
                                  [](const json&, request_context&, const tool_completion&) {}),
               std::invalid_argument);
  EXPECT_THROW(srv.add_async_tool({.name = "b"}, nullptr), std::invalid_argument);
}

TEST(async_tool_test, a_call_that_runs_as_a_task_waits_for_the_completion_on_a_task_thread) {
  server srv;
  srv.add_async_tool({.name = "later", .task = task_support::optional},
                     [](const json&, request_context&, tool_completion done) {
                       std::thread([done = std::move(done)] {
                         std::this_thread::sleep_for(20ms);
                         done.complete(tool_result::text("finished"));
                       }).detach();
                     });
  harness h(srv, false);
  h.initialize();
  json created =
      h.roundtrip(request(1, "tools/call", {{"name", "later"}, {"task", json::object()}}));
  ASSERT_TRUE(created["result"].contains("task")) << created.dump();
  const std::string task_id = created["result"]["task"]["taskId"];
  json result;
  for (int i = 2; i < 200; ++i) {
    result = h.roundtrip(request(i, "tasks/result", {{"taskId", task_id}}));
    if (result.contains("result")) break;
  }
  EXPECT_EQ(result["result"]["content"][0]["text"], "finished") << result.dump();
}

}  // namespace
}  // namespace mcpcxx::testing

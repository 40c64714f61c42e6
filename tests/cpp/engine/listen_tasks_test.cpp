// notifications/tasks on subscriptions/listen streams (the tasks extension): taskIds honored
// for the caller's own tasks, every status change as the DetailedTask tasks/get would return, the
// final state of a task that ended before the stream opened, and the refusals (P13, P52).
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "mcpcxx/tasks.hpp"

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* k_tasks_sub = "io.modelcontextprotocol/subscriptionId";

const json k_listen_ext = {{"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}},
                           {"elicitation", json::object()}};

std::string listen_tasks_call(const json& id, const std::string& method, json params,
                              const json& caps = k_listen_ext) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", caps}};
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

std::string listen_for_tasks(const json& id, const json& task_ids,
                             const json& caps = k_listen_ext) {
  return listen_tasks_call(id, "subscriptions/listen", {{"notifications", {{"taskIds", task_ids}}}},
                           caps);
}

std::vector<json> task_notes(const std::vector<collecting_sink::entry>& frames) {
  std::vector<json> out;
  for (const auto& f : frames) {
    if (f.frame.value("method", "") == "notifications/tasks") out.push_back(f.frame["params"]);
  }
  return out;
}

class listen_tasks : public ::testing::Test {
 protected:
  std::unique_ptr<server> srv;
  std::shared_ptr<std::atomic<bool>> may_ask = std::make_shared<std::atomic<bool>>(false);

  void SetUp() override {
    server_options o = captured_log{}.options();
    o.log_requests = false;
    o.tasks.poll_interval_ms = 20;
    auto n = std::make_shared<std::atomic<int>>(0);
    o.tasks.id_generator = [n] { return "t" + std::to_string(++*n); };
    srv = std::make_unique<server>(o);
    add("wait", [](const json&, request_context& ctx) {
      while (!ctx.cancelled()) std::this_thread::sleep_for(5ms);
      return tool_result::text("stopped");
    });
    add("quick", [](const json&, request_context&) { return tool_result::text("done"); });
    add("ask", [go = may_ask](const json&, request_context& ctx) {
      while (!*go) std::this_thread::sleep_for(2ms);
      auto a = ctx.ask_all({{"elicitation/create",
                             {{"message", "ok?"}, {"requestedSchema", {{"type", "object"}}}},
                             "ok"}});
      return tool_result::text(a[0]["action"].get<std::string>());
    });
  }
  void add(const std::string& name, tool_handler fn) {
    tool_spec s;
    s.name = name;
    s.task = task_support::optional;
    srv->add_tool(s, std::move(fn));
  }
  // Starts `tool` as a task; its id.
  std::string start(harness& h, int id, const std::string& tool) {
    json r = h.roundtrip(
        listen_tasks_call(id, "tools/call", {{"name", tool}, {"arguments", json::object()}}));
    EXPECT_EQ(r["result"]["resultType"], "task") << r;
    return r["result"].value("taskId", "");
  }
  json get(harness& h, const std::string& id) {
    return h.roundtrip(listen_tasks_call(90, "tasks/get", {{"taskId", id}}))["result"];
  }
  // Waits until a notifications/tasks with `status` arrived; all task notifications so far.
  std::vector<json> wait_status(harness& h, const std::string& status) {
    for (int i = 0; i < 500; ++i) {
      auto notes = task_notes(h.sink->frames());
      if (!notes.empty() && notes.back()["status"] == status) return notes;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "no notifications/tasks with status " << status;
    return task_notes(h.sink->frames());
  }
};

TEST_F(listen_tasks, acknowledges_only_known_task_ids_and_follows_their_changes) {
  harness h(*srv);
  const std::string followed = start(h, 1, "wait");
  const std::string other = start(h, 2, "wait");
  json ack = h.roundtrip(listen_for_tasks("L", {followed, "no-such-task", followed}));
  EXPECT_EQ(ack["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(ack["params"]["notifications"], json({{"taskIds", {followed}}}));
  h.sink->clear();
  h.roundtrip(listen_tasks_call(3, "tasks/cancel", {{"taskId", other}}));
  h.roundtrip(listen_tasks_call(4, "tasks/cancel", {{"taskId", followed}}));
  auto notes = wait_status(h, "cancelled");
  ASSERT_EQ(notes.size(), 1u) << "only the followed task, once";
  const json& n = notes[0];
  EXPECT_EQ(n["taskId"], followed);
  EXPECT_EQ(n["_meta"][k_tasks_sub], "L");
  json expected = get(h, followed);
  expected.erase("resultType");
  expected.erase("_meta");
  json sent = n;
  sent.erase("_meta");
  EXPECT_EQ(sent, expected) << "the notification is the DetailedTask tasks/get returns";
}

TEST_F(listen_tasks, input_required_carries_the_questions_and_completion_the_result) {
  harness h(*srv);
  const std::string id = start(h, 1, "ask");
  h.roundtrip(listen_for_tasks("L", {id}));
  *may_ask = true;  // the task asks only once the stream is open
  auto asked = wait_status(h, "input_required");
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(asked.back()["inputRequests"]["ok"]["method"], "elicitation/create");
  EXPECT_EQ(asked.back()["inputRequests"]["ok"]["params"]["message"], "ok?");
  h.roundtrip(listen_tasks_call(
      5, "tasks/update", {{"taskId", id}, {"inputResponses", {{"ok", {{"action", "accept"}}}}}}));
  auto notes = wait_status(h, "completed");
  EXPECT_EQ(notes.back()["result"]["content"][0]["text"], "accept");
  EXPECT_FALSE(notes.back().contains("inputRequests"));
  for (const json& n : notes) EXPECT_EQ(n["_meta"][k_tasks_sub], "L");
}

TEST_F(listen_tasks, a_task_that_already_ended_sends_its_final_state_after_the_ack) {
  harness h(*srv);
  const std::string id = start(h, 1, "quick");
  for (int i = 0; i < 500 && get(h, id)["status"] != "completed"; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  h.sink->clear();
  h.s.receive(listen_for_tasks("L", {id}));
  auto frames = h.sink->wait_for(2);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].frame["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(frames[1].frame["method"], "notifications/tasks");
  EXPECT_EQ(frames[1].frame["params"]["status"], "completed");
  EXPECT_EQ(frames[1].frame["params"]["result"]["content"][0]["text"], "done");
  EXPECT_EQ(frames[1].frame["params"]["_meta"][k_tasks_sub], "L");
}

TEST_F(listen_tasks, an_empty_or_unknown_list_is_acknowledged_empty) {
  harness h(*srv);
  json ack = h.roundtrip(listen_for_tasks(1, json::array({"nope"})));
  EXPECT_EQ(ack["params"]["notifications"], json({{"taskIds", json::array()}}));
}

TEST_F(listen_tasks, task_ids_without_the_extension_are_refused_with_p13) {
  harness h(*srv);
  json r = h.roundtrip(listen_for_tasks(1, {"t1"}, json::object()));
  EXPECT_EQ(r["error"]["code"], -32021);
  EXPECT_EQ(r["error"]["data"]["requiredCapabilities"],
            json({{"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}}));
}

TEST_F(listen_tasks, malformed_task_ids_are_refused_with_p52_naming_what_was_wrong) {
  harness h(*srv);
  const std::pair<json, std::string> cases[] = {
      {"t1", "; got string. Nothing"},
      {json::array({"t1", 7}), "; member 1 (counting from 0) is number. Nothing"},
      {json::array({""}), "member 0 (counting from 0) is an empty string"},
  };
  int id = 1;
  for (const auto& [ids, got] : cases) {
    json r = h.roundtrip(listen_for_tasks(id++, ids));
    EXPECT_EQ(r["error"]["code"], -32602) << ids;
    const std::string msg = r["error"]["message"];
    EXPECT_NE(msg.find("taskIds must be an array of non-empty task id strings"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find(got), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace mcpcxx::testing

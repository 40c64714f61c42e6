// The tasks fixtures of the conformance suite (tasks-* scenarios, extension
// io.modelcontextprotocol/tasks): a sync tool and task-supporting tools that sleep, fail, raise a
// protocol error, park on questions, and one that asks in the request before becoming a task.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "mcpcxx/mcpcxx.hpp"

namespace conformance {

namespace {

using mcpcxx::client_request;
using mcpcxx::json;
using mcpcxx::request_context;
using mcpcxx::task_support;
using mcpcxx::tool_result;

void add_task_tool(mcpcxx::server& s, const std::string& name, const std::string& description,
                   task_support task, mcpcxx::tool_handler fn, json properties = json::object()) {
  mcpcxx::tool_spec spec;
  spec.name = name;
  spec.description = description;
  spec.input_schema = {{"type", "object"}, {"properties", std::move(properties)}};
  spec.task = task;
  s.add_tool(std::move(spec), std::move(fn));
}

// Sleeps `seconds`, waking early when the request (or its task) is cancelled.
bool sleep_unless_cancelled(const request_context& ctx, double seconds) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  while (std::chrono::steady_clock::now() < until) {
    if (ctx.cancelled()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !ctx.cancelled();
}

json answer_schema() {
  return {{"type", "object"},
          {"properties", {{"name", {{"type", "string"}}}, {"confirm", {{"type", "boolean"}}}}}};
}

client_request question(std::string key, const std::string& message) {
  return {"elicitation/create",
          {{"message", message}, {"requestedSchema", answer_schema()}},
          std::move(key)};
}

void add_running_tools(mcpcxx::server& s) {
  add_task_tool(s, "greet", "Greets `name` (never a task).", task_support::forbidden,
                [](const json& a, request_context&) {
                  return tool_result::text("Hello, " + a.value("name", std::string("World")) + "!");
                },
                {{"name", {{"type", "string"}}}});
  add_task_tool(
      s, "slow_compute", "Sleeps `seconds` (a task when the client supports tasks).",
      task_support::optional,
      [](const json& a, request_context& ctx) {
        const double seconds = a.value("seconds", 0.0);
        if (!sleep_unless_cancelled(ctx, seconds)) return tool_result::text("cancelled");
        return tool_result::text("computed " + a.value("label", std::string("?")) + " after " +
                                 std::to_string(seconds) + " s");
      },
      {{"seconds", {{"type", "number"}, {"minimum", 0}}}, {"label", {{"type", "string"}}}});
  add_task_tool(s, "failing_job", "Fails as a tool after about a second (runs only as a task).",
                task_support::required, [](const json&, request_context& ctx) {
                  sleep_unless_cancelled(ctx, 1.0);
                  tool_result r =
                      tool_result::text("failing_job failed: the job always fails. Do not retry.");
                  r.is_error = true;
                  return r;
                });
  add_task_tool(s, "protocol_error_job", "Raises a protocol error after about a second.",
                task_support::optional, [](const json&, request_context& ctx) -> tool_result {
                  sleep_unless_cancelled(ctx, 1.0);
                  throw mcpcxx::protocol_error(
                      -31000, "protocol_error_job: the job raised a protocol error");
                });
}

void add_asking_tools(mcpcxx::server& s) {
  add_task_tool(
      s, "confirm_delete", "Asks the user to confirm deleting `filename`.", task_support::optional,
      [](const json& a, request_context& ctx) {
        const std::string file = a.value("filename", std::string("?"));
        const json answer = ctx.ask_all({question("confirm", "Delete " + file + "?")}).front();
        const bool yes = answer.value("action", "") == "accept";
        return tool_result::text(yes ? "deleted " + file : "kept " + file);
      },
      {{"filename", {{"type", "string"}}}});
  add_task_tool(
      s, "multi_input", "Asks two questions at once.", task_support::optional,
      [](const json&, request_context& ctx) {
        const auto answers =
            ctx.ask_all({question("first", "First?"), question("second", "Second?")});
        return tool_result::text("answers: " + answers[0].dump() + " " + answers[1].dump());
      });
  mcpcxx::tool_spec spec;
  spec.name = "test_tool_with_task";
  spec.description = "Asks for user_name in the request, then finishes as a task.";
  spec.task = task_support::required;
  spec.task_started_by_handler = true;
  s.add_tool(std::move(spec), [](const json&, request_context& ctx) {
    const json answer = ctx.ask_all({question("user_name", "What is your name?")}).front();
    const std::string name = answer.value("content", json::object()).value("name", "?");
    ctx.start_task();
    sleep_unless_cancelled(ctx, 0.5);
    return tool_result::text("Hello, " + name + " (from the task)");
  });
}

}  // namespace

/// Registers the tasks fixtures.
void add_tasks_fixtures(mcpcxx::server& s) {
  add_running_tools(s);
  add_asking_tools(s);
}

}  // namespace conformance

// The example server's task tools (MCPCXX_EXAMPLE_TASKS=1, golden transcripts tasks_*.txtar):
// tools that run as tasks and finish at once, report progress, wait for cancellation, fail as a
// tool, fail as a protocol error, or run only as a task. Task ids are "task-1", "task-2", ... so
// transcripts can name them.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "mcpcxx/mcpcxx.hpp"

namespace example {

namespace {

using mcpcxx::json;
using mcpcxx::request_context;
using mcpcxx::task_support;
using mcpcxx::tool_result;

void add(mcpcxx::server& s, const std::string& name, const std::string& description,
         task_support task, mcpcxx::tool_handler fn) {
  mcpcxx::tool_spec spec;
  spec.name = name;
  spec.description = description;
  spec.input_schema = {{"type", "object"}, {"properties", {{"x", {{"type", "string"}}}}}};
  spec.task = task;
  s.add_tool(std::move(spec), std::move(fn));
}

}  // namespace

/// Task options for the transcripts: sequential ids; MCPCXX_MAX_TASKS bounds the store (P50).
void configure_tasks(mcpcxx::server_options& o) {
  auto next = std::make_shared<std::atomic<int>>(0);
  o.tasks.id_generator = [next] { return "task-" + std::to_string(++*next); };
  if (const char* v = std::getenv("MCPCXX_MAX_TASKS"); v != nullptr) {
    o.tasks.store = mcpcxx::make_in_memory_task_store({std::strtoull(v, nullptr, 10)});
  }
}

/// Registers the task tools.
void add_task_tools(mcpcxx::server& s) {
  add(s, "quick_job", "Returns `x` at once; may run as a task.", task_support::optional,
      [](const json& a, request_context&) {
        return tool_result::text("done: " + a.value("x", std::string("-")));
      });
  add(s, "wait_job", "Runs until cancelled; may run as a task.", task_support::optional,
      [](const json&, request_context& ctx) {
        while (!ctx.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return tool_result::text("stopped");
      });
  add(s, "report_job", "Reports progress (part 1, part 2), then returns; may run as a task.",
      task_support::optional, [](const json&, request_context& ctx) {
        ctx.report_progress(1, 2, "part 1");
        ctx.report_progress(2, 2, "part 2");
        return tool_result::text("reported");
      });
  add(s, "task_only", "Runs only as a task.", task_support::required,
      [](const json&, request_context&) { return tool_result::text("ran as a task"); });
  add(s, "fail_job", "Fails as a tool; may run as a task.", task_support::optional,
      [](const json&, request_context&) -> tool_result {
        throw mcpcxx::tool_error("fail_job failed: the job always fails. Do not retry.");
      });
  add(s, "broken_job", "Raises a protocol error; may run as a task.", task_support::optional,
      [](const json&, request_context&) -> tool_result {
        throw mcpcxx::protocol_error(-31001, "broken_job: the job raised a protocol error");
      });
}

}  // namespace example

// tools/call as a task: deciding whether a call becomes one (taskSupport, 2025-11-25 params.task,
// the 2026-07-28 extension declared on the request), answering it with the CreateTaskResult,
// running the handler on the task threads, and recording its outcome in the task.
//
// A task's context (exchange::make_context with a binding) differs from a request's once the
// task started: progress and log notifications outlive the reply (legacy: on the session's stream
// with the related-task _meta; both eras: a message becomes the task's statusMessage), and
// questions go to the task (2026-07-28: status input_required until tasks/update answers them;
// legacy: a live request carrying the related-task _meta, status input_required meanwhile).
//
// Thread-safety: a binding is shared by the request and the task's handler; `started` and
// `task_id` are published with release/acquire (task_id is written before started).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "mcpcxx/context.hpp"

#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "core/notification_bus.hpp"
#include "core/tool_step.hpp"
#include "registry/registry.hpp"
#include "tasks/tasks.hpp"

namespace mcpcxx::detail {

/// One tools/call that is, or may become, a task.
struct task_binding {
  bool modern = false;
  bool deferred = false;  ///< 2026-07-28 tool with task_started_by_handler: the handler starts it
  std::optional<std::int64_t> requested_ttl_ms;  ///< 2025-11-25 params.task.ttl
  std::string tool;
  std::atomic<bool> started{false};
  std::string task_id;                ///< set before `started`
  std::atomic<std::size_t> asked{0};  ///< questions asked (positional keys "ask-N")
  task_manager* tasks = nullptr;      ///< where the task lives (set by plan_call)
  /// Told the task's id once it exists, before the client is (tool_call_plan::on_task_created).
  std::function<void(const std::string& task_id)> on_created;
};

/// How tools/call runs a tool for one request.
struct call_plan {
  std::shared_ptr<task_binding> task;     ///< null: in the request, as always
  std::optional<method_outcome> refusal;  ///< set: answer this instead of running
};

/// Decides for `t` and the request in `ex` (see the file comment); a task lives in `tasks`.
call_plan plan_call(task_manager& tasks, exchange& ex, const tool_entry& t);

/// True when the 2026-07-28 request `ex` declared io.modelcontextprotocol/tasks in its
/// clientCapabilities.extensions.
bool declares_tasks_extension(const exchange& ex);
/// The P13 refusal naming the tasks extension as the missing client capability.
method_outcome missing_tasks_extension();

/// Who may see the tasks `ex` creates or names (task_record::owner).
std::string task_owner(const exchange& ex);

/// Creates the task of `b`, answers `ex` with its CreateTaskResult and marks `b` started; false
/// (nothing sent) when the store is full.
bool begin_task(const exchange_ptr& ex, task_binding& b);

/// Starts a task at once and runs `t` on the task threads; the outcome to return from the
/// handler (the reply was already sent, or the P50 refusal). `on_end`, if set, is told how the
/// handler ended (or that it never started).
method_outcome run_as_task(const exchange_ptr& ex, std::shared_ptr<const tool_entry> t, json args,
                           std::shared_ptr<task_binding> b, handler_end_hook on_end = {});

/// A repeat of an at-most-once call whose first call runs as task `task_id`: that task's
/// CreateTaskResult when this call would become a task too and the task still runs; nullopt
/// otherwise (core_hooks::rejoin_task).
std::optional<method_outcome> rejoin_task(task_manager& tasks, exchange& ex, const tool_entry& t,
                                          const std::string& task_id);

/// Records `o`, the outcome of the handler run of started task `b`.
/// `cancelled`: the handler's token fired (tasks/cancel, server stop).
void settle_task(server_core& e, const task_binding& b, const method_outcome& o, bool cancelled);

/// Publishes `r`'s status change on `bus` (change_kind::task_status, the DetailedTask tasks/get
/// would return now) when a subscriber wants it; the task manager's status listener. Any thread.
void publish_task_status(notification_bus& bus, const task_record& r);

/// Installs the task behaviour of `b` on a context's hooks (see the file comment).
void bind_task_hooks(context_hooks& hooks, const exchange_ptr& ex,
                     const std::shared_ptr<task_binding>& b);

/// The step that lets calls of a tool with task support run as tasks in `tasks` (attached by the
/// engine to such tools only).
std::shared_ptr<const tool_step> make_task_step(task_manager& tasks);

/// A tools/call of a tool without task support whose params carry "task": P15b for a malformed
/// params.task, P48 when the revision has tasks; nullopt otherwise (core_hooks).
std::optional<method_outcome> task_param_refusal(exchange& ex, const tool_entry& t);

}  // namespace mcpcxx::detail

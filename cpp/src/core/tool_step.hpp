// detail::tool_step: a step of tools/call that only some tools need (a scope check, running as a
// task). The engine attaches steps to a tool's entry when it registers it, so a call of a tool
// without scopes or task support runs no scope or task code (methods/tools_call.cpp runs the
// steps in order before the arguments are checked).
// Thread-safety: a step is immutable after registration; before() runs on the call's thread, any
// number of calls at once.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "mcpcxx/context.hpp"

#include "core/exchange.hpp"
#include "registry/registry.hpp"

namespace mcpcxx::detail {

/// How a tool call's handler ended (see tool_call_plan::on_handler_end).
using handler_end_hook = std::function<void(const method_outcome& out, bool ran, bool cancelled)>;

/// What a tool's steps decided for one call.
struct tool_call_plan {
  /// Adds the step's behaviour to the handler's context (a task's hooks), if set.
  context_decorator decorate_context;
  /// Runs with the handler's outcome when it returned inside the request, if set.
  std::function<void(const method_outcome&)> after_handler;
  /// False: an async tool runs in its blocking form (the call may become a task).
  bool allow_async = true;
  /// Told once how the handler ended, wherever it ran (in the request, as an async completion,
  /// as a task): `ran` false when it never started (a later step refused the call, a task was
  /// cancelled while queued); `cancelled` when the call was cancelled or timed out meanwhile.
  handler_end_hook on_handler_end;
  /// Told the id of the task the call became (before the task's handler starts).
  std::function<void(const std::string& task_id)> on_task_created;
  /// Set by the step that handed the call to a task: the task reports on_handler_end, not the
  /// request.
  bool handed_off = false;
};

/// One per-tool step (see the file comment).
class tool_step {
 public:
  virtual ~tool_step() = default;
  /// Runs before the arguments are checked: nullopt to go on (filling `plan` as needed), or the
  /// outcome that answers the call instead.
  virtual std::optional<method_outcome> before(const std::shared_ptr<exchange>& ex,
                                               const std::shared_ptr<const tool_entry>& tool,
                                               const json& arguments,
                                               tool_call_plan& plan) const = 0;
};

}  // namespace mcpcxx::detail

// The tasks methods (tasks/get, tasks/result, tasks/list, tasks/cancel, tasks/update): their
// params, decoders (rows P15a/P15b) and the binding of their rows to a task manager.
// Thread-safety: the decoders are pure; the handlers may run on any thread at once.
#pragma once

#include <string>
#include <string_view>

#include "core/method_bindings.hpp"
#include "tasks/tasks.hpp"

namespace mcpcxx::detail {

/// tasks/get, tasks/result, tasks/cancel.
struct task_id_params {
  std::string task_id;
};
/// tasks/update (2026-07-28).
struct task_update_params {
  std::string task_id;
  json input_responses = json::object();
};

/// Decodes params.taskId.
decode_result decode(json& params, std::string_view method, task_id_params& out);
/// Decodes params.taskId and params.inputResponses.
decode_result decode(json& params, std::string_view method, task_update_params& out);

/// Binds the tasks rows of the method table to `tasks`.
void bind_task_methods(method_bindings& methods, task_manager& tasks);

}  // namespace mcpcxx::detail

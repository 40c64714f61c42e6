// tasks/get, tasks/result, tasks/list, tasks/cancel and tasks/update. 2025-11-25 sessions and
// 2026-07-28 requests that declared io.modelcontextprotocol/tasks see the tasks they created
// (task_owner); everyone else is refused before the store is read.
#include "tasks/task_methods.hpp"

#include "mcpcxx/error_codes.hpp"

#include "core/method_bindings.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "core/wire_errors.hpp"
#include "tasks/task_calls.hpp"
#include "wire/revisions.hpp"

namespace mcpcxx::detail {

namespace {

// Modern: the request must declare the extension (P13); legacy: revisions with the tasks feature.
std::optional<method_outcome> era_gate(const exchange& ex) {
  if (ex.facts.modern) {
    if (declares_tasks_extension(ex)) return std::nullopt;
    return missing_tasks_extension();
  }
  if (::mcpcxx::wire::has(ex.facts.version, ::mcpcxx::wire::feature::tasks)) return std::nullopt;
  return method_outcome::protocol(situation::P9_method_not_in_era,
                                  {{"method", ex.method()}, {"protocolVersion", ex.facts.version}});
}

method_outcome task_not_found(const std::string& task_id) {
  return method_outcome::protocol(situation::P45_task_not_found, {{"taskId", task_id}});
}

// 2025-11-25 tasks/result of a completed task: exactly the request's result, tied to the task.
json related(json result, const std::string& task_id) {
  if (!result.is_object()) result = json::object();
  result["_meta"][std::string(k_related_task_key)] = {{"taskId", task_id}};
  return result;
}

// A failed task's stored error (the protocol error its call settled with) is passed through as
// row P23. A store holding no usable one (a custom task_store) gets row P24, logged.
method_outcome failed_as_error(const exchange& ex, const task_record& r) {
  const json& e = r.error;
  const auto code = e.is_object() ? e.find("code") : e.end();
  const auto message = e.is_object() ? e.find("message") : e.end();
  if (code != e.end() && code->is_number_integer() && message != e.end() && message->is_string()) {
    return method_outcome::protocol(
        situation::P23_handler_protocol_error,
        wire::handler_error_args(code->get<int>(), message->get<std::string>(),
                                 e.value("data", json())));
  }
  std::string ref = server_log::new_reference();
  ex.core().log().write("error", "task_error_unreadable",
                        {{"taskId", r.task_id}, {"reference", ref}});
  return method_outcome::protocol(situation::P24_internal_error, {{"reference", ref}}, ref);
}

// The handlers, each with the task manager its row is bound to.
method_outcome handle_tasks_get(task_manager& tasks, const exchange_ptr& ex, task_id_params& p);
method_outcome handle_tasks_result(task_manager& tasks, const exchange_ptr& ex, task_id_params& p);
method_outcome handle_tasks_list(task_manager& tasks, const exchange_ptr& ex, list_params& p);
method_outcome handle_tasks_cancel(task_manager& tasks, const exchange_ptr& ex, task_id_params& p);
method_outcome handle_tasks_update(task_manager& tasks, const exchange_ptr& ex,
                                   task_update_params& p);

}  // namespace

decode_result decode(json& params, std::string_view method, task_id_params& out) {
  const json* id = param_member(params, "taskId");
  if (id == nullptr || !id->is_string()) {
    return param_missing_outcome(method, "taskId",
                                 ", the taskId string a CreateTaskResult returned");
  }
  out.task_id = id->get<std::string>();
  return std::nullopt;
}

decode_result decode(json& params, std::string_view method, task_update_params& out) {
  task_id_params id;
  if (auto refusal = decode(params, method, id)) return refusal;
  out.task_id = std::move(id.task_id);
  const json* r = param_member(params, "inputResponses");
  if (r == nullptr)
    return param_missing_outcome(method, "inputResponses", ", an object keyed like inputRequests");
  if (!r->is_object()) {
    return param_invalid_outcome("params.inputResponses",
                                 "an object mapping inputRequests keys to results", r);
  }
  out.input_responses = std::move(params["inputResponses"]);
  return std::nullopt;
}

void bind_task_methods(method_bindings& methods, task_manager& tasks) {
  methods.bind<&handle_tasks_get>("tasks/get", tasks);
  methods.bind<&handle_tasks_result>("tasks/result", tasks);
  methods.bind<&handle_tasks_list>("tasks/list", tasks);
  methods.bind<&handle_tasks_cancel>("tasks/cancel", tasks);
  methods.bind<&handle_tasks_update>("tasks/update", tasks);
}

namespace {

method_outcome handle_tasks_get(task_manager& tasks, const exchange_ptr& ex, task_id_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  const auto r = tasks.store().get(p.task_id, task_owner(*ex));
  if (!r) return task_not_found(p.task_id);
  return method_outcome::ok(ex->facts.modern ? modern_detailed_task_json(*r)
                                             : legacy_task_json(*r));
}

method_outcome handle_tasks_result(task_manager& tasks, const exchange_ptr& ex, task_id_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  const auto r = tasks.wait_terminal(p.task_id, task_owner(*ex), ex->token());
  if (!r) return task_not_found(p.task_id);
  switch (r->status) {
    case task_status::completed:
      return method_outcome::ok(related(r->result, r->task_id));
    case task_status::failed:
      return failed_as_error(*ex, *r);
    case task_status::cancelled:
      return method_outcome::protocol(situation::P51_task_cancelled_no_result,
                                      {{"taskId", r->task_id}});
    case task_status::working:
    case task_status::input_required:
      break;
  }
  // Not terminal: the request itself was cancelled while it waited; this reply is not sent.
  return method_outcome::ok(legacy_task_json(*r));
}

method_outcome handle_tasks_list(task_manager& tasks, const exchange_ptr& ex, list_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  auto page = tasks.store().list(task_owner(*ex), p.cursor, ex->core().options().page_size);
  if (!page) return method_outcome::protocol(situation::P46_task_cursor_invalid);
  json items = json::array();
  for (const auto& r : page->tasks) items.push_back(legacy_task_json(r));
  json result = {{"tasks", std::move(items)}};
  if (page->next_cursor) result["nextCursor"] = *page->next_cursor;
  return method_outcome::ok(std::move(result));
}

method_outcome handle_tasks_cancel(task_manager& tasks, const exchange_ptr& ex, task_id_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  const std::string owner = task_owner(*ex);
  const auto before = tasks.cancel(p.task_id, owner);
  if (!before) return task_not_found(p.task_id);
  // 2026-07-28 acknowledges every cancel (idempotent); the status shows on the next tasks/get.
  if (ex->facts.modern) return method_outcome::ok(json::object());
  if (is_terminal(before->status)) {
    return method_outcome::protocol(
        situation::P47_task_already_terminal,
        {{"taskId", p.task_id}, {"status", std::string(to_string(before->status))}});
  }
  const auto after = tasks.store().get(p.task_id, owner);
  return method_outcome::ok(legacy_task_json(after ? *after : *before));
}

method_outcome handle_tasks_update(task_manager& tasks, const exchange_ptr& ex,
                                   task_update_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  if (!tasks.answer(p.task_id, task_owner(*ex), p.input_responses)) {
    return task_not_found(p.task_id);
  }
  return method_outcome::ok(json::object());
}

}  // namespace

}  // namespace mcpcxx::detail

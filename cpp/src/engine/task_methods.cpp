// tasks/get, tasks/result, tasks/list, tasks/cancel and tasks/update. 2025-11-25 sessions and
// 2026-07-28 requests that declared io.modelcontextprotocol/tasks see the tasks they created
// (task_owner); everyone else is refused before the store is read.
#include "engine/engine.hpp"
#include "engine/exchange.hpp"
#include "engine/method_table.hpp"
#include "engine/session_state.hpp"
#include "engine/task_calls.hpp"
#include "engine/wire_errors.hpp"
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
  ex.eng().log().write("error", "task_error_unreadable",
                       {{"taskId", r.task_id}, {"reference", ref}});
  return method_outcome::protocol(situation::P24_internal_error, {{"reference", ref}}, ref);
}

}  // namespace

method_outcome handle_tasks_get(const exchange_ptr& ex, task_id_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  const auto r = ex->eng().tasks().store().get(p.task_id, task_owner(*ex));
  if (!r) return task_not_found(p.task_id);
  return method_outcome::ok(ex->facts.modern ? modern_detailed_task_json(*r)
                                             : legacy_task_json(*r));
}

method_outcome handle_tasks_result(const exchange_ptr& ex, task_id_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  const auto r = ex->eng().tasks().wait_terminal(p.task_id, task_owner(*ex), ex->token());
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

method_outcome handle_tasks_list(const exchange_ptr& ex, list_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  auto page =
      ex->eng().tasks().store().list(task_owner(*ex), p.cursor, ex->eng().options().page_size);
  if (!page) return method_outcome::protocol(situation::P46_task_cursor_invalid);
  json tasks = json::array();
  for (const auto& r : page->tasks) tasks.push_back(legacy_task_json(r));
  json result = {{"tasks", std::move(tasks)}};
  if (page->next_cursor) result["nextCursor"] = *page->next_cursor;
  return method_outcome::ok(std::move(result));
}

method_outcome handle_tasks_cancel(const exchange_ptr& ex, task_id_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  const std::string owner = task_owner(*ex);
  auto& tasks = ex->eng().tasks();
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

method_outcome handle_tasks_update(const exchange_ptr& ex, task_update_params& p) {
  if (auto refusal = era_gate(*ex)) return std::move(*refusal);
  if (!ex->eng().tasks().answer(p.task_id, task_owner(*ex), p.input_responses)) {
    return task_not_found(p.task_id);
  }
  return method_outcome::ok(json::object());
}

}  // namespace mcpcxx::detail

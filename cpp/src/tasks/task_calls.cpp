// tools/call as a task: the plan, the CreateTaskResult, the run on the task threads, the outcome.
#include "tasks/task_calls.hpp"

#include "mcpcxx/errors.hpp"

#include "core/outbound.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "core/wire_errors.hpp"
#include "methods/primitive_methods.hpp"
#include "wire/revisions.hpp"

namespace mcpcxx::detail {

bool declares_tasks_extension(const exchange& ex) {
  const json& caps = ex.facts.client_capabilities;
  const auto ext = caps.find("extensions");
  return ext != caps.end() && ext->is_object() && ext->contains(k_tasks_extension);
}

method_outcome missing_tasks_extension() {
  const json needed = {{"extensions", {{std::string(k_tasks_extension), json::object()}}}};
  return method_outcome::protocol(situation::P13_missing_client_capability,
                                  {{"requiredCapabilities", needed}});
}

namespace {

method_outcome invalid_task_params(const char* subject, const char* expected, const json& got) {
  return method_outcome::protocol(situation::P15b_param_invalid,
                                  wire::param_invalid_args(subject, expected, &got));
}

call_plan plan_modern(const exchange& ex, const tool_entry& t) {
  if (t.spec.task == task_support::forbidden) return {};
  if (!declares_tasks_extension(ex)) {
    if (t.spec.task != task_support::required) return {};  // runs in the request
    return {nullptr, missing_tasks_extension()};
  }
  auto b = std::make_shared<task_binding>();
  b->modern = true;
  b->deferred = t.spec.task_started_by_handler;
  b->tool = t.spec.name;
  return {b, std::nullopt};
}

// 2025-11-25 params.task, or null when the request is not task-augmented (older revisions have
// no tasks, so params.task is ignored there).
const json* legacy_task_member(const exchange& ex) {
  if (!::mcpcxx::wire::has(ex.facts.version, ::mcpcxx::wire::feature::tasks)) return nullptr;
  const json& params = ex.params();
  const auto it = params.find("task");
  return it == params.end() || it->is_null() ? nullptr : &*it;
}

// params.task.ttl into `b`; the refusal when it is not a non-negative integer (null = absent).
std::optional<method_outcome> read_task_ttl(const json& task, task_binding& b) {
  const auto ttl = task.find("ttl");
  if (ttl == task.end() || ttl->is_null()) return std::nullopt;
  if (!ttl->is_number_integer() || ttl->get<std::int64_t>() < 0) {
    return invalid_task_params("tools/call params.task.ttl",
                               "a non-negative integer (milliseconds)", *ttl);
  }
  b.requested_ttl_ms = ttl->get<std::int64_t>();
  return std::nullopt;
}

// 2025-11-25 params.task {ttl?}.
call_plan plan_legacy(const exchange& ex, const tool_entry& t) {
  const json* task = legacy_task_member(ex);
  const json name = {{"name", t.spec.name}};
  if (task == nullptr) {
    if (t.spec.task != task_support::required) return {};
    return {nullptr, method_outcome::protocol(situation::P49_task_augmentation_required, name)};
  }
  if (!task->is_object()) {
    return {nullptr, invalid_task_params("tools/call params.task", "an object {ttl?}", *task)};
  }
  if (t.spec.task == task_support::forbidden) {
    return {nullptr, method_outcome::protocol(situation::P48_task_augmentation_forbidden, name)};
  }
  auto b = std::make_shared<task_binding>();
  b->tool = t.spec.name;
  if (auto refusal = read_task_ttl(*task, *b)) return {nullptr, std::move(refusal)};
  return {b, std::nullopt};
}

method_outcome created_outcome(const task_record& r, bool modern) {
  method_outcome o =
      method_outcome::ok(modern ? modern_task_json(r) : json{{"task", legacy_task_json(r)}});
  o.kind = outcome_kind::task;
  o.category = "task_created";
  return o;
}

json error_json(const jsonrpc::error_object& e) { return ::mcpcxx::wire::error_json(e); }

// A notification of a started task: legacy sessions get it on the session's stream, tied to the
// task by _meta. (Its progress message became the statusMessage through hooks.task_status.)
void task_notify(const std::shared_ptr<session_state>& s, const task_binding& b,
                 std::string_view method, json params) {
  if (b.modern) return;  // 2026-07-28: notifications/tasks needs a subscriptions/listen stream
  params["_meta"][std::string(k_related_task_key)] = {{"taskId", b.task_id}};
  s->send(nullptr, jsonrpc::serialize_notification(method, params), {frame_kind::notification});
}

std::string key_for(const client_request& q, task_binding& b) {
  const std::size_t n = b.asked.fetch_add(1);
  return q.key.empty() ? "ask-" + std::to_string(n) : q.key;
}

// 2026-07-28: the questions park the task (input_required) until tasks/update answers them all.
std::vector<json> modern_task_ask(task_binding& b, const std::vector<client_request>& qs) {
  json questions = json::object();
  for (const client_request& q : qs) {
    questions[key_for(q, b)] = {{"method", q.method}, {"params", q.params}};
  }
  auto answers = b.tasks->ask(b.task_id, questions);
  if (!answers) throw request_cancelled(qs.empty() ? std::string() : qs.front().method);
  return std::move(*answers);
}

// Legacy: a live request on the session's stream carrying the related-task _meta; the task is
// input_required while the client answers.
json legacy_task_ask(task_binding& b, const std::function<json(const client_request&)>& live,
                     client_request q) {
  if (!q.params.is_object()) q.params = json::object();
  q.params["_meta"][std::string(k_related_task_key)] = {{"taskId", b.task_id}};
  b.tasks->set_input(b.task_id, {{key_for(q, b), {{"method", q.method}, {"params", q.params}}}});
  json answer = live(q);
  b.tasks->set_input(b.task_id, json::object());
  return answer;
}

[[noreturn]] void cannot_ask(const client_request& q) {
  throw client_capability_error(q.method, q.method.substr(0, q.method.find('/')));
}

// The tool's deadline applies to a task as to a request: past it, the task completes with the
// timeout result and the handler's token fires.
void arm_task_deadline(const exchange_ptr& ex, const tool_entry& t,
                       const std::shared_ptr<task_binding>& b) {
  if (!t.spec.timeout) return;
  const double seconds = static_cast<double>(t.spec.timeout->count()) / 1000.0;
  json a = {{"name", t.spec.name}, {"seconds", seconds}, {"timeoutSeconds", seconds}};
  const situation row =
      t.read_only ? situation::T5_timeout_read_only : situation::T5w_timeout_may_have_run;
  std::weak_ptr<exchange> weak = ex;
  ex->core().deadlines().schedule(
      std::chrono::steady_clock::now() + *t.spec.timeout,
      [weak, b, a = std::move(a), row, out = t.output != nullptr] {
        auto live = weak.lock();
        if (!live) return;
        const auto o = method_outcome::tool_failed(row, a, out, "timeout");
        b->tasks->settle(b->task_id, task_status::completed, o.full_result(), nullptr);
        live->token().cancel();
      });
}

}  // namespace

call_plan plan_call(task_manager& tasks, exchange& ex, const tool_entry& t) {
  call_plan plan = ex.facts.modern ? plan_modern(ex, t) : plan_legacy(ex, t);
  if (plan.task) plan.task->tasks = &tasks;
  return plan;
}

std::string task_owner(const exchange& ex) {
  // The principal's stable identity, not its token's claims: a refreshed or stepped-up token
  // still reaches the tasks of the same user.
  std::string identity = ex.session().identity();
  if (!identity.empty()) return "principal:" + identity;
  if (!ex.facts.modern) return "session:" + ex.session().task_scope();
  return {};
}

bool begin_task(const exchange_ptr& ex, task_binding& b) {
  auto rec = b.tasks->create(task_owner(*ex), b.requested_ttl_ms, ex->token());
  if (!rec) return false;
  b.task_id = rec->task_id;
  if (b.on_created) b.on_created(b.task_id);
  b.started.store(true, std::memory_order_release);
  ex->finish(created_outcome(*rec, b.modern));
  return true;
}

method_outcome run_as_task(const exchange_ptr& ex, std::shared_ptr<const tool_entry> t, json args,
                           std::shared_ptr<task_binding> b, handler_end_hook on_end) {
  if (!begin_task(ex, *b)) {
    auto refused =
        method_outcome::protocol(situation::P50_task_store_full, {{"name", t->spec.name}});
    if (on_end) on_end(refused, false, false);
    return refused;
  }
  arm_task_deadline(ex, *t, b);
  const bool modern = b->modern;
  // The manager first: the lambda below takes `b`.
  auto& tasks = *b->tasks;
  tasks.post(
      [ex, t = std::move(t), args = std::move(args), b = std::move(b), on_end = std::move(on_end)] {
        // Cancelled while queued (tasks/cancel, the server stopping): the task is already answered
        // as cancelled, so its handler never starts.
        if (ex->token().cancelled()) {
          settle_task(ex->core(), *b, method_outcome{}, true);
          if (on_end) on_end(method_outcome{}, false, true);
          return;
        }
        request_context ctx =
            ex->make_context(ex, [&ex, &b](context_hooks& h) { bind_task_hooks(h, ex, b); });
        const method_outcome out = run_tool(ex, *t, args, ctx);
        const bool cancelled = ex->token().cancelled();
        settle_task(ex->core(), *b, out, cancelled);
        if (on_end) on_end(out, true, cancelled);
      });
  // Never sent: begin_task answered the request, so the exchange is settled.
  return created_outcome(task_record{}, modern);
}

std::optional<method_outcome> rejoin_task(task_manager& tasks, exchange& ex, const tool_entry& t,
                                          const std::string& task_id) {
  const call_plan p = plan_call(tasks, ex, t);
  if (!p.task || p.task->deferred) return std::nullopt;
  const auto r = tasks.store().get(task_id, task_owner(ex));
  if (!r || is_terminal(r->status)) return std::nullopt;
  return created_outcome(*r, p.task->modern);
}

void settle_task(server_core& e, const task_binding& b, const method_outcome& o, bool cancelled) {
  task_manager& tasks = *b.tasks;
  if (cancelled) {
    tasks.settle(b.task_id, task_status::cancelled, nullptr, nullptr);
    return;
  }
  switch (o.kind) {
    case outcome_kind::result:
    case outcome_kind::tool_failure:
      tasks.settle(b.task_id, task_status::completed, o.full_result(), nullptr);
      return;
    case outcome_kind::protocol_error:
      tasks.settle(b.task_id, task_status::failed, nullptr, error_json(o.error));
      return;
    case outcome_kind::cached_page:
    case outcome_kind::input_required:
    case outcome_kind::task:
    case outcome_kind::pending:
      break;
  }
  const std::string ref = server_log::new_reference();
  e.log().write("error", "unsupported_task_outcome",
                {{"taskId", b.task_id}, {"reference", ref}, {"kind", static_cast<int>(o.kind)}});
  tasks.settle(
      b.task_id, task_status::failed, nullptr,
      error_json(::mcpcxx::wire::render(situation::P24_internal_error, {{"reference", ref}})));
}

namespace {

// Lets calls of a tool with task support run as tasks (see make_task_step).
class task_step final : public tool_step {
 public:
  explicit task_step(task_manager& tasks) : tasks_(tasks) {}

  std::optional<method_outcome> before(const exchange_ptr& ex,
                                       const std::shared_ptr<const tool_entry>& tool,
                                       const json& arguments, tool_call_plan& plan) const override {
    call_plan p = plan_call(tasks_, *ex, *tool);
    if (p.refusal) return std::move(p.refusal);
    if (!p.task) return std::nullopt;  // runs in the request, as any call
    p.task->on_created = plan.on_task_created;
    if (!p.task->deferred) {
      plan.handed_off = true;
      return run_as_task(ex, tool, arguments, p.task, std::move(plan.on_handler_end));
    }
    // The handler may start the task itself (task_started_by_handler): until then it is a call.
    std::shared_ptr<task_binding> b = std::move(p.task);
    plan.allow_async = false;
    plan.decorate_context = [ex, b](context_hooks& h) { bind_task_hooks(h, ex, b); };
    plan.after_handler = [ex, b](const method_outcome& out) {
      // A handler that called start_task() ran on as the task: its outcome is the task's.
      if (b->started.load(std::memory_order_acquire)) {
        settle_task(ex->core(), *b, out, ex->token().cancelled());
      }
    };
    return std::nullopt;
  }

 private:
  task_manager& tasks_;
};

}  // namespace

std::shared_ptr<const tool_step> make_task_step(task_manager& tasks) {
  return std::make_shared<task_step>(tasks);
}

std::optional<method_outcome> task_param_refusal(exchange& ex, const tool_entry& t) {
  if (ex.facts.modern) return std::nullopt;  // 2026-07-28 has no params.task
  return plan_legacy(ex, t).refusal;
}

void publish_task_status(notification_bus& bus, const task_record& r) {
  if (!bus.wanted(change_kind::task_status, r.task_id)) return;  // the common case: build nothing
  bus.publish({change_kind::task_status, r.task_id, modern_detailed_task_json(r)});
}

namespace {

using notify_hook = decltype(context_hooks::notify);
using ask_hook = decltype(context_hooks::ask);
using ask_all_hook = decltype(context_hooks::ask_all);
using session_ptr = std::shared_ptr<session_state>;
using binding_ptr = std::shared_ptr<task_binding>;

bool task_running(const task_binding& b) { return b.started.load(std::memory_order_acquire); }

// Until the task starts, notifications go where the request's go (`before`).
notify_hook task_notify_hook(const binding_ptr& b, const session_ptr& s, notify_hook before) {
  return [b, s, before = std::move(before)](std::string_view method, json params) {
    if (!task_running(*b)) {
      if (before) before(method, std::move(params));
      return;
    }
    task_notify(s, *b, method, std::move(params));
  };
}

// Until the task starts, a question is the request's (`before`; none = cannot ask).
ask_hook task_ask_hook(const binding_ptr& b, const session_ptr& s, ask_hook live, ask_hook before) {
  return
      [b, s, live = std::move(live), before = std::move(before)](const client_request& q) -> json {
        if (!task_running(*b)) {
          if (!before) cannot_ask(q);
          return before(q);
        }
        if (b->modern) return modern_task_ask(*b, {q}).front();
        return legacy_task_ask(*b, live, q);
      };
}

// A started modern task parks on all its questions at once; otherwise the request's `before`,
// or one by one through `one`.
ask_all_hook task_ask_all_hook(const binding_ptr& b, const session_ptr& s, ask_all_hook before,
                               ask_hook one) {
  return [b, s, before = std::move(before),
          one = std::move(one)](const std::vector<client_request>& qs) -> std::vector<json> {
    if (task_running(*b) && b->modern) return modern_task_ask(*b, qs);
    if (!task_running(*b) && before) return before(qs);
    std::vector<json> out;
    out.reserve(qs.size());
    for (const client_request& q : qs) out.push_back(one(q));
    return out;
  };
}

}  // namespace

void bind_task_hooks(context_hooks& hooks, const exchange_ptr& ex,
                     const std::shared_ptr<task_binding>& b) {
  auto s = ex->session().shared_from_this();
  hooks.notify = task_notify_hook(b, s, std::move(hooks.notify));
  hooks.task_status = [b, s](const std::string& message) {
    if (task_running(*b)) b->tasks->set_message(b->task_id, message);
  };
  auto live = b->modern ? nullptr : legacy_ask_hook(s, nullptr, ex->token());
  hooks.ask = task_ask_hook(b, s, std::move(live), hooks.ask);
  hooks.ask_all = task_ask_all_hook(b, s, hooks.ask_all, hooks.ask);
  std::weak_ptr<exchange> weak = ex;
  hooks.start_task = [weak, b]() -> bool {
    auto live_ex = weak.lock();
    if (!live_ex || !b->deferred || task_running(*b)) return false;
    return begin_task(live_ex, *b);
  };
}

}  // namespace mcpcxx::detail

// The engine: the core and its features, assembled once per server.
#include "engine/engine.hpp"

#include "core/lifecycle_methods.hpp"
#include "core/session_state.hpp"
#include "listen/listen_methods.hpp"
#include "methods/once_step.hpp"
#include "methods/primitive_methods.hpp"
#include "methods/scope_step.hpp"
#include "registry/once_checks.hpp"
#include "skills/skills_methods.hpp"
#include "tasks/task_calls.hpp"
#include "tasks/task_methods.hpp"

namespace mcpcxx::detail {

namespace {

// Makes `feature` live as long as `core` and returns it.
template <class T, class... Args>
T* kept(server_core& core, Args&&... args) {
  auto owned = std::make_shared<T>(std::forward<Args>(args)...);
  T* raw = owned.get();
  core.keep(std::move(owned));
  return raw;
}

}  // namespace

engine::engine(server_options options)
    : core_(std::make_shared<server_core>(std::move(options))),
      scope_step_(make_scope_step()),
      mounts_(std::make_unique<mounts>(*this)) {
  server_core& core = *core_;
  tasks_ = kept<task_manager>(core, core.options().tasks);
  skills_ = kept<skills_service>(core, core);
  // Subscription order is delivery order: legacy sessions hear of a change before listen streams.
  legacy_ = kept<legacy_broadcast>(core, core.bus());
  listeners_ = kept<listener_registry>(core, core.options(), *tasks_);
  // resources/updated of a guarded resource reaches only callers who may read it now.
  resource_gate gate = [c = &core](const session_state& s, const std::string& uri) {
    const catalog& reg = c->registry();
    const bool guarded = reg.varies_by_principal("resources/list") ||
                         reg.varies_by_principal("resources/templates/list");
    return !guarded || reg.may_read(uri, s.principal());  // no principal copy when unguarded
  };
  legacy_->set_resource_gate(gate);
  listeners_->set_resource_gate(std::move(gate));
  listeners_->follow(core.bus());
  auto announcer = std::make_shared<list_announcer>(core.bus(), core.deadlines());
  announcer_ = announcer.get();
  core.keep(std::move(announcer));
  task_step_ = make_task_step(*tasks_);
  once_ = std::make_shared<once_service>(core);
  core.keep(once_);
  once_step_ = make_once_step(once_);
  tasks_->set_status_listener(
      [bus = &core.bus()](const task_record& r) { publish_task_status(*bus, r); });
  core.registry().connect(
      [this](std::string_view family) {
        announcer_->announce(family);
        mounts_->changed(family);
      },
      [this](tool_entry& e) { decorate_tool(e); });
  bind_methods();
}

engine::~engine() = default;

void engine::bind_methods() {
  server_core& core = *core_;
  bind_lifecycle_methods(core.methods(), core);
  bind_primitive_methods(core.methods(), core);
  bind_task_methods(core.methods(), *tasks_);
  bind_listen_method(core.methods(), *listeners_);
  bind_skills_methods(core.methods(), *skills_);
  core_hooks hooks;
  hooks.end_streams = [l = listeners_](const session_state* s, std::string_view reason) {
    return l->end(s, reason);
  };
  hooks.read_resource = [c = core_.get()](const std::string& uri, request_context& ctx) {
    return read_own_resource(*c, uri, ctx);
  };
  hooks.task_param_refusal = [](exchange& ex, const tool_entry& t) {
    return task_param_refusal(ex, t);
  };
  hooks.rejoin_task = [tasks = tasks_](exchange& ex, const tool_entry& t, const std::string& id) {
    return rejoin_task(*tasks, ex, t, id);
  };
  core.set_hooks(std::move(hooks));
}

// Only the features a tool uses join its calls: scopes, at-most-once and tasks are steps of
// their tools alone. At-most-once claims after the scope check (a refused caller claims nothing)
// and before a task starts (a repeat must not start a second task).
void engine::decorate_tool(tool_entry& e) {
  e.metrics_slot = core_->stats().tool_slot(e.spec.name);
  if (!e.spec.scopes.empty() || e.spec.visible_to) e.steps.push_back(scope_step_);
  if (e.spec.at_most_once) {
    e.steps.push_back(once_step_);
    once_->declare(e.spec.name);
  } else {
    warn_if_destructive(e.spec);
  }
  if (e.spec.task != task_support::forbidden) e.steps.push_back(task_step_);
}

void engine::warn_if_destructive(const tool_spec& spec) {
  if (!core_->options().at_most_once.warn_destructive || !destructive_hint(spec.annotations)) {
    return;
  }
  {
    std::lock_guard g(warned_mutex_);
    if (!warned_destructive_.insert(spec.name).second) return;
  }
  core_->log().write(
      "warning", "destructive_tool_without_at_most_once",
      {{"tool", spec.name},
       {"hint",
        "tool " + spec.name +
            " is annotated destructiveHint: true but a repeated call runs it again; declare "
            "at_most_once (Python: @server.tool(at_most_once=timedelta(minutes=10))) or set "
            "at_most_once_options::warn_destructive = false"}});
}

void engine::stop() {
  tasks_->stop(core_->options().stop_grace);  // cancels running tasks so their handlers return
  listeners_->close("the server is stopping");
  store_links_.reset();  // after the drain: releases this replica's leases, stops the bridge
  core_->stop();
}

void engine::notify_resource_updated(std::string_view uri) {
  core_->bus().publish({change_kind::resource_updated, std::string(uri), nullptr});
  mounts_->resource_updated(uri);
}

server_metrics engine::metrics() const {
  const worker_pool& pool = core_->pool();
  server_metrics m = core_->stats().snapshot();
  m.stuck_handlers = pool.stuck();
  m.long_running_handlers = pool.long_running();
  m.worker_threads = pool.threads();
  return m;
}

std::string engine::metrics_text() const {
  const worker_pool& pool = core_->pool();
  gauge_values g;
  g.sessions_open = legacy_->open_count();
  g.listeners = listeners_->size();
  g.stuck_handlers = pool.stuck();
  g.long_running_handlers = pool.long_running();
  g.worker_threads = pool.threads();
  std::string text = core_->stats().render(g);
  text += once_->metrics_text();
  if (store_) {
    // Readiness of a replica: 0 while the shared store does not answer (docs/scale-out.md).
    text +=
        "# HELP mcpcxx_store_up 1 when the shared store answered the last call, else 0.\n"
        "# TYPE mcpcxx_store_up gauge\n"
        "mcpcxx_store_up ";
    text += store_->client->healthy() ? "1\n" : "0\n";
  }
  return text;
}

}  // namespace mcpcxx::detail

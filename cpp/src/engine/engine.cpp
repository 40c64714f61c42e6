// The engine: the core and its features, assembled once per server.
#include "engine/engine.hpp"

#include "core/lifecycle_methods.hpp"
#include "listen/listen_methods.hpp"
#include "methods/primitive_methods.hpp"
#include "methods/scope_step.hpp"
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
    : core_(std::make_shared<server_core>(std::move(options))), scope_step_(make_scope_step()) {
  server_core& core = *core_;
  tasks_ = kept<task_manager>(core, core.options().tasks);
  // Subscription order is delivery order: legacy sessions hear of a change before listen streams.
  legacy_ = kept<legacy_broadcast>(core, core.bus());
  listeners_ = kept<listener_registry>(core, core.options(), *tasks_);
  listeners_->follow(core.bus());
  auto announcer = std::make_shared<list_announcer>(core.bus(), core.deadlines());
  announcer_ = announcer.get();
  core.keep(std::move(announcer));
  task_step_ = make_task_step(*tasks_);
  tasks_->set_status_listener(
      [bus = &core.bus()](const task_record& r) { publish_task_status(*bus, r); });
  core.registry().connect([this](std::string_view family) { announcer_->announce(family); },
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
  core.set_hooks(std::move(hooks));
}

// Only the features a tool uses join its calls: scopes and tasks are steps of their tools alone.
void engine::decorate_tool(tool_entry& e) {
  e.metrics_slot = core_->stats().tool_slot(e.spec.name);
  if (!e.spec.scopes.empty()) e.steps.push_back(scope_step_);
  if (e.spec.task != task_support::forbidden) e.steps.push_back(task_step_);
}

void engine::stop() {
  tasks_->stop(core_->options().stop_grace);  // cancels running tasks so their handlers return
  listeners_->close("the server is stopping");
  store_links_.reset();  // after the drain: releases this replica's leases, stops the bridge
  core_->stop();
}

void engine::notify_resource_updated(std::string_view uri) {
  core_->bus().publish({change_kind::resource_updated, std::string(uri), nullptr});
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

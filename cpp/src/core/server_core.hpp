// detail::server_core: what every request of one server needs, whichever feature serves it: the
// options, the server log, the worker pool and deadlines, the metrics and the tracer, the sealer
// of 2026-07-28 requestState, the catalog of primitives, the notification bus, the handlers bound
// to the method table, and the few hooks the core calls back into services the engine assembled
// (docs/architecture.md). Features (tasks, listen, asking) live in their own layers above the core
// and reach it through this object and the exchange; the core includes none of them. Thread-safety:
// every member may be called from any thread once the engine finished assembling (bind_methods,
// set_hooks and set_tracer run before serving); the parts guard themselves.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/server.hpp"
#include "mcpcxx/tracing.hpp"

#include "core/deadline_scheduler.hpp"
#include "core/elicitation_routes.hpp"
#include "core/method_bindings.hpp"
#include "core/middleware_chain.hpp"
#include "core/notification_bus.hpp"
#include "core/response_cache_store.hpp"
#include "core/token_buckets.hpp"
#include "core/worker_pool.hpp"
#include "observability/metrics_registry.hpp"
#include "observability/server_log.hpp"
#include "registry/catalog.hpp"
#include "state/sealer.hpp"

namespace mcpcxx::detail {

class session_state;

/// Callbacks into the services the engine assembled; each may be empty (feature absent).
struct core_hooks {
  /// Ends the listen streams of session `s` (null: every session) with `reason`; how many ended.
  std::function<std::size_t(const session_state* s, std::string_view reason)> end_streams;
  /// request_context::read_resource: runs the reader of `uri` with `ctx` (the catalog's methods).
  std::function<json(const std::string& uri, request_context& ctx)> read_resource;
  /// A tools/call whose params carry "task" for a tool that cannot run as one: the refusal the
  /// revision requires, if any (tasks/task_calls.hpp).
  std::function<std::optional<method_outcome>(exchange& ex, const tool_entry& tool)>
      task_param_refusal;
  /// A repeat of an at-most-once call whose first call runs as task `task_id`: that task's
  /// CreateTaskResult when this call would become a task too, else nullopt (tasks/task_calls.hpp).
  std::function<std::optional<method_outcome>(exchange& ex, const tool_entry& tool,
                                              const std::string& task_id)>
      rejoin_task;
};

/// The core state of one server (see the file comment).
class server_core : public std::enable_shared_from_this<server_core> {
 public:
  explicit server_core(server_options options);
  ~server_core();
  server_core(const server_core&) = delete;
  server_core& operator=(const server_core&) = delete;
  /// Finishes queued work and joins the worker and deadline threads on the calling thread.
  void stop();

  const server_options& options() const noexcept { return options_; }
  server_log& log() noexcept { return log_; }
  worker_pool& pool() noexcept { return pool_; }
  const worker_pool& pool() const noexcept { return pool_; }
  deadline_scheduler& deadlines() noexcept { return deadlines_; }
  /// The request metrics (exchanges record into them).
  metrics_registry& stats() noexcept { return stats_; }
  const metrics_registry& stats() const noexcept { return stats_; }
  /// Seals and opens 2026-07-28 requestState (keys from the options, or a random one).
  const state::sealer& request_states() const noexcept { return request_states_; }
  /// The Implementation object (serverInfo).
  const json& server_info() const noexcept { return server_info_; }
  /// server_info() as compact JSON, spliced into every modern result's _meta.
  const std::string& server_info_text() const noexcept { return server_info_text_; }
  /// Tools, resources, prompts, completion, extensions; capabilities and list pages.
  catalog& registry() noexcept { return catalog_; }
  const catalog& registry() const noexcept { return catalog_; }
  /// Change events between the parts of the server (list changes, resource updates, tasks).
  notification_bus& bus() noexcept { return *bus_; }
  /// URL-mode elicitations and the sessions that started them.
  elicitation_routes& elicitations() noexcept { return elicitations_; }
  /// The handlers bound to the method table's rows.
  method_bindings& methods() noexcept { return methods_; }
  const method_bindings& methods() const noexcept { return methods_; }
  /// The middleware requests run through (server::add_middleware).
  middleware_list& middleware() noexcept { return middleware_; }
  const middleware_list& middleware() const noexcept { return middleware_; }
  /// The rate limit's buckets: in this process until use_buckets() moves them to a store.
  token_buckets& buckets() const {
    std::lock_guard g(buckets_mutex_);
    return *buckets_;
  }
  /// Replaces the buckets (the engine, when it attaches a shared store; before serving).
  void use_buckets(std::shared_ptr<token_buckets> b) {
    std::lock_guard g(buckets_mutex_);
    buckets_ = std::move(b);
  }
  /// The response caches' stores (mcpcxx::response_cache): memory, or the attached shared store.
  response_caches& caches() noexcept { return caches_; }
  /// The hooks into assembled services.
  const core_hooks& hooks() const noexcept { return hooks_; }
  /// Installs the hooks (before serving).
  void set_hooks(core_hooks h) { hooks_ = std::move(h); }
  /// Keeps a feature the engine assembled alive as long as the core (sessions hold the core):
  /// features are destroyed after the workers stopped, last kept first.
  void keep(std::shared_ptr<void> feature) { features_.push_back(std::move(feature)); }

  /// Counts a message that never became a request (refused, or a notification).
  void count(outcome_class o, std::string_view category);
  /// The attached tracer; null when none (the only per-request cost of tracing).
  tracer* tracer_ptr() const noexcept { return tracer_.get(); }
  /// Attaches a tracer (before serving; see server::set_tracer).
  void set_tracer(std::shared_ptr<tracer> t) { tracer_ = std::move(t); }

 private:
  server_options options_;
  json server_info_;
  std::string server_info_text_;
  server_log log_;
  deadline_scheduler deadlines_;
  state::sealer request_states_;
  metrics_registry stats_;
  catalog catalog_;
  std::unique_ptr<notification_bus> bus_;
  elicitation_routes elicitations_;
  method_bindings methods_;
  middleware_list middleware_;
  mutable std::mutex buckets_mutex_;
  std::shared_ptr<token_buckets> buckets_ = make_memory_token_buckets();
  response_caches caches_{*bus_, [this](const std::string& what) {
                            log_.write("warning", "response_cache_trouble", {{"what", what}});
                          }};
  core_hooks hooks_;
  std::shared_ptr<tracer> tracer_;
  std::vector<std::shared_ptr<void>> features_;  // see keep(); destroyed in reverse below
  // Declared last so workers stop (and drain) before what they read goes away.
  worker_pool pool_;
};

}  // namespace mcpcxx::detail

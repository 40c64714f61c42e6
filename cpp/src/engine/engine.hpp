// detail::engine: one server assembled from its parts. The core (core/server_core.hpp) holds what
// every request needs; the features are added around it: the catalog's methods and per-tool
// steps (methods/), tasks (tasks/), listen streams and legacy broadcasts fed by the notification
// bus (listen/). This is the only place that knows every feature; server and session
// (cpp/include/mcpcxx/server.hpp) are implemented on it (server.cpp).
// Thread-safety: every member may be called from any thread once constructed; stop() runs once,
// from ~server.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "mcpcxx/server.hpp"

#include "core/server_core.hpp"
#include "core/tool_step.hpp"
#include "engine/mount.hpp"
#include "engine/shared_store.hpp"
#include "listen/legacy_broadcast.hpp"
#include "listen/list_announcer.hpp"
#include "listen/listeners.hpp"
#include "methods/once_step.hpp"
#include "skills/skills_service.hpp"
#include "tasks/tasks.hpp"

namespace mcpcxx::detail {

/// A server's core and features (see the file comment).
class engine {
 public:
  explicit engine(server_options options);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Ends tasks and listen streams, finishes queued work and joins the threads (~server).
  void stop();

  /// The core: what the transports' sessions run on.
  const std::shared_ptr<server_core>& core() const noexcept { return core_; }
  /// Tools, resources, prompts, completion and extensions.
  catalog& registry() noexcept { return core_->registry(); }
  /// The Skills extension (server::add_skills).
  skills_service& skills() noexcept { return *skills_; }
  /// Legacy sessions, for list_changed and resources/updated.
  legacy_broadcast& legacy_sessions() noexcept { return *legacy_; }
  /// The servers mounted into this one and those it is mounted into (server::mount).
  mounts& mount_table() noexcept { return *mounts_; }

  /// Moves the bus's delivery, the task store and the listen registrations onto `store`, shared
  /// with the other replicas (engine/store_wiring.cpp). Once, before serving; throws
  /// std::logic_error when a store is attached already.
  void attach_store(std::shared_ptr<shared_store> store);
  /// The attached shared store, or null (state in this process only).
  const std::shared_ptr<shared_store>& store() const noexcept { return store_; }

  /// Sends notifications/resources/updated for `uri` to whoever follows it.
  void notify_resource_updated(std::string_view uri);
  /// The request metrics with the handler gauges.
  server_metrics metrics() const;
  /// Every metric in the Prometheus text format.
  std::string metrics_text() const;

 private:
  void decorate_tool(tool_entry& entry);
  void warn_if_destructive(const tool_spec& spec);
  void bind_methods();

  // The features live as long as the core (server_core::keep): sessions may outlive the server.
  std::shared_ptr<server_core> core_;
  task_manager* tasks_ = nullptr;
  legacy_broadcast* legacy_ = nullptr;
  listener_registry* listeners_ = nullptr;
  list_announcer* announcer_ = nullptr;
  skills_service* skills_ = nullptr;
  std::shared_ptr<const tool_step> scope_step_;
  std::shared_ptr<const tool_step> task_step_;
  std::shared_ptr<once_service> once_;
  std::shared_ptr<const tool_step> once_step_;
  std::mutex warned_mutex_;
  std::unordered_set<std::string> warned_destructive_;  // tools warned about (once per name)
  std::shared_ptr<shared_store> store_;
  std::unique_ptr<mounts> mounts_;
  /// What attach_store() started (bus bridge, lease renewal): stopped first by stop().
  std::shared_ptr<void> store_links_;
};

}  // namespace mcpcxx::detail

// detail::engine: the state shared by all sessions of one server (registries, capabilities,
// worker pool, deadlines, log, metrics, list cache).
// Thread-safety: every member function may be called concurrently; registries are guarded by
// a shared mutex (readers: request handling; writers: registration).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "mcpcxx/server.hpp"

#include "engine/cache_hints.hpp"
#include "engine/deadline_scheduler.hpp"
#include "engine/listeners.hpp"
#include "engine/metrics_registry.hpp"
#include "engine/registry.hpp"
#include "engine/server_log.hpp"
#include "engine/tasks.hpp"
#include "engine/worker_pool.hpp"
#include "state/sealer.hpp"

namespace mcpcxx::detail {

class session_state;

/// Registration changes of one family closer together than this share a list_changed.
inline constexpr std::chrono::milliseconds k_list_changed_window{20};

/// Outcome classes counted by the metrics and named in the request log.
enum class outcome_class { ok, tool_error, protocol_error, cancelled };

/// Shared engine state.
class engine : public std::enable_shared_from_this<engine> {
 public:
  explicit engine(server_options options);
  ~engine();
  /// Finishes queued work and joins the worker and deadline threads on the calling thread.
  /// Called by ~server, so the last reference to the engine is never dropped on a thread the
  /// engine would then have to join.
  void stop();

  const server_options& options() const noexcept { return options_; }
  server_log& log() noexcept { return log_; }
  worker_pool& pool() noexcept { return pool_; }
  deadline_scheduler& deadlines() noexcept { return deadlines_; }
  /// Tasks: the store and the task threads.
  task_manager& tasks() noexcept { return *tasks_; }
  /// True when some registered tool may run as a task.
  bool has_task_tools() const;
  /// Seals and opens 2026-07-28 requestState (keys from the options, or a random one).
  const state::sealer& request_states() const noexcept { return request_states_; }
  /// The Implementation object (serverInfo).
  const json& server_info() const noexcept { return server_info_; }
  /// server_info() as compact JSON, spliced into every modern result's _meta.
  const std::string& server_info_text() const noexcept { return server_info_text_; }

  void add_tool(tool_spec spec, tool_handler handler);
  /// A tool whose handler completes later; its blocking form serves task calls.
  void add_async_tool(tool_spec spec, async_tool_handler handler);
  bool remove_tool(std::string_view name);
  void add_resource(resource_spec spec, resource_reader reader);
  bool remove_resource(std::string_view uri);
  void add_resource_template(resource_template_spec spec, resource_template_reader reader);
  bool remove_resource_template(std::string_view uri_template);
  void add_prompt(prompt_spec spec, prompt_handler handler);
  bool remove_prompt(std::string_view name);
  void set_completion_handler(completion_handler handler);
  /// Declares extension `id` (see server::add_extension); throws std::invalid_argument.
  void add_extension(std::string id, json settings);
  /// Withdraws extension `id`; false when not declared.
  bool remove_extension(std::string_view id);

  std::shared_ptr<const tool_entry> find_tool(std::string_view name) const;
  std::shared_ptr<const resource_entry> find_resource(std::string_view uri) const;
  /// The first template matching `uri`, with its variables.
  std::shared_ptr<const template_entry> match_template(
      std::string_view uri, std::map<std::string, std::string>& vars) const;
  std::shared_ptr<const prompt_entry> find_prompt(std::string_view name) const;
  /// P17's `didYouMean`: the tool names closest to `name` that `principal` may see (never a
  /// hidden tool). Takes the registry's shared lock.
  std::vector<std::string> closest_tool_names(std::string_view name, const json& principal) const;
  /// P19's `didYouMean`: the prompt names closest to `name`. Takes the registry's shared lock.
  std::vector<std::string> closest_prompt_names(std::string_view name) const;
  completion_handler completion() const;

  /// Serialized `result` of a list method for (method, era, cursor); null for a bad cursor.
  /// Cached until the registry behind `method` changes.
  std::shared_ptr<const std::string> list_result(std::string_view method, bool modern,
                                                 const std::optional<std::string>& cursor);

  /// True when some registered tool requires scopes (tools/list then varies by principal).
  bool has_scoped_tools() const noexcept { return scoped_tools_.load() > 0; }
  /// Serialized tools/list `result` of the tools `principal` may use (uncached, cacheScope
  /// "private"); null for a bad cursor.
  std::shared_ptr<const std::string> tools_list_for(const json& principal, bool modern,
                                                    const std::optional<std::string>& cursor);

  /// The ServerCapabilities object currently advertised.
  json capabilities() const;
  /// True when capability `name` ("tools", "resources", ...) is advertised.
  bool has_capability(std::string_view name) const;

  /// Tracks a session for list_changed broadcasts.
  void track(const std::shared_ptr<session_state>& s);
  /// Sends `method` to every live, initialized legacy session.
  void broadcast_legacy(std::string_view method, const json& params);
  /// Sends notifications/resources/updated to legacy sessions subscribed to `uri` and to the
  /// listen streams watching it.
  void notify_resource_updated(std::string_view uri);
  /// The open subscriptions/listen streams (publish notifications to them here).
  listener_registry& listeners() noexcept { return listeners_; }

  /// Remembers that session `s` was asked for URL-mode elicitation `id`.
  void remember_elicitation(const std::string& id, const std::shared_ptr<session_state>& s);
  /// Sends notifications/elicitation/complete to the session remembered for `id` (once).
  bool notify_elicitation_complete(std::string_view id);

  /// Counts a message that never became a request (refused, or a notification).
  void count(outcome_class o, std::string_view category);
  server_metrics metrics() const;
  /// The request metrics (exchanges record into them).
  metrics_registry& stats() noexcept { return stats_; }
  /// Every metric in the Prometheus text format.
  std::string metrics_text() const;
  /// The attached tracer; null when none (the only per-request cost of tracing).
  tracer* tracer_ptr() const noexcept { return tracer_.get(); }
  /// Attaches a tracer (before serving; see server::set_tracer).
  void set_tracer(std::shared_ptr<tracer> t) { tracer_ = std::move(t); }

 private:
  /// add_tool and add_async_tool: checks the spec and publishes the entry.
  void register_tool(tool_spec spec, tool_handler handler, async_tool_handler async);
  std::optional<std::size_t> resolve_cursor(std::string_view method,
                                            const std::optional<std::string>& cursor) const;
  json build_list_page(std::string_view method, std::size_t start) const;
  void add_task_support(json& tools_page) const;
  bool any_task_tool() const;  // under registry_mutex_
  /// The cache hints of a list result: every entry of the list behind `method` combined.
  resolved_hint list_hints(std::string_view method) const;
  void invalidate(std::string_view method_prefix);
  /// Adds `entry` under the registry lock (throws on a duplicate key), then calls changed().
  template <class Entry>
  void publish(ordered_registry<Entry>& reg, const std::string& key,
               std::shared_ptr<const Entry> entry, std::string_view what, std::string_view family);
  /// Drops cached pages of `family` ("tools", ...) and announces the change (announce()).
  void changed(std::string_view family);
  /// Sends notifications/<family>/list_changed to initialized legacy sessions and to listen
  /// streams that asked for it: at once when the family's last announcement is older than
  /// k_list_changed_window, else once at the end of that window (a burst of registrations
  /// becomes at most two notifications per window).
  void announce(std::string_view family);
  void announce_now(const std::string& family);
  /// True when an initialized legacy session or a listener asking for `family` exists; a
  /// change nobody follows schedules nothing (a session that starts later reads the new list).
  bool has_audience(const std::string& family);

  server_options options_;
  json server_info_;
  std::string server_info_text_;
  server_log log_;
  deadline_scheduler deadlines_;
  state::sealer request_states_;

  mutable std::shared_mutex registry_mutex_;
  ordered_registry<tool_entry> tools_;
  std::atomic<std::size_t> scoped_tools_{0};  ///< tools with non-empty spec.scopes
  ordered_registry<resource_entry> resources_;
  ordered_registry<template_entry> templates_;
  ordered_registry<prompt_entry> prompts_;
  completion_handler completion_;
  json extensions_ = json::object();  ///< declared extensions: id -> settings

  std::mutex cache_mutex_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> list_cache_;
  std::uint64_t cache_generation_ = 0;

  struct announcement {
    std::chrono::steady_clock::time_point last{};
    bool trailing = false;  ///< one announcement is scheduled at the end of the window
  };
  std::mutex announce_mutex_;
  std::unordered_map<std::string, announcement> announced_;

  listener_registry listeners_{*this};

  mutable std::mutex sessions_mutex_;
  std::vector<std::weak_ptr<session_state>> sessions_;

  std::mutex elicitations_mutex_;
  std::unordered_map<std::string, std::weak_ptr<session_state>> elicitations_;

  metrics_registry stats_;
  std::shared_ptr<tracer> tracer_;

  std::unique_ptr<task_manager> tasks_;

  // Declared last so workers stop (and drain) before the registries they read go away.
  worker_pool pool_;
};

}  // namespace mcpcxx::detail

// detail::catalog: what a server offers (tools, resources, resource templates, prompts, the
// completion handler, declared extensions), the capabilities that follows from it, and the cached
// list pages. Registration checks a primitive completely before it becomes visible; a change
// drops the cached pages of its family and is reported to the change callback (the engine
// announces it on the notification bus).
// Thread-safety: every member may be called concurrently. The registries share one reader/writer
// lock (readers: request handling; writers: registration); the page cache has its own mutex. The
// change callback and the tool decorator run on the registering thread, outside the lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mcpcxx/server.hpp"

#include "registry/access.hpp"
#include "registry/cache_hints.hpp"
#include "registry/registry.hpp"

namespace mcpcxx::detail {

/// The extension id of tasks on 2026-07-28 (advertised while some tool may run as a task).
inline constexpr std::string_view k_tasks_extension = "io.modelcontextprotocol/tasks";
/// The Skills extension id: while declared, `resources` is advertised (skill files are resources).
inline constexpr std::string_view k_skills_extension = "io.modelcontextprotocol/skills";

/// The server's primitives and the list pages built from them.
class catalog {
 public:
  /// Told the family ("tools", "resources", "prompts") whose entries changed.
  using change_callback = std::function<void(std::string_view family)>;
  /// Completes a tool entry before it is published (metrics slot, per-tool steps).
  using tool_decorator = std::function<void(tool_entry&)>;

  /// `options` must outlive the catalog; `server_info` is spliced into modern list pages.
  catalog(const server_options& options, json server_info);

  /// Sets the change callback and the tool decorator; before the first registration.
  void connect(change_callback on_change, tool_decorator decorate);

  /// Registers a tool; throws std::invalid_argument naming what is wrong.
  void add_tool(tool_spec spec, tool_handler handler);
  /// Registers a tool whose handler completes later; its blocking form serves task calls.
  void add_async_tool(tool_spec spec, async_tool_handler handler);
  /// Removes tool `name`; false when absent.
  bool remove_tool(std::string_view name);
  /// Registers a concrete resource; throws std::invalid_argument.
  void add_resource(resource_spec spec, resource_reader reader);
  /// Removes resource `uri`; false when absent.
  bool remove_resource(std::string_view uri);
  /// Registers a resource template; throws std::invalid_argument.
  void add_resource_template(resource_template_spec spec, resource_template_reader reader);
  /// Removes the template registered as `uri_template`; false when absent.
  bool remove_resource_template(std::string_view uri_template);
  /// Registers a prompt; throws std::invalid_argument.
  void add_prompt(prompt_spec spec, prompt_handler handler);
  /// Removes prompt `name`; false when absent.
  bool remove_prompt(std::string_view name);
  /// Sets (or clears, with an empty handler) the completion/complete handler.
  void set_completion_handler(completion_handler handler);
  /// Declares extension `id` (see server::add_extension); throws std::invalid_argument.
  void add_extension(std::string id, json settings);
  /// Withdraws extension `id`; false when not declared.
  bool remove_extension(std::string_view id);

  /// The tool `name`; null when absent.
  std::shared_ptr<const tool_entry> find_tool(std::string_view name) const {
    std::shared_lock lock(mutex_);
    return tools_.find(name);
  }
  /// The resource `uri`; null when absent.
  std::shared_ptr<const resource_entry> find_resource(std::string_view uri) const;
  /// The first template matching `uri`, with its variables.
  std::shared_ptr<const template_entry> match_template(
      std::string_view uri, std::map<std::string, std::string>& vars) const;
  /// The prompt `name`; null when absent.
  std::shared_ptr<const prompt_entry> find_prompt(std::string_view name) const;
  /// P17's `didYouMean`: the tool names closest to `name` that `principal` may see.
  std::vector<std::string> closest_tool_names(std::string_view name, const json& principal) const;
  /// P19's `didYouMean`: the prompt names closest to `name` that `principal` may see.
  std::vector<std::string> closest_prompt_names(std::string_view name, const json& principal) const;
  /// The completion handler (empty when none).
  completion_handler completion() const;
  /// Every registered tool, in order (a snapshot).
  std::vector<std::shared_ptr<const tool_entry>> all_tools() const;
  /// Every registered concrete resource, in order (a snapshot).
  std::vector<std::shared_ptr<const resource_entry>> all_resources() const;
  /// Every registered resource template, in order (a snapshot).
  std::vector<std::shared_ptr<const template_entry>> all_templates() const;
  /// Every registered prompt, in order (a snapshot).
  std::vector<std::shared_ptr<const prompt_entry>> all_prompts() const;

  /// Serialized `result` of a list method for (method, era, cursor); null for a bad cursor.
  /// Cached until the registry behind `method` changes.
  std::shared_ptr<const std::string> list_result(std::string_view method, bool modern,
                                                 const std::optional<std::string>& cursor);
  /// True when some entry of list `method` has scopes or a principal rule (the list then varies
  /// by principal and is built per request).
  bool varies_by_principal(std::string_view method) const noexcept;
  /// Serialized `result` of list `method` with only the entries `principal` may use (uncached,
  /// cacheScope "private"); null for a bad cursor. Rules that threw are appended to `failures`
  /// (their entries are left out).
  std::shared_ptr<const std::string> list_for(std::string_view method, const json& principal,
                                              bool modern, const std::optional<std::string>& cursor,
                                              std::vector<rule_failure>& failures);
  /// True when `principal` may read `uri` (its resource's or template's scopes and rule; an
  /// unknown URI, or a rule that throws: as allowed / refused). Cheap without guarded entries.
  bool may_read(const std::string& uri, const json& principal) const;
  /// The template registered as `uri_template`; null when absent.
  std::shared_ptr<const template_entry> find_template(std::string_view uri_template) const;

  /// The ServerCapabilities object currently advertised.
  json capabilities() const;
  /// True when capability `name` ("tools", "resources", ...) is advertised; lock-free for tools
  /// and prompts, which every tools/call and prompts/get checks.
  bool has_capability(std::string_view name) const {
    if (name == "tools") return has_tools_.load(std::memory_order_acquire);
    if (name == "prompts") return has_prompts_.load(std::memory_order_acquire);
    return has_other_capability(name);
  }
  /// True when some registered tool may run as a task.
  bool has_task_tools() const;

 private:
  void register_tool(tool_spec spec, tool_handler handler, async_tool_handler async);
  std::shared_ptr<tool_entry> tool_entry_for(tool_spec spec) const;
  std::optional<std::size_t> resolve_cursor(std::string_view method,
                                            const std::optional<std::string>& cursor) const;
  json build_list_page(std::string_view method, std::size_t start) const;
  void add_task_support(json& tools_page) const;
  bool any_task_tool() const;  // under mutex_
  bool has_other_capability(std::string_view name) const;
  void note_emptiness();  // under mutex_ (unique): refreshes has_tools_ and has_prompts_
  resolved_hint list_hints(std::string_view method) const;
  void invalidate(std::string_view method_prefix);
  template <class Entry>
  void publish(ordered_registry<Entry>& reg, const std::string& key,
               std::shared_ptr<const Entry> entry, std::string_view what, std::string_view family);
  template <class Entry>
  bool withdraw(ordered_registry<Entry>& reg, std::string_view key, std::string_view family);
  void changed(std::string_view family);
  std::atomic<std::size_t>& guards_of(const ordered_registry<tool_entry>&) {
    return guarded_tools_;
  }
  std::atomic<std::size_t>& guards_of(const ordered_registry<resource_entry>&) {
    return guarded_resources_;
  }
  std::atomic<std::size_t>& guards_of(const ordered_registry<template_entry>&) {
    return guarded_templates_;
  }
  std::atomic<std::size_t>& guards_of(const ordered_registry<prompt_entry>&) {
    return guarded_prompts_;
  }

  const server_options& options_;
  json server_info_;
  change_callback on_change_;
  tool_decorator decorate_;

  mutable std::shared_mutex mutex_;
  ordered_registry<tool_entry> tools_;
  // Entries with scopes or a principal rule, per registry: nonzero makes the list per principal.
  std::atomic<std::size_t> guarded_tools_{0};
  std::atomic<std::size_t> guarded_resources_{0};
  std::atomic<std::size_t> guarded_templates_{0};
  std::atomic<std::size_t> guarded_prompts_{0};
  ordered_registry<resource_entry> resources_;
  ordered_registry<template_entry> templates_;
  ordered_registry<prompt_entry> prompts_;
  // Whether tools_ / prompts_ are non-empty, written under mutex_ so the capability gate of
  // each call reads them without the lock.
  std::atomic<bool> has_tools_{false};
  std::atomic<bool> has_prompts_{false};
  completion_handler completion_;
  json extensions_ = json::object();  ///< declared extensions: id -> settings

  std::mutex cache_mutex_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> list_cache_;
  std::uint64_t cache_generation_ = 0;
};

}  // namespace mcpcxx::detail

// The catalog's list pages: cursors, cached pages per (method, era, position), the caching
// hints of a whole list, and the per-principal lists of servers with guarded primitives.
#include <algorithm>
#include <type_traits>

#include "registry/access.hpp"
#include "registry/catalog.hpp"

namespace mcpcxx::detail {

namespace {

template <class Entry>
void combine_all(resolved_hint& h, const ordered_registry<Entry>& reg, const server_options& o) {
  for (const auto& e : reg.all()) combine(h, e->spec.cache, o);
}

template <class Entry>
json page_json(const ordered_registry<Entry>& reg, const char* field, std::size_t start,
               std::size_t page_size) {
  auto p = reg.page_from(start, page_size);
  json items = json::array();
  for (const auto& e : p.items) items.push_back(e->listed);
  json result = {{field, std::move(items)}};
  if (p.next_cursor) result["nextCursor"] = *p.next_cursor;
  return result;
}

}  // namespace

// 2025-11-25 Tool execution.taskSupport (removed from the 2026-07-28 core, so legacy pages only).
void catalog::add_task_support(json& page) const {
  for (json& tool : page["tools"]) {
    const auto t = find_tool(tool["name"].get<std::string>());
    if (t && t->spec.task != task_support::forbidden) {
      tool["execution"] = {{"taskSupport", std::string(to_string(t->spec.task))}};
    }
  }
}

std::optional<std::size_t> catalog::resolve_cursor(std::string_view method,
                                                   const std::optional<std::string>& cursor) const {
  if (!cursor) return 0;
  std::shared_lock lock(mutex_);
  if (method == "tools/list") return tools_.resolve(cursor);
  if (method == "resources/list") return resources_.resolve(cursor);
  if (method == "resources/templates/list") return templates_.resolve(cursor);
  return prompts_.resolve(cursor);
}

json catalog::build_list_page(std::string_view method, std::size_t start) const {
  std::shared_lock lock(mutex_);
  const std::size_t n = options_.page_size;
  if (method == "tools/list") return page_json(tools_, "tools", start, n);
  if (method == "resources/list") return page_json(resources_, "resources", start, n);
  if (method == "resources/templates/list") {
    return page_json(templates_, "resourceTemplates", start, n);
  }
  return page_json(prompts_, "prompts", start, n);
}

resolved_hint catalog::list_hints(std::string_view method) const {
  std::shared_lock lock(mutex_);
  // The whole list, not the page: the spec wants one cacheScope on every page of a list.
  resolved_hint h = open_hint();
  if (method == "tools/list") {
    combine_all(h, tools_, options_);
  } else if (method == "resources/list") {
    combine_all(h, resources_, options_);
  } else if (method == "resources/templates/list") {
    combine_all(h, templates_, options_);
  } else {
    combine_all(h, prompts_, options_);
  }
  return finish(std::move(h), options_);
}

std::shared_ptr<const std::string> catalog::list_result(std::string_view method, bool modern,
                                                        const std::optional<std::string>& cursor) {
  const auto start = resolve_cursor(method, cursor);
  if (!start) return nullptr;
  // Keyed by the resolved position, so hostile cursor variants cannot grow the cache.
  std::string key(method);
  key += modern ? "|m|" : "|l|";
  key += std::to_string(*start);
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(cache_mutex_);
    if (auto it = list_cache_.find(key); it != list_cache_.end()) return it->second;
    generation = cache_generation_;
  }
  json result = build_list_page(method, *start);
  if (!modern && method == "tools/list") add_task_support(result);
  if (modern) {
    result["resultType"] = "complete";
    put_hints(result, list_hints(method));
    result["_meta"] = {{"io.modelcontextprotocol/serverInfo", server_info_}};
  }
  auto text = std::make_shared<const std::string>(result.dump());
  std::lock_guard lock(cache_mutex_);
  // A registration between our read and now makes this page stale: serve it, do not cache it.
  if (generation == cache_generation_) list_cache_.emplace(std::move(key), text);
  return text;
}

void catalog::invalidate(std::string_view method_prefix) {
  std::lock_guard lock(cache_mutex_);
  ++cache_generation_;
  for (auto it = list_cache_.begin(); it != list_cache_.end();) {
    if (it->first.rfind(method_prefix, 0) == 0) {
      it = list_cache_.erase(it);
    } else {
      ++it;
    }
  }
}

bool catalog::varies_by_principal(std::string_view method) const noexcept {
  if (method == "tools/list") return guarded_tools_.load() > 0;
  if (method == "resources/list") return guarded_resources_.load() > 0;
  if (method == "resources/templates/list") return guarded_templates_.load() > 0;
  return guarded_prompts_.load() > 0;
}

namespace {

template <class Entry>
const std::string& key_of(const Entry& e) {
  if constexpr (std::is_same_v<Entry, resource_entry>) {
    return e.spec.uri;
  } else if constexpr (std::is_same_v<Entry, template_entry>) {
    return e.spec.uri_template;
  } else {
    return e.spec.name;
  }
}

// One page of the entries `principal` may use, from position `start` (page_size of them).
template <class Entry>
json visible_page(const ordered_registry<Entry>& reg, const char* field, const char* primitive,
                  std::size_t start, std::size_t page_size, const json& principal,
                  std::vector<rule_failure>& failures) {
  json items = json::array();
  const auto& all = reg.all();
  std::size_t i = std::min(start, all.size());
  for (; i < all.size() && items.size() < std::max<std::size_t>(page_size, 1); ++i) {
    std::exception_ptr error;
    const access a = check_access(all[i]->spec, principal, &error);
    if (a == access::allowed) items.push_back(all[i]->listed);
    if (a == access::failed) failures.push_back({primitive, key_of(*all[i]), error});
  }
  json result = {{field, std::move(items)}};
  if (i < all.size()) result["nextCursor"] = encode_cursor(i, reg.keys()[i]);
  return result;
}

}  // namespace

std::shared_ptr<const std::string> catalog::list_for(std::string_view method, const json& principal,
                                                     bool modern,
                                                     const std::optional<std::string>& cursor,
                                                     std::vector<rule_failure>& failures) {
  const auto start = resolve_cursor(method, cursor);
  if (!start) return nullptr;
  json result;
  {
    std::shared_lock lock(mutex_);
    const std::size_t n = options_.page_size;
    if (method == "tools/list") {
      result = visible_page(tools_, "tools", "tool", *start, n, principal, failures);
    } else if (method == "resources/list") {
      result = visible_page(resources_, "resources", "resource", *start, n, principal, failures);
    } else if (method == "resources/templates/list") {
      result = visible_page(templates_, "resourceTemplates", "resource template", *start, n,
                            principal, failures);
    } else {
      result = visible_page(prompts_, "prompts", "prompt", *start, n, principal, failures);
    }
  }
  if (!modern && method == "tools/list") add_task_support(result);
  if (modern) {
    result["resultType"] = "complete";
    resolved_hint h = list_hints(method);
    h.scope = "private";  // the list varies by the authorization presented
    put_hints(result, h);
    result["_meta"] = {{"io.modelcontextprotocol/serverInfo", server_info_}};
  }
  return std::make_shared<const std::string>(result.dump());
}

}  // namespace mcpcxx::detail

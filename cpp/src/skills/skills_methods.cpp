// skills/list, skills/get and resources/directory/read (skills_methods.hpp).
#include "skills/skills_methods.hpp"

#include <algorithm>
#include <vector>

#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "registry/registry.hpp"

namespace mcpcxx::detail {

namespace {

// The start of the page `cursor` names in `keys` (a cursor names the index and the key found
// there when it was issued, so a reload that moved things makes it stale); nullopt for a cursor
// this server did not issue or that no longer applies.
template <class KeyOf, class Items>
std::optional<std::size_t> skills_page_start(const std::optional<std::string>& cursor,
                                             const Items& items, KeyOf key_of) {
  if (!cursor) return 0;
  const auto decoded = decode_cursor(*cursor);
  if (!decoded || decoded->first >= items.size()) return std::nullopt;
  if (key_of(items[decoded->first]) != decoded->second) return std::nullopt;
  return decoded->first;
}

// One page of `items` from `start` into result[member], with nextCursor when more follow.
template <class KeyOf, class ToJson, class Items>
void skills_fill_page(json& result, const char* member, const Items& items, std::size_t start,
                      std::size_t page_size, KeyOf key_of, ToJson to_json) {
  json page = json::array();
  const std::size_t end = std::min(items.size(), start + std::max<std::size_t>(page_size, 1));
  for (std::size_t i = start; i < end; ++i) page.push_back(to_json(items[i]));
  result[member] = std::move(page);
  if (end < items.size()) result["nextCursor"] = encode_cursor(end, key_of(items[end]));
}

method_outcome handle_skills_list(skills_service& s, const exchange_ptr& ex, list_params& p) {
  const auto tree = s.tree();
  static const std::vector<skills::skill_entry> k_none;
  const auto& items = tree ? tree->skills : k_none;
  const auto key = [](const skills::skill_entry& e) -> const std::string& { return e.uri; };
  const auto start = skills_page_start(p.cursor, items, key);
  if (!start) return method_outcome::protocol(situation::P18_invalid_cursor);
  json result = json::object();
  skills_fill_page(result, "skills", items, *start, ex->core().options().page_size, key,
                   [](const skills::skill_entry& e) { return skills::skill_json(e); });
  s.put_cache_hints(result);
  return method_outcome::ok(std::move(result));
}

method_outcome handle_skills_get(skills_service& s, const exchange_ptr&, uri_params& p) {
  const auto tree = s.tree();
  if (tree) {
    for (const auto& skill : tree->skills) {
      if (skill.uri != p.uri) continue;
      json result = {{"skill", skills::skill_json(skill)}};
      s.put_cache_hints(result);
      return method_outcome::ok(std::move(result));
    }
  }
  return method_outcome::protocol(situation::P61_unknown_skill, {{"uri", p.uri}});
}

json child_json(const skills::directory_child& c) {
  json j = {{"uri", c.uri}, {"name", c.name}, {"mimeType", c.mime_type}};
  if (c.size) j["size"] = *c.size;
  return j;
}

method_outcome handle_directory_read(skills_service& s, const exchange_ptr& ex,
                                     directory_read_params& p) {
  // Without directoryRead the method is not served: an unknown method, as the extension says.
  if (!s.directory_read()) {
    return method_outcome::protocol(situation::P8_method_not_found, {{"method", ex->method()}});
  }
  const auto tree = s.tree();
  if (!tree) return method_outcome::protocol(situation::P62_not_a_directory, {{"uri", p.uri}});
  const auto dir = tree->directories.find(p.uri);
  if (dir == tree->directories.end()) {
    return method_outcome::protocol(situation::P62_not_a_directory, {{"uri", p.uri}});
  }
  const auto& items = dir->second;
  const auto key = [](const skills::directory_child& c) -> const std::string& { return c.uri; };
  const auto start = skills_page_start(p.cursor, items, key);
  if (!start) return method_outcome::protocol(situation::P18_invalid_cursor);
  json result = json::object();
  skills_fill_page(result, "resources", items, *start, ex->core().options().page_size, key,
                   child_json);
  // The extension types this result as a PaginatedResult only; the official TypeScript client
  // (2.4) requires the CacheableResult fields on 2026-07-28, so it carries them like skills/get.
  s.put_cache_hints(result);
  return method_outcome::ok(std::move(result));
}

}  // namespace

decode_result decode(json& params, std::string_view method, directory_read_params& out) {
  uri_params uri;
  if (auto refusal = decode(params, method, uri)) return refusal;
  out.uri = std::move(uri.uri);
  list_params list;
  if (auto refusal = decode(params, method, list)) return refusal;
  out.cursor = std::move(list.cursor);
  return std::nullopt;
}

void bind_skills_methods(method_bindings& methods, skills_service& service) {
  methods.bind<&handle_skills_list>("skills/list", service);
  methods.bind<&handle_skills_get>("skills/get", service);
  methods.bind<&handle_directory_read>("resources/directory/read", service);
}

}  // namespace mcpcxx::detail

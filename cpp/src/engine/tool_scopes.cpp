#include "engine/tool_scopes.hpp"

#include <stdexcept>

#include "mcpcxx/context.hpp"

#include "engine/engine.hpp"

namespace mcpcxx::detail {

namespace {

bool scope_token(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (c < 0x21 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

std::string space_joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

void check_tool_scopes(const std::vector<std::string>& scopes, std::string_view what) {
  for (const auto& s : scopes) {
    if (!scope_token(s)) {
      throw std::invalid_argument(std::string(what) + " scope '" + s.substr(0, 80) +
                                  "' is not a scope token: use visible ASCII without spaces, "
                                  "'\"' or '\\\\'");
    }
  }
}

bool tool_visible(const tool_entry& t, const json& principal) {
  return t.spec.scopes.empty() || missing_scopes(principal, t.spec.scopes).empty();
}

std::optional<method_outcome> scope_refusal(const tool_entry& t, const json& principal) {
  if (tool_visible(t, principal)) return std::nullopt;
  json args = {{"name", t.spec.name}, {"scopes", space_joined(t.spec.scopes)}};
  if (principal.is_null()) {
    return method_outcome::protocol(situation::P56_tool_needs_authentication, args);
  }
  args["missing"] = space_joined(missing_scopes(principal, t.spec.scopes));
  return method_outcome::protocol(situation::P55_tool_insufficient_scope, args);
}

std::vector<std::string> engine::closest_tool_names(std::string_view name,
                                                    const json& principal) const {
  std::shared_lock lock(registry_mutex_);
  if (!has_scoped_tools()) return closest_keys(name, tools_.keys());
  std::vector<std::string> visible;
  for (const auto& t : tools_.all()) {
    if (tool_visible(*t, principal)) visible.push_back(t->spec.name);
  }
  return closest_keys(name, visible);
}

std::shared_ptr<const std::string> engine::tools_list_for(
    const json& principal, bool modern, const std::optional<std::string>& cursor) {
  const auto start = resolve_cursor("tools/list", cursor);
  if (!start) return nullptr;
  json items = json::array();
  std::optional<std::string> next;
  {
    std::shared_lock lock(registry_mutex_);
    const auto& all = tools_.all();
    const auto& keys = tools_.keys();
    std::size_t i = std::min(*start, all.size());
    for (; i < all.size() && items.size() < std::max<std::size_t>(options_.page_size, 1); ++i) {
      if (tool_visible(*all[i], principal)) items.push_back(all[i]->listed);
    }
    if (i < all.size()) next = encode_cursor(i, keys[i]);
  }
  json result = {{"tools", std::move(items)}};
  if (next) result["nextCursor"] = *next;
  if (modern) {
    result["resultType"] = "complete";
    resolved_hint h = list_hints("tools/list");
    h.scope = "private";  // the list varies by the authorization presented
    put_hints(result, h);
    result["_meta"] = {{"io.modelcontextprotocol/serverInfo", server_info_}};
  }
  return std::make_shared<const std::string>(result.dump());
}

}  // namespace mcpcxx::detail

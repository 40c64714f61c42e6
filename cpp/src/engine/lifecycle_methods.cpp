// initialize, ping, server/discover and logging/setLevel.
#include <algorithm>

#include "engine/call.hpp"
#include "engine/method_table.hpp"
#include "engine/wire_errors.hpp"

namespace mcpcxx::detail {

namespace {

// The legacy revisions we serve through initialize.
bool is_legacy_version(std::string_view v) {
  return std::any_of(std::begin(k_supported_versions), std::end(k_supported_versions),
                     [&](const char* s) { return v == s && v != k_modern_version; });
}

// Capabilities without members that an older revision does not define.
json legacy_capabilities(const json& caps, std::string_view version) {
  json out = caps;
  out.erase("extensions");
  if (version < std::string_view("2025-03-26")) out.erase("completions");
  return out;
}

// 2026-07-28 delivers list changes and resource updates only through subscriptions/listen, which
// this engine does not implement yet, so the modern era must not advertise them.
json modern_capabilities(json caps) {
  for (const char* family : {"tools", "resources", "prompts"}) {
    if (!caps.contains(family)) continue;
    caps[family].erase("listChanged");
    caps[family].erase("subscribe");
  }
  return caps;
}

}  // namespace

void handle_initialize(call& c) {
  const legacy_state l = c.session->legacy();
  if (!l.version.empty()) {
    c.reply_error(wire::already_initialized(l.version));
    return;
  }
  const json& p = c.params;
  auto v = p.find("protocolVersion");
  if (v == p.end() || !v->is_string()) {
    c.reply_error(wire::invalid_params(
        "initialize needs params.protocolVersion (a string such as \"2025-11-25\")"));
    return;
  }
  auto caps = p.find("capabilities");
  if (caps != p.end() && !caps->is_object()) {
    c.reply_error(wire::invalid_params("initialize params.capabilities must be an object"));
    return;
  }
  const std::string& requested = v->get_ref<const std::string&>();
  const std::string chosen =
      is_legacy_version(requested) ? requested : std::string(k_latest_legacy_version);
  c.session->update_legacy([&](legacy_state& s) {
    s.version = chosen;
    s.client_capabilities = caps != p.end() ? *caps : json::object();
    if (auto info = p.find("clientInfo"); info != p.end()) s.client_info = *info;
  });
  c.version = chosen;
  json result = {{"protocolVersion", chosen},
                 {"capabilities", legacy_capabilities(c.eng().capabilities(), chosen)},
                 {"serverInfo", c.eng().server_info()}};
  if (const auto& ins = c.eng().options().instructions) result["instructions"] = *ins;
  c.reply_result(std::move(result));
}

void handle_ping(call& c) { c.reply_result(json::object()); }

void handle_discover(call& c) {
  json versions = json::array();
  for (const char* s : k_supported_versions) versions.push_back(s);
  json result = {{"supportedVersions", std::move(versions)},
                 {"capabilities", modern_capabilities(c.eng().capabilities())},
                 {"ttlMs", c.eng().options().list_ttl_ms},
                 {"cacheScope", c.eng().options().cache_scope}};
  if (const auto& ins = c.eng().options().instructions) result["instructions"] = *ins;
  c.reply_result(std::move(result));
}

void handle_set_level(call& c) {
  auto it = c.params.find("level");
  if (it == c.params.end()) {
    c.reply_error(wire::invalid_params("logging/setLevel needs params.level"));
    return;
  }
  auto level = it->is_string() ? parse_log_level(it->get_ref<const std::string&>()) : std::nullopt;
  if (!level) {
    c.reply_error(wire::invalid_log_level(*it));
    return;
  }
  c.session->update_legacy([&](legacy_state& s) { s.level = level; });
  c.reply_result(json::object());
}

}  // namespace mcpcxx::detail

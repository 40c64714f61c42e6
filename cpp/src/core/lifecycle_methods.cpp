// initialize, ping, server/discover and logging/setLevel.
#include "core/lifecycle_methods.hpp"

#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "wire/era.hpp"

namespace mcpcxx::detail {

namespace {

// Capabilities without members that an older revision does not define. `extensions` stays: the
// legacy schemas allow extra members, and a client that knows an extension looks for it there.
json legacy_capabilities(const json& caps, std::string_view version) {
  json out = caps;
  if (!::mcpcxx::wire::has(version, ::mcpcxx::wire::feature::completions)) out.erase("completions");
  return out;
}

}  // namespace

method_outcome handle_initialize(server_core& e, const exchange_ptr& ex, initialize_params& p) {
  const std::string negotiated = ex->session().legacy_version();
  if (!negotiated.empty())
    return method_outcome::protocol(situation::P7_already_initialized, {{"version", negotiated}});
  const std::string chosen = ::mcpcxx::wire::is_legacy_version(p.protocol_version)
                                 ? p.protocol_version
                                 : std::string(::mcpcxx::wire::k_latest_legacy);
  ex->session().update_legacy([&](legacy_state& s) {
    s.version = chosen;
    s.client_capabilities = std::move(p.capabilities);
    s.client_info = std::move(p.client_info);
  });
  ex->facts.version = chosen;
  json caps = legacy_capabilities(e.registry().capabilities(), chosen);
  if (::mcpcxx::wire::has(chosen, ::mcpcxx::wire::feature::tasks) &&
      e.registry().has_task_tools()) {
    // 2025-11-25 experimental tasks: tools/call may be task-augmented; tasks/list, tasks/cancel.
    caps["tasks"] = {{"list", json::object()},
                     {"cancel", json::object()},
                     {"requests", {{"tools", {{"call", json::object()}}}}}};
  }
  json result = {{"protocolVersion", chosen},
                 {"capabilities", std::move(caps)},
                 {"serverInfo", e.server_info()}};
  if (const auto& ins = e.options().instructions) result["instructions"] = *ins;
  return method_outcome::ok(std::move(result));
}

method_outcome handle_ping(server_core&, const exchange_ptr&, no_params&) {
  return method_outcome::ok(json::object());
}

method_outcome handle_discover(server_core& e, const exchange_ptr&, no_params&) {
  json versions = json::array();
  for (std::string_view s : ::mcpcxx::wire::k_versions) versions.push_back(s);
  json result = {{"supportedVersions", std::move(versions)},
                 {"capabilities", e.registry().capabilities()},
                 {"ttlMs", e.options().list_ttl_ms},
                 {"cacheScope", e.options().cache_scope}};
  if (const auto& ins = e.options().instructions) result["instructions"] = *ins;
  return method_outcome::ok(std::move(result));
}

method_outcome handle_set_level(server_core&, const exchange_ptr& ex, set_level_params& p) {
  ex->session().update_legacy([&](legacy_state& s) { s.level = p.level; });
  return method_outcome::ok(json::object());
}

void bind_lifecycle_methods(method_bindings& methods, server_core& core) {
  methods.bind<&handle_initialize>("initialize", core);
  methods.bind<&handle_ping>("ping", core);
  methods.bind<&handle_discover>("server/discover", core);
  methods.bind<&handle_set_level>("logging/setLevel", core);
}

}  // namespace mcpcxx::detail

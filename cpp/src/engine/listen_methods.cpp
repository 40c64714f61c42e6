// subscriptions/listen (2026-07-28): its params decoder (rows P39-P41, P44) and handler (P42, P43).
#include <algorithm>

#include "engine/engine.hpp"
#include "engine/exchange.hpp"
#include "engine/listeners.hpp"
#include "engine/method_table.hpp"

namespace mcpcxx::detail {

namespace {

constexpr const char* k_flags[] = {"toolsListChanged", "promptsListChanged",
                                   "resourcesListChanged"};

method_outcome refuse(situation row, const json& args) {
  return method_outcome::protocol(row, args);
}

decode_result decode_uris(const json& uris, std::vector<std::string>& out) {
  if (!uris.is_array()) {
    return refuse(situation::P41_listen_uris_not_array, {{"got", uris.type_name()}});
  }
  out.reserve(uris.size());
  for (std::size_t i = 0; i < uris.size(); ++i) {
    const json& u = uris[i];
    if (!u.is_string() || u.get_ref<const std::string&>().empty()) {
      const std::string got = u.is_string() ? "an empty string" : u.type_name();
      return refuse(situation::P44_listen_uri_invalid, {{"index", i}, {"got", got}});
    }
    out.push_back(u.get<std::string>());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return std::nullopt;
}

}  // namespace

// Members the schema does not name are allowed (SubscriptionFilter is open): they are kept in
// `requested` for the features that define them and left out of the acknowledgement.
decode_result decode(json& params, std::string_view, listen_params& out) {
  auto it = params.find("notifications");
  if (it == params.end() || !it->is_object()) {
    json args = json::object();
    if (it != params.end()) args["got"] = it->type_name();
    return refuse(situation::P39_listen_filter_missing, args);
  }
  const json& n = *it;
  bool* flags[] = {&out.filter.tools_list_changed, &out.filter.prompts_list_changed,
                   &out.filter.resources_list_changed};
  for (std::size_t i = 0; i < std::size(k_flags); ++i) {
    auto f = n.find(k_flags[i]);
    if (f == n.end()) continue;
    if (!f->is_boolean()) {
      return refuse(situation::P40_listen_flag_not_boolean,
                    {{"field", k_flags[i]}, {"got", f->type_name()}});
    }
    *flags[i] = f->get<bool>();
  }
  if (auto u = n.find("resourceSubscriptions"); u != n.end()) {
    if (auto r = decode_uris(*u, out.filter.resource_subscriptions)) return r;
  }
  out.filter.requested = n;
  return std::nullopt;
}

method_outcome handle_listen(const exchange_ptr& ex, listen_params& p) {
  engine& e = ex->eng();
  listen_filter& f = p.filter;
  const std::size_t max_uris = e.options().max_listen_uris;
  if (f.resource_subscriptions.size() > max_uris) {
    return refuse(situation::P42_listen_too_many_uris,
                  {{"count", f.resource_subscriptions.size()}, {"limit", max_uris}});
  }
  // Honor only what this server has: the acknowledgement lists exactly that subset.
  f.tools_list_changed = f.tools_list_changed && e.has_capability("tools");
  f.prompts_list_changed = f.prompts_list_changed && e.has_capability("prompts");
  const bool resources = e.has_capability("resources");
  f.resources_list_changed = f.resources_list_changed && resources;
  if (!resources) f.resource_subscriptions.clear();
  if (e.listeners().closed()) {
    // The server is stopping: the stream ends at once, as every open one just did.
    return method_outcome::ok(
        {{"_meta", {{k_subscription_id_key, jsonrpc::id_to_json(ex->id())}}}});
  }
  if (!e.listeners().open(ex, std::move(f))) {
    return refuse(situation::P43_listen_too_many_listeners, {{"limit", e.options().max_listeners}});
  }
  return method_outcome::pending();
}

}  // namespace mcpcxx::detail

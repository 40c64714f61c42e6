// resources/read, resources/subscribe, resources/unsubscribe, and request_context::read_resource.
#include <optional>

#include "mcpcxx/errors.hpp"

#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "methods/primitive_methods.hpp"

namespace mcpcxx::detail {

namespace {

json contents_json(const std::vector<resource_contents>& items) {
  json out = json::array();
  for (const auto& r : items) {
    json j = {{"uri", r.uri}};
    if (r.mime_type) j["mimeType"] = *r.mime_type;
    if (r.text) j["text"] = *r.text;
    if (r.blob_base64) j["blob"] = *r.blob_base64;
    if (!r.meta.is_null()) j["_meta"] = r.meta;
    out.push_back(std::move(j));
  }
  return out;
}

bool known_uri(server_core& e, const std::string& uri) {
  std::map<std::string, std::string> vars;
  return e.registry().find_resource(uri) || e.registry().match_template(uri, vars);
}

method_outcome unknown_resource(const exchange& ex, const std::string& uri) {
  const bool modern = ex.facts.modern;
  return method_outcome::protocol(
      modern ? situation::P21_resource_not_found_modern : situation::P20_resource_not_found_legacy,
      {{"uri", uri}});
}

// The reader's contents; nullopt when no resource or template matches `uri`. `hint`, when given,
// receives the cache hints of the resource or template read.
std::optional<std::vector<resource_contents>> run_reader(server_core& e, const std::string& uri,
                                                         request_context& ctx,
                                                         cache_hint* hint = nullptr) {
  if (auto r = e.registry().find_resource(uri)) {
    if (hint != nullptr) *hint = r->spec.cache;
    return r->reader(uri, ctx);
  }
  std::map<std::string, std::string> vars;
  auto t = e.registry().match_template(uri, vars);
  if (!t) return std::nullopt;
  if (hint != nullptr) *hint = t->spec.cache;
  return t->reader(uri, vars, ctx);
}

}  // namespace

json read_own_resource(server_core& e, const std::string& uri, request_context& ctx) {
  auto contents = run_reader(e, uri, ctx);
  if (!contents || contents->empty()) throw resource_not_found(uri);
  return contents_json(*contents);
}

method_outcome handle_resources_read(server_core& e, const exchange_ptr& ex, uri_params& p) {
  request_context ctx = ex->make_context(ex);
  cache_hint hint;
  auto contents = run_reader(e, p.uri, ctx, &hint);
  // An empty contents array must never stand in for a missing resource.
  if (!contents || contents->empty()) return unknown_resource(*ex, p.uri);
  json result = {{"contents", contents_json(*contents)}};
  if (ex->facts.modern) {
    resolved_hint h = open_hint();
    combine(h, hint, e.options());
    put_hints(result, h);
  }
  return method_outcome::ok(std::move(result));
}

method_outcome handle_resources_subscribe(server_core& e, const exchange_ptr& ex, uri_params& p) {
  if (!known_uri(e, p.uri)) return unknown_resource(*ex, p.uri);
  ex->session().update_legacy([&](legacy_state& s) { s.subscriptions.insert(p.uri); });
  return method_outcome::ok(json::object());
}

method_outcome handle_resources_unsubscribe(server_core&, const exchange_ptr& ex, uri_params& p) {
  ex->session().update_legacy([&](legacy_state& s) { s.subscriptions.erase(p.uri); });
  return method_outcome::ok(json::object());
}

}  // namespace mcpcxx::detail

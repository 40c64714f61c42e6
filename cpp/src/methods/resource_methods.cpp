// resources/read, resources/subscribe, resources/unsubscribe, and request_context::read_resource.
#include <optional>

#include "mcpcxx/errors.hpp"

#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "methods/access_refusal.hpp"
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

// The resource or template serving a URI: what a read or a subscription checks and runs.
struct resource_target {
  std::shared_ptr<const resource_entry> resource;
  std::shared_ptr<const template_entry> tmpl;
  std::map<std::string, std::string> vars;
  explicit operator bool() const noexcept { return resource || tmpl; }
  bool guarded() const noexcept {
    return resource ? detail::guarded(resource->spec) : tmpl && detail::guarded(tmpl->spec);
  }
};

resource_target find_target(server_core& e, const std::string& uri) {
  resource_target t;
  t.resource = e.registry().find_resource(uri);
  if (!t.resource) t.tmpl = e.registry().match_template(uri, t.vars);
  return t;
}

// A resource read through a template has the template's scopes and rule.
std::optional<method_outcome> refuse_target(const exchange& ex, const resource_target& t,
                                            const std::string& uri) {
  if (t.resource) return refuse_access(ex, "resource", uri, t.resource->spec);
  return refuse_access(ex, "resource", uri, t.tmpl->spec);
}

method_outcome unknown_resource(const exchange& ex, const std::string& uri) {
  const bool modern = ex.facts.modern;
  return method_outcome::protocol(
      modern ? situation::P21_resource_not_found_modern : situation::P20_resource_not_found_legacy,
      {{"uri", uri}});
}

// The reader's contents. `hint`, when given, receives the cache hints of what was read.
std::vector<resource_contents> run_reader(resource_target& t, const std::string& uri,
                                          request_context& ctx, cache_hint* hint = nullptr) {
  if (t.resource) {
    if (hint != nullptr) *hint = t.resource->spec.cache;
    return t.resource->reader(uri, ctx);
  }
  if (hint != nullptr) *hint = t.tmpl->spec.cache;
  return t.tmpl->reader(uri, t.vars, ctx);
}

}  // namespace

json read_own_resource(server_core& e, const std::string& uri, request_context& ctx) {
  // The server's own code reads: no scopes or rules apply (the handler decides what it returns).
  resource_target t = find_target(e, uri);
  if (!t) throw resource_not_found(uri);
  auto contents = run_reader(t, uri, ctx);
  if (contents.empty()) throw resource_not_found(uri);
  return contents_json(contents);
}

method_outcome handle_resources_read(server_core& e, const exchange_ptr& ex, uri_params& p) {
  resource_target t = find_target(e, p.uri);
  if (!t) return unknown_resource(*ex, p.uri);
  if (auto refused = refuse_target(*ex, t, p.uri)) return std::move(*refused);
  request_context ctx = ex->make_context(ex);
  cache_hint hint;
  auto contents = run_reader(t, p.uri, ctx, &hint);
  // An empty contents array must never stand in for a missing resource.
  if (contents.empty()) return unknown_resource(*ex, p.uri);
  json result = {{"contents", contents_json(contents)}};
  if (ex->facts.modern) {
    resolved_hint h = open_hint();
    combine(h, hint, e.options());
    if (t.guarded()) h.scope = "private";  // not every caller may read it
    put_hints(result, h);
  }
  return method_outcome::ok(std::move(result));
}

method_outcome handle_resources_subscribe(server_core& e, const exchange_ptr& ex, uri_params& p) {
  resource_target t = find_target(e, p.uri);
  if (!t) return unknown_resource(*ex, p.uri);
  // Updates of a resource tell who changed what: only a caller who may read it subscribes.
  if (auto refused = refuse_target(*ex, t, p.uri)) return std::move(*refused);
  ex->session().update_legacy([&](legacy_state& s) { s.subscriptions.insert(p.uri); });
  return method_outcome::ok(json::object());
}

method_outcome handle_resources_unsubscribe(server_core&, const exchange_ptr& ex, uri_params& p) {
  ex->session().update_legacy([&](legacy_state& s) { s.subscriptions.erase(p.uri); });
  return method_outcome::ok(json::object());
}

bool may_read_resource(server_core& e, const exchange& ex, const std::string& uri) {
  return e.registry().may_read(uri, ex.session().principal());
}

}  // namespace mcpcxx::detail

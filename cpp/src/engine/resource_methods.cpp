// resources/read, resources/subscribe and resources/unsubscribe.
#include "engine/call.hpp"
#include "engine/method_table.hpp"
#include "engine/wire_errors.hpp"

namespace mcpcxx::detail {

namespace {

std::optional<std::string> uri_param(call& c) {
  auto it = c.params.find("uri");
  if (it == c.params.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    c.reply_error(wire::invalid_params(c.method + " needs params.uri, a non-empty string"));
    return std::nullopt;
  }
  return it->get<std::string>();
}

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

bool known_uri(call& c, const std::string& uri) {
  std::map<std::string, std::string> vars;
  return c.eng().find_resource(uri) || c.eng().match_template(uri, vars);
}

}  // namespace

void handle_resources_read(call& c) {
  auto uri = uri_param(c);
  if (!uri) return;
  std::vector<resource_contents> contents;
  request_context ctx = c.make_context();
  if (auto r = c.eng().find_resource(*uri)) {
    contents = r->reader(*uri, ctx);
  } else {
    std::map<std::string, std::string> vars;
    auto t = c.eng().match_template(*uri, vars);
    if (!t) {
      c.reply_error(wire::resource_not_found(*uri, c.modern));
      return;
    }
    contents = t->reader(*uri, vars, ctx);
  }
  if (contents.empty()) {
    // An empty contents array must never stand in for a missing resource.
    c.reply_error(wire::resource_not_found(*uri, c.modern));
    return;
  }
  json result = {{"contents", contents_json(contents)}};
  if (c.modern) {
    result["ttlMs"] = c.eng().options().list_ttl_ms;
    result["cacheScope"] = c.eng().options().cache_scope;
  }
  c.reply_result(std::move(result));
}

void handle_resources_subscribe(call& c) {
  auto uri = uri_param(c);
  if (!uri) return;
  if (!known_uri(c, *uri)) {
    c.reply_error(wire::resource_not_found(*uri, c.modern));
    return;
  }
  c.session->update_legacy([&](legacy_state& s) { s.subscriptions.insert(*uri); });
  c.reply_result(json::object());
}

void handle_resources_unsubscribe(call& c) {
  auto uri = uri_param(c);
  if (!uri) return;
  c.session->update_legacy([&](legacy_state& s) { s.subscriptions.erase(*uri); });
  c.reply_result(json::object());
}

}  // namespace mcpcxx::detail

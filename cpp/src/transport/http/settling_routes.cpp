// session_table::route_settling: where the messages that settle server-to-client requests go
// when replicas share a session. Each replica that serves a request of the session holds its own
// copy, and a request it sends the client waits in that copy: its id names the replica
// ("<origin>-<n>", session_options::request_id_prefix), so the answer goes there whichever
// replica the POST carrying it reached. notifications/cancelled names a client request that any
// copy may be running, so every copy gets it.
#include <algorithm>

#include "transport/http/session_table.hpp"

namespace mcpcxx::http {

namespace {

constexpr char k_origin_separator = '-';

bool is_response(const json& e) {
  return e.is_object() && e.contains("id") && !e.contains("method");
}

bool is_cancel(const json& e) {
  if (!e.is_object()) return false;
  const auto m = e.find("method");
  return m != e.end() && m->is_string() && *m == "notifications/cancelled" && !e.contains("id");
}

// The replica that sent the request `e` answers, read from the id; empty when it names none.
std::string origin_of(const json& e) {
  const auto id = e.find("id");
  if (id == e.end() || !id->is_string()) return {};
  const auto& text = id->get_ref<const std::string&>();
  const auto at = text.rfind(k_origin_separator);
  return at == std::string::npos ? std::string() : text.substr(0, at);
}

std::string text_of(const json& e) {
  return e.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string session_table::request_id_prefix() const {
  std::string origin = router_->origin();
  if (!origin.empty()) origin += k_origin_separator;
  return origin;
}

bool session_table::owned_by(const std::string& id, const std::string& principal_key) const {
  if (auto s = find(id)) return s->principal_key() == principal_key;
  auto r = records_->find(id);
  return r && r->principal_key == principal_key;
}

std::optional<jsonrpc::message> session_table::route_settling(const std::string& id,
                                                              jsonrpc::message msg,
                                                              const std::string& principal_key) {
  const std::string self = router_->origin();
  if (self.empty()) return msg;
  const auto elsewhere = [&](const json& e) {
    if (is_cancel(e)) return true;
    const std::string origin = is_response(e) ? origin_of(e) : std::string();
    return !origin.empty() && origin != self;
  };
  if (msg.kind == jsonrpc::message_kind::batch) {
    const bool routes = std::any_of(msg.body.begin(), msg.body.end(), elsewhere);
    if (!routes || !owned_by(id, principal_key)) return msg;
    return route_batch(id, std::move(msg), elsewhere);
  }
  if (!elsewhere(msg.body) || !owned_by(id, principal_key)) return msg;
  // The parser moved params out of the body: the message travels whole.
  json whole = msg.body;
  if (!msg.params.is_null()) whole["params"] = msg.params;
  if (is_cancel(msg.body)) {
    router_->broadcast(id, text_of(whole));
    if (find(id)) return msg;
    return std::nullopt;
  }
  router_->route_to(origin_of(msg.body), id, text_of(whole));
  return std::nullopt;
}

std::optional<jsonrpc::message> session_table::route_batch(
    const std::string& id, jsonrpc::message msg,
    const std::function<bool(const json&)>& elsewhere) {
  const bool held = find(id) != nullptr;
  json rest = json::array();
  for (auto& e : msg.body) {  // batch members keep their params
    if (is_cancel(e)) {
      router_->broadcast(id, text_of(e));
      if (held) rest.push_back(std::move(e));
    } else if (elsewhere(e)) {
      router_->route_to(origin_of(e), id, text_of(e));
    } else {
      rest.push_back(std::move(e));
    }
  }
  if (rest.empty()) return std::nullopt;
  return jsonrpc::parse(text_of(rest), limits_);
}

}  // namespace mcpcxx::http

#include "transport/http/endpoint.hpp"

#include <algorithm>
#include <array>

#include "core/store_unavailable.hpp"
#include "observability/server_log.hpp"
#include "transport/http/security.hpp"
#include "wire/era.hpp"

namespace mcpcxx::http {

namespace {

constexpr std::string_view k_metadata_path = "/.well-known/oauth-protected-resource";

using mcpcxx::wire::situation;

// Headers whose second copy could be read differently by another hop (a proxy checking the first
// Host, a server reading the last): refused in both eras. llhttp itself refuses a repeated
// Content-Length; MCP-Protocol-Version is checked per era (H29 modern, H40 legacy).
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> k_single_headers{{
    {"host", "Host"},
    {"origin", "Origin"},
    {"content-type", "Content-Type"},
    {"authorization", "Authorization"},
    {"mcp-session-id", "Mcp-Session-Id"},
    {"last-event-id", "Last-Event-ID"},
}};

std::optional<problem> repeated_header(const request& req) {
  for (const auto& [name, display] : k_single_headers) {
    if (req.header_count(name) > 1)
      return problem{situation::H40_header_repeated, {{"header", display}}};
  }
  return std::nullopt;
}

}  // namespace

void endpoint::handle(request&& req, const std::shared_ptr<reply_channel>& out) {
  try {
    route(req, out);
  } catch (const std::exception& e) {
    // Bad input is answered by the checks and the engine; reaching here is a server defect.
    // The client gets a reference, the log the detail (never the request's bytes).
    const std::string ref = detail::server_log::new_reference();
    detail::server_log(ctx_->srv.options().log_writer)
        .write("error", "http_request_failed", {{"reference", ref}, {"detail", e.what()}});
    out->send(row_response({situation::H26_handler_crashed, {{"reference", ref}}}));
  }
}

void endpoint::route(request& req, const std::shared_ptr<reply_channel>& out) {
  ++ctx_->requests;
  if (auto repeated = repeated_header(req)) return out->send(row_response(*repeated));
  if (!host_allowed(ctx_->origins, req.header("host"))) {
    out->send(row_response({situation::H1_host_forbidden}));
    return;
  }
  if (!origin_allowed(ctx_->origins, req.header("origin"))) {
    out->send(row_response({situation::H2_origin_forbidden}));
    return;
  }
  std::string_view path = req.path();
  if (path == ctx_->opts.path) {
    handle_mcp(req, out);
  } else if (ctx_->opts.auth && path.substr(0, k_metadata_path.size()) == k_metadata_path) {
    handle_metadata(req, out);
  } else if (ctx_->opts.metrics && path == ctx_->opts.metrics_path) {
    handle_metrics(req, out);
  } else {
    out->send(row_response({situation::H3_path_not_found, {{"path", ctx_->opts.path}}}));
  }
}

void endpoint::handle_mcp(request& req, const std::shared_ptr<reply_channel>& out) {
  if (ctx_->stopping.load()) {
    out->send(row_response({situation::H16_shutting_down}));
    return;
  }
  if (req.method == "POST") return handle_post(req, out);
  if (req.method == "GET") return handle_get(req, out);
  if (req.method == "DELETE") return handle_delete(req, out);
  response r = row_response({ctx_->opts.legacy ? situation::H4_method_not_allowed
                                               : situation::H4a_method_not_allowed_modern_only});
  r.headers.emplace_back("Allow", ctx_->opts.legacy ? "POST, GET, DELETE" : "POST");
  out->send(r);
}

void endpoint::handle_metadata(const request& req, const std::shared_ptr<reply_channel>& out) {
  if (req.method != "GET") {
    response r = row_response({situation::H7_metadata_method_not_allowed});
    r.headers.emplace_back("Allow", "GET");
    out->send(r);
    return;
  }
  const http_auth_options& a = *ctx_->opts.auth;
  json doc = {{"resource", ctx_->resource},
              {"authorization_servers", a.authorization_servers},
              {"bearer_methods_supported", {"header"}}};
  if (!a.scopes_supported.empty()) doc["scopes_supported"] = a.scopes_supported;
  response r;
  r.body = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  r.headers.emplace_back("Cache-Control", "max-age=3600");
  out->send(r);
}

void endpoint::handle_metrics(const request& req, const std::shared_ptr<reply_channel>& out) {
  if (req.method != "GET") {
    response r = row_response({situation::H50_metrics_method_not_allowed});
    r.headers.emplace_back("Allow", "GET");
    out->send(r);
    return;
  }
  response r;
  r.body = ctx_->srv.metrics_text();
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.headers.emplace_back("Cache-Control", "no-store");
  out->send(r);
}

std::shared_ptr<http_session> endpoint::legacy_session(
    const request& req, const caller& who, std::optional<response>& error,
    const std::optional<jsonrpc::request_id>& id) {
  const std::string* sid = req.header("mcp-session-id");
  if (sid == nullptr || sid->empty()) {
    error = row_response({situation::H13_session_id_missing}, id);
    return nullptr;
  }
  std::shared_ptr<http_session> s;
  try {
    s = ctx_->sessions.find_or_revive(*sid, who.identity,
                                      [this](const auto& hs) { return open_engine(hs); });
  } catch (const detail::store_unavailable& e) {
    error = store_unavailable(*sid, e.what(), id);
    return nullptr;
  }
  // Bound to the creator's identity: a refreshed token of the same user keeps the session.
  if (!s || s->principal_key() != who.identity) {
    error = row_response({situation::H14_session_not_found}, id);
    return nullptr;
  }
  if (auto e = check_legacy_version(req, *s, id)) {
    error = std::move(e);
    return nullptr;
  }
  try {
    if (!s->touch()) {  // ended on another replica
      retire(*sid);
      error = row_response({situation::H14_session_not_found}, id);
      return nullptr;
    }
  } catch (const detail::store_unavailable& e) {
    // This replica has the session: it serves from its copy while the store is down (a DELETE
    // or log level set elsewhere meanwhile is taken over once the store answers again).
    ctx_->log_event("warning", "http_store_unavailable",
                    {{"reason", e.what()}, {"served", "from this replica's copy of the session"}});
  }
  return s;
}

response endpoint::store_unavailable(const std::string& sid, const std::string& why,
                                     const std::optional<jsonrpc::request_id>& id) {
  ctx_->log_event("warning", "http_store_unavailable", {{"reason", why}});
  response r = row_response(
      {situation::H51_store_unavailable, {{"sessionId", printable_header(sid)}, {"reason", why}}},
      id);
  r.headers.emplace_back("Retry-After", "2");
  return r;
}

void endpoint::retire(const std::string& sid) {
  if (auto gone = ctx_->sessions.drop(sid)) {
    gone->close_get();
    gone->engine().shutdown(std::chrono::milliseconds(0));
  }
}

std::optional<response> endpoint::check_legacy_version(
    const request& req, http_session& s, const std::optional<jsonrpc::request_id>& id) {
  const std::string* pv = req.header("mcp-protocol-version");
  if (pv == nullptr) return std::nullopt;  // pre-2025-06-18 clients do not send it
  if (req.header_count("mcp-protocol-version") > 1) {
    return row_response({situation::H40_header_repeated, {{"header", "MCP-Protocol-Version"}}}, id);
  }
  // Sessions enter the table only after initialize succeeded, so the engine's negotiated
  // version is the one list to compare with.
  std::string negotiated = s.engine().negotiated_version();
  if (negotiated.empty() || *pv != negotiated) {
    return row_response({situation::H15_session_version_mismatch,
                         {{"version", printable_header(*pv)}, {"negotiated", negotiated}}},
                        id);
  }
  return std::nullopt;
}

void endpoint::handle_delete(request& req, const std::shared_ptr<reply_channel>& out) {
  const std::string* pv = req.header("mcp-protocol-version");
  if (!ctx_->opts.legacy || (pv != nullptr && mcpcxx::wire::is_modern_version(*pv))) {
    response r = row_response({situation::H6_delete_on_modern});
    r.headers.emplace_back("Allow", "POST");
    return out->send(r);
  }
  auto auth = authorize(req, {}, {});
  if (auth.rejection) return out->send(*auth.rejection);
  std::optional<response> error;
  auto s = legacy_session(req, auth.who, error);
  if (!s) return out->send(*error);
  try {
    ctx_->sessions.remove(s->id());
  } catch (const detail::store_unavailable& e) {
    return out->send(store_unavailable(s->id(), e.what(), std::nullopt));
  }
  s->close_get();
  s->engine().shutdown(std::chrono::milliseconds(0));
  response r;
  r.status = 204;
  out->send(r);
}

}  // namespace mcpcxx::http

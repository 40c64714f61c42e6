// Routes one parsed HTTP request: the MCP endpoint (POST, GET, DELETE), the RFC 9728 metadata
// document, and the checks every request passes first (Host, Origin, auth, media types).
// Thread-safety: handle() may run concurrently on several I/O threads.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "mcpcxx/jsonrpc.hpp"

#include "transport/http/context.hpp"
#include "transport/http/reply_channel.hpp"
#include "transport/http/request_parser.hpp"

namespace mcpcxx::http {

/// Who a request speaks for: the verified principal and its identity (principal_identity()
/// under http_auth_options::identity_claims); null and "" without auth.
struct caller {
  json principal = nullptr;
  std::string identity;
};

/// Outcome of the bearer-token check.
struct auth_outcome {
  std::optional<response> rejection;  ///< 401/403 to send, when set
  caller who;
};

/// Throws std::invalid_argument when `auth` names an identity claim that a token refresh
/// changes (identity_claim_problem()).
void check_identity_claims(const http_auth_options& auth);

/// Checks modern SEP-2243 headers against the body; the -32020 row when they disagree.
std::optional<problem> check_modern_headers(transport_context& ctx, const request& req,
                                            const jsonrpc::message& msg);

/// The request handler for one http_server.
class endpoint {
 public:
  explicit endpoint(std::shared_ptr<transport_context> ctx) : ctx_(std::move(ctx)) {}

  /// Handles `req`; the reply goes to `out` now or later from engine threads. Never throws: an
  /// unexpected exception is logged under a reference id and answered 500.
  void handle(request&& req, const std::shared_ptr<reply_channel>& out);

 private:
  std::shared_ptr<transport_context> ctx_;

  void route(request& req, const std::shared_ptr<reply_channel>& out);
  void handle_mcp(request& req, const std::shared_ptr<reply_channel>& out);
  void handle_post(request& req, const std::shared_ptr<reply_channel>& out);
  void handle_get(request& req, const std::shared_ptr<reply_channel>& out);
  /// GET with the Last-Event-ID of POST stream `after.stream` (issued by `s`): replays what
  /// follows `after`, then serves the rest live, follows it from the store when it runs on
  /// another replica, or ends.
  void resume_post_stream(const std::shared_ptr<http_session>& s, event_position after,
                          const response_headers& headers,
                          const std::shared_ptr<reply_channel>& out);
  void handle_delete(request& req, const std::shared_ptr<reply_channel>& out);
  void handle_metadata(const request& req, const std::shared_ptr<reply_channel>& out);
  /// GET metrics_path: the Prometheus exposition; other methods H50.
  void handle_metrics(const request& req, const std::shared_ptr<reply_channel>& out);
  void post_modern(request& req, jsonrpc::message msg, caller who,
                   const std::shared_ptr<reply_channel>& out);
  void post_legacy(request& req, jsonrpc::message msg, caller who,
                   const std::shared_ptr<reply_channel>& out);
  void post_initialize(jsonrpc::message msg, caller who, const std::shared_ptr<reply_channel>& out);
  /// Verifies the bearer token (and the scopes of the tool, resource, template or prompt a
  /// request names) when auth is enabled; a rejection echoes `id` (the request's, when the body
  /// was read).
  auth_outcome authorize(const request& req, std::string_view mcp_method, std::string_view mcp_name,
                         const std::optional<jsonrpc::request_id>& id = std::nullopt);
  /// The 401/403 response with its WWW-Authenticate challenge (`name` of a `primitive`: row H42
  /// for a tool, H44 for the others).
  response challenge(const http_auth_result& verdict, bool token_sent, std::string_view primitive,
                     std::string_view name, const std::optional<jsonrpc::request_id>& id);
  /// The 503 (row H43) when the verifier cannot verify now; logs `description`.
  response unavailable(const std::string& description,
                       const std::optional<jsonrpc::request_id>& id);
  /// The legacy session named by the request, or a 400/404 response echoing `id` (a POSTed
  /// request's id: a known request id is never answered with id null).
  std::shared_ptr<http_session> legacy_session(
      const request& req, const caller& who, std::optional<response>& error,
      const std::optional<jsonrpc::request_id>& id = std::nullopt);
  /// Row H40/H15 when the MCP-Protocol-Version header does not fit session `s` (echoing `id`).
  std::optional<response> check_legacy_version(const request& req, http_session& s,
                                               const std::optional<jsonrpc::request_id>& id);
  /// The engine session of legacy session `hs` (its server-initiated frames go to its GET
  /// stream), for initialize and for a session revived from a shared store.
  mcpcxx::session open_engine(const std::shared_ptr<http_session>& hs);
  /// Row H51 (Retry-After) for session `sid` when the shared store did not answer (`why`).
  response store_unavailable(const std::string& sid, const std::string& why,
                             const std::optional<jsonrpc::request_id>& id);
  /// Lets go of this replica's copy of session `sid`, whose record is gone.
  void retire(const std::string& sid);
};

}  // namespace mcpcxx::http

// Bearer-token authorization of MCP endpoint requests (OAuth 2.1 resource server): the verifier
// hook, the scope check of the primitive a request names, and the 401/403/503 challenges.
#include <algorithm>
#include <stdexcept>

#include "observability/server_log.hpp"
#include "transport/http/endpoint.hpp"
#include "transport/http/security.hpp"

namespace mcpcxx::http {

namespace {

using mcpcxx::wire::situation;

std::string space_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

// error_description is a quoted-string: no quotes or backslashes, visible ASCII and spaces.
std::string header_safe(std::string d) {
  d.erase(std::remove_if(d.begin(), d.end(),
                         [](char c) {
                           auto u = static_cast<unsigned char>(c);
                           return c == '"' || c == '\\' || u < 0x20 || u > 0x7e;
                         }),
          d.end());
  return d;
}

// What a request of `method` names in params.name / params.uri, when it may carry scopes.
std::string_view scoped_primitive(std::string_view method) {
  if (method == "tools/call") return "tool";
  if (method == "resources/read" || method == "resources/subscribe") return "resource";
  if (method == "prompts/get") return "prompt";
  return {};
}

}  // namespace

auth_outcome endpoint::authorize(const request& req, std::string_view mcp_method,
                                 std::string_view mcp_name,
                                 const std::optional<jsonrpc::request_id>& id) {
  auth_outcome result;
  if (!ctx_->opts.auth) return result;
  auto token = bearer_token(req.header("authorization"));
  http_auth_result verdict = http_auth_result::invalid("An access token is required");
  if (token && !is_b64token(*token)) {
    // Never hand a verifier bytes that cannot be a bearer token (RFC 6750 b64token).
    verdict = http_auth_result::invalid("The access token is malformed");
  } else if (token) {
    verdict = ctx_->opts.auth->verifier(*token, {req.method, mcp_method, mcp_name});
  }
  if (verdict.status == http_auth_result::failure::unavailable) {
    result.rejection = unavailable(verdict.description, id);
    return result;
  }
  if (verdict.status != http_auth_result::failure::none) {
    result.rejection = challenge(verdict, token.has_value(), {}, {}, id);
    return result;
  }
  if (auto primitive = scoped_primitive(mcp_method); !primitive.empty() && !mcp_name.empty()) {
    // The spec's scope challenge: 403 insufficient_scope naming what the primitive needs, so a
    // client can step up its authorization (its own scopes, not the whole list).
    auto needed = ctx_->srv.required_scopes(mcp_method, mcp_name);
    if (!missing_scopes(verdict.principal, needed).empty()) {
      result.rejection =
          challenge(http_auth_result::insufficient(needed, {}), true, primitive, mcp_name, id);
      return result;
    }
  }
  result.who.identity = principal_identity(verdict.principal, ctx_->opts.auth->identity_claims);
  result.who.principal = std::move(verdict.principal);
  return result;
}

void check_identity_claims(const http_auth_options& auth) {
  for (const auto& name : auth.identity_claims) {
    if (auto problem = identity_claim_problem(name)) {
      throw std::invalid_argument("http_options.auth.identity_claims: " + *problem);
    }
  }
}

response endpoint::challenge(const http_auth_result& verdict, bool token_sent,
                             std::string_view primitive, std::string_view name,
                             const std::optional<jsonrpc::request_id>& id) {
  const http_auth_options& a = *ctx_->opts.auth;
  bool scope = verdict.status == http_auth_result::failure::insufficient_scope;
  std::string header = "Bearer resource_metadata=\"" + ctx_->resource_metadata_url + "\"";
  if (token_sent || scope) {
    header += scope ? ", error=\"insufficient_scope\"" : ", error=\"invalid_token\"";
  }
  const auto& scopes = scope || !verdict.scopes.empty() ? verdict.scopes : a.scopes_supported;
  if (!scopes.empty()) header += ", scope=\"" + space_list(scopes) + "\"";
  if (token_sent && !verdict.description.empty()) {
    header += ", error_description=\"" + header_safe(verdict.description) + "\"";
  }
  problem p{situation::H19_unauthorized};
  if (primitive == "tool") {
    p = {situation::H42_tool_insufficient_scope,
         {{"name", std::string(name)}, {"scopes", space_list(verdict.scopes)}}};
  } else if (!primitive.empty()) {
    p = {situation::H44_primitive_insufficient_scope,
         {{"primitive", std::string(primitive)},
          {"name", std::string(name)},
          {"scopes", space_list(verdict.scopes)}}};
  } else if (scope) {
    p = {situation::H20_insufficient_scope};
  }
  response r = row_response(p, id);
  r.headers.emplace_back("WWW-Authenticate", header);
  return r;
}

response endpoint::unavailable(const std::string& description,
                               const std::optional<jsonrpc::request_id>& id) {
  // The reason may name internal hosts: the log has it, the client gets the row's text.
  detail::server_log(ctx_->srv.options().log_writer)
      .write("warning", "http_auth_unavailable", {{"detail", description}});
  response r = row_response({situation::H43_auth_unavailable}, id);
  r.headers.emplace_back("Retry-After", "5");
  return r;
}

}  // namespace mcpcxx::http

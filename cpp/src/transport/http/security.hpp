// Request checks that protect the endpoint: Host and Origin validation (DNS rebinding), media
// types, header value decoding (SEP-2243 base64 form) and bearer token extraction.
// Thread-safety: pure functions over immutable settings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpcxx::http {

/// Host/Origin policy derived from http_options.
struct origin_policy {
  std::vector<std::string> allowed_hosts;    ///< empty + loopback_only: loopback names
  std::vector<std::string> allowed_origins;  ///< empty: loopback origins; "*": any
  bool loopback_bound = true;
};

/// True when the Host header value is acceptable (absent Host is rejected by HTTP/1.1 rules).
bool host_allowed(const origin_policy& p, const std::string* host);
/// True when there is no Origin header or its value is allowed.
bool origin_allowed(const origin_policy& p, const std::string* origin);
/// True for an IPv4/IPv6 loopback address literal or "localhost".
bool is_loopback_address(std::string_view host);

/// True when an Accept header value admits `type` ("application/json"); absent Accept is false.
bool accepts(const std::string* accept, std::string_view type);
/// True when Content-Type is application/json (parameters such as charset allowed).
bool is_json_content_type(const std::string* content_type);

/// Decodes a header value: "=?base64?...?=" is base64-decoded and must be UTF-8; other values
/// must be visible ASCII, space or tab. nullopt when invalid.
std::optional<std::string> decode_header_value(std::string_view raw);
/// Standard base64 (RFC 4648, padding required); nullopt for invalid input.
std::optional<std::string> base64_decode(std::string_view in);
/// True for well-formed UTF-8.
bool valid_utf8(std::string_view s);

/// The token of "Authorization: Bearer TOKEN"; nullopt when absent or another scheme.
std::optional<std::string_view> bearer_token(const std::string* authorization);
/// True when `token` has the RFC 6750 b64token syntax (ALPHA / DIGIT / "-._~+/", then "=").
bool is_b64token(std::string_view token);

/// A raw header value made safe to quote in an error message: every byte outside visible ASCII
/// and space becomes '?' (header bytes need not be UTF-8, error bodies must be).
std::string printable_header(std::string_view raw);

}  // namespace mcpcxx::http

// JSON-RPC and MCP error codes as named constants, each documented with when it applies.
// The mapping from situation to wire shape is the situation table (cpp/src/wire/table.cpp); its
// rows are tabled in docs/error-model.md, which is generated from it.
#pragma once

namespace mcpcxx::error_code {

/// Bytes that are not valid JSON (or not valid UTF-8); always answered with id null.
inline constexpr int parse_error = -32700;
/// Valid JSON that is not a valid JSON-RPC message: bad id type, missing method, a batch where
/// batches are not allowed, an id reused while still in flight, a message over the size or depth
/// limits.
inline constexpr int invalid_request = -32600;
/// Unknown method, a method removed in the request's era, or one gated behind a capability the
/// server did not advertise. data: {"method": NAME}.
inline constexpr int method_not_found = -32601;
/// Params that break the method's schema: missing modern _meta fields, pre-initialize requests,
/// unknown tool, malformed tools/call envelope, invalid cursor, unknown prompt, modern resource not
/// found, invalid log level.
inline constexpr int invalid_params = -32602;
/// The server could not produce a valid response (an engine defect, never a tool failure).
inline constexpr int internal_error = -32603;

/// Legacy revisions only (<= 2025-11-25): resources/read for a URI that does not exist.
inline constexpr int resource_not_found_legacy = -32002;
/// 2025-11-25 only: URL-mode elicitation required. Never emitted by modern responses.
inline constexpr int url_elicitation_required = -32042;

/// 2026-07-28: an HTTP header (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) is missing,
/// malformed, or disagrees with the body. HTTP 400.
inline constexpr int header_mismatch = -32020;
/// 2026-07-28: the request needs a client capability the client did not declare in this request's
/// _meta. data: {"requiredCapabilities": ClientCapabilities}. HTTP 400.
inline constexpr int missing_required_client_capability = -32021;
/// 2026-07-28: _meta names a protocol version the server does not implement.
/// data: {"supported": [...], "requested": V}. HTTP 400.
inline constexpr int unsupported_protocol_version = -32022;

/// A request other than tools/call refused by a rate limit (middleware, row P59): an
/// implementation-defined server error (JSON-RPC leaves -32000..-32099 to servers).
/// data: {"retryAfterSeconds": N, "limit": what is limited}.
inline constexpr int rate_limited = -32029;

/// True for codes the JSON-RPC or MCP specifications own and that tool code must not raise
/// directly: [-32768, -32000] except invalid_params, internal_error and resource_not_found_legacy.
constexpr bool is_reserved_for_spec(int code) noexcept {
  if (code == invalid_params || code == internal_error || code == resource_not_found_legacy) {
    return false;
  }
  return code >= -32768 && code <= -32000;
}

}  // namespace mcpcxx::error_code

// The rows of the situation table, in documentation order. Texts are model-facing: each says
// what was wrong and what to do next. Changing a text here changes the wire, the generated
// tables in docs/error-model.md and the golden transcripts that show it.
#include <array>

#include "mcpcxx/error_codes.hpp"

#include "wire/situation.hpp"

namespace mcpcxx::wire {

namespace {

namespace ec = error_code;
using s = situation;

// A protocol (JSON-RPC error object) row.
constexpr row P(situation w, std::string_view id, eras e, int code, int http_legacy,
                int http_modern, std::string_view message, std::string_view keys,
                std::string_view what, std::string_view golden) {
  return {w,    id,   e,     shape::error_object, code, http_legacy, http_modern, message,
          keys, what, golden};
}

// A tool execution error row (CallToolResult with isError: true, always HTTP 200).
constexpr row T(situation w, std::string_view id, std::string_view message, std::string_view keys,
                std::string_view what, std::string_view category, std::string_view effect,
                int retryable) {
  return {w,       id,   eras::both, shape::tool_result,   0,        200,    200,
          message, keys, what,       "tools_errors.txtar", category, effect, retryable};
}

// A transport row: an HTTP error body with the same status in both eras.
constexpr row H(situation w, std::string_view id, eras e, int code, int status,
                std::string_view message, std::string_view keys, std::string_view what) {
  return {w, id, e, shape::error_object, code, status, status, message, keys, what, ""};
}

constexpr auto both = eras::both;
constexpr auto legacy = eras::legacy;
constexpr auto modern = eras::modern;

// clang-format off
constexpr std::array k_rows{
  // ---- codec ----
  P(s::P1_not_json, "P1", both, ec::parse_error, 400, 400,
    "Parse error: the message is not valid JSON (syntax error near byte {byte}); send one complete JSON value.",
    "", "Bytes that are not JSON (id null: a broken message's id is not trusted)", "codec.txtar"),
  P(s::P1a_empty_message, "P1a", both, ec::parse_error, 400, 400,
    "Parse error: the message is empty; send one JSON-RPC message as a JSON object.",
    "", "An empty or blank message (id null)", "codec.txtar"),
  P(s::P1b_invalid_utf8, "P1b", both, ec::parse_error, 400, 400,
    "Parse error: the message is not valid UTF-8 (ill-formed byte at offset {offset}); encode every message as UTF-8.",
    "", "Ill-formed UTF-8 anywhere, inside strings and keys too (id echoed when it can be read)", "codec.txtar"),
  P(s::P1c_lone_surrogate, "P1c", both, ec::parse_error, 400, 400,
    "Parse error: the \\u escape near byte {offset} is an unpaired UTF-16 surrogate; escape a character outside the BMP as a high and low surrogate pair, or send it as UTF-8.",
    "", "A `\\uD800`-`\\uDFFF` escape without its partner (id echoed when it can be read)", "codec.txtar"),
  P(s::P1d_number_out_of_range, "P1d", both, ec::parse_error, 400, 400,
    "Parse error: the number {number} near byte {offset} is outside the range this server can represent (about 1.8e308); send smaller numbers, or huge values as strings.",
    "", "A number beyond the double range such as `1e400` (id echoed when it can be read)", "codec.txtar"),
  P(s::P2_not_an_object, "P2", both, ec::invalid_request, 400, 400,
    "Invalid request: a message must be a JSON object such as {\"jsonrpc\":\"2.0\",\"method\":...}; send one object per message.",
    "", "Valid JSON that is not an object or array", "codec.txtar"),
  P(s::P2a_nested_batch_array, "P2a", both, ec::invalid_request, 400, 400,
    "Invalid request: a message inside a batch must be a JSON object; nested arrays are not allowed.",
    "", "An array inside a batch", "batch_2025_03_26.txtar"),
  P(s::P2b_bad_jsonrpc_version, "P2b", both, ec::invalid_request, 400, 400,
    "Invalid request: \"jsonrpc\" must be exactly \"2.0\"; set it on every message.",
    "", "`jsonrpc` missing or not \"2.0\" (id echoed when readable)", "codec.txtar"),
  P(s::P2c_bad_id_type, "P2c", both, ec::invalid_request, 400, 400,
    "Invalid request: \"id\" must be a string or an integer; omit \"id\" only for a notification.",
    "", "A request id that is null, bool, float, object, array or beyond int64", "codec.txtar"),
  P(s::P2d_method_not_string, "P2d", both, ec::invalid_request, 400, 400,
    "Invalid request: \"method\" must be a string; name the method to call.",
    "", "`method` present but not a string", "codec.txtar"),
  P(s::P2e_params_not_structured, "P2e", both, ec::invalid_request, 400, 400,
    "Invalid request: \"params\" must be an object when present; send an object or omit it.",
    "", "`params` neither object nor array", "params.txtar"),
  P(s::P2f_neither_call_nor_response, "P2f", both, ec::invalid_request, 400, 400,
    "Invalid request: the message has neither \"method\" nor \"result\"/\"error\"; send a request, notification or response.",
    "", "An object with no `method`, `result` or `error`", "codec.txtar"),
  P(s::P2g_response_result_and_error, "P2g", both, ec::invalid_request, 400, 400,
    "Invalid request: the response has both \"result\" and \"error\"; send exactly one of them.",
    "", "A client response with both `result` and `error`", ""),
  P(s::P2h_response_bad_error_object, "P2h", both, ec::invalid_request, 400, 400,
    "Invalid request: the response \"error\" must be an object with an integer \"code\" and a string \"message\"; fix the error object.",
    "", "A client error response whose `error` is malformed", ""),
  P(s::P2i_response_bad_id, "P2i", both, ec::invalid_request, 400, 400,
    "Invalid request: the response \"id\" must be the string or integer id of the request it answers.",
    "", "A client response without a usable id", ""),
  P(s::P3_message_too_large, "P3", both, ec::invalid_request, 413, 413,
    "Invalid request: the message of {size} bytes exceeds the maximum size of {limit} bytes; send smaller messages.",
    "", "A message over the size limit (default 4 MiB; id echoed when it can be read)", ""),
  P(s::P3a_message_too_deep, "P3a", both, ec::invalid_request, 400, 400,
    "Invalid request: the message nests arrays or objects deeper than the maximum depth of {limit}; flatten the params.",
    "", "A message over the nesting limit (default 64; id echoed when it can be read)", "codec.txtar"),
  P(s::P3c_stdio_line_too_long, "P3c", both, ec::invalid_request, 413, 413,
    "Invalid request: the message exceeds the maximum size of {limit} bytes; send smaller messages.",
    "", "A stdio line over the size limit, dropped by the framing before parsing (id null: never read)", ""),
  // ---- engine: session and routing ----
  P(s::P4_batch_not_allowed, "P4", both, ec::invalid_request, 400, 400,
    "Invalid request: JSON-RPC batches are only supported on sessions that negotiated 2025-03-26; send one message at a time",
    "", "A batch (JSON array) outside a 2025-03-26 session", "batch.txtar"),
  P(s::P5_initialize_in_batch, "P5", legacy, ec::invalid_request, 400, 400,
    "Invalid request: initialize must not be part of a batch; send it on its own",
    "", "`initialize` inside a 2025-03-26 batch", "batch_2025_03_26.txtar"),
  P(s::P5a_empty_batch, "P5a", both, ec::invalid_request, 400, 400,
    "Invalid request: the batch is empty; send at least one message in the array.",
    "", "An empty JSON array", "batch_2025_03_26.txtar"),
  P(s::P6_duplicate_request_id, "P6", both, ec::invalid_request, 200, 200,
    "Invalid request: id {id} is already in use by a request in flight; use a unique id per request",
    "", "A request id reused while the first is in flight", "duplicate_id.txtar"),
  P(s::P7_already_initialized, "P7", legacy, ec::invalid_request, 200, 200,
    "Invalid request: this session is already initialized with protocol version {version}; start a new session to initialize again",
    "", "A second `initialize` on one session", "legacy_lifecycle.txtar"),
  P(s::P8_method_not_found, "P8", both, ec::method_not_found, 200, 404,
    "Method not found: {method}. Check the method name against the MCP revision you speak",
    "method", "Unknown method", "methods.txtar"),
  P(s::P9_method_not_in_era, "P9", both, ec::method_not_found, 200, 404,
    "Method not found: {method} does not exist in protocol version {protocolVersion}",
    "method protocolVersion", "Method of the other era (`ping`, `initialize`, `logging/setLevel`, `resources/subscribe` on 2026-07-28; `server/discover` on a legacy session)", "methods.txtar"),
  P(s::P10_capability_not_advertised, "P10", both, ec::method_not_found, 200, 404,
    "Method not found: {method} needs the '{capability}' capability, which this server does not offer",
    "method capability", "Method gated by a capability the server does not advertise", "prompts_gating.txtar"),
  P(s::P11_missing_modern_meta, "P11", modern, ec::invalid_params, 400, 400,
    "Invalid params: params._meta lacks {missing:list}; every 2026-07-28 request must carry both",
    "missing supported", "Modern request missing `_meta` protocolVersion or clientCapabilities", "modern_lifecycle.txtar"),
  P(s::P12_unsupported_version, "P12", modern, ec::unsupported_protocol_version, 400, 400,
    "Unsupported protocol version {requested:json}: retry with one of the supported versions (legacy versions via initialize)",
    "supported requested", "Unsupported protocol version in `_meta`", "modern_lifecycle.txtar"),
  P(s::P13_missing_client_capability, "P13", modern, ec::missing_required_client_capability, 400, 400,
    "Missing required client capability: declare {requiredCapabilities:json} in _meta io.modelcontextprotocol/clientCapabilities and retry",
    "requiredCapabilities", "The request needs a client capability the request did not declare", "modern_lifecycle.txtar"),
  P(s::P14_not_initialized, "P14", legacy, ec::invalid_params, 400, 400,
    "Session not initialized: send initialize (and notifications/initialized) before {method}, or include params._meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities to use 2026-07-28",
    "method supported", "Request before `initialize` without modern `_meta` (ping excepted)", "legacy_lifecycle.txtar"),
  P(s::P15_invalid_params, "P15", both, ec::invalid_params, 200, 200,
    "Invalid params: {detail}",
    "", "`params` not an object; a method's params of the wrong shape (`initialize` without protocolVersion, `logging/setLevel` without level, `resources/read` without uri, ...)", "params.txtar"),
  P(s::P15a_param_missing, "P15a", both, ec::invalid_params, 200, 200,
    "Invalid params: {method} needs params.{field}{requirement}",
    "", "A method's required param is missing (`requirement` states the expected shape with its leading separator, e.g. \", a non-empty string\")", "params.txtar"),
  P(s::P15b_param_invalid, "P15b", both, ec::invalid_params, 200, 200,
    "Invalid params: {subject} must be {expected}[, got {got}]",
    "", "A param of the wrong shape (`got` is the JSON type sent, when known)", "params.txtar"),
  P(s::P16_tool_name_missing, "P16", both, ec::invalid_params, 200, 200,
    "Invalid params: tools/call needs params.name, the tool name as a string",
    "", "`tools/call` without a string `name` (7a)", "tools_envelope.txtar"),
  P(s::P16a_tool_arguments_not_object, "P16a", both, ec::invalid_params, 200, 200,
    "Invalid params: tools/call params.arguments must be an object mapping argument names to values, got {type}",
    "", "`tools/call` whose `arguments` is not an object (7a)", "tools_envelope.txtar"),
  P(s::P17_unknown_tool, "P17", both, ec::invalid_params, 200, 200,
    "Unknown tool: {name}",
    "name didYouMean", "`tools/call` of an unknown tool (7b)", "tools_envelope.txtar"),
  P(s::P18_invalid_cursor, "P18", both, ec::invalid_params, 200, 200,
    "Invalid params: the cursor was not issued by this server or no longer applies; list again without a cursor",
    "", "Invalid list cursor", "lists.txtar"),
  P(s::P19_unknown_prompt, "P19", both, ec::invalid_params, 200, 200,
    "Unknown prompt: {name}",
    "name didYouMean", "`prompts/get` (or completion) of an unknown prompt", "prompts.txtar"),
  P(s::P19a_missing_prompt_arguments, "P19a", both, ec::invalid_params, 200, 200,
    "Invalid params: prompt {name} requires argument(s) {missing:list}",
    "name missing", "`prompts/get` without the prompt's required arguments", "prompts.txtar"),
  P(s::P20_resource_not_found_legacy, "P20", legacy, ec::resource_not_found_legacy, 200, 200,
    "Resource not found: {uri}. List resources to see what exists",
    "uri", "`resources/read` of an unknown URI", "resources.txtar"),
  P(s::P21_resource_not_found_modern, "P21", modern, ec::invalid_params, 200, 200,
    "Resource not found: {uri}. List resources to see what exists",
    "uri", "`resources/read` of an unknown URI", "resources.txtar"),
  P(s::P22_invalid_log_level, "P22", both, ec::invalid_params, 200, 200,
    "Invalid params: unknown log level {level:json}; use one of debug, info, notice, warning, error, critical, alert, emergency",
    "", "Unknown log level (`logging/setLevel`, modern `_meta` logLevel)", "logging.txtar"),
  P(s::P23_handler_protocol_error, "P23", both, k_code_from_args, 200, 200,
    "{message}",
    "=data", "The handler raised an explicit protocol error (7e); code, message and data are the handler's (spec-reserved codes are refused when constructed)", "tools_errors.txtar"),
  P(s::P24_internal_error, "P24", both, ec::internal_error, 200, 200,
    "Internal error (reference {reference}); retry once and report the reference if it persists",
    "reference", "A non-tool handler (resource, prompt, completion) raised something unexpected", "resources.txtar"),
  P(s::P25_missing_client_capability_legacy, "P25", legacy, ec::invalid_request, 200, 200,
    "Invalid request: {method} needs the client capability {requiredCapabilities:json}, which this session did not declare in initialize; start a new session whose initialize declares it in params.capabilities, then retry",
    "method requiredCapabilities", "A legacy session's request needs a client capability its `initialize` did not declare (a legacy client cannot send per-request `_meta`)", "legacy_missing_client_capability.txtar"),
  P(s::P26_handler_tool_error, "P26", both, k_code_from_args, 200, 200,
    "{message}",
    "=data", "A resource reader, prompt or completion handler raised a tool error: its own text and details; -32602 for client-side categories (invalid_arguments, not_found, permission_denied, conflict, precondition_failed), else -32603", ""),
  // ---- tool execution errors ----
  T(s::T1_invalid_arguments, "T1",
    "Invalid arguments for tool {name}; nothing was executed. Fix the following and call again:\n{violations_text:bullets}",
    "violations", "Arguments fail `inputSchema` (7c, SEP-1303); one line per violation `- /pointer: <constraint> (got <json type>)`, values never echoed",
    "invalid_arguments", "not_applied", 0),
  T(s::T2_tool_error, "T2",
    "{message}",
    "=details", "The handler raised a tool error (7d): exactly its message and details (compose with `<operation> failed: <resource>. <reason>. <next step>. <retry guidance>.`)",
    "", "", k_from_args),
  T(s::T3_unexpected_read_only, "T3",
    "{name} failed with an internal error (reference {reference}).[ Detail: {detail}.] Retry once; if it persists, report the reference.",
    "reference", "A read-only tool's handler raised anything else (7f); `Detail` only with expose_exception_details",
    "internal", "not_applied", 1),
  T(s::T3w_unexpected_may_have_run, "T3w",
    "{name} failed with an internal error (reference {reference}).[ Detail: {detail}.] It may have partly run: check the current state before retrying once; if it persists, report the reference.",
    "reference", "A tool that may write raised anything else (7f)",
    "internal", "unknown", 1),
  T(s::T4_output_mismatch_read_only, "T4",
    "{name} failed with an internal error (reference {reference}): its result did not match the tool's declared output schema, so it was withheld. This is a server bug; report the reference. Retrying will not help until the server is fixed.",
    "reference", "A read-only tool's structuredContent breaks its `outputSchema`, is missing, or content is malformed (7g)",
    "internal", "not_applied", 0),
  T(s::T4w_output_mismatch_applied, "T4w",
    "{name} failed with an internal error (reference {reference}): its result did not match the tool's declared output schema, so it was withheld. This is a server bug; report the reference. The operation itself completed; do not retry it unchanged.",
    "reference", "The same for a tool that may write: the operation ran",
    "internal", "applied", 0),
  T(s::T5_timeout_read_only, "T5",
    "{name} timed out after {seconds:g} s. Nothing was changed; retrying is safe, ideally with a smaller request.",
    "timeoutSeconds", "A read-only tool's deadline passed (7h)",
    "timeout", "not_applied", 1),
  T(s::T5w_timeout_may_have_run, "T5w",
    "{name} timed out after {seconds:g} s. The outcome is unknown: the operation may have been applied. Check its status before retrying to avoid applying it twice.",
    "timeoutSeconds", "A tool that may write passed its deadline (7h)",
    "timeout", "unknown", 0),
  T(s::T6_tool_reported_error, "T6",
    "{content}",
    "", "The tool itself returned `isError: true`: its content is sent unchanged, unvalidated against outputSchema (counted as tool_result_error)",
    "", "", 0),
  T(s::T7_tool_resource_not_found, "T7",
    "{name} failed: resource {uri} was not found. List resources to see what exists, then call again with an existing URI. Do not retry unchanged.",
    "", "A tool raised the typed resource-not-found error (C++ `resource_not_found`, Python `ResourceNotFound`); details.resource is the URI",
    "not_found", "not_applied", 0),
  // ---- Streamable HTTP transport ----
  H(s::H1_host_forbidden, "H1", both, ec::invalid_request, 403,
    "Forbidden: the Host header is not an allowed host for this server (DNS rebinding protection)",
    "", "The Host header is not an allowed host"),
  H(s::H2_origin_forbidden, "H2", both, ec::invalid_request, 403,
    "Forbidden: the Origin header is not an allowed origin for this server",
    "", "The Origin header is not an allowed origin"),
  H(s::H3_path_not_found, "H3", both, ec::invalid_request, 404,
    "Not found: the MCP endpoint is {path}",
    "", "A request for a path other than the MCP endpoint (or the metadata document)"),
  H(s::H4_method_not_allowed, "H4", both, ec::invalid_request, 405,
    "Method not allowed: the MCP endpoint accepts POST, GET and DELETE",
    "", "An HTTP method other than POST, GET, DELETE (legacy sessions enabled; `Allow` lists them)"),
  H(s::H4a_method_not_allowed_modern_only, "H4a", modern, ec::invalid_request, 405,
    "Method not allowed: the MCP endpoint accepts POST",
    "", "An HTTP method other than POST on a modern-only server (`Allow: POST`)"),
  H(s::H5_get_on_modern, "H5", modern, ec::invalid_request, 405,
    "Method not allowed: 2026-07-28 has no GET stream; POST each request (use subscriptions/listen for notifications)",
    "", "GET on a modern-only server or with a 2026-07-28 MCP-Protocol-Version header"),
  H(s::H6_delete_on_modern, "H6", modern, ec::invalid_request, 405,
    "Method not allowed: 2026-07-28 has no sessions to delete",
    "", "DELETE on a modern-only server or with a 2026-07-28 MCP-Protocol-Version header"),
  H(s::H7_metadata_method_not_allowed, "H7", both, ec::invalid_request, 405,
    "Method not allowed: the metadata document accepts GET",
    "", "A non-GET request for the protected-resource metadata document"),
  H(s::H8_post_not_acceptable, "H8", both, ec::invalid_request, 406,
    "Not acceptable: the Accept header must list both application/json and text/event-stream",
    "", "A POST whose Accept lacks application/json or text/event-stream"),
  H(s::H9_get_not_acceptable, "H9", legacy, ec::invalid_request, 406,
    "Not acceptable: a GET stream needs Accept: text/event-stream",
    "", "A GET whose Accept lacks text/event-stream"),
  H(s::H10_unsupported_media_type, "H10", both, ec::invalid_request, 415,
    "Unsupported media type: the body must be sent with Content-Type: application/json",
    "", "A POST whose Content-Type is not application/json"),
  H(s::H11_bad_last_event_id, "H11", legacy, ec::invalid_request, 400,
    "Bad Request: Last-Event-ID is not an event id of this session; open a GET stream without it",
    "", "A GET with a Last-Event-ID this session never issued"),
  H(s::H12_get_stream_conflict, "H12", legacy, ec::invalid_request, 409,
    "Conflict: this session already has an open GET stream; close it or resume with Last-Event-ID",
    "", "A second GET stream for one session"),
  H(s::H13_session_id_missing, "H13", legacy, ec::invalid_request, 400,
    "Bad Request: the Mcp-Session-Id header is required; send initialize first, or use 2026-07-28 per-request _meta",
    "", "A legacy request other than initialize without Mcp-Session-Id"),
  H(s::H14_session_not_found, "H14", legacy, ec::invalid_request, 404,
    "Session not found: it expired or was terminated; send initialize to start a new session",
    "", "An unknown, expired or foreign Mcp-Session-Id"),
  H(s::H15_session_version_mismatch, "H15", legacy, ec::invalid_request, 400,
    "Bad Request: unsupported MCP-Protocol-Version {version:json}; this session negotiated {negotiated:json}",
    "", "A legacy request whose MCP-Protocol-Version is unknown or differs from the negotiated one"),
  H(s::H16_shutting_down, "H16", both, ec::invalid_request, 503,
    "Service unavailable: the server is shutting down",
    "", "A request while the server stops"),
  H(s::H17_too_many_sessions, "H17", legacy, ec::internal_error, 503,
    "Service unavailable: too many sessions; retry later",
    "", "`initialize` when the session table is full (id echoed)"),
  H(s::H18_stopped_before_reply, "H18", modern, ec::internal_error, 503,
    "Service unavailable: the server stopped before the request finished; retry",
    "", "A stateless request still running when the server stops (id echoed)"),
  H(s::H19_unauthorized, "H19", both, ec::invalid_request, 401,
    "Unauthorized: send a valid bearer access token",
    "", "No or an invalid bearer token (with `WWW-Authenticate`)"),
  H(s::H20_insufficient_scope, "H20", both, ec::invalid_request, 403,
    "Forbidden: the access token lacks a required scope",
    "", "A token without a required scope (with `WWW-Authenticate`)"),
  H(s::H21_content_length_too_large, "H21", both, ec::invalid_request, 413,
    "Request body too large: Content-Length {length} exceeds the limit of {limit} bytes",
    "", "A Content-Length over the body limit"),
  H(s::H21a_body_too_large, "H21a", both, ec::invalid_request, 413,
    "Request body too large: it exceeds the limit of {limit} bytes",
    "", "A (chunked or external) body that grows over the limit"),
  H(s::H22_header_bytes_too_large, "H22", both, ec::invalid_request, 431,
    "Request header fields too large: the request line and headers exceed {limit} bytes",
    "", "A request head over the size limit"),
  H(s::H22a_too_many_headers, "H22a", both, ec::invalid_request, 431,
    "Request header fields too large: more than {limit} header fields",
    "", "More header fields than the limit"),
  H(s::H23_malformed_http, "H23", both, ec::invalid_request, 400,
    "Malformed HTTP request: {reason} ({errno}); send a valid HTTP/1.1 request",
    "", "Bytes llhttp cannot parse as HTTP/1.1"),
  H(s::H24_truncated_body, "H24", both, ec::invalid_request, 400,
    "Truncated request: the connection ended before the body was complete; send exactly Content-Length bytes",
    "", "The connection ended inside the body"),
  H(s::H24a_truncated_head, "H24a", both, ec::invalid_request, 400,
    "Truncated request: the connection ended inside the request head",
    "", "The connection ended inside the head"),
  H(s::H25_request_timeout, "H25", both, ec::invalid_request, 408,
    "Request timeout: the request did not arrive completely in time; send the whole request promptly",
    "", "The head or body did not arrive within the read timeout"),
  H(s::H26_handler_crashed, "H26", both, ec::internal_error, 500,
    "Internal error: the server could not handle the request (reference {reference}); retry once and report the reference if it persists",
    "reference", "The transport's request handling, or a hook it calls such as the token verifier, threw (a server bug; the detail is logged under the reference)"),
  H(s::H27_modern_batch, "H27", modern, ec::invalid_request, 400,
    "Invalid request: 2026-07-28 POST bodies carry one message, not a batch; send each message in its own POST",
    "", "A JSON array POSTed in the 2026-07-28 era"),
  H(s::H28_modern_response, "H28", modern, ec::invalid_request, 400,
    "Invalid request: 2026-07-28 clients do not send responses",
    "", "A JSON-RPC response POSTed in the 2026-07-28 era"),
  H(s::H29_header_repeated, "H29", modern, ec::header_mismatch, 400,
    "Header mismatch: {header} appears more than once",
    "", "An MCP header sent twice"),
  H(s::H30_header_bad_encoding, "H30", modern, ec::header_mismatch, 400,
    "Header mismatch: {header} has invalid characters or bad base64; encode non-ASCII values as =?base64?...?=",
    "", "An MCP header with bytes outside visible ASCII or a bad `=?base64?` value"),
  H(s::H31_version_header_missing, "H31", modern, ec::header_mismatch, 400,
    "Header mismatch: the MCP-Protocol-Version header is required",
    "", "A modern POST without MCP-Protocol-Version"),
  H(s::H32_version_header_mismatch, "H32", modern, ec::header_mismatch, 400,
    "Header mismatch: MCP-Protocol-Version does not match params._meta[\"io.modelcontextprotocol/protocolVersion\"]",
    "", "MCP-Protocol-Version differs from the body's `_meta` version"),
  H(s::H33_method_header_missing, "H33", modern, ec::header_mismatch, 400,
    "Header mismatch: the Mcp-Method header is required",
    "", "A modern request without Mcp-Method"),
  H(s::H34_method_header_mismatch, "H34", modern, ec::header_mismatch, 400,
    "Header mismatch: Mcp-Method does not match the method in the body",
    "", "Mcp-Method differs from the body's method"),
  H(s::H35_name_header_missing, "H35", modern, ec::header_mismatch, 400,
    "Header mismatch: the Mcp-Name header is required for {method}",
    "", "`tools/call`, `resources/read` or `prompts/get` without Mcp-Name"),
  H(s::H36_name_header_mismatch, "H36", modern, ec::header_mismatch, 400,
    "Header mismatch: Mcp-Name does not match params.{field} in the body",
    "", "Mcp-Name differs from params.name / params.uri"),
  H(s::H37_param_header_without_argument, "H37", modern, ec::header_mismatch, 400,
    "Header mismatch: {header} is present but the argument is not in the body",
    "", "An Mcp-Param-* header for an argument the body lacks"),
  H(s::H38_param_header_missing, "H38", modern, ec::header_mismatch, 400,
    "Header mismatch: the {header} header is required for this call",
    "", "A tool argument declared as a header (x-mcp-header) sent without its Mcp-Param-* header"),
  H(s::H39_param_header_mismatch, "H39", modern, ec::header_mismatch, 400,
    "Header mismatch: {header} does not match the argument in the body",
    "", "An Mcp-Param-* header that differs from the argument"),
};
// clang-format on

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < k_rows.size(); ++i) {
    if (static_cast<std::size_t>(k_rows[i].which) != i) return false;
  }
  return true;
}
static_assert(in_enum_order(), "k_rows must list every situation once, in enum order");
static_assert(k_rows.size() == static_cast<std::size_t>(situation::H39_param_header_mismatch) + 1,
              "every situation needs a row");

}  // namespace

std::span<const row> rows() noexcept { return k_rows; }

const row& row_of(situation w) noexcept { return k_rows[static_cast<std::size_t>(w)]; }

const row* find_row(std::string_view id) noexcept {
  for (const row& r : k_rows) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

int http_status(situation w, bool modern) noexcept {
  const row& r = row_of(w);
  return modern ? r.http_modern : r.http_legacy;
}

int http_status(std::string_view id, bool modern) noexcept {
  if (id.empty()) return 200;
  const row* r = find_row(id);
  if (r == nullptr) return 500;
  return modern ? r->http_modern : r->http_legacy;
}

}  // namespace mcpcxx::wire

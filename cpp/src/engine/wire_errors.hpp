// The one place that maps each failure situation to its wire shape: JSON-RPC error objects for
// protocol failures, isError tool results for tool failures. docs/error-model.md tables these.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/errors.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::detail::wire {

using jsonrpc::error_object;

// ---- protocol errors (JSON-RPC error objects) ----
/// -32601: no such method.
error_object method_not_found(std::string_view method);
/// -32601: the method exists only in the other era (ping in 2026-07-28, server/discover legacy).
error_object method_not_in_era(std::string_view method, std::string_view version);
/// -32601: the method's capability is not advertised by this server.
error_object capability_not_advertised(std::string_view method, std::string_view capability);
/// -32602: a modern request lacks required _meta fields.
error_object missing_modern_meta(const std::vector<std::string>& missing);
/// -32022: unsupported protocol version in _meta.
error_object unsupported_version(const json& requested);
/// -32021: the request needs client capabilities the request did not declare.
error_object missing_client_capability(const json& required);
/// -32602: a legacy-era request arrived before initialize without modern _meta.
error_object not_initialized(std::string_view method);
/// -32600: a second initialize on one session.
error_object already_initialized(std::string_view version);
/// -32600: a request id reused while the first request is still in flight.
error_object duplicate_request_id(const jsonrpc::request_id& id);
/// -32600: a batch where the negotiated revision has no batching.
error_object batch_not_allowed();
/// -32600: initialize inside a batch.
error_object initialize_in_batch();
/// -32602: params of the wrong shape, with a message saying what to send instead.
error_object invalid_params(std::string message, json data = nullptr);
/// -32602: tools/call names a tool that does not exist; data carries near matches.
error_object unknown_tool(std::string_view name, const std::vector<std::string>& suggestions);
/// -32602: prompts/get names a prompt that does not exist.
error_object unknown_prompt(std::string_view name, const std::vector<std::string>& suggestions);
/// -32602: prompts/get lacks required arguments.
error_object missing_prompt_arguments(std::string_view name,
                                      const std::vector<std::string>& missing);
/// -32602: a list cursor that this server did not issue or that no longer applies.
error_object invalid_cursor();
/// -32002 (legacy) or -32602 (modern): resources/read for an unknown URI.
error_object resource_not_found(std::string_view uri, bool modern);
/// -32602: an unknown logging level.
error_object invalid_log_level(const json& level);
/// -32603: the engine could not build a response; the detail is logged under `reference`.
error_object internal_error(std::string_view reference);
/// A handler's explicit protocol_error, passed through.
error_object from_protocol_error(const protocol_error& e);

// ---- tool execution errors (CallToolResult with isError:true) ----
/// Facts about the failing tool that shape the text and the structured details.
struct tool_facts {
  std::string_view name;
  bool read_only = false;
  bool has_output_schema = false;
};
/// Arguments failed inputSchema: the violations text, nothing executed.
json invalid_arguments_result(const tool_facts& tool, const std::string& violations_text,
                              const json& violations);
/// The handler threw tool_error: exactly its message.
json tool_error_result(const tool_facts& tool, const tool_error& e);
/// The handler threw something unexpected: sanitized text with the reference id.
json unexpected_error_result(const tool_facts& tool, std::string_view reference,
                             const std::optional<std::string>& exposed_detail);
/// structuredContent broke the declared outputSchema (a server bug).
json output_mismatch_result(const tool_facts& tool, std::string_view reference);
/// The per-tool deadline passed.
json timeout_result(const tool_facts& tool, double seconds);

}  // namespace mcpcxx::detail::wire

// JSON forms of the engine configuration and counters (nlohmann ADL hooks).
// Keys are the C++ member names; durations are seconds.
// from_json starts from the struct's defaults, reads only the keys present (null means default),
// and throws std::invalid_argument naming an unknown key or a value of the wrong type.
// Thread-safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"
#include "mcpcxx/server.hpp"

namespace mcpcxx {

/// server_info <-> the MCP Implementation object (name, version, title, description, icons,
/// websiteUrl).
void to_json(json& j, const server_info& info);
void from_json(const json& j, server_info& info);

/// server_options <-> {info, instructions, expose_exception_details, max_message_bytes,
/// max_depth, page_size, list_ttl_ms, cache_scope, worker_threads, assert_formats, log_requests,
/// logging, extra_capabilities, client_request_timeout (seconds), request_state_key,
/// request_state_previous_keys, request_state_ttl_s}; log_writer and on_roots_list_changed have
/// no JSON form. to_json never writes the request-state keys (secrets): it writes
/// request_state_ttl_s and request_state_key_configured (a bool, ignored by from_json).
/// The store: "store" (the URL; never written back, it may hold a password: to_json writes
/// "store_configured" instead, ignored by from_json), store_key_prefix, store_timeout and
/// task_lease (seconds).
void to_json(json& j, const server_options& o);
void from_json(const json& j, server_options& o);
/// Exactly the keys from_json(server_options) accepts, in the order its refusal text names them.
std::vector<std::string_view> server_option_keys();

/// server_metrics -> {requests, notifications, protocol_errors, tool_errors, by_category}.
void to_json(json& j, const server_metrics& m);

}  // namespace mcpcxx

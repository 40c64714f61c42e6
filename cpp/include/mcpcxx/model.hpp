// JSON forms of the configuration structs and counters (nlohmann ADL hooks), so bindings and
// config files pass them as JSON objects. Keys are the C++ member names; durations are seconds.
// from_json starts from the struct's defaults, reads only the keys present (null means default),
// and throws std::invalid_argument naming an unknown key or a value of the wrong type.
// Members with no JSON form (log_writer, http_options::auth) are left untouched.
// The primitives' JSON forms (their MCP wire objects) are declared in mcpcxx/primitives.hpp.
// Thread-safety: pure functions.
#pragma once

#include "mcpcxx/http.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/server.hpp"
#include "mcpcxx/stdio.hpp"

namespace mcpcxx {

/// server_info <-> the MCP Implementation object (name, version, title, description, icons,
/// websiteUrl).
void to_json(json& j, const server_info& info);
void from_json(const json& j, server_info& info);

/// server_options <-> {info, instructions, expose_exception_details, max_message_bytes,
/// max_depth, page_size, list_ttl_ms, cache_scope, worker_threads, assert_formats, log_requests,
/// logging, extra_capabilities}.
void to_json(json& j, const server_options& o);
void from_json(const json& j, server_options& o);

/// server_metrics -> {requests, notifications, protocol_errors, tool_errors, by_category}.
void to_json(json& j, const server_metrics& m);

/// stdio_options <-> {protect_stdout, drain_grace}.
void to_json(json& j, const stdio_options& o);
void from_json(const json& j, stdio_options& o);

/// http_options <-> every member except auth (timeouts in seconds).
void to_json(json& j, const http_options& o);
void from_json(const json& j, http_options& o);

/// http_stats -> {connections, sessions, session_bytes, requests, rejected_connections,
/// sessions_expired}.
void to_json(json& j, const http_stats& s);

}  // namespace mcpcxx

// JSON forms of the HTTP transport options and counters (nlohmann ADL hooks).
// Keys are the C++ member names; durations are seconds.
// from_json starts from the struct's defaults, reads only the keys present (null means default),
// and throws std::invalid_argument naming an unknown key or a value of the wrong type.
// Thread-safety: pure functions.
#pragma once

#include "mcpcxx/http.hpp"
#include "mcpcxx/json.hpp"

namespace mcpcxx {

/// http_options <-> every member except auth (durations in seconds).
void to_json(json& j, const http_options& o);
void from_json(const json& j, http_options& o);

/// http_stats -> {connections, sessions, session_bytes, requests, rejected_connections,
/// sessions_expired}.
void to_json(json& j, const http_stats& s);

}  // namespace mcpcxx

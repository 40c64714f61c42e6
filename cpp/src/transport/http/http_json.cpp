// JSON forms of http_options and http_stats (HTTP layer).
#include "mcpcxx/http_json.hpp"

#include "model/fields.hpp"

namespace mcpcxx {

using model::read;
using model::seconds;

void to_json(json& j, const http_options& o) {
  j = {{"host", o.host},
       {"port", o.port},
       {"path", o.path},
       {"io_threads", o.io_threads},
       {"max_body_bytes", o.max_body_bytes},
       {"max_header_bytes", o.max_header_bytes},
       {"max_headers", o.max_headers},
       {"header_timeout", seconds(o.header_timeout)},
       {"body_timeout", seconds(o.body_timeout)},
       {"idle_timeout", seconds(o.idle_timeout)},
       {"max_connections", o.max_connections},
       {"allowed_hosts", o.allowed_hosts},
       {"allowed_origins", o.allowed_origins},
       {"legacy", o.legacy},
       {"session_idle_timeout", seconds(o.session_idle_timeout)},
       {"max_sessions", o.max_sessions},
       {"replay_buffer_events", o.replay_buffer_events},
       {"sse_keepalive", seconds(o.sse_keepalive)}};
}

void from_json(const json& j, http_options& o) {
  constexpr const char* what = "HTTP option";
  model::require_object(j, "HTTP options");
  model::reject_unknown(
      j, what,
      {"host", "port", "path", "io_threads", "max_body_bytes", "max_header_bytes", "max_headers",
       "header_timeout", "body_timeout", "idle_timeout", "max_connections", "allowed_hosts",
       "allowed_origins", "legacy", "session_idle_timeout", "max_sessions", "replay_buffer_events",
       "sse_keepalive"});
  read(j, "host", what, o.host);
  read(j, "port", what, o.port);
  read(j, "path", what, o.path);
  read(j, "io_threads", what, o.io_threads);
  read(j, "max_body_bytes", what, o.max_body_bytes);
  read(j, "max_header_bytes", what, o.max_header_bytes);
  read(j, "max_headers", what, o.max_headers);
  read(j, "header_timeout", what, o.header_timeout);
  read(j, "body_timeout", what, o.body_timeout);
  read(j, "idle_timeout", what, o.idle_timeout);
  read(j, "max_connections", what, o.max_connections);
  read(j, "allowed_hosts", what, o.allowed_hosts);
  read(j, "allowed_origins", what, o.allowed_origins);
  read(j, "legacy", what, o.legacy);
  read(j, "session_idle_timeout", what, o.session_idle_timeout);
  read(j, "max_sessions", what, o.max_sessions);
  read(j, "replay_buffer_events", what, o.replay_buffer_events);
  read(j, "sse_keepalive", what, o.sse_keepalive);
}

void to_json(json& j, const http_stats& s) {
  j = {{"connections", s.connections},
       {"sessions", s.sessions},
       {"session_bytes", s.session_bytes},
       {"requests", s.requests},
       {"rejected_connections", s.rejected_connections},
       {"sessions_expired", s.sessions_expired}};
}

}  // namespace mcpcxx

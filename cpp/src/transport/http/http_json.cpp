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
       {"inline_dispatch", o.inline_dispatch},
       {"reply_poll", seconds(o.reply_poll)},
       {"max_body_bytes", o.max_body_bytes},
       {"max_header_bytes", o.max_header_bytes},
       {"max_headers", o.max_headers},
       {"header_timeout", seconds(o.header_timeout)},
       {"body_timeout", seconds(o.body_timeout)},
       {"idle_timeout", seconds(o.idle_timeout)},
       {"write_timeout", seconds(o.write_timeout)},
       {"max_connections", o.max_connections},
       {"accept_backoff_min", seconds(o.accept_backoff_min)},
       {"accept_backoff_max", seconds(o.accept_backoff_max)},
       {"drain_grace", seconds(o.drain_grace)},
       {"stop_flush_timeout", seconds(o.stop_flush_timeout)},
       {"allowed_hosts", o.allowed_hosts},
       {"allowed_origins", o.allowed_origins},
       {"legacy", o.legacy},
       {"session_idle_timeout", seconds(o.session_idle_timeout)},
       {"max_sessions", o.max_sessions},
       {"replay_buffer_events", o.replay_buffer_events},
       {"sse_keepalive", seconds(o.sse_keepalive)},
       {"expose_headers", o.expose_headers},
       {"metrics", o.metrics},
       {"metrics_path", o.metrics_path},
       {"store_configured", !o.store.empty() && o.store != "memory:"}};
}

void from_json(const json& j, http_options& o) {
  constexpr const char* what = "HTTP option";
  model::require_object(j, "HTTP options");
  model::reject_unknown(j, what,
                        {"host",
                         "port",
                         "path",
                         "io_threads",
                         "inline_dispatch",
                         "reply_poll",
                         "max_body_bytes",
                         "max_header_bytes",
                         "max_headers",
                         "header_timeout",
                         "body_timeout",
                         "idle_timeout",
                         "write_timeout",
                         "max_connections",
                         "accept_backoff_min",
                         "accept_backoff_max",
                         "drain_grace",
                         "stop_flush_timeout",
                         "allowed_hosts",
                         "allowed_origins",
                         "legacy",
                         "session_idle_timeout",
                         "max_sessions",
                         "replay_buffer_events",
                         "sse_keepalive",
                         "expose_headers",
                         "metrics",
                         "metrics_path",
                         "store",
                         "store_configured"});
  read(j, "host", what, o.host);
  read(j, "port", what, o.port);
  read(j, "path", what, o.path);
  read(j, "io_threads", what, o.io_threads);
  read(j, "inline_dispatch", what, o.inline_dispatch);
  read(j, "reply_poll", what, o.reply_poll);
  read(j, "max_body_bytes", what, o.max_body_bytes);
  read(j, "max_header_bytes", what, o.max_header_bytes);
  read(j, "max_headers", what, o.max_headers);
  read(j, "header_timeout", what, o.header_timeout);
  read(j, "body_timeout", what, o.body_timeout);
  read(j, "idle_timeout", what, o.idle_timeout);
  read(j, "write_timeout", what, o.write_timeout);
  read(j, "max_connections", what, o.max_connections);
  read(j, "accept_backoff_min", what, o.accept_backoff_min);
  read(j, "accept_backoff_max", what, o.accept_backoff_max);
  read(j, "drain_grace", what, o.drain_grace);
  read(j, "stop_flush_timeout", what, o.stop_flush_timeout);
  read(j, "allowed_hosts", what, o.allowed_hosts);
  read(j, "allowed_origins", what, o.allowed_origins);
  read(j, "legacy", what, o.legacy);
  read(j, "session_idle_timeout", what, o.session_idle_timeout);
  read(j, "max_sessions", what, o.max_sessions);
  read(j, "replay_buffer_events", what, o.replay_buffer_events);
  read(j, "sse_keepalive", what, o.sse_keepalive);
  read(j, "expose_headers", what, o.expose_headers);
  read(j, "metrics", what, o.metrics);
  read(j, "metrics_path", what, o.metrics_path);
  read(j, "store", what, o.store);
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

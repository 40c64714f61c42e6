// JSON forms of the server, stdio and HTTP option structs and of the counters.
#include "mcpcxx/model.hpp"

#include "model/fields.hpp"

namespace mcpcxx {

using model::put;
using model::read;
using model::seconds;

void to_json(json& j, const server_info& info) {
  j = {{"name", info.name}, {"version", info.version}};
  put(j, "title", info.title);
  put(j, "description", info.description);
  put(j, "icons", info.icons);
  put(j, "websiteUrl", info.website_url);
}

void from_json(const json& j, server_info& info) {
  constexpr const char* what = "Implementation";
  model::require_object(j, what);
  model::reject_unknown(j, "Implementation field",
                        {"name", "version", "title", "description", "icons", "websiteUrl"});
  read(j, "name", what, info.name);
  read(j, "version", what, info.version);
  info.title = model::optional_string(j, "title", what);
  info.description = model::optional_string(j, "description", what);
  info.icons = model::optional_value(j, "icons");
  info.website_url = model::optional_string(j, "websiteUrl", what);
}

void to_json(json& j, const server_options& o) {
  j = {{"info", o.info},
       {"expose_exception_details", o.expose_exception_details},
       {"max_message_bytes", o.limits.max_message_bytes},
       {"max_depth", o.limits.max_depth},
       {"page_size", o.page_size},
       {"list_ttl_ms", o.list_ttl_ms},
       {"cache_scope", o.cache_scope},
       {"worker_threads", o.worker_threads},
       {"assert_formats", o.assert_formats},
       {"log_requests", o.log_requests},
       {"logging", o.logging},
       {"extra_capabilities", o.extra_capabilities}};
  put(j, "instructions", o.instructions);
}

void from_json(const json& j, server_options& o) {
  constexpr const char* what = "server option";
  model::require_object(j, "server options");
  model::reject_unknown(j, what,
                        {"info", "instructions", "expose_exception_details", "max_message_bytes",
                         "max_depth", "page_size", "list_ttl_ms", "cache_scope", "worker_threads",
                         "assert_formats", "log_requests", "logging", "extra_capabilities"});
  if (auto it = j.find("info"); it != j.end() && !it->is_null()) it->get_to(o.info);
  o.instructions = model::optional_string(j, "instructions", what);
  read(j, "expose_exception_details", what, o.expose_exception_details);
  read(j, "max_message_bytes", what, o.limits.max_message_bytes);
  read(j, "max_depth", what, o.limits.max_depth);
  read(j, "page_size", what, o.page_size);
  read(j, "list_ttl_ms", what, o.list_ttl_ms);
  read(j, "cache_scope", what, o.cache_scope);
  read(j, "worker_threads", what, o.worker_threads);
  read(j, "assert_formats", what, o.assert_formats);
  read(j, "log_requests", what, o.log_requests);
  read(j, "logging", what, o.logging);
  if (json caps = model::optional_value(j, "extra_capabilities"); !caps.is_null()) {
    if (!caps.is_object()) model::fail(what, "extra_capabilities", "an object", caps);
    o.extra_capabilities = std::move(caps);
  }
}

void to_json(json& j, const server_metrics& m) {
  j = {{"requests", m.requests},
       {"notifications", m.notifications},
       {"protocol_errors", m.protocol_errors},
       {"tool_errors", m.tool_errors},
       {"by_category", m.by_category}};
}

void to_json(json& j, const stdio_options& o) {
  j = {{"protect_stdout", o.protect_stdout}, {"drain_grace", seconds(o.drain_grace)}};
}

void from_json(const json& j, stdio_options& o) {
  constexpr const char* what = "stdio option";
  model::require_object(j, "stdio options");
  model::reject_unknown(j, what, {"protect_stdout", "drain_grace"});
  read(j, "protect_stdout", what, o.protect_stdout);
  read(j, "drain_grace", what, o.drain_grace);
}

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

// JSON forms of server_info, server_options and server_metrics (engine layer).
#include "mcpcxx/server_json.hpp"

#include <iterator>
#include <string_view>
#include <vector>

#include "model/fields.hpp"
#include "model/icons.hpp"

namespace mcpcxx {

using model::put;
using model::read;

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
  info.icons = model::read_icons(j, what);
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
       {"max_worker_threads", o.max_worker_threads},
       {"max_stuck_workers", o.max_stuck_workers},
       {"long_handler_after", static_cast<double>(o.long_handler_after.count()) / 1000.0},
       {"max_batch_members", o.max_batch_members},
       {"max_batch_reply_bytes", o.max_batch_reply_bytes},
       {"max_listeners", o.max_listeners},
       {"max_listen_uris", o.max_listen_uris},
       {"listener_queue", o.listener_queue},
       {"assert_formats", o.assert_formats},
       {"log_requests", o.log_requests},
       {"log_threshold", to_string(o.log_threshold)},
       {"logging", o.logging},
       {"extra_capabilities", o.extra_capabilities},
       {"client_request_timeout", static_cast<double>(o.client_request_timeout.count()) / 1000.0},
       {"request_state_ttl_s", o.request_state_ttl_s},
       {"request_state_key_configured", !o.request_state_key.empty()},
       {"task_default_ttl_ms", o.tasks.default_ttl_ms},
       {"task_max_ttl_ms", o.tasks.max_ttl_ms},
       {"task_poll_interval_ms", o.tasks.poll_interval_ms},
       {"task_threads", o.tasks.threads},
       {"store_configured", !o.store.url.empty() && o.store.url != "memory:"},
       {"store_key_prefix", o.store.key_prefix},
       {"store_timeout", static_cast<double>(o.store.timeout.count()) / 1000.0},
       {"task_lease", static_cast<double>(o.store.task_lease.count()) / 1000.0},
       {"at_most_once",
        {{"max_result_bytes", o.at_most_once.max_result_bytes},
         {"max_records", o.at_most_once.max_records},
         {"lease", static_cast<double>(o.at_most_once.lease.count()) / 1000.0},
         {"warn_destructive", o.at_most_once.warn_destructive}}}};
  put(j, "instructions", o.instructions);
}

namespace {

// Every key from_json(server_options) accepts, in the order its refusal names them.
constexpr std::string_view k_server_option_keys[] = {
    "info",
    "instructions",
    "expose_exception_details",
    "max_message_bytes",
    "max_depth",
    "page_size",
    "list_ttl_ms",
    "cache_scope",
    "worker_threads",
    "max_worker_threads",
    "max_stuck_workers",
    "long_handler_after",
    "max_batch_members",
    "max_batch_reply_bytes",
    "max_listeners",
    "max_listen_uris",
    "listener_queue",
    "assert_formats",
    "log_requests",
    "log_threshold",
    "logging",
    "extra_capabilities",
    "client_request_timeout",
    "request_state_key",
    "request_state_previous_keys",
    "request_state_ttl_s",
    "request_state_key_configured",
    "max_tasks",
    "task_default_ttl_ms",
    "task_max_ttl_ms",
    "task_poll_interval_ms",
    "task_threads",
    "store",
    "store_key_prefix",
    "store_timeout",
    "task_lease",
    "store_configured",
    "at_most_once",
};

// The tasks options as flat keys; "max_tasks" (write-only) bounds the default in-memory store
// (and the shared store's, read_store_options).
void read_task_options(const json& j, task_options& t) {
  constexpr const char* what = "server option";
  read(j, "task_default_ttl_ms", what, t.default_ttl_ms);
  read(j, "task_max_ttl_ms", what, t.max_ttl_ms);
  read(j, "task_poll_interval_ms", what, t.poll_interval_ms);
  read(j, "task_threads", what, t.threads);
  for (const char* key : {"task_default_ttl_ms", "task_max_ttl_ms", "task_poll_interval_ms"}) {
    const json v = model::optional_value(j, key);
    if (!v.is_null() && v.get<std::int64_t>() <= 0) {
      model::fail(what, key, "a positive number of milliseconds", v);
    }
  }
  if (json m = model::optional_value(j, "max_tasks"); !m.is_null()) {
    if (!m.is_number_integer() || m.get<std::int64_t>() <= 0) {
      model::fail(what, "max_tasks", "a positive integer", m);
    }
    t.store = make_in_memory_task_store({m.get<std::size_t>()});
  }
}

// The store's URL is written by nobody (it may hold a password): to_json says only whether one
// is configured ("store_configured", ignored here).
void read_store_options(const json& j, store_options& st) {
  constexpr const char* what = "server option";
  read(j, "store", what, st.url);
  read(j, "store_key_prefix", what, st.key_prefix);
  read(j, "store_timeout", what, st.timeout);
  read(j, "task_lease", what, st.task_lease);
  read(j, "max_tasks", what, st.max_tasks);
  for (const char* key : {"store_timeout", "task_lease"}) {
    const json v = model::optional_value(j, key);
    if (!v.is_null() && !(v.is_number() && v.get<double>() > 0)) {
      model::fail(what, key, "a positive number of seconds", v);
    }
  }
}

// "at_most_once": {max_result_bytes, max_records, lease (seconds), warn_destructive}, each
// optional.
void read_at_most_once_options(const json& j, at_most_once_options& a) {
  const json v = model::optional_value(j, "at_most_once");
  if (v.is_null()) return;
  constexpr const char* what = "at_most_once server option";
  model::require_object(v, what);
  model::reject_unknown(v, what, {"max_result_bytes", "max_records", "lease", "warn_destructive"});
  read(v, "max_result_bytes", what, a.max_result_bytes);
  read(v, "max_records", what, a.max_records);
  read(v, "lease", what, a.lease);
  read(v, "warn_destructive", what, a.warn_destructive);
  if (const json m = model::optional_value(v, "max_records"); !m.is_null() && a.max_records == 0) {
    model::fail(what, "max_records", "a positive integer", m);
  }
  if (const json l = model::optional_value(v, "lease"); !l.is_null() && !(l.get<double>() > 0)) {
    model::fail(what, "lease", "a positive number of seconds", l);
  }
}

}  // namespace

std::vector<std::string_view> server_option_keys() {
  return {std::begin(k_server_option_keys), std::end(k_server_option_keys)};
}

void from_json(const json& j, server_options& o) {
  constexpr const char* what = "server option";
  model::require_object(j, "server options");
  model::reject_unknown(j, what, k_server_option_keys);
  if (auto it = j.find("info"); it != j.end() && !it->is_null()) it->get_to(o.info);
  o.instructions = model::optional_string(j, "instructions", what);
  read(j, "expose_exception_details", what, o.expose_exception_details);
  read(j, "max_message_bytes", what, o.limits.max_message_bytes);
  read(j, "max_depth", what, o.limits.max_depth);
  read(j, "page_size", what, o.page_size);
  read(j, "list_ttl_ms", what, o.list_ttl_ms);
  read(j, "cache_scope", what, o.cache_scope);
  read(j, "worker_threads", what, o.worker_threads);
  read(j, "max_worker_threads", what, o.max_worker_threads);
  read(j, "max_stuck_workers", what, o.max_stuck_workers);
  read(j, "long_handler_after", what, o.long_handler_after);
  read(j, "max_batch_members", what, o.max_batch_members);
  read(j, "max_batch_reply_bytes", what, o.max_batch_reply_bytes);
  read(j, "max_listeners", what, o.max_listeners);
  read(j, "max_listen_uris", what, o.max_listen_uris);
  read(j, "listener_queue", what, o.listener_queue);
  read(j, "assert_formats", what, o.assert_formats);
  read(j, "log_requests", what, o.log_requests);
  if (json t = model::optional_value(j, "log_threshold"); !t.is_null()) {
    const auto level = t.is_string() ? parse_log_level(t.get<std::string>()) : std::nullopt;
    if (!level) model::fail(what, "log_threshold", "a log level name (debug ... emergency)", t);
    o.log_threshold = *level;
  }
  read(j, "logging", what, o.logging);
  read(j, "client_request_timeout", what, o.client_request_timeout);
  read(j, "request_state_key", what, o.request_state_key);
  read(j, "request_state_previous_keys", what, o.request_state_previous_keys);
  read(j, "request_state_ttl_s", what, o.request_state_ttl_s);
  read_task_options(j, o.tasks);
  read_store_options(j, o.store);
  read_at_most_once_options(j, o.at_most_once);
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
       {"by_category", m.by_category},
       {"stuck_handlers", m.stuck_handlers},
       {"long_running_handlers", m.long_running_handlers},
       {"worker_threads", m.worker_threads}};
}

}  // namespace mcpcxx

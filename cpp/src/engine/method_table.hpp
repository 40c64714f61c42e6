// The method table: every method the engine serves, with its era and gating flags, its typed
// params and its handler. A row's `serve` decodes the params (the structs below) and calls the
// handler with them; a handler returns a method_outcome and never sends anything itself.
// Thread-safety: the table is immutable.
//
// Typed params of every method and their decoders (params structs below). Each method-table row
// names its params struct; the row decodes the request's params before the handler runs, so
// handlers receive typed values and no handler writes "invalid params" text. A decoder reports what
// is wrong as a situation row (P15a/P15b; P16/P16a for the tools/call envelope; P22) with its
// arguments; the table renders the text. The decoders are pure functions.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mcpcxx/context.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/primitives.hpp"

#include "engine/exchange.hpp"

namespace mcpcxx::detail {

/// Empty when the decoder accepted the params; else the refusal (a protocol_error outcome).
using decode_result = std::optional<method_outcome>;

/// Methods whose params carry nothing but `_meta` (ping, server/discover).
struct no_params {};
/// initialize.
struct initialize_params {
  std::string protocol_version;
  json capabilities = json::object();
  json client_info = nullptr;
};
/// logging/setLevel. An unknown level is its own row (P22), reported by the decoder too.
struct set_level_params {
  log_level level = log_level::info;
};
/// tools/list, resources/list, resources/templates/list, prompts/list.
struct list_params {
  std::optional<std::string> cursor;
};
/// tools/call; `arguments` points into the request's params (which outlive the handler), or to
/// a shared empty object when they are absent or null.
struct tools_call_params {
  std::string name;
  const json* arguments = nullptr;
};
/// resources/read, resources/subscribe, resources/unsubscribe.
struct uri_params {
  std::string uri;
};
/// prompts/get.
struct prompts_get_params {
  std::string name;
  std::map<std::string, std::string> arguments;
};
/// completion/complete.
struct complete_params {
  completion_request request;
};
/// tasks/get, tasks/result, tasks/cancel.
struct task_id_params {
  std::string task_id;
};
/// tasks/update (2026-07-28).
struct task_update_params {
  std::string task_id;
  json input_responses = json::object();
};
/// subscriptions/listen (2026-07-28): params.notifications as asked (before honoring).
struct listen_params {
  listen_filter filter;
};

// Decoders: `params` is the request's params object (members may be moved out); `method` names
// the method in the error text.
decode_result decode(json& params, std::string_view method, no_params& out);
decode_result decode(json& params, std::string_view method, initialize_params& out);
decode_result decode(json& params, std::string_view method, set_level_params& out);
decode_result decode(json& params, std::string_view method, list_params& out);
decode_result decode(json& params, std::string_view method, tools_call_params& out);
decode_result decode(json& params, std::string_view method, uri_params& out);
decode_result decode(json& params, std::string_view method, prompts_get_params& out);
decode_result decode(json& params, std::string_view method, complete_params& out);
decode_result decode(json& params, std::string_view method, task_id_params& out);
decode_result decode(json& params, std::string_view method, task_update_params& out);
/// Defined in listen_methods.cpp (rows P39-P41, P44).
decode_result decode(json& params, std::string_view method, listen_params& out);

/// Flags of a method-table row.
enum method_flags : unsigned {
  in_legacy = 1u << 0,        ///< served to initialize-era sessions
  in_modern = 1u << 1,        ///< served to 2026-07-28 requests
  before_init = 1u << 2,      ///< legacy: allowed before initialize
  on_worker = 1u << 3,        ///< runs on the worker pool (user handlers)
  not_cancellable = 1u << 4,  ///< notifications/cancelled is ignored for it
};

/// A handler: the exchange (era facts, context) and its decoded params.
using exchange_ptr = std::shared_ptr<exchange>;

/// One row: name -> flags, the capability gating it ("" for none), and the typed server.
struct method_info {
  std::string_view name;
  unsigned flags;
  std::string_view capability;
  /// Decodes the params and runs the handler; exceptions escape to the dispatcher's classifier.
  method_outcome (*serve)(const exchange_ptr&);
};

/// The row for `name`; nullptr when the engine has no such method.
const method_info* find_method(std::string_view name) noexcept;
/// Every row, in table order (metrics label the methods by it).
std::span<const method_info> all_methods() noexcept;

// Handlers, one per method, defined in the *_methods.cpp files and tools_call.cpp.
method_outcome handle_initialize(const exchange_ptr& ex, initialize_params& p);
method_outcome handle_ping(const exchange_ptr& ex, no_params& p);
method_outcome handle_discover(const exchange_ptr& ex, no_params& p);
method_outcome handle_set_level(const exchange_ptr& ex, set_level_params& p);
method_outcome handle_list(const exchange_ptr& ex, list_params& p);
method_outcome handle_tools_call(const exchange_ptr& ex, tools_call_params& p);
method_outcome handle_resources_read(const exchange_ptr& ex, uri_params& p);
/// request_context::read_resource: runs the reader of `uri` with `ctx` and returns its
/// ResourceContents array; throws resource_not_found when nothing matches or it gives nothing.
json read_own_resource(engine& e, const std::string& uri, request_context& ctx);
method_outcome handle_resources_subscribe(const exchange_ptr& ex, uri_params& p);
method_outcome handle_resources_unsubscribe(const exchange_ptr& ex, uri_params& p);
method_outcome handle_prompts_get(const exchange_ptr& ex, prompts_get_params& p);
method_outcome handle_complete(const exchange_ptr& ex, complete_params& p);
method_outcome handle_tasks_get(const exchange_ptr& ex, task_id_params& p);
method_outcome handle_tasks_result(const exchange_ptr& ex, task_id_params& p);
method_outcome handle_tasks_list(const exchange_ptr& ex, list_params& p);
method_outcome handle_tasks_cancel(const exchange_ptr& ex, task_id_params& p);
method_outcome handle_tasks_update(const exchange_ptr& ex, task_update_params& p);
/// Opens a listen stream (engine/listeners.hpp); the exchange settles when the stream ends.
method_outcome handle_listen(const exchange_ptr& ex, listen_params& p);

}  // namespace mcpcxx::detail

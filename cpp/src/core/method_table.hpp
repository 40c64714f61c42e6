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

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mcpcxx/context.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/primitives.hpp"

#include "core/exchange.hpp"

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

// Decoders: `params` is the request's params object (members may be moved out); `method` names
// the method in the error text.
decode_result decode(json& params, std::string_view method, no_params& out);
decode_result decode(json& params, std::string_view method, initialize_params& out);
decode_result decode(json& params, std::string_view method, set_level_params& out);
decode_result decode(json& params, std::string_view method, list_params& out);
decode_result decode(json& params, std::string_view method, uri_params& out);
decode_result decode(json& params, std::string_view method, prompts_get_params& out);
decode_result decode(json& params, std::string_view method, complete_params& out);
// Features decode their own methods' params (tasks/task_methods.hpp, listen/listeners.hpp) with
// the helpers below, so their refusals are the same rows.

/// Row P15a: `method` needs params.`field` (`requirement` completes the sentence).
method_outcome param_missing_outcome(std::string_view method, std::string_view field,
                                     std::string_view requirement);
/// Row P15b: `subject` must be `expected`; `got` is the value sent (null: not shown).
method_outcome param_invalid_outcome(std::string_view subject, std::string_view expected,
                                     const json* got = nullptr);
/// params[key], or null when it is absent or JSON null.
const json* param_member(const json& params, const char* key);

/// Flags of a method-table row.
enum method_flags : unsigned {
  in_legacy = 1u << 0,        ///< served to initialize-era sessions
  in_modern = 1u << 1,        ///< served to 2026-07-28 requests
  before_init = 1u << 2,      ///< legacy: allowed before initialize
  on_worker = 1u << 3,        ///< runs on the worker pool (user handlers)
  not_cancellable = 1u << 4,  ///< notifications/cancelled is ignored for it
  may_ask = 1u << 5,          ///< 2026-07-28: may answer input_required (opens the round first)
};

/// A handler: the exchange (era facts, context) and its decoded params.
using exchange_ptr = std::shared_ptr<exchange>;

/// One row: name -> flags and the capability gating it ("" for none). Who serves a row is
/// bound per server (core/method_bindings.hpp).
struct method_info {
  std::string_view name;
  unsigned flags;
  std::string_view capability;
};

namespace method_rows {
inline constexpr unsigned both = in_legacy | in_modern;

inline constexpr std::array<method_info, 23> k_methods{{
    {"initialize", in_legacy | before_init | not_cancellable, ""},
    {"ping", in_legacy | before_init, ""},
    {"server/discover", in_modern, ""},
    {"logging/setLevel", in_legacy, "logging"},
    {"tools/list", both, "tools"},
    {"tools/call", both | on_worker | may_ask, "tools"},
    {"resources/list", both, "resources"},
    {"resources/templates/list", both, "resources"},
    {"resources/read", both | on_worker | may_ask, "resources"},
    {"resources/subscribe", in_legacy, "resources"},
    {"resources/unsubscribe", in_legacy, "resources"},
    {"prompts/list", both, "prompts"},
    {"prompts/get", both | on_worker | may_ask, "prompts"},
    {"completion/complete", both | on_worker, "completions"},
    // tasks (tasks/task_methods.hpp): 2025-11-25 core, 2026-07-28 the tasks extension
    {"tasks/get", both, "tasks"},
    {"tasks/result", in_legacy | on_worker, "tasks"},
    {"tasks/list", in_legacy, "tasks"},
    {"tasks/cancel", both, "tasks"},
    {"tasks/update", in_modern, "tasks"},
    {"subscriptions/listen", in_modern, ""},
    // the Skills extension (skills/skills_methods.hpp): gated by the extension's declaration
    {"skills/list", both, "io.modelcontextprotocol/skills"},
    {"skills/get", both, "io.modelcontextprotocol/skills"},
    {"resources/directory/read", both, "io.modelcontextprotocol/skills"},
}};
}  // namespace method_rows

/// The row for `name`; nullptr when the engine has no such method.
inline const method_info* find_method(std::string_view name) noexcept {
  for (const auto& m : method_rows::k_methods) {
    if (m.name == name) return &m;
  }
  return nullptr;
}
/// Every row, in table order (metrics label the methods by it).
inline std::span<const method_info> all_methods() noexcept { return method_rows::k_methods; }

}  // namespace mcpcxx::detail

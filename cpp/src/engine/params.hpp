// Typed params of every method and their decoders. Each method-table row names its params
// struct; the row decodes the request's params before the handler runs, so handlers receive
// typed values and no handler writes "invalid params" text. A decoder reports what is wrong as
// a situation row (P15; P16/P16a for the tools/call envelope; P22) with its arguments; the
// table renders the text.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "mcpcxx/context.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/primitives.hpp"

#include "engine/outcome.hpp"

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
/// tools/call; `arguments` is moved out of the request (an empty object when absent or null).
struct tools_call_params {
  std::string name;
  json arguments = json::object();
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
decode_result decode(json& params, std::string_view method, tools_call_params& out);
decode_result decode(json& params, std::string_view method, uri_params& out);
decode_result decode(json& params, std::string_view method, prompts_get_params& out);
decode_result decode(json& params, std::string_view method, complete_params& out);

}  // namespace mcpcxx::detail

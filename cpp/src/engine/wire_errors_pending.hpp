// Factories for the rows whose arguments the engine computes (P15a/P15b shapes, P26's code by
// category, T7's tool facts); each is a thin call into the situation table (cpp/src/wire).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "mcpcxx/errors.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"

#include "engine/wire_errors.hpp"

namespace mcpcxx::detail::wire {

/// P15a ("needs" form): `Invalid params: {method} needs params.{field}{requirement}`, where
/// `requirement` is the expected shape with its leading separator (", a non-empty string").
error_object param_missing(std::string_view method, std::string_view field,
                           std::string_view requirement);
/// P15b ("must be" form): `Invalid params: {subject} must be {expected}[, got {type of got}]`.
error_object param_invalid(std::string_view subject, std::string_view expected,
                           const json* got = nullptr);
/// P25 (proposed): a legacy session's request needs a client capability its initialize did not
/// declare. -32600 with data {method, requiredCapabilities}; the text tells the client to start
/// a new session that declares it (a legacy client cannot send per-request _meta).
error_object missing_client_capability_legacy(std::string_view method, const json& required);
/// The arguments of row P23 (a handler's own code, message and data).
json handler_error_args(int code, const std::string& message, const json& data);
/// P26 (proposed): a resource reader, prompt or completion handler raised tool_error. The
/// handler's own text is sent; -32602 for client-side categories (invalid_arguments, not_found,
/// permission_denied, conflict, precondition_failed), else -32603; data is the error's details.
error_object handler_tool_error(const tool_error& e);
/// T7 (proposed): a tool raised resource_not_found: an isError result, category not_found.
json resource_not_found_result(const tool_facts& tool, std::string_view uri);

}  // namespace mcpcxx::detail::wire

// The x-mcp-header declarations of a tool's inputSchema (SEP-2243): the check at registration
// (every rule a 2026-07-28 client applies before it keeps a tool) and which arguments a client
// mirrors into Mcp-Param-<Name> headers (read by the HTTP transport).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx::detail {

/// One argument mirrored into an Mcp-Param-<name> header.
struct param_header {
  std::string name;               ///< the x-mcp-header value (header suffix)
  std::vector<std::string> path;  ///< property names from the arguments object down
  std::string type;               ///< "string", "integer" or "boolean"
};

/// Throws std::invalid_argument naming tool `tool`, the property and the broken rule when an
/// x-mcp-header of `schema` is not a non-empty HTTP token string, sits on a property whose
/// "type" is not "string", "integer" or "boolean" (a number, an optional anyOf with null),
/// repeats another one but for case, or is reachable other than through `properties` alone.
void check_param_headers(const json& schema, std::string_view tool);

/// Finds x-mcp-header properties reachable through `properties` chains of `schema`.
std::vector<param_header> collect_param_headers(const json& schema);

}  // namespace mcpcxx::detail

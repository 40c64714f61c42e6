// The x-mcp-header declarations of a tool's inputSchema (SEP-2243): which arguments a client
// mirrors into Mcp-Param-<Name> headers.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx::http {

/// One argument mirrored into an Mcp-Param-<name> header.
struct param_header {
  std::string name;               ///< the x-mcp-header value (header suffix)
  std::vector<std::string> path;  ///< property names from the arguments object down
  std::string type;               ///< "string", "integer" or "boolean"
};

/// Finds x-mcp-header properties reachable through `properties` chains of `schema`.
std::vector<param_header> collect_param_headers(const json& schema);

}  // namespace mcpcxx::http

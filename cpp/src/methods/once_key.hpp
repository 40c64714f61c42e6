// The key of an at-most-once operation (tool_spec::at_most_once): which calls count as the same
// operation. Canonical JSON makes equal values spell alike whatever their key order or number
// spelling; the digest keeps a record key short and free of the caller's values.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::detail {

/// `v` in canonical form: object keys in byte order, no whitespace, numbers with an integral
/// value written as integers (1, 1.0 and 1e0 alike; -0 as 0), others in shortest round-trip
/// form, strings escaped as JSON requires (no other escapes).
std::string canonical_json(const json& v);

/// The record key of one operation: a hex SHA-256 of the caller's scope (principal identity,
/// "" for none), the tool name and the canonical form of `compared` (the arguments, or the
/// idempotency key argument's value).
std::string operation_key(std::string_view scope, std::string_view tool, const json& compared);

}  // namespace mcpcxx::detail

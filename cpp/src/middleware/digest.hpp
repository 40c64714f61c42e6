// The digest of a request's arguments the built-in middleware share: the audit line's
// argumentsDigest and the response cache's key (equal arguments in any key order or number
// spelling digest alike; the digest never reveals the values).
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "mcpcxx/json.hpp"

namespace mcpcxx::detail {

/// "sha256:" and the hex SHA-256 of the canonical JSON of `args` (null counts as {}).
std::string arguments_digest(const json& args);

}  // namespace mcpcxx::detail

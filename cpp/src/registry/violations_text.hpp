// The violations of a failed argument check as JSON text, written from the validator's result
// without a json tree (the T1 reply carries them in its details).
// Thread-safety: pure; any thread.
#pragma once

#include <string>

#include "mcpcxx/json_schema.hpp"

namespace mcpcxx::detail {

/// The bytes of schema::violations_to_json(result) compactly serialized by the reply writers.
std::string violations_json_text(const schema::validation_result& result);

}  // namespace mcpcxx::detail

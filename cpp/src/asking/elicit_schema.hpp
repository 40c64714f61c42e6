// The restricted JSON Schema subset of elicitation/create form mode (requestedSchema): a flat
// object whose properties are primitives (string with format/minLength/maxLength, number or
// integer with minimum/maximum, boolean, and the enum forms: untitled/legacy-titled `enum`,
// 2025-11-25 titled single-select `oneOf` and multi-select arrays), plus defaults where the
// revision has them. Checked at the call site so a bad schema is the tool author's error, never a
// malformed request on the wire; the client's accepted content is validated against it.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::detail {

/// Throws std::invalid_argument naming the offending property and keyword when `schema` is not in
/// the elicitation subset of protocol revision `version` (e.g. "2025-06-18", "2025-11-25").
void check_elicitation_schema(const json& schema, std::string_view version);

/// Why accepted `content` does not match `schema` (already checked), one line per violation;
/// nullopt when it matches. Unknown properties are violations.
std::optional<std::string> elicitation_content_violations(const json& schema, const json& content);

}  // namespace mcpcxx::detail

// Registration checks of tool_spec::at_most_once (the declaration of at-most-once tools).
// Thread-safety: pure functions.
#pragma once

#include "mcpcxx/primitives.hpp"

namespace mcpcxx::detail {

/// Throws std::invalid_argument, naming the tool and what to change, when `spec.at_most_once`
/// is set and its window is outside (0, 7 days], its key_argument is not a required property of
/// the inputSchema, or its status check names no tool or an argument the inputSchema lacks.
void check_at_most_once(const tool_spec& spec);

/// True when the tool's annotations say destructiveHint: true.
bool destructive_hint(const json& annotations);

}  // namespace mcpcxx::detail

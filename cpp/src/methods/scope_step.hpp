// The scope step of tools/call (core/tool_step.hpp), attached to tools that declare scopes.
// Thread-safety: the step is immutable; any number of calls may run it at once.
#pragma once

#include <memory>

#include "core/tool_step.hpp"

namespace mcpcxx::detail {

/// The step refusing a call whose principal lacks one of the tool's scopes (rows P55, P56) or
/// fails its principal rule (P66, P65; P24 when the rule throws).
std::shared_ptr<const tool_step> make_scope_step();

}  // namespace mcpcxx::detail

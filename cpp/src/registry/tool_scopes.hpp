// Per-tool OAuth scopes (tool_spec::scopes): the check at registration and who may see a tool.
// The refusal of a call without them is the scope step (methods/scope_step.cpp); tools/list
// filtering is catalog::tools_list_for.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.hpp"

namespace mcpcxx::detail {

/// Throws std::invalid_argument naming `what` for a scope that is empty or not an RFC 6749
/// scope-token (visible ASCII except '"' and '\\'), since scopes reach WWW-Authenticate.
void check_tool_scopes(const std::vector<std::string>& scopes, std::string_view what);

/// True when `principal` may see and call `t` (its scopes and rule; a throwing rule: false).
bool tool_visible(const tool_entry& t, const json& principal);

/// `items` joined with single spaces (a scope string).
std::string space_joined(const std::vector<std::string>& items);

}  // namespace mcpcxx::detail

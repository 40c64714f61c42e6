// Per-tool OAuth scopes (tool_spec::scopes): the check at registration and the refusal of a
// tools/call whose principal lacks them. tools/list filtering is engine::tools_list_for.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/exchange.hpp"
#include "engine/registry.hpp"

namespace mcpcxx::detail {

/// Throws std::invalid_argument naming `what` for a scope that is empty or not an RFC 6749
/// scope-token (visible ASCII except '"' and '\\'), since scopes reach WWW-Authenticate.
void check_tool_scopes(const std::vector<std::string>& scopes, std::string_view what);

/// The refusal of a call of `t` by `principal` when it lacks a scope: row P56 without a
/// principal, P55 with one; nullopt when the call may proceed.
std::optional<method_outcome> scope_refusal(const tool_entry& t, const json& principal);

/// True when `principal` may see and call `t`.
bool tool_visible(const tool_entry& t, const json& principal);

}  // namespace mcpcxx::detail

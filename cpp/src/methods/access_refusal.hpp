// The refusals of a guarded primitive (scopes, principal rule): rows P64-P66 (P55/P56 for a
// scoped tool's scopes), P24 for a rule that threw; and the log of rules that threw while a
// list was built.
// Thread-safety: pure functions over the exchange; the log is thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/exchange.hpp"
#include "registry/access.hpp"

namespace mcpcxx::detail {

/// The refusal of `ex`'s request for `primitive` ("resource", "resource template", "prompt",
/// "tool") `name` guarded by `scopes` and `rule`; nullopt when its principal may use it.
std::optional<method_outcome> refuse_access(const exchange& ex, std::string_view primitive,
                                            const std::string& name,
                                            const std::vector<std::string>& scopes,
                                            const principal_rule& rule);

/// refuse_access() of a spec with `scopes` and `visible_to`; nullopt at once when unguarded.
template <class Spec>
std::optional<method_outcome> refuse_access(const exchange& ex, std::string_view primitive,
                                            const std::string& name, const Spec& spec) {
  if (!guarded(spec)) return std::nullopt;
  return refuse_access(ex, primitive, name, spec.scopes, spec.visible_to);
}

/// Logs each rule that threw while a list was built for `ex` (error, with a reference each).
void log_rule_failures(const exchange& ex, const std::vector<rule_failure>& failures);

}  // namespace mcpcxx::detail

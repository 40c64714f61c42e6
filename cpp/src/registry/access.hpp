// Who may see and use a primitive: its scopes (spec.scopes) and its rule on the principal
// (spec.visible_to). The lists hide what a principal may not use (catalog::list_for); the
// methods refuse it (methods/access_refusal.hpp).
// Thread-safety: pure functions; a rule's test runs on the calling thread.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "mcpcxx/primitives.hpp"

namespace mcpcxx::detail {

/// What a principal may do with one guarded primitive.
enum class access : std::uint8_t {
  allowed,
  needs_authentication,  ///< no principal
  insufficient_scope,    ///< a scope is missing
  denied,                ///< the rule's test returned false
  failed,                ///< the rule's test threw
};

/// True when a primitive with these scopes and rule depends on the principal.
inline bool guarded(const std::vector<std::string>& scopes, const principal_rule& rule) noexcept {
  return !scopes.empty() || static_cast<bool>(rule);
}

/// guarded() of a spec with `scopes` and `visible_to`.
template <class Spec>
bool guarded(const Spec& s) noexcept {
  return guarded(s.scopes, s.visible_to);
}

/// The verdict for `principal` (null: none). Scopes are checked before the rule; a rule that
/// throws gives `failed` and stores the exception in `*error` when given.
access check_access(const std::vector<std::string>& scopes, const principal_rule& rule,
                    const json& principal, std::exception_ptr* error = nullptr);

/// check_access() of a spec.
template <class Spec>
access check_access(const Spec& s, const json& principal, std::exception_ptr* error = nullptr) {
  return check_access(s.scopes, s.visible_to, principal, error);
}

/// A rule that threw while a list was built for a principal (the entry was left out).
struct rule_failure {
  std::string primitive;  ///< "tool", "resource", "resource template" or "prompt"
  std::string name;       ///< its name or URI (template)
  std::exception_ptr error;
};

}  // namespace mcpcxx::detail

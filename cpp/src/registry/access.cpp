// check_access: scopes, then the principal rule.
#include "registry/access.hpp"

#include <cxxabi.h>

#include "mcpcxx/context.hpp"

namespace mcpcxx::detail {

access check_access(const std::vector<std::string>& scopes, const principal_rule& rule,
                    const json& principal, std::exception_ptr* error) {
  if (scopes.empty() && !rule) return access::allowed;
  if (principal.is_null()) return access::needs_authentication;
  if (!missing_scopes(principal, scopes).empty()) return access::insufficient_scope;
  if (!rule) return access::allowed;
  try {
    return rule.test(principal) ? access::allowed : access::denied;
  } catch (abi::__forced_unwind&) {
    throw;  // a cancelled thread must unwind
  } catch (...) {
    if (error != nullptr) *error = std::current_exception();
    return access::failed;
  }
}

}  // namespace mcpcxx::detail

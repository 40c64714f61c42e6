// Refusals of guarded primitives and the log of principal rules that threw.
#include "methods/access_refusal.hpp"

#include "mcpcxx/context.hpp"

#include "core/classify.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "observability/server_log.hpp"
#include "registry/tool_scopes.hpp"

namespace mcpcxx::detail {

namespace {

json scopes_arg(const std::vector<std::string>& scopes) {
  return scopes.empty() ? json() : json(space_joined(scopes));
}

std::string described(std::exception_ptr error) {
  try {
    std::rethrow_exception(std::move(error));
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

std::optional<method_outcome> refuse_access(const exchange& ex, std::string_view primitive,
                                            const std::string& name,
                                            const std::vector<std::string>& scopes,
                                            const principal_rule& rule) {
  const json& principal = ex.session().principal();
  std::exception_ptr error;
  switch (check_access(scopes, rule, principal, &error)) {
    case access::allowed:
      return std::nullopt;
    case access::needs_authentication:
      return method_outcome::protocol(
          situation::P65_primitive_needs_authentication,
          {{"primitive", primitive}, {"name", name}, {"scopes", scopes_arg(scopes)}});
    case access::insufficient_scope:
      return method_outcome::protocol(
          situation::P64_primitive_insufficient_scope,
          {{"primitive", primitive},
           {"name", name},
           {"scopes", space_joined(scopes)},
           {"missing", space_joined(missing_scopes(principal, scopes))}});
    case access::denied: {
      json requirement = rule.requirement.empty() ? json() : json(rule.requirement);
      return method_outcome::protocol(
          situation::P66_primitive_not_allowed,
          {{"primitive", primitive}, {"name", name}, {"requirement", std::move(requirement)}});
    }
    case access::failed:
      break;
  }
  // Sanitized on the wire (P24 with a reference), the whole detail in the log.
  return classify(error, ex, handler_kind::engine);
}

void log_rule_failures(const exchange& ex, const std::vector<rule_failure>& failures) {
  for (const auto& f : failures) {
    const std::string ref = server_log::new_reference();
    ex.core().log().write("error", "principal_rule_exception",
                          {{"method", ex.method()},
                           {"primitive", f.primitive},
                           {"name", f.name},
                           {"reference", ref},
                           {"detail", described(f.error)}});
  }
}

}  // namespace mcpcxx::detail

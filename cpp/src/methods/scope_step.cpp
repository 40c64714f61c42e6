// The scope step of tools/call: a tool with scopes refuses a principal that lacks one (P55, or
// P56 without a principal). Attached only to tools that declare scopes.
#include "methods/scope_step.hpp"

#include "mcpcxx/context.hpp"

#include "core/session_state.hpp"
#include "registry/tool_scopes.hpp"

namespace mcpcxx::detail {

namespace {

std::optional<method_outcome> scope_refusal(const tool_entry& t, const json& principal) {
  if (tool_visible(t, principal)) return std::nullopt;
  json args = {{"name", t.spec.name}, {"scopes", space_joined(t.spec.scopes)}};
  if (principal.is_null()) {
    return method_outcome::protocol(situation::P56_tool_needs_authentication, args);
  }
  args["missing"] = space_joined(missing_scopes(principal, t.spec.scopes));
  return method_outcome::protocol(situation::P55_tool_insufficient_scope, args);
}

class scope_step final : public tool_step {
 public:
  std::optional<method_outcome> before(const std::shared_ptr<exchange>& ex,
                                       const std::shared_ptr<const tool_entry>& tool,
                                       const json& /*arguments*/,
                                       tool_call_plan& /*plan*/) const override {
    return scope_refusal(*tool, ex->session().principal());
  }
};

}  // namespace

std::shared_ptr<const tool_step> make_scope_step() { return std::make_shared<scope_step>(); }

}  // namespace mcpcxx::detail

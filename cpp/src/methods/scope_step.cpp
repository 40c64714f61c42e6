// The scope step of tools/call: a tool with scopes refuses a principal that lacks one (P55, or
// P56 without a principal), a tool with a principal rule one it refuses (P66, P65 without a
// principal). Attached only to tools that declare scopes or a rule.
#include "methods/scope_step.hpp"

#include "mcpcxx/context.hpp"

#include "core/session_state.hpp"
#include "methods/access_refusal.hpp"
#include "registry/tool_scopes.hpp"

namespace mcpcxx::detail {

namespace {

// A scoped tool keeps its own rows (P55, P56); its principal rule answers like any primitive's.
std::optional<method_outcome> scope_refusal(const exchange& ex, const tool_entry& t) {
  const json principal = ex.session().principal();
  const auto& scopes = t.spec.scopes;
  if (!scopes.empty()) {
    json args = {{"name", t.spec.name}, {"scopes", space_joined(scopes)}};
    if (principal.is_null()) {
      return method_outcome::protocol(situation::P56_tool_needs_authentication, args);
    }
    if (auto missing = missing_scopes(principal, scopes); !missing.empty()) {
      args["missing"] = space_joined(missing);
      return method_outcome::protocol(situation::P55_tool_insufficient_scope, args);
    }
  }
  return refuse_access(ex, "tool", t.spec.name, {}, t.spec.visible_to);
}

class scope_step final : public tool_step {
 public:
  std::optional<method_outcome> before(const std::shared_ptr<exchange>& ex,
                                       const std::shared_ptr<const tool_entry>& tool,
                                       const json& /*arguments*/,
                                       tool_call_plan& /*plan*/) const override {
    return scope_refusal(*ex, *tool);
  }
};

}  // namespace

std::shared_ptr<const tool_step> make_scope_step() { return std::make_shared<scope_step>(); }

}  // namespace mcpcxx::detail

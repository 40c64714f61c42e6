// tools/list, resources/list, resources/templates/list and prompts/list: cached, paginated; and
// the binding of the primitives' rows.
#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "methods/access_refusal.hpp"
#include "methods/primitive_methods.hpp"

namespace mcpcxx::detail {

method_outcome handle_list(server_core& e, const exchange_ptr& ex, list_params& p) {
  // Entries with scopes or a principal rule make a list depend on the principal: built per
  // request, uncached. Other servers keep the cached pages.
  std::shared_ptr<const std::string> page;
  if (e.registry().varies_by_principal(ex->method())) {
    std::vector<rule_failure> failures;
    page = e.registry().list_for(ex->method(), ex->session().principal(), ex->facts.modern,
                                 p.cursor, failures);
    log_rule_failures(*ex, failures);
  } else {
    page = e.registry().list_result(ex->method(), ex->facts.modern, p.cursor);
  }
  if (!page) return method_outcome::protocol(situation::P18_invalid_cursor);
  return method_outcome::cached(std::move(page));
}

void bind_primitive_methods(method_bindings& methods, server_core& core) {
  for (const char* list :
       {"tools/list", "resources/list", "resources/templates/list", "prompts/list"}) {
    methods.bind<&handle_list>(list, core);
  }
  methods.bind<&handle_tools_call>("tools/call", core);
  methods.bind<&handle_resources_read>("resources/read", core);
  methods.bind<&handle_resources_subscribe>("resources/subscribe", core);
  methods.bind<&handle_resources_unsubscribe>("resources/unsubscribe", core);
  methods.bind<&handle_prompts_get>("prompts/get", core);
  methods.bind<&handle_complete>("completion/complete", core);
}

}  // namespace mcpcxx::detail

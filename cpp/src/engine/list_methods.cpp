// tools/list, resources/list, resources/templates/list and prompts/list: cached, paginated.
#include "engine/engine.hpp"
#include "engine/exchange.hpp"
#include "engine/method_table.hpp"
#include "engine/session_state.hpp"

namespace mcpcxx::detail {

method_outcome handle_list(const exchange_ptr& ex, list_params& p) {
  engine& e = ex->eng();
  // Tools with scopes make tools/list depend on the principal: built per request, uncached.
  auto page = ex->method() == "tools/list" && e.has_scoped_tools()
                  ? e.tools_list_for(ex->session().principal(), ex->facts.modern, p.cursor)
                  : e.list_result(ex->method(), ex->facts.modern, p.cursor);
  if (!page) return method_outcome::protocol(situation::P18_invalid_cursor);
  return method_outcome::cached(std::move(page));
}

}  // namespace mcpcxx::detail

// tools/list, resources/list, resources/templates/list and prompts/list: cached, paginated.
#include "engine/engine.hpp"
#include "engine/exchange.hpp"
#include "engine/method_table.hpp"

namespace mcpcxx::detail {

method_outcome handle_list(const exchange_ptr& ex, list_params& p) {
  auto page = ex->eng().list_result(ex->method(), ex->facts.modern, p.cursor);
  if (!page) return method_outcome::protocol(situation::P18_invalid_cursor);
  return method_outcome::cached(std::move(page));
}

}  // namespace mcpcxx::detail

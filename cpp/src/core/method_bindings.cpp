// Serving a request through the handler bound to its row.
#include "core/method_bindings.hpp"

#include <stdexcept>
#include <variant>

#include "core/input_round.hpp"
#include "core/method_table.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"

namespace mcpcxx::detail {

namespace {

// A row with no handler is a server bug: logged with a reference, answered as internal.
method_outcome unbound(const method_info& row, const exchange& ex) {
  const std::string ref = server_log::new_reference();
  ex.core().log().write("error", "method_not_bound",
                        {{"method", std::string(row.name)}, {"reference", ref}});
  return method_outcome::protocol(situation::P24_internal_error, {{"reference", ref}}, ref);
}

}  // namespace

void method_bindings::put(std::string_view method, slot s) {
  const method_info* row = find_method(method);
  if (row == nullptr || index_of(*row) >= k_max_rows) {
    throw std::logic_error("method_bindings::bind: the method table has no row '" +
                           std::string(method) + "'");
  }
  slots_[index_of(*row)] = s;
}

method_outcome method_bindings::serve_after_checks(const method_info& row,
                                                   const std::shared_ptr<exchange>& ex) const {
  const slot& s = slots_[index_of(row)];
  if (s.serve == nullptr) return unbound(row, *ex);
  // A state that does not open for this request is refused before the handler runs.
  auto opened = input_round::open(ex);
  if (auto* refusal = std::get_if<method_outcome>(&opened)) return std::move(*refusal);
  ex->set_input_round(std::get<std::shared_ptr<input_round>>(std::move(opened)));
  return s.serve(s.service, ex);
}

}  // namespace mcpcxx::detail

// render_error_row (mcpcxx/errors.hpp): a table row rendered by its id, for code outside the
// engine that answers requests itself.
#include <stdexcept>
#include <string>

#include "mcpcxx/errors.hpp"

#include "wire/situation.hpp"

namespace mcpcxx {

json render_error_row(std::string_view id, const json& args) {
  const wire::row* r = wire::find_row(id);
  if (r != nullptr && r->kind == wire::shape::error_object) {
    return wire::error_json(wire::render(r->which, args));
  }
  if (r != nullptr) {
    throw std::invalid_argument("render_error_row: row " + std::string(id) +
                                " is not a JSON-RPC error row");
  }
  throw std::invalid_argument("render_error_row: no row " + std::string(id) +
                              " in the situation table (docs/error-model.md)");
}

}  // namespace mcpcxx

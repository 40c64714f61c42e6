// detail::method_bindings: the handler bound to each row of the method table, per server. The
// table (method_table.hpp) says what the protocol has: names, eras, gating. A binding says who
// serves a row: a handler of the feature that owns it (the catalog's methods, tasks, listen),
// with that feature's state, so the core never names a feature. The engine binds every row
// before serving.
//
// A handler has the shape `method_outcome h(Service&, const exchange_ptr&, Params&)`; bind<h>()
// makes the row decode `Params` from the request (a refusal is the decoder's row) and call it.
// Thread-safety: bind() before serving; serve() from any thread (the bindings are then immutable).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "core/method_table.hpp"

namespace mcpcxx::detail {

/// Serves one request with the bound service.
using method_server = method_outcome (*)(void* service, const std::shared_ptr<exchange>& ex);

/// The parameter types of a handler `method_outcome(S&, const exchange_ptr&, P&)`.
template <class Fn>
struct handler_traits;
template <class S, class P>
struct handler_traits<method_outcome (*)(S&, const std::shared_ptr<exchange>&, P&)> {
  using service = S;
  using params = P;
};

/// Decodes the handler's params from the request, then calls it (see the file comment).
template <auto H>
method_outcome typed_call(void* service, const std::shared_ptr<exchange>& ex) {
  using traits = handler_traits<decltype(H)>;
  typename traits::params params;
  // decode() overloads live with their params struct (ADL finds the feature's own).
  if (auto refusal = decode(ex->params(), ex->method(), params)) return std::move(*refusal);
  return H(*static_cast<typename traits::service*>(service), ex, params);
}

/// The handlers of one server, one slot per method-table row.
class method_bindings {
 public:
  /// The most rows the table may have.
  static constexpr std::size_t k_max_rows = 32;

  /// Binds the row named `method` to handler H of `service`; throws std::logic_error for a
  /// method the table does not have.
  template <auto H>
  void bind(std::string_view method, typename handler_traits<decltype(H)>::service& service) {
    put(method, {&typed_call<H>, &service});
  }
  /// Runs the handler bound to `row` (the P24 internal-error outcome when none is bound).
  method_outcome serve(const method_info& row, const std::shared_ptr<exchange>& ex) const {
    const slot& s = slots_[index_of(row)];
    const bool asks = may_answer_input(row, *ex);
    if (s.serve == nullptr || (asks && carries_round(ex->params()))) {
      return serve_after_checks(row, ex);
    }
    if (asks) ex->set_input_round(nullptr);  // no inputs: a round opens on the first question
    return s.serve(s.service, ex);
  }

 private:
  struct slot {
    method_server serve = nullptr;
    void* service = nullptr;
  };
  void put(std::string_view method, slot s);
  static std::size_t index_of(const method_info& row) noexcept {
    return static_cast<std::size_t>(&row - all_methods().data());
  }
  // 2026-07-28: a method that may answer input_required has an input round.
  static bool may_answer_input(const method_info& row, const exchange& ex) noexcept {
    return (row.flags & may_ask) != 0 && ex.facts.modern;
  }
  // Its round opens before the handler (input_round::open checks them) when the request carries
  // answers or a state; without either it opens empty on the first question (exchange::round()).
  static bool carries_round(const json& params) noexcept {
    return params.is_object() &&
           (params.contains("inputResponses") || params.contains("requestState"));
  }
  // serve() when no handler is bound or the request's input round must open first.
  method_outcome serve_after_checks(const method_info& row,
                                    const std::shared_ptr<exchange>& ex) const;

  std::array<slot, k_max_rows> slots_{};
};

}  // namespace mcpcxx::detail

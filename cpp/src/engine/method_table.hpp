// The method table: every method the engine serves, with its era and gating flags, its typed
// params and its handler. A row's `serve` decodes the params (params.hpp) and calls the handler
// with them; a handler returns a method_outcome and never sends anything itself.
// Thread-safety: the table is immutable.
#pragma once

#include <memory>
#include <string_view>

#include "engine/outcome.hpp"
#include "engine/params.hpp"

namespace mcpcxx::detail {

class exchange;

/// Flags of a method-table row.
enum method_flags : unsigned {
  in_legacy = 1u << 0,        ///< served to initialize-era sessions
  in_modern = 1u << 1,        ///< served to 2026-07-28 requests
  before_init = 1u << 2,      ///< legacy: allowed before initialize
  on_worker = 1u << 3,        ///< runs on the worker pool (user handlers)
  not_cancellable = 1u << 4,  ///< notifications/cancelled is ignored for it
};

/// A handler: the exchange (era facts, context) and its decoded params.
using exchange_ptr = std::shared_ptr<exchange>;

/// One row: name -> flags, the capability gating it ("" for none), and the typed server.
struct method_info {
  std::string_view name;
  unsigned flags;
  std::string_view capability;
  /// Decodes the params and runs the handler; exceptions escape to the dispatcher's classifier.
  method_outcome (*serve)(const exchange_ptr&);
};

/// The row for `name`; nullptr when the engine has no such method.
const method_info* find_method(std::string_view name) noexcept;

// Handlers, one per method, defined in the *_methods.cpp files and tools_call.cpp.
method_outcome handle_initialize(const exchange_ptr& ex, initialize_params& p);
method_outcome handle_ping(const exchange_ptr& ex, no_params& p);
method_outcome handle_discover(const exchange_ptr& ex, no_params& p);
method_outcome handle_set_level(const exchange_ptr& ex, set_level_params& p);
method_outcome handle_list(const exchange_ptr& ex, list_params& p);
method_outcome handle_tools_call(const exchange_ptr& ex, tools_call_params& p);
method_outcome handle_resources_read(const exchange_ptr& ex, uri_params& p);
method_outcome handle_resources_subscribe(const exchange_ptr& ex, uri_params& p);
method_outcome handle_resources_unsubscribe(const exchange_ptr& ex, uri_params& p);
method_outcome handle_prompts_get(const exchange_ptr& ex, prompts_get_params& p);
method_outcome handle_complete(const exchange_ptr& ex, complete_params& p);

}  // namespace mcpcxx::detail

// The core's own methods: initialize, ping, server/discover and logging/setLevel.
// Thread-safety: the handlers may run on any thread at once.
#pragma once

#include "core/method_bindings.hpp"

namespace mcpcxx::detail {

class server_core;

/// Binds the lifecycle rows of the method table to `core`.
void bind_lifecycle_methods(method_bindings& methods, server_core& core);

/// initialize (legacy): negotiates the revision and answers the capabilities.
method_outcome handle_initialize(server_core& e, const exchange_ptr& ex, initialize_params& p);
/// ping.
method_outcome handle_ping(server_core& e, const exchange_ptr& ex, no_params& p);
/// server/discover (2026-07-28).
method_outcome handle_discover(server_core& e, const exchange_ptr& ex, no_params& p);
/// logging/setLevel (legacy).
method_outcome handle_set_level(server_core& e, const exchange_ptr& ex, set_level_params& p);

}  // namespace mcpcxx::detail

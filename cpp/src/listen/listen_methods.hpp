// subscriptions/listen (2026-07-28): the binding of its row to a server's listen streams.
// Thread-safety: the handler may run on any thread at once (the registry guards itself).
#pragma once

#include "core/method_bindings.hpp"
#include "listen/listeners.hpp"

namespace mcpcxx::detail {

/// Binds subscriptions/listen to `streams`.
void bind_listen_method(method_bindings& methods, listener_registry& streams);

/// Opens a listen stream (rows P13, P42, P43); the exchange settles when the stream ends.
method_outcome handle_listen(listener_registry& streams, const exchange_ptr& ex, listen_params& p);

}  // namespace mcpcxx::detail

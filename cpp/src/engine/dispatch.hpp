// The request path after classification: era selection, the method table's gates, registration
// in flight, and the guarded run of the row's handler on the receiving thread or the worker pool.
// Thread-safety: dispatch() runs on the receiving thread; the handler runs where its row says.
#pragma once

#include <memory>

#include "mcpcxx/session.hpp"

namespace mcpcxx::detail {

class exchange;

/// Routes `ex` (era facts, gates: params shape, _meta shape, version, method existence, era,
/// initialization, capability), registers it in flight and runs its handler; every path ends in
/// exactly one ex->finish() or abandon(). `hint` is the era the transport already knows.
void dispatch(std::shared_ptr<exchange> ex, era_hint hint);

}  // namespace mcpcxx::detail

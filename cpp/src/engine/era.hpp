// Era selection and gating for one request, and the guarded run of its handler.
// Thread-safety: route() runs on the receiving thread; run_method() on the thread that serves.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/session.hpp"

namespace mcpcxx::detail {

struct call;
struct method_info;
class session_state;

/// Fills the era facts of `c` (modern _meta or the legacy session), finds its method row, and
/// applies every gate in order: _meta shape, version, method existence, era, initialization,
/// capability. Returns the error to send when the request must be refused.
std::optional<jsonrpc::error_object> route(call& c, const method_info*& m);

/// Runs `m`'s handler, turning stray exceptions into -32603 and ensuring exactly one reply.
void run_method(call& c, const method_info& m);

/// A sink that gathers the replies of a 2025-03-26 batch and sends them as one array.
std::shared_ptr<frame_sink> make_batch_collector(std::shared_ptr<session_state> session,
                                                 std::shared_ptr<frame_sink> target,
                                                 const std::vector<jsonrpc::message>& parts);

}  // namespace mcpcxx::detail

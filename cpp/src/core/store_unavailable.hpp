// detail::store_unavailable: what a shared-store implementation (cpp/src/store, the HTTP
// transport's Redis stores) throws when the store cannot serve a call in time. The classifier
// turns it into row P57; the HTTP transport answers a legacy request it cannot place with row
// H51. Never thrown by the in-memory stores.
// Thread-safety: an exception type; no shared state.
#pragma once

#include <stdexcept>

namespace mcpcxx::detail {

/// The shared store did not answer (unreachable, refused, or slower than its timeout); what()
/// is the reason without credentials ("connection refused", "timed out after 1500 ms").
class store_unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mcpcxx::detail

// detail::store_call: the one translation of a Redis outage (redis::unavailable) into the
// engine's and transports' detail::store_unavailable, which they answer with rows P57 and H51.
// Thread-safety: a pure function.
#pragma once

#include <utility>

#include "core/store_unavailable.hpp"
#include "redis/client.hpp"

namespace mcpcxx::detail {

/// Runs `f`; a redis::unavailable leaves it as detail::store_unavailable with the same reason.
template <class F>
auto store_call(F&& f) -> decltype(std::forward<F>(f)()) {
  try {
    return std::forward<F>(f)();
  } catch (const redis::unavailable& e) {
    throw store_unavailable(e.what());
  }
}

}  // namespace mcpcxx::detail

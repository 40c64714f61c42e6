// Caching hints: registration checks and the combination a list result carries.
#include "registry/cache_hints.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace mcpcxx::detail {

namespace {

constexpr std::int64_t k_open_ttl = std::numeric_limits<std::int64_t>::max();

bool valid_scope(std::string_view s) { return s == "public" || s == "private"; }

}  // namespace

void check_cache_hint(const cache_hint& h, std::string_view what) {
  if (h.ttl_ms && *h.ttl_ms < 0) {
    throw std::invalid_argument(std::string(what) + ": cache ttl_ms must be >= 0 (milliseconds " +
                                "a client may reuse the result), got " + std::to_string(*h.ttl_ms));
  }
  if (h.scope && !valid_scope(*h.scope)) {
    throw std::invalid_argument(std::string(what) + ": cache scope must be \"public\" or " +
                                "\"private\", got \"" + h.scope->substr(0, 40) + "\"");
  }
}

void check_default_hints(const server_options& o) {
  check_cache_hint({o.list_ttl_ms, o.cache_scope}, "server_options list_ttl_ms / cache_scope");
}

resolved_hint open_hint() { return {k_open_ttl, "public", true}; }

void combine(resolved_hint& into, const cache_hint& h, const server_options& o) {
  into.open = false;
  into.ttl_ms = std::min(into.ttl_ms, h.ttl_ms.value_or(o.list_ttl_ms));
  if (h.scope.value_or(o.cache_scope) == "private") into.scope = "private";
}

resolved_hint finish(resolved_hint r, const server_options& o) {
  if (r.open) return {o.list_ttl_ms, o.cache_scope, false};
  return r;
}

void put_hints(json& result, const resolved_hint& h) {
  result["ttlMs"] = h.ttl_ms;
  result["cacheScope"] = h.scope;
}

}  // namespace mcpcxx::detail

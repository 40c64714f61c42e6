// 2026-07-28 caching hints (ttlMs, cacheScope): the checks at registration and the hints a result
// carries, from the primitives' own cache_hint and the server-wide defaults.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"
#include "mcpcxx/primitives.hpp"
#include "mcpcxx/server.hpp"

namespace mcpcxx::detail {

/// The hints one result carries.
struct resolved_hint {
  std::int64_t ttl_ms = 0;
  std::string scope;
  bool open = false;  ///< nothing combined yet
};

/// Throws std::invalid_argument naming `what` ("tool 'x'") for a negative ttl_ms or a scope other
/// than "public" / "private".
void check_cache_hint(const cache_hint& h, std::string_view what);
/// Throws std::invalid_argument for bad server-wide defaults (list_ttl_ms, cache_scope).
void check_default_hints(const server_options& o);

/// Starts a combination at the least restrictive value, for combine() to tighten.
resolved_hint open_hint();
/// Tightens `into` by `h` (its unset members by the defaults in `o`): the smaller ttl, and
/// "private" when either is private.
void combine(resolved_hint& into, const cache_hint& h, const server_options& o);
/// The hints of a result about the primitives combined in `r`; the server defaults when `r` is
/// still open (no primitive).
resolved_hint finish(resolved_hint r, const server_options& o);
/// Puts ttlMs and cacheScope on `result`.
void put_hints(json& result, const resolved_hint& h);

}  // namespace mcpcxx::detail

// Eras of messages: the one function that decides which era serves a message, for stdio and HTTP
// alike, and the `_meta` keys it reads. Which revisions exist, their era and their features are in
// the revisions table (wire/revisions.hpp), included here.
// Thread-safety: pure functions over constants.
#pragma once

#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

#include "wire/revisions.hpp"

namespace mcpcxx::wire {

/// The `_meta` key that carries a 2026-07-28 request's protocol revision.
inline constexpr std::string_view k_version_meta_key = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key that carries a modern request's client capabilities.
inline constexpr std::string_view k_capabilities_meta_key =
    "io.modelcontextprotocol/clientCapabilities";

/// What a transport knows about a message when it decides its era.
struct era_signals {
  std::string_view method;                      ///< the request's method; "" for other messages
  const json* meta = nullptr;                   ///< params._meta when it is an object, else null
  const std::string* version_header = nullptr;  ///< HTTP MCP-Protocol-Version; null on stdio
  bool legacy_served = true;                    ///< false when only the modern era is served
};

/// The era that serves a message, the same rule on every transport, first match wins: modern
/// when the legacy era is not served; modern when the transport's version header names a modern
/// revision; legacy for `initialize` (it selects legacy semantics); modern when `_meta` carries
/// the protocol version or the client capabilities (a malformed modern request is then refused
/// as such, P11/P12); else legacy. Inline: every request of every transport asks it.
inline era message_era(const era_signals& s) noexcept {
  if (!s.legacy_served) return era::modern;
  if (s.version_header != nullptr && is_modern_version(*s.version_header)) return era::modern;
  if (s.method == "initialize") return era::legacy;
  const bool modern_meta =
      s.meta != nullptr && s.meta->is_object() &&
      (s.meta->contains(k_version_meta_key) || s.meta->contains(k_capabilities_meta_key));
  return modern_meta ? era::modern : era::legacy;
}

/// The supported revisions as a JSON array of strings, newest first (data "supported").
json supported_versions_json();

}  // namespace mcpcxx::wire

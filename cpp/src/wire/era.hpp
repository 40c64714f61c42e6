// Protocol revisions and eras: the one place that says which versions exist and which are legacy.
// Engine and transports ask here instead of keeping their own lists.
// Thread-safety: pure functions over constants.
#pragma once

#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::wire {

/// Every revision served, newest first (the same list as mcpcxx::k_supported_versions).
inline constexpr std::string_view k_versions[] = {"2026-07-28", "2025-11-25", "2025-06-18",
                                                  "2025-03-26", "2024-11-05"};
/// The stateless (modern) revision.
inline constexpr std::string_view k_modern = "2026-07-28";
/// The newest legacy revision (the counter-offer to an unknown initialize version).
inline constexpr std::string_view k_latest_legacy = "2025-11-25";

/// The `_meta` key that carries a 2026-07-28 request's protocol revision.
inline constexpr std::string_view k_version_meta_key = "io.modelcontextprotocol/protocolVersion";

/// True for a revision this server implements (either era).
constexpr bool is_supported_version(std::string_view v) noexcept {
  for (std::string_view s : k_versions) {
    if (s == v) return true;
  }
  return false;
}

/// True for a supported revision of the legacy (initialize + session) era.
constexpr bool is_legacy_version(std::string_view v) noexcept {
  return v != k_modern && is_supported_version(v);
}

/// True for the modern (stateless) revision.
constexpr bool is_modern_version(std::string_view v) noexcept { return v == k_modern; }

/// The supported revisions as a JSON array of strings, newest first (data "supported").
json supported_versions_json();

}  // namespace mcpcxx::wire

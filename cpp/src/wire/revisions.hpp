// The revisions table: every protocol revision this server implements, with its era and the
// features it has. It is the only place a revision string is written (scripts/check_revisions.py
// fails CI on a revision literal anywhere else in the C++ sources): code asks `has(revision,
// feature)` or the era lookups instead of comparing revision strings, and the supported list
// (`k_versions`, the public mcpcxx::k_supported_versions, data "supported") is generated from it.
// A new revision is one new row here.
// Thread-safety: constants and pure constexpr functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mcpcxx::wire {

/// The two protocol eras: legacy (initialize + session) and modern (stateless, per-request _meta).
enum class era : std::uint8_t { legacy, modern };

/// A behaviour that some revisions have and others do not (one bit each).
enum class feature : std::uint32_t {
  batching = 1u << 0,                     ///< JSON-RPC batches (2025-03-26 only)
  completions = 1u << 1,                  ///< the `completions` server capability
  elicitation_form = 1u << 2,             ///< elicitation/create with a requestedSchema (form)
  elicitation_modes = 1u << 3,            ///< elicitation `mode` ("form"/"url") and URL mode
  elicitation_rich_schema = 1u << 4,      ///< defaults, titled enums and multi-select in forms
  sampling_tools = 1u << 5,               ///< sampling/createMessage with tools / toolChoice
  sampling_context_capability = 1u << 6,  ///< includeContext needs the sampling.context capability
  tasks = 1u << 7,                        ///< the tasks capability negotiated in initialize
  tasks_extension = 1u << 8,              ///< tasks as the io.modelcontextprotocol/tasks extension
  sse_priming = 1u << 9,                  ///< an SSE stream opens with a priming event (event id)
};

/// A set of features (bitwise or of `feature` values).
using feature_set = std::uint32_t;

/// The set holding `fs`.
template <typename... F>
constexpr feature_set features(F... fs) noexcept {
  return (feature_set{0} | ... | static_cast<feature_set>(fs));
}

/// One row of the revisions table.
struct revision {
  std::string_view name;  ///< the revision string, e.g. the one `initialize` negotiates
  era of_era;             ///< which era it belongs to
  feature_set has;        ///< the features it has
};

/// Every revision served, newest first.
inline constexpr revision k_revisions[] = {
    {"2026-07-28", era::modern,
     features(feature::completions, feature::elicitation_form, feature::elicitation_modes,
              feature::elicitation_rich_schema, feature::sampling_tools,
              feature::sampling_context_capability, feature::tasks_extension)},
    {"2025-11-25", era::legacy,
     features(feature::completions, feature::elicitation_form, feature::elicitation_modes,
              feature::elicitation_rich_schema, feature::sampling_tools,
              feature::sampling_context_capability, feature::tasks, feature::sse_priming)},
    {"2025-06-18", era::legacy, features(feature::completions, feature::elicitation_form)},
    {"2025-03-26", era::legacy, features(feature::completions, feature::batching)},
    {"2024-11-05", era::legacy, features()},
};

/// How many revisions are served.
inline constexpr std::size_t k_revision_count = std::size(k_revisions);

/// The row of `name`, or null when this server does not implement that revision.
constexpr const revision* find_revision(std::string_view name) noexcept {
  for (const revision& r : k_revisions) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

/// True when `name` is a served revision that has `f` (false for an unknown revision).
constexpr bool has(std::string_view name, feature f) noexcept {
  const revision* r = find_revision(name);
  return r != nullptr && (r->has & static_cast<feature_set>(f)) != 0;
}

/// The newest served revision of era `e`.
constexpr std::string_view newest_of(era e) noexcept {
  for (const revision& r : k_revisions) {
    if (r.of_era == e) return r.name;
  }
  return {};
}

/// True for a revision this server implements (either era).
constexpr bool is_supported_version(std::string_view v) noexcept {
  return find_revision(v) != nullptr;
}

/// True for a supported revision of the legacy (initialize + session) era.
constexpr bool is_legacy_version(std::string_view v) noexcept {
  const revision* r = find_revision(v);
  return r != nullptr && r->of_era == era::legacy;
}

/// True for a supported revision of the modern (stateless) era.
constexpr bool is_modern_version(std::string_view v) noexcept {
  const revision* r = find_revision(v);
  return r != nullptr && r->of_era == era::modern;
}

/// Every revision served, newest first, generated from the table.
inline constexpr std::array<std::string_view, k_revision_count> k_versions = [] {
  std::array<std::string_view, k_revision_count> out{};
  for (std::size_t i = 0; i < k_revision_count; ++i) out[i] = k_revisions[i].name;
  return out;
}();
/// The newest modern revision (what a modern request that names no version is served as).
inline constexpr std::string_view k_modern = newest_of(era::modern);
/// The newest legacy revision (the counter-offer to an unknown initialize version).
inline constexpr std::string_view k_latest_legacy = newest_of(era::legacy);

/// True when the table is newest first with well-formed YYYY-MM-DD names and one row per name.
constexpr bool table_well_formed() noexcept {
  for (std::size_t i = 0; i < k_revision_count; ++i) {
    const std::string_view n = k_revisions[i].name;
    if (n.size() != 10 || n[4] != '-' || n[7] != '-') return false;
    if (i > 0 && !(n < k_revisions[i - 1].name)) return false;
  }
  return !k_modern.empty() && !k_latest_legacy.empty();
}
static_assert(table_well_formed(), "k_revisions: newest first, YYYY-MM-DD, both eras present");

}  // namespace mcpcxx::wire

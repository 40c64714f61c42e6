// What a claimed at-most-once call's handler left behind, judged from its outcome: applied (a
// repeat replays the result), not applied (the record goes and a repeat runs), or unknown (a
// repeat is refused with row T12). docs/error-model.md, "Repeated calls".
// Thread-safety: a pure function.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/exchange.hpp"

namespace mcpcxx::detail {

/// The three states a handler's end leaves an operation in.
enum class verdict_state : std::uint8_t { applied, not_applied, unknown };

/// A judged end: the state and, when unknown, why ("timeout", "cancelled", "failed").
struct once_verdict {
  verdict_state state = verdict_state::unknown;
  std::string reason;
};

/// Judges a handler's end: never started -> not applied; a result -> applied; a failure by the
/// effect it states (partial counts as applied), else unknown; `elapsed` past `timeout` names
/// the reason "timeout".
once_verdict judge(const method_outcome& out, bool ran, bool cancelled,
                   const std::optional<std::chrono::milliseconds>& timeout,
                   std::chrono::steady_clock::duration elapsed);

}  // namespace mcpcxx::detail

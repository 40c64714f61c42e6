// Judging how an at-most-once call's handler ended (once_verdict.hpp).
#include "methods/once_verdict.hpp"

#include "wire/situation.hpp"

namespace mcpcxx::detail {

namespace {

// The effect a failure states: a T row's details, or the _meta["mcpcxx/error"] of a result the
// tool marked isError itself; "" when it states none.
std::string stated_effect(const method_outcome& out) {
  const json* details = &out.details;
  if (!details->is_object()) {
    const auto meta = out.result.find("_meta");
    if (meta == out.result.end() || !meta->is_object()) return {};
    const auto err = meta->find("mcpcxx/error");
    if (err == meta->end()) return {};
    details = &*err;
  }
  if (!details->is_object()) return {};
  const auto effect = details->find("effect");
  return effect != details->end() && effect->is_string() ? effect->get<std::string>() : "";
}

bool is_tool_reported_error(const method_outcome& out) {
  return out.row_id == ::mcpcxx::wire::row_of(situation::T6_tool_reported_error).id;
}

// A handler that returned normally (or a served page): nothing about its effect is in doubt.
bool ended_cleanly(const method_outcome& out) {
  if (out.kind == outcome_kind::cached_page) return true;
  return out.kind == outcome_kind::result && !is_tool_reported_error(out);
}

// Why the effect of a failure that states none is unknown.
const char* unknown_effect_reason(const method_outcome& out, bool cancelled,
                                  const std::optional<std::chrono::milliseconds>& timeout,
                                  std::chrono::steady_clock::duration elapsed) {
  if ((timeout && elapsed >= *timeout) || out.category == "timeout") return "timeout";
  if (cancelled || out.counted_as == outcome_class::cancelled) return "cancelled";
  return "failed";
}

}  // namespace

once_verdict judge(const method_outcome& out, bool ran, bool cancelled,
                   const std::optional<std::chrono::milliseconds>& timeout,
                   std::chrono::steady_clock::duration elapsed) {
  if (!ran) return {verdict_state::not_applied, {}};
  if (ended_cleanly(out)) return {verdict_state::applied, {}};
  const std::string effect = stated_effect(out);
  if (effect == "not_applied") return {verdict_state::not_applied, {}};
  if (effect == "applied" || effect == "partial") return {verdict_state::applied, {}};
  return {verdict_state::unknown, unknown_effect_reason(out, cancelled, timeout, elapsed)};
}

}  // namespace mcpcxx::detail

// Registration checks of at-most-once tools: a declaration that could never match a repeat, or
// that points the model to a status check it cannot call, is refused when the tool registers.
#include "registry/once_checks.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

namespace mcpcxx::detail {

namespace {

constexpr std::chrono::milliseconds k_max_window = std::chrono::hours(24 * 7);

bool has_property(const json& schema, const std::string& name) {
  const auto props = schema.find("properties");
  return props != schema.end() && props->is_object() && props->contains(name);
}

bool is_required(const json& schema, const std::string& name) {
  const auto req = schema.find("required");
  if (req == schema.end() || !req->is_array()) return false;
  for (const auto& r : *req) {
    if (r.is_string() && r.get<std::string>() == name) return true;
  }
  return false;
}

[[noreturn]] void refuse(const tool_spec& spec, const std::string& what) {
  throw std::invalid_argument("tool '" + spec.name + "' at_most_once: " + what);
}

void check_status(const tool_spec& spec, const status_check& c) {
  if (c.tool.empty()) refuse(spec, "the status check names no tool; name the tool that reads it");
  for (const auto& a : c.arguments) {
    if (!has_property(spec.input_schema, a)) {
      refuse(spec, "the status check passes argument '" + a +
                       "', which the inputSchema has no property for; list only this tool's "
                       "arguments");
    }
  }
}

}  // namespace

void check_at_most_once(const tool_spec& spec) {
  if (!spec.at_most_once) return;
  const at_most_once& p = *spec.at_most_once;
  if (p.window <= std::chrono::milliseconds(0) || p.window > k_max_window) {
    refuse(spec, "window must be more than 0 and at most 7 days (got " +
                     std::to_string(p.window.count()) + " ms)");
  }
  if (!p.key_argument.empty() && !is_required(spec.input_schema, p.key_argument)) {
    refuse(spec, "key_argument '" + p.key_argument +
                     "' must be a required property of the inputSchema (add it to \"required\"), "
                     "or every call without it would count as one operation");
  }
  if (p.check) check_status(spec, *p.check);
}

bool destructive_hint(const json& annotations) {
  if (!annotations.is_object()) return false;
  const auto it = annotations.find("destructiveHint");
  return it != annotations.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace mcpcxx::detail

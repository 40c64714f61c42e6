// The handler-facing error types and the founding document's tool-error message template.
#include "mcpcxx/errors.hpp"

#include <array>
#include <cmath>
#include <utility>

#include "mcpcxx/error_codes.hpp"

namespace mcpcxx {

namespace {

constexpr std::array<std::pair<error_category, std::string_view>, 9> k_categories{{
    {error_category::invalid_arguments, "invalid_arguments"},
    {error_category::not_found, "not_found"},
    {error_category::permission_denied, "permission_denied"},
    {error_category::conflict, "conflict"},
    {error_category::precondition_failed, "precondition_failed"},
    {error_category::rate_limited, "rate_limited"},
    {error_category::unavailable, "unavailable"},
    {error_category::timeout, "timeout"},
    {error_category::internal, "internal"},
}};

constexpr std::array<std::pair<error_effect, std::string_view>, 4> k_effects{{
    {error_effect::not_applied, "not_applied"},
    {error_effect::unknown, "unknown"},
    {error_effect::partial, "partial"},
    {error_effect::applied, "applied"},
}};

double checked_retry_after(std::optional<double> seconds) {
  if (seconds && (!std::isfinite(*seconds) || *seconds < 0)) {
    throw std::invalid_argument(
        "tool_error retry_after_seconds must be a finite number of seconds >= 0; pass "
        "std::nullopt when there is no retry hint.");
  }
  return seconds.value_or(0);
}

// A developer-facing exception at construction time, never a wire text.
std::string reserved_code_message(int code) {
  const std::string range = "[-32768, -32000]";  // wire-text: not wire (developer exception)
  return "JSON-RPC error code " + std::to_string(code) +
         " is reserved for the JSON-RPC and MCP specifications; use a code outside " + range +
         " for application errors (or " + std::to_string(error_code::invalid_params) + " / " +
         std::to_string(error_code::internal_error) + " / " +
         std::to_string(error_code::resource_not_found_legacy) + " where they apply).";
}

}  // namespace

std::string_view to_string(error_category c) noexcept {
  for (const auto& [value, name] : k_categories) {
    if (value == c) return name;
  }
  return "internal";
}

std::string_view to_string(error_effect e) noexcept {
  for (const auto& [value, name] : k_effects) {
    if (value == e) return name;
  }
  return "unknown";
}

std::optional<error_category> parse_error_category(std::string_view s) noexcept {
  for (const auto& [value, name] : k_categories) {
    if (name == s) return value;
  }
  return std::nullopt;
}

std::optional<error_effect> parse_error_effect(std::string_view s) noexcept {
  for (const auto& [value, name] : k_effects) {
    if (name == s) return value;
  }
  return std::nullopt;
}

tool_error::tool_error(std::string message, error_category category, bool retryable,
                       std::optional<std::string> resource, error_effect effect,
                       std::optional<double> retry_after_seconds)
    : std::runtime_error(message),
      message_(std::move(message)),
      category_(category),
      retryable_(retryable),
      resource_(std::move(resource)),
      effect_(effect),
      retry_after_(retry_after_seconds) {
  checked_retry_after(retry_after_);
}

json tool_error::details() const {
  // Member by member in key order: every tool error builds this (initializer lists copy twice).
  json d(json::value_t::object);
  auto& m = d.get_ref<json::object_t&>();
  m.emplace_hint(m.end(), "category", std::string(to_string(category_)));
  m.emplace_hint(m.end(), "effect", std::string(to_string(effect_)));
  if (resource_) m.emplace_hint(m.end(), "resource", *resource_);
  m.emplace_hint(m.end(), "retryable", retryable_);
  if (retry_after_) m.emplace_hint(m.end(), "retryAfterSeconds", *retry_after_);
  return d;
}

protocol_error::protocol_error(int code, std::string message, json data)
    : std::runtime_error(message),
      code_(code),
      message_(std::move(message)),
      data_(std::move(data)) {
  if (error_code::is_reserved_for_spec(code))
    throw std::invalid_argument(reserved_code_message(code));
}

unexpected_error::unexpected_error(std::string summary, std::string detail)
    : std::runtime_error(summary), summary_(std::move(summary)), detail_(std::move(detail)) {}

namespace {

bool violation_shape(const json& v) {
  const auto text = [&v](const char* key, bool required) {
    auto it = v.find(key);
    return it == v.end() ? !required : it->is_string();
  };
  return v.is_object() && text("instanceLocation", true) && text("keyword", true) &&
         text("message", true) && text("keywordLocation", false);
}

json checked_violations(json violations) {
  if (!violations.is_array() || violations.empty()) {
    throw std::invalid_argument("invalid_arguments_error needs a non-empty array of violations");
  }
  for (const auto& v : violations) {
    if (!violation_shape(v)) {
      throw std::invalid_argument(
          "each invalid_arguments_error violation is an object with string instanceLocation, "
          "keyword and message (and optionally keywordLocation)");
    }
  }
  return violations;
}

}  // namespace

invalid_arguments_error::invalid_arguments_error(json violations)
    : std::runtime_error("invalid arguments"),  // wire-text: not wire (what() only; row T1)
      violations_(checked_violations(std::move(violations))) {}

resource_not_found::resource_not_found(std::string uri)
    // what() only: the engine renders the wire text from the P20/P21 row with uri().
    : std::runtime_error("Resource not found: " + uri),  // wire-text: not wire (what() only)
      uri_(std::move(uri)) {}

}  // namespace mcpcxx

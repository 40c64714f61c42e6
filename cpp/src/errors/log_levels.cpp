// Wire names of the RFC 5424 levels used by MCP logging.
#include <array>
#include <utility>

#include "mcpcxx/log_level.hpp"

namespace mcpcxx {

namespace {

constexpr std::array<std::pair<log_level, std::string_view>, 8> k_levels{{
    {log_level::debug, "debug"},
    {log_level::info, "info"},
    {log_level::notice, "notice"},
    {log_level::warning, "warning"},
    {log_level::error, "error"},
    {log_level::critical, "critical"},
    {log_level::alert, "alert"},
    {log_level::emergency, "emergency"},
}};

}  // namespace

std::string_view to_string(log_level l) noexcept {
  for (const auto& [value, name] : k_levels) {
    if (value == l) return name;
  }
  return "info";
}

std::optional<log_level> parse_log_level(std::string_view s) noexcept {
  for (const auto& [value, name] : k_levels) {
    if (name == s) return value;
  }
  return std::nullopt;
}

}  // namespace mcpcxx

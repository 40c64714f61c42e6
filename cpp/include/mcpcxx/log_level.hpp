// MCP logging levels (RFC 5424) and their wire names; part of the lowest (errors) layer.
// Thread-safety: pure functions, callable from any thread.
#pragma once

#include <optional>
#include <string_view>

namespace mcpcxx {

/// RFC 5424 levels used by MCP logging, lowest first.
enum class log_level { debug, info, notice, warning, error, critical, alert, emergency };

/// Wire name of a level ("debug", ...).
std::string_view to_string(log_level l) noexcept;
/// Parses a wire level name; nullopt when invalid.
std::optional<log_level> parse_log_level(std::string_view s) noexcept;

}  // namespace mcpcxx

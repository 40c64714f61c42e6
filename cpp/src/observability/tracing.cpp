// W3C traceparent parsing and the request span of an exchange (tracing.hpp).
#include "mcpcxx/tracing.hpp"

#include <algorithm>

namespace mcpcxx {

namespace {

bool lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool all_zero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == '0'; });
}

int hex_nibble(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

// version "-" trace-id "-" parent-id "-" flags: 2+1+32+1+16+1+2 = 55 characters; a higher
// version may append "-..." fields, version 00 must not; version ff is invalid.
bool traceparent_layout(std::string_view v) {
  if (v.size() < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-') return false;
  const std::string_view version = v.substr(0, 2);
  if (!lower_hex(version) || version == "ff") return false;
  return version == "00" ? v.size() == 55 : v.size() == 55 || v[55] == '-';
}

}  // namespace

std::optional<trace_parent> parse_traceparent(std::string_view v, std::string_view tracestate) {
  if (!traceparent_layout(v)) return std::nullopt;
  const std::string_view trace = v.substr(3, 32);
  const std::string_view parent = v.substr(36, 16);
  const std::string_view flags = v.substr(53, 2);
  if (!lower_hex(trace) || !lower_hex(parent) || !lower_hex(flags)) return std::nullopt;
  if (all_zero(trace) || all_zero(parent)) return std::nullopt;
  trace_parent p;
  p.trace_id = std::string(trace);
  p.span_id = std::string(parent);
  p.flags = static_cast<std::uint8_t>(hex_nibble(flags[0]) * 16 + hex_nibble(flags[1]));
  p.tracestate = std::string(tracestate);
  return p;
}

}  // namespace mcpcxx

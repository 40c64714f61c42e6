// Private byte-level scanners of the JSON-RPC codec, run before (or instead of) a full parse.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::jsonrpc::detail {

/// Deepest nesting of arrays and objects in `bytes`, skipping string contents; stops counting
/// once the depth exceeds `stop_above` (the result is then stop_above + 1). Never recurses.
std::size_t nesting_depth(std::string_view bytes, std::size_t stop_above) noexcept;

/// Offset of the first byte that starts an ill-formed UTF-8 sequence (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF, no truncated sequences); nullopt when valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view bytes) noexcept;

/// True when `bytes` holds only JSON whitespace (space, tab, CR, LF) or nothing.
inline bool is_blank(std::string_view bytes) noexcept {
  for (const char c : bytes) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

}  // namespace mcpcxx::jsonrpc::detail

namespace mcpcxx::jsonrpc::detail {

/// Offset of the first `\u` escape inside a JSON string that is an unpaired UTF-16 surrogate
/// (a high surrogate not followed by `\u` + low surrogate, or a lone low surrogate); nullopt when
/// there is none. Scans bytes only; the input need not be valid JSON.
std::optional<std::size_t> first_lone_surrogate(std::string_view bytes) noexcept;

/// The top-level "id" member of a JSON object text that may be unparseable elsewhere (bad UTF-8
/// in another string, an out-of-range number, too deep): a string or an int64 read from the
/// first "id" member that precedes any structural damage; nullopt when none can be read.
/// Never throws (allocation failure included: it answers nullopt).
std::optional<request_id> tolerant_top_level_id(std::string_view bytes) noexcept;

}  // namespace mcpcxx::jsonrpc::detail

// Which bytes a JSON string may carry as they are: printable ASCII other than '"' and '\'. The
// writers copy such strings verbatim and hand anything else to nlohmann's escaping.
// Thread-safety: pure; any thread.
#pragma once

#include <array>
#include <string_view>

namespace mcpcxx::jsonrpc {

/// One entry per byte: true when the byte needs no escaping in a JSON string.
inline constexpr std::array<bool, 256> k_plain_byte = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x7f; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return t;
}();

/// True when byte `c` needs no escaping in a JSON string.
inline bool plain_byte(char c) noexcept { return k_plain_byte[static_cast<unsigned char>(c)]; }

/// True when every byte of `s` needs no escaping (a table lookup per byte, no branches on ranges).
inline bool plain_text(std::string_view s) noexcept {
  for (const char c : s) {
    if (!plain_byte(c)) return false;
  }
  return true;
}

}  // namespace mcpcxx::jsonrpc

// Which bytes a JSON string may carry as they are: printable ASCII other than '"' and '\'. The
// writers copy such strings verbatim, escape other ASCII themselves (append_quoted_ascii) and
// hand text with bytes of 0x80 and above to nlohmann's escaping, which owns the UTF-8 checks.
// Thread-safety: pure; any thread.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

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

/// The letter after the backslash of a two-character escape for ASCII byte `c`, or 0 when `c` is
/// written as \u00XX (the other control characters).
inline char short_escape(unsigned char c) noexcept {
  constexpr std::string_view from = "\"\\\b\f\n\r\t";
  constexpr std::string_view to = "\"\\bfnrt";
  const auto at = from.find(static_cast<char>(c));
  return at == std::string_view::npos ? '\0' : to[at];
}

/// append_quoted_ascii for text that is not plain: escaped here when every byte is below 0x80
/// (true), nothing appended otherwise (false).
inline bool append_escaped_ascii(std::string& out, std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  out.push_back('"');
  std::size_t run = 0;  // start of the bytes not yet copied
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (plain_byte(s[i]) || c == 0x7f) continue;  // nlohmann copies DEL as it is
    out.append(s.data() + run, i - run);
    run = i + 1;
    if (const char e = short_escape(c); e != 0) {
      const char pair[] = {'\\', e};
      out.append(pair, sizeof pair);
    } else {
      constexpr char hex[] = "0123456789abcdef";
      const char u[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
      out.append(u, sizeof u);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
  return true;
}

/// Appends `s` as a quoted JSON string with the bytes of nlohmann's compact dump (ensure_ascii
/// off) when every byte is below 0x80, and returns true; otherwise appends nothing and returns
/// false. Plain text is copied as it is; the error texts the engine writes (newlines, quotes) are
/// escaped here, where nlohmann's serializer would write them a character at a time.
inline bool append_quoted_ascii(std::string& out, std::string_view s) {
  if (!plain_text(s)) return append_escaped_ascii(out, s);
  out.push_back('"');
  out.append(s);
  out.push_back('"');
  return true;
}

/// Appends `s` as a quoted JSON string, the bytes the reply writers give it: verbatim, escaped
/// here, or (bytes of 0x80 and above) by nlohmann, ill-formed UTF-8 replaced with U+FFFD.
inline void append_quoted(std::string& out, std::string_view s) {
  if (!append_quoted_ascii(out, s)) {
    out.append(json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace));
  }
}

}  // namespace mcpcxx::jsonrpc

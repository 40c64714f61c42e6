// Byte scanners that look into JSON which nlohmann refused: unpaired surrogate escapes, and the
// top-level "id" so an error about the rest of the message can still name its request.
#include <charconv>
#include <cstdint>

#include "jsonrpc/scan.hpp"

namespace mcpcxx::jsonrpc::detail {

namespace {

bool is_ws(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::size_t skip_ws(std::string_view b, std::size_t i) noexcept {
  while (i < b.size() && is_ws(b[i])) ++i;
  return i;
}

// The 16-bit value of the 4 hex digits at b[i], or -1.
long hex4(std::string_view b, std::size_t i) noexcept {
  if (b.size() < i + 4) return -1;
  long v = 0;
  for (std::size_t k = i; k < i + 4; ++k) {
    const char c = b[k];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// Index just past the string whose opening quote is at b[i]; npos when it never closes.
std::size_t skip_string(std::string_view b, std::size_t i) noexcept {
  for (++i; i < b.size(); ++i) {
    if (b[i] == '\\') {
      ++i;
    } else if (b[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Index just past the value starting at b[i] (string, container or scalar); npos when damaged.
std::size_t skip_value(std::string_view b, std::size_t i) noexcept {
  if (i >= b.size()) return std::string_view::npos;
  if (b[i] == '"') return skip_string(b, i);
  std::size_t depth = 0;
  for (; i < b.size(); ++i) {
    const char c = b[i];
    if (c == '"') {
      i = skip_string(b, i);
      if (i == std::string_view::npos) return i;
      --i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return i;
      if (--depth == 0) return i + 1;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return depth == 0 ? i : std::string_view::npos;
}

// The id value at b[i]: a well-formed string or an int64 integer.
std::optional<request_id> read_id_value(std::string_view b, std::size_t i) {
  if (i < b.size() && b[i] == '"') {
    const std::size_t end = skip_string(b, i);
    if (end == std::string_view::npos) return std::nullopt;
    json v = json::parse(b.substr(i, end - i), nullptr, false);
    if (!v.is_string()) return std::nullopt;
    return request_id{v.get<std::string>()};
  }
  std::int64_t n = 0;
  const char* first = b.data() + i;
  const char* last = b.data() + b.size();
  const auto r = std::from_chars(first, last, n);
  if (r.ec != std::errc{} || r.ptr == first) return std::nullopt;
  const std::size_t after = skip_ws(b, static_cast<std::size_t>(r.ptr - b.data()));
  if (after < b.size() && b[after] != ',' && b[after] != '}') return std::nullopt;  // 1.5, 1e3
  return request_id{n};
}

std::optional<request_id> scan_members(std::string_view b) {
  std::size_t i = skip_ws(b, 0);
  if (i >= b.size() || b[i] != '{') return std::nullopt;
  for (i = skip_ws(b, i + 1); i < b.size() && b[i] == '"'; i = skip_ws(b, i + 1)) {
    const std::size_t key_end = skip_string(b, i);
    if (key_end == std::string_view::npos) return std::nullopt;
    const bool is_id = b.substr(i, key_end - i) == "\"id\"";
    i = skip_ws(b, key_end);
    if (i >= b.size() || b[i] != ':') return std::nullopt;
    i = skip_ws(b, i + 1);
    if (is_id) return read_id_value(b, i);
    i = skip_ws(b, skip_value(b, i));
    if (i >= b.size() || b[i] != ',') return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> first_lone_surrogate(std::string_view b) noexcept {
  bool in_string = false;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (!in_string) {
      in_string = b[i] == '"';
      continue;
    }
    if (b[i] == '"') {
      in_string = false;
    } else if (b[i] == '\\' && i + 1 < b.size() && b[i + 1] == 'u') {
      const long v = hex4(b, i + 2);
      if (v >= 0xDC00 && v <= 0xDFFF) return i;
      if (v >= 0xD800 && v <= 0xDBFF) {
        const bool paired = b.size() >= i + 12 && b[i + 6] == '\\' && b[i + 7] == 'u' &&
                            hex4(b, i + 8) >= 0xDC00 && hex4(b, i + 8) <= 0xDFFF;
        if (!paired) return i;
        i += 6;  // the low half was checked with its partner
      }
      i += 5;
    } else if (b[i] == '\\') {
      ++i;
    }
  }
  return std::nullopt;
}

std::optional<request_id> tolerant_top_level_id(std::string_view bytes) noexcept {
  try {
    return scan_members(bytes);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace mcpcxx::jsonrpc::detail

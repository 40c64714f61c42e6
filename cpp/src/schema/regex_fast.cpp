// Fast path for the most common pattern shape in tool schemas, "^[class]{m,n}$" (also +, *, \d,
// \w): matched directly on code points with exact ECMA-262 semantics, without std::regex.
#include <cstddef>
#include <limits>

#include "schema/regex.hpp"

namespace mcpcxx::schema::detail {
namespace {

void add_escape_class(class_run& r, char e) {
  for (int c = 0; c < 128; ++c) {
    const bool digit = c >= '0' && c <= '9';
    const bool word = digit || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (e == 'd' ? digit : word) r.set.set(static_cast<std::size_t>(c));
  }
}

bool is_punct(char c) {
  return c >= 0x21 && c < 0x7F &&
         !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

// Parses "[...]" at s[pos]; leaves pos after "]". ASCII members only.
bool parse_bracket(std::string_view s, std::size_t& pos, class_run& r) {
  ++pos;
  if (pos < s.size() && s[pos] == '^') {
    r.negated = true;
    ++pos;
  }
  if (pos < s.size() && s[pos] == ']') return false;
  int pending = -1;  // last single character, for ranges
  while (pos < s.size() && s[pos] != ']') {
    char c = s[pos];
    if (static_cast<unsigned char>(c) >= 0x80 || c == '[') return false;
    if (c == '\\') {
      if (pos + 1 >= s.size()) return false;
      const char e = s[pos + 1];
      pos += 2;
      if (e == 'd' || e == 'w') {
        add_escape_class(r, e);
        pending = -1;
        continue;
      }
      if (!is_punct(e)) return false;
      c = e;
    } else if (c == '-' && pending >= 0 && pos + 1 < s.size() && s[pos + 1] != ']') {
      char hi = s[pos + 1];
      if (hi == '\\' || static_cast<unsigned char>(hi) >= 0x80 || hi == '[' || hi < pending)
        return false;
      for (int k = pending; k <= hi; ++k) r.set.set(static_cast<std::size_t>(k));
      pos += 2;
      pending = -1;
      continue;
    } else {
      ++pos;
    }
    r.set.set(static_cast<std::size_t>(c));
    pending = static_cast<unsigned char>(c);
  }
  if (pos >= s.size()) return false;
  ++pos;
  return true;
}

bool parse_count(std::string_view s, std::size_t& pos, std::size_t& out) {
  const std::size_t start = pos;
  out = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && pos - start < 9)
    out = out * 10 + static_cast<std::size_t>(s[pos++] - '0');
  return pos > start;
}

bool parse_quantifier(std::string_view s, std::size_t& pos, class_run& r) {
  constexpr std::size_t inf = std::numeric_limits<std::size_t>::max();
  if (pos == s.size()) {
    r.min = r.max = 1;
    return true;
  }
  const char q = s[pos];
  if (q == '+' || q == '*') {
    r.min = q == '+' ? 1 : 0;
    r.max = inf;
    ++pos;
    return true;
  }
  if (q != '{') return false;
  ++pos;
  if (!parse_count(s, pos, r.min)) return false;
  r.max = r.min;
  if (pos < s.size() && s[pos] == ',') {
    ++pos;
    r.max = inf;
    if (pos < s.size() && s[pos] != '}' && !parse_count(s, pos, r.max)) return false;
  }
  if (pos >= s.size() || s[pos] != '}' || r.max < r.min) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<class_run> parse_class_run(std::string_view p) {
  if (p.size() < 3 || p.front() != '^' || p.back() != '$' || p[p.size() - 2] == '\\')
    return std::nullopt;
  const std::string_view body = p.substr(1, p.size() - 2);
  class_run r;
  std::size_t pos = 0;
  if (body.size() >= 2 && body[0] == '\\' && (body[1] == 'd' || body[1] == 'w')) {
    add_escape_class(r, body[1]);
    pos = 2;
  } else if (body.empty() || body[0] != '[' || !parse_bracket(body, pos, r)) {
    return std::nullopt;
  }
  if (!parse_quantifier(body, pos, r) || pos != body.size()) return std::nullopt;
  return r;
}

match_result match_class_run(const class_run& r, std::string_view s) noexcept {
  std::size_t count = 0;
  for (unsigned char b : s) {
    if ((b & 0xC0) == 0x80) continue;  // continuation byte of the current code point
    ++count;
    const bool member = b < 0x80 ? r.set.test(b) != r.negated : r.negated;
    if (!member || count > r.max) return match_result::no_match;
  }
  return count >= r.min ? match_result::match : match_result::no_match;
}

}  // namespace mcpcxx::schema::detail

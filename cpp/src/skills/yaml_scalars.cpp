// Scalars and flow collections of the frontmatter reader (yaml_scalars.hpp).
#include "skills/yaml_scalars.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <stdexcept>

namespace mcpcxx::skills {

namespace {

[[noreturn]] void scalar_fail(std::size_t line, const std::string& what) {
  throw std::invalid_argument("line " + std::to_string(line) + ": " + what);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}

bool is_octal(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool is_sign(char c) { return c == '-' || c == '+'; }

// The end of the run of digits of `t` from `i`.
std::size_t skip_digits(std::string_view t, std::size_t i) {
  while (i < t.size() && is_digit(t[i])) ++i;
  return i;
}

// The end of ( [eE] [-+]? [0-9]+ )? at t[i]; npos when an exponent has no digits.
std::size_t skip_exponent(std::string_view t, std::size_t i) {
  if (i == t.size() || (t[i] != 'e' && t[i] != 'E')) return i;
  ++i;
  if (i < t.size() && is_sign(t[i])) ++i;
  const std::size_t end = skip_digits(t, i);
  return end == i ? std::string_view::npos : end;
}

// [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool core_float(std::string_view t) {
  const std::size_t int_start = (!t.empty() && is_sign(t[0])) ? 1 : 0;
  const std::size_t int_end = skip_digits(t, int_start);
  std::size_t end = int_end;
  std::size_t frac = 0;
  if (end < t.size() && t[end] == '.') {
    end = skip_digits(t, int_end + 1);
    frac = end - (int_end + 1);
  }
  if (int_end == int_start && frac == 0) return false;
  return skip_exponent(t, end) == t.size();
}

json integer(std::string_view digits, int base, bool negative, std::size_t line) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (ec != std::errc() || end != digits.data() + digits.size() ||
      (negative && v > std::uint64_t{1} << 63)) {
    scalar_fail(line, "the integer " + std::string(digits) + " is too large; quote it");
  }
  if (!negative) return v;
  return v == std::uint64_t{1} << 63 ? INT64_MIN : -static_cast<std::int64_t>(v);
}

void put_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The escapes that stand for one fixed character (a tab after the backslash is a tab).
struct simple_escape {
  char letter;
  std::uint32_t code_point;
};
constexpr simple_escape k_simple_escapes[] = {
    {'0', '\0'}, {'a', '\a'},  {'b', '\b'}, {'t', '\t'}, {'\t', '\t'},  {'n', '\n'},
    {'v', '\v'}, {'f', '\f'},  {'r', '\r'}, {'e', 0x1B}, {' ', ' '},    {'"', '"'},
    {'/', '/'},  {'\\', '\\'}, {'N', 0x85}, {'_', 0xA0}, {'L', 0x2028}, {'P', 0x2029}};

// The hex digits after \x, \u and \U; 0 for any other letter.
std::size_t hex_width(char c) { return c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0; }

// The code point the `n` hex digits of `hex` name, nullopt unless they are exactly n digits
// naming a Unicode scalar value (no surrogate, at most U+10FFFF).
std::optional<std::uint32_t> scalar_value(std::string_view hex, std::size_t n) {
  std::uint32_t cp = 0;
  auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), cp, 16);
  if (hex.size() != n || !all_of(hex, is_hex) || ec != std::errc() ||
      end != hex.data() + hex.size() || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return std::nullopt;
  }
  return cp;
}

// The escape at cur[i] (just after the backslash) of a double-quoted scalar; advances i.
void escape(std::string_view cur, std::size_t& i, std::string& out, std::size_t line) {
  const char c = cur[i++];
  for (const simple_escape& e : k_simple_escapes) {
    if (e.letter == c) {
      put_utf8(out, e.code_point);
      return;
    }
  }
  const std::size_t n = hex_width(c);
  if (n == 0) scalar_fail(line, std::string("unknown escape \\") + c + " in a double-quoted value");
  std::string_view hex = cur.substr(i, n);
  const std::optional<std::uint32_t> cp = scalar_value(hex, n);
  if (!cp) {
    scalar_fail(line, std::string("the escape \\") + c + std::string(hex) +
                          " is not a Unicode scalar value; write the character itself");
  }
  i += n;
  put_utf8(out, *cp);
}

// Decodes quoted text from cur[i] up to the closing quote `q` (true, i past it) or the end of
// the line (false). `kept` marks how much of `out` escapes produced (folding keeps it).
bool decode_quoted(std::string_view cur, std::size_t& i, char q, std::string& out,
                   std::size_t& kept, bool& escaped_break, std::size_t line) {
  escaped_break = false;
  while (i < cur.size()) {
    const char c = cur[i];
    if (c == q) {
      if (q == '\'' && i + 1 < cur.size() && cur[i + 1] == '\'') {
        out += '\'';
        i += 2;
        continue;
      }
      ++i;
      return true;
    }
    if (q == '"' && c == '\\') {
      if (i + 1 == cur.size()) {
        escaped_break = true;
        i = cur.size();
        kept = out.size();
        return false;
      }
      ++i;
      escape(cur, i, out, line);
      kept = out.size();
      continue;
    }
    out += c;
    ++i;
  }
  return false;
}

bool is_one_of(std::string_view t, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (t == w) return true;
  }
  return false;
}

// 0o17 or 0x1F (no sign, as the core schema has them); nullopt for any other text.
std::optional<json> prefixed_integer(std::string_view t, std::size_t line) {
  struct prefix {
    std::string_view text;
    int base;
    bool (*digit)(char);
  };
  constexpr prefix prefixes[] = {{"0o", 8, is_octal}, {"0x", 16, is_hex}};
  for (const prefix& p : prefixes) {
    if (t.size() > 2 && t.starts_with(p.text) && all_of(t.substr(2), p.digit)) {
      return integer(t.substr(2), p.base, false, line);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

json resolve_plain(std::string_view t, std::size_t line) {
  if (is_one_of(t, {"", "~", "null", "Null", "NULL"})) return nullptr;
  if (is_one_of(t, {"true", "True", "TRUE"})) return true;
  if (is_one_of(t, {"false", "False", "FALSE"})) return false;
  const bool negative = t[0] == '-';  // t is not empty: "" is null
  std::string_view body = is_sign(t[0]) ? t.substr(1) : t;
  if (is_one_of(body, {".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"})) {
    scalar_fail(line, "the value " + std::string(t) + " is not a JSON number; quote it");
  }
  if (all_of(body, is_digit)) return integer(body, 10, negative, line);
  if (std::optional<json> n = prefixed_integer(t, line)) return std::move(*n);
  if (core_float(t)) return std::strtod(std::string(t).c_str(), nullptr);
  return std::string(t);
}

namespace {

// Refuses anything but blanks and a comment after a closing quote.
void check_after_quote(std::string_view rest, std::size_t line) {
  std::string_view after = trim(rest);
  if (!after.empty() && after.front() != '#') {
    scalar_fail(line, "only a comment may follow a closing quote");
  }
}

// The first line after line `li` that is not blank (li moves to it; nullopt past the last line),
// counting the blank ones in `empty_lines`.
std::optional<std::string_view> next_quoted_line(const quoted_lines& line, std::size_t& li,
                                                 std::size_t& empty_lines) {
  std::optional<std::string_view> next;
  for (++li; (next = line(li)) && trim(*next).empty(); ++li) ++empty_lines;
  return next;
}

}  // namespace

std::string read_quoted(const quoted_lines& line, std::size_t first_line, std::size_t& used) {
  std::string_view cur = *line(0);
  const char q = cur[0];
  std::string out;
  std::size_t kept = 0;
  std::size_t li = 0;
  std::size_t i = 1;
  for (;;) {
    bool escaped_break = false;
    if (decode_quoted(cur, i, q, out, kept, escaped_break, first_line + li)) {
      check_after_quote(cur.substr(i), first_line + li);
      used = li + 1;
      return out;
    }
    // The line ends inside the quotes: trailing blanks go, the break folds.
    while (out.size() > kept && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
    std::size_t empty_lines = 0;
    const std::optional<std::string_view> next = next_quoted_line(line, li, empty_lines);
    if (!next) {
      scalar_fail(first_line,
                  "a quoted value is never closed; add the closing " + std::string(1, q));
    }
    if (empty_lines > 0) {
      out.append(empty_lines, '\n');
    } else if (!escaped_break) {
      out += ' ';
    }
    cur = *next;
    i = static_cast<std::size_t>(trim(cur).data() - cur.data());
  }
}

block_header read_block_header(std::string_view header, std::size_t line) {
  block_header h;
  h.folded = header.front() == '>';
  std::size_t i = 1;
  for (; i < header.size() && i < 3; ++i) {
    const char c = header[i];
    if ((c == '-' || c == '+') && h.chomp == 'c') {
      h.chomp = c == '-' ? 's' : 'k';
    } else if (c >= '1' && c <= '9' && h.explicit_indent == 0) {
      h.explicit_indent = static_cast<std::size_t>(c - '0');
    } else {
      break;
    }
  }
  std::string_view rest = trim(header.substr(i));
  if (!rest.empty() && rest.front() != '#') {
    scalar_fail(line, "after " + std::string(1, header.front()) +
                          " write the value on the lines below, indented");
  }
  return h;
}

namespace {

std::string fold_lines(const std::vector<std::string_view>& body) {
  std::string out;
  bool first = true;
  bool prev_more = false;
  std::size_t pending = 0;
  for (std::string_view l : body) {
    if (l.empty()) {
      ++pending;
      continue;
    }
    const bool more = l.front() == ' ' || l.front() == '\t';
    if (!first) {
      const std::size_t breaks = pending + ((more || prev_more) ? 1 : 0);
      out += breaks == 0 ? std::string(" ") : std::string(breaks, '\n');
    } else {
      out.append(pending, '\n');
    }
    out += l;
    prev_more = more;
    pending = 0;
    first = false;
  }
  return out;
}

}  // namespace

std::string render_block(const block_header& h, const std::vector<std::string_view>& raw,
                         std::size_t content_indent) {
  std::vector<std::string_view> lines;
  lines.reserve(raw.size());
  for (std::string_view r : raw) {
    lines.push_back(trim(r).empty() ? std::string_view() : r.substr(content_indent));
  }
  std::size_t trailing = 0;
  while (!lines.empty() && lines.back().empty()) {
    lines.pop_back();
    ++trailing;
  }
  std::string out;
  if (h.folded) {
    out = fold_lines(lines);
  } else {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) out += '\n';
      out += lines[i];
    }
  }
  if (h.chomp == 'k') {
    out.append(trailing + (lines.empty() ? 0 : 1), '\n');
  } else if (h.chomp == 'c' && !lines.empty()) {
    out += '\n';
  }
  return out;
}

namespace {

// Character `c` inside the quotes `quote`: the closing quote clears `quote`. Returns how many
// characters after it it takes along (the escaped one after a backslash in double quotes).
std::size_t quoted_char(char c, char& quote) {
  if (quote == '"' && c == '\\') return 1;
  if (c == quote) quote = 0;
  return 0;
}

// How character `c` outside quotes changes the bracket depth; an opening quote sets `quote`.
int bracket_step(char c, char& quote) {
  if (c == '"' || c == '\'') {
    quote = c;
    return 0;
  }
  if (c == '[' || c == '{') return 1;
  if (c == ']' || c == '}') return -1;
  return 0;
}

}  // namespace

bool flow_balanced(std::string_view s) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (quote != 0) {
      i += quoted_char(s[i], quote);
      continue;
    }
    const int step = bracket_step(s[i], quote);
    depth += step;
    if (step < 0 && depth <= 0) return true;
  }
  return false;
}

namespace {

class flow_reader {
 public:
  flow_reader(std::string_view s, std::size_t line) : s_(s), line_(line) {}

  json top(std::size_t depth) {
    json v = value(depth);
    skip_ws();
    if (i_ < s_.size() && s_[i_] != '#') fail("unexpected text after the closing bracket");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { scalar_fail(line_, what); }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
    if (i_ < s_.size() && s_[i_] == '#' && i_ > 0 && s_[i_ - 1] == ' ' && open_ > 0) {
      fail("comments inside [ ] or { } are not supported");
    }
  }
  char peek() {
    skip_ws();
    if (i_ == s_.size()) fail("a [ ] or { } value is not closed");
    return s_[i_];
  }

  json value(std::size_t depth) {
    if (depth > 32) fail("nesting deeper than 32 levels is not supported");
    const char c = peek();
    if (c == '[') return sequence(depth);
    if (c == '{') return mapping(depth);
    if (c == '&' || c == '*' || c == '!') {
      fail("anchors, aliases and tags (&, *, !) are not supported; write the value out");
    }
    if (c == '"' || c == '\'') return quoted();
    return resolve_plain(plain(), line_);
  }

  json sequence(std::size_t depth) {
    ++i_;
    ++open_;
    json out = json::array();
    while (peek() != ']') {
      out.push_back(value(depth + 1));
      if (peek() == ',') {
        ++i_;
      } else if (peek() != ']') {
        fail("expected ',' or ']' in a [ ] list");
      }
    }
    ++i_;
    --open_;
    return out;
  }

  json mapping(std::size_t depth) {
    ++i_;
    ++open_;
    json out = json::object();
    while (peek() != '}') {
      const char c = peek();
      std::string key = (c == '"' || c == '\'') ? quoted() : plain();
      if (key.empty()) fail("an empty key in a { } mapping");
      if (out.contains(key)) fail("duplicate key '" + key + "'; keep one");
      json v = nullptr;
      if (peek() == ':') {
        ++i_;
        v = value(depth + 1);
      }
      out[key] = std::move(v);
      if (peek() == ',') {
        ++i_;
      } else if (peek() != '}') {
        fail("expected ',' or '}' in a { } mapping");
      }
    }
    ++i_;
    --open_;
    return out;
  }

  std::string quoted() {
    const char q = s_[i_++];
    std::string out;
    std::size_t kept = 0;
    bool escaped_break = false;
    if (!decode_quoted(s_, i_, q, out, kept, escaped_break, line_)) {
      fail("a quoted value inside [ ] or { } is never closed");
    }
    return out;
  }

  // True at a character that ends a plain scalar: a flow indicator, or ':' before a blank, a
  // ',', a closing bracket or the end.
  bool plain_ends() const {
    constexpr auto npos = std::string_view::npos;
    const char c = s_[i_];
    if (std::string_view(",[]{}").find(c) != npos) return true;
    return c == ':' && (i_ + 1 == s_.size() || std::string_view(" ,]}").find(s_[i_ + 1]) != npos);
  }

  std::string plain() {
    const std::size_t start = i_;
    for (; i_ < s_.size() && !plain_ends(); ++i_) {
      if (s_[i_] == '#' && i_ > start && s_[i_ - 1] == ' ') {
        fail("comments inside [ ] or { } are not supported");
      }
    }
    return std::string(trim(s_.substr(start, i_ - start)));
  }

  std::string_view s_;
  std::size_t line_;
  std::size_t i_ = 0;
  int open_ = 0;
};

}  // namespace

json parse_flow(std::string_view s, std::size_t line, std::size_t depth) {
  return flow_reader(s, line).top(depth);
}

}  // namespace mcpcxx::skills

// RFC 6570 URI templates: parsing, matching (the inverse of expansion) and expansion.
#include "mcpcxx/uri_template.hpp"

#include <cstdint>
#include <stdexcept>
#include <utility>

namespace mcpcxx {

namespace {

constexpr std::string_view k_operators = "+#./;?&";
constexpr std::string_view k_reserved_operators = "=,!@|";
constexpr std::string_view k_reserved_chars = ":/?#[]@!$&'()*+,;=";
/// Matching steps one match may take (pathological templates against hostile URIs).
constexpr std::size_t k_step_budget = std::size_t{1} << 20;
constexpr std::size_t k_max_prefix = 9999;  // RFC 6570 max-length is 1-4 digits

[[noreturn]] void refuse(const std::string& what, std::size_t pos, const char* next) {
  throw std::invalid_argument(what + " at position " + std::to_string(pos) + "; " + next);
}

bool is_var_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '%';
}

bool is_unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

int pct_hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The character an expression's expansion starts with ('\0' for none).
char prefix_of(char op) { return op == '\0' || op == '+' ? '\0' : op; }

/// The separator between an expression's variables.
char separator_of(char op) {
  switch (op) {
    case '.':
    case '/':
    case ';':
      return op;
    case '?':
    case '&':
      return '&';
    default:
      return ',';
  }
}

bool is_named(char op) { return op == ';' || op == '?' || op == '&'; }

uri_template::variable parse_variable(std::string_view spec, std::size_t pos) {
  uri_template::variable v;
  if (!spec.empty() && spec.back() == '*') {
    refuse("explode modifier '*' on '" + std::string(spec) + "' is not supported", pos,
           "resource template variables are single strings: drop the '*'");
  }
  const auto colon = spec.find(':');
  std::string_view name = spec.substr(0, colon);
  if (name.empty()) refuse("empty variable name", pos, "write {name}");
  for (char c : name) {
    if (!is_var_char(c)) {
      refuse(
          "variable name '" + std::string(name) + "' has the character '" + std::string(1, c) + "'",
          pos, "use letters, digits, '_' and '.'");
    }
  }
  v.name = std::string(name);
  if (colon == std::string_view::npos) return v;
  const std::string_view digits = spec.substr(colon + 1);
  std::size_t n = 0;
  for (char c : digits) n = (c >= '0' && c <= '9' && n <= k_max_prefix) ? n * 10 + (c - '0') : 0;
  if (digits.empty() || digits.size() > 4 || n == 0 || n > k_max_prefix) {
    refuse("prefix modifier ':" + std::string(digits) + "' of '" + v.name + "' is not 1-9999", pos,
           "write {name:3}");
  }
  v.max_length = n;
  return v;
}

uri_template::part parse_expression(std::string_view body, std::size_t pos) {
  uri_template::part p;
  p.expression = true;
  if (body.empty()) refuse("empty expression '{}'", pos, "write {name}");
  if (k_reserved_operators.find(body.front()) != std::string_view::npos) {
    refuse(std::string("operator '") + body.front() + "' is reserved by RFC 6570", pos,
           "use one of + # . / ; ? & or none");
  }
  if (k_operators.find(body.front()) != std::string_view::npos) {
    p.op = body.front();
    body.remove_prefix(1);
  }
  std::size_t start = 0;
  while (true) {
    const auto comma = body.find(',', start);
    p.variables.push_back(parse_variable(body.substr(start, comma - start), pos));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return p;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && pct_hex_value(s[i + 1]) >= 0 &&
        pct_hex_value(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(pct_hex_value(s[i + 1]) * 16 + pct_hex_value(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

/// Code points of UTF-8 text (the unit of a prefix modifier).
std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string truncate_code_points(const std::string& s, std::size_t max) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && seen++ == max) return s.substr(0, i);
  }
  return s;
}

/// May character `c` appear anywhere in the text an expression with operator `op` expands to?
bool in_expansion(char op, char c) {
  switch (op) {
    case '+':
    case '#':
      return true;
    case '/':
      return c != '?' && c != '#';
    case '?':
    case '&':
      return c != '#';
    default:  // simple, '.', ';'
      return c != '/' && c != '?' && c != '#';
  }
}

using bindings = std::vector<std::pair<std::string, std::string>>;

std::vector<std::string_view> split_exploded(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const auto at = s.find(sep, start);
    out.push_back(s.substr(start, at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

bool fits(const uri_template::variable& v, const std::string& value) {
  return v.max_length == 0 || code_points(value) <= v.max_length;
}

/// The variables of a positional expression (simple, +, #, ., /) from its text after the prefix.
std::optional<bindings> bind_positional(const uri_template::part& p, std::string_view text) {
  const char sep = separator_of(p.op);
  const bool single = p.variables.size() == 1;
  const auto pieces = single ? std::vector<std::string_view>{text} : split_exploded(text, sep);
  if (pieces.size() > p.variables.size()) return std::nullopt;
  bindings out;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (p.op == '/' && pieces[i].find('/') != std::string_view::npos) return std::nullopt;
    std::string value = percent_decode(pieces[i]);
    if (!fits(p.variables[i], value)) return std::nullopt;
    out.emplace_back(p.variables[i].name, std::move(value));
  }
  return out;
}

/// The variables of a named expression (;, ?, &): name=value pieces in any order, each named.
std::optional<bindings> bind_named(const uri_template::part& p, std::string_view text) {
  bindings out;
  for (std::string_view piece : split_exploded(text, separator_of(p.op))) {
    const auto eq = piece.find('=');
    const std::string_view name = piece.substr(0, eq);
    const uri_template::variable* v = nullptr;
    for (const auto& candidate : p.variables) v = candidate.name == name ? &candidate : v;
    if (v == nullptr) return std::nullopt;
    for (const auto& [seen, _] : out) {
      if (seen == name) return std::nullopt;
    }
    std::string value =
        eq == std::string_view::npos ? std::string() : percent_decode(piece.substr(eq + 1));
    if (!fits(*v, value)) return std::nullopt;
    out.emplace_back(v->name, std::move(value));
  }
  return out;
}

/// The variables expression `p` defines when it expanded to `text`; nullopt when it cannot have.
std::optional<bindings> bind(const uri_template::part& p, std::string_view text) {
  const char prefix = prefix_of(p.op);
  if (text.empty()) {
    // A simple or reserved expression stands for a required value; the others may be absent.
    return prefix == '\0' ? std::nullopt : std::optional<bindings>(bindings{});
  }
  if (prefix != '\0') {
    if (text.front() != prefix) return std::nullopt;
    text.remove_prefix(1);
  }
  if (p.op == '\0' || p.op == '+') {
    const bool list = p.variables.size() > 1;
    if (text.empty() || (list && text.front() == separator_of(p.op))) return std::nullopt;
  }
  return is_named(p.op) ? bind_named(p, text) : bind_positional(p, text);
}

/// Backtracking over where each expression ends, with failed (part, position) pairs memoized.
class matcher {
 public:
  matcher(const std::vector<uri_template::part>& parts, std::string_view uri)
      : parts_(parts),
        uri_(uri),
        failed_((parts.size() + 1) * (uri.size() + 1), false),
        chosen_(parts.size()) {}

  std::optional<std::map<std::string, std::string>> run() {
    if (!at(0, 0)) return std::nullopt;
    std::map<std::string, std::string> vars;
    for (auto& b : chosen_) {
      for (auto& [name, value] : b) vars.emplace(std::move(name), std::move(value));
    }
    return vars;
  }

 private:
  bool at(std::size_t p, std::size_t pos) {
    if (++steps_ > k_step_budget) return false;
    if (p == parts_.size()) return pos == uri_.size();
    const std::size_t slot = p * (uri_.size() + 1) + pos;
    if (failed_[slot]) return false;
    if (parts_[p].expression ? expression_at(p, pos) : literal_at(p, pos)) return true;
    failed_[slot] = true;
    return false;
  }

  bool literal_at(std::size_t p, std::size_t pos) {
    const std::string& lit = parts_[p].literal;
    return uri_.substr(pos, lit.size()) == lit && at(p + 1, pos + lit.size());
  }

  bool expression_at(std::size_t p, std::size_t pos) {
    const auto& part = parts_[p];
    std::size_t run = pos;
    while (run < uri_.size() && in_expansion(part.op, uri_[run])) ++run;
    steps_ += run - pos;
    // Longest first; what follows is checked before the (linear) binding of this expression.
    for (std::size_t end = run + 1; end-- > pos;) {
      if (++steps_ > k_step_budget) return false;
      if (!at(p + 1, end)) continue;
      auto bound = bind(part, uri_.substr(pos, end - pos));
      if (!bound) continue;
      chosen_[p] = std::move(*bound);
      return true;
    }
    return false;
  }

  const std::vector<uri_template::part>& parts_;
  std::string_view uri_;
  std::vector<bool> failed_;
  std::vector<bindings> chosen_;
  std::size_t steps_ = 0;
};

std::string encode(const std::string& value, bool allow_reserved) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    const bool triplet = c == '%' && i + 2 < value.size() && pct_hex_value(value[i + 1]) >= 0 &&
                         pct_hex_value(value[i + 2]) >= 0;
    if (is_unreserved(c) ||
        (allow_reserved && (triplet || k_reserved_chars.find(c) != std::string_view::npos))) {
      out.push_back(c);
      continue;
    }
    const auto byte = static_cast<std::uint8_t>(c);
    out += {'%', k_hex[byte >> 4], k_hex[byte & 0xF]};
  }
  return out;
}

void expand_expression(const uri_template::part& p,
                       const std::map<std::string, std::string>& values, std::string& out) {
  bool first = true;
  for (const auto& v : p.variables) {
    auto it = values.find(v.name);
    if (it == values.end()) continue;
    if (first && prefix_of(p.op) != '\0') out.push_back(prefix_of(p.op));
    if (!first) out.push_back(separator_of(p.op));
    first = false;
    const std::string value =
        v.max_length ? truncate_code_points(it->second, v.max_length) : it->second;
    if (is_named(p.op)) {
      out += v.name;
      if (value.empty() && p.op == ';') continue;
      out.push_back('=');
    }
    out += encode(value, p.op == '+' || p.op == '#');
  }
}

}  // namespace

uri_template::uri_template(std::string_view text) : text_(text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '}') refuse("'}' without '{'", i, "write {name} or remove the '}'");
    if (text[i] != '{') {
      const auto next = text.find_first_of("{}", i);
      const std::string_view lit = text.substr(i, next - i);
      if (!parts_.empty() && !parts_.back().expression) {
        parts_.back().literal += lit;
      } else {
        parts_.push_back({false, '\0', std::string(lit), {}});
      }
      i = next == std::string_view::npos ? text.size() : next;
      continue;
    }
    const auto close = text.find('}', i);
    if (close == std::string_view::npos) refuse("unclosed '{'", i, "close it with '}'");
    const std::string_view body = text.substr(i + 1, close - i - 1);
    if (body.find('{') != std::string_view::npos) {
      refuse("'{' inside an expression", i, "expressions do not nest");
    }
    part p = parse_expression(body, i);
    if (!parts_.empty() && parts_.back().expression && prefix_of(p.op) == '\0') {
      refuse("two adjacent expressions cannot be told apart", i,
             "put literal text between them (e.g. {a}-{b})");
    }
    parts_.push_back(std::move(p));
    i = close + 1;
  }
}

std::vector<std::string> uri_template::variable_names() const {
  std::vector<std::string> out;
  for (const auto& p : parts_) {
    for (const auto& v : p.variables) {
      bool seen = false;
      for (const auto& n : out) seen = seen || n == v.name;
      if (!seen) out.push_back(v.name);
    }
  }
  return out;
}

std::vector<std::string> uri_template::required_variable_names() const {
  std::vector<std::string> out;
  for (const auto& p : parts_) {
    if (p.expression && prefix_of(p.op) == '\0') out.push_back(p.variables.front().name);
  }
  return out;
}

bool uri_template::has_expressions() const noexcept {
  for (const auto& p : parts_) {
    if (p.expression) return true;
  }
  return false;
}

std::optional<std::map<std::string, std::string>> uri_template::match(std::string_view uri) const {
  return matcher(parts_, uri).run();
}

std::string uri_template::expand(const std::map<std::string, std::string>& values) const {
  std::string out;
  for (const auto& p : parts_) {
    if (p.expression) {
      expand_expression(p, values, out);
    } else {
      out += p.literal;
    }
  }
  return out;
}

}  // namespace mcpcxx

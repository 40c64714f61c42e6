// ECMA-262 -> std::wregex translation. Deviations from ECMA-262 are listed in docs/json-schema.md.
#include "schema/regex.hpp"

#include <cctype>
#include <map>

#include "schema/unicode_tables.hpp"

namespace mcpcxx::schema::detail {
namespace {

constexpr std::wstring_view kDigit = L"0-9";
constexpr std::wstring_view kWord = L"A-Za-z0-9_";
// ECMA-262 WhiteSpace and LineTerminator code points.
constexpr std::wstring_view kSpace =
    L"\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff";

bool decode_utf8(std::string_view s, std::u32string& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + static_cast<std::size_t>(len) > s.size()) return false;
    char32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
      const auto cb = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((cb & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cb & 0x3F);
    }
    out.push_back(cp);
    i += static_cast<std::size_t>(len);
  }
  return true;
}

void emit_cp(std::wstring& out, char32_t cp) {
  const bool plain = cp >= 0x80 || (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') ||
                     (cp >= 'A' && cp <= 'Z');
  if (plain) {
    out.push_back(static_cast<wchar_t>(cp));
    return;
  }
  static constexpr char hex[] = "0123456789abcdef";
  out += L"\\x";
  out.push_back(static_cast<wchar_t>(hex[(cp >> 4) & 0xF]));
  out.push_back(static_cast<wchar_t>(hex[cp & 0xF]));
}

int hex_value(char32_t c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<int>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<int>(c - 'A' + 10);
  return -1;
}

std::string_view property_category(std::string name) {
  for (std::string_view prefix : {"General_Category=", "gc="}) {
    if (name.rfind(prefix, 0) == 0) name.erase(0, prefix.size());
  }
  static const std::map<std::string, std::string_view> aliases = {{"L", "L"},
                                                                  {"Letter", "L"},
                                                                  {"Lu", "Lu"},
                                                                  {"Uppercase_Letter", "Lu"},
                                                                  {"Ll", "Ll"},
                                                                  {"Lowercase_Letter", "Ll"},
                                                                  {"N", "N"},
                                                                  {"Number", "N"},
                                                                  {"Nd", "Nd"},
                                                                  {"digit", "Nd"},
                                                                  {"Decimal_Number", "Nd"}};
  auto it = aliases.find(name);
  return it == aliases.end() ? std::string_view{} : it->second;
}

struct translator {
  const std::u32string& p;
  std::wstring& out;
  std::string& error;
  std::size_t i = 0;
  bool in_class = false;
  int groups = 0;
  std::map<std::string, int> named;
  bool syntax_only = false;

  bool fail(std::string msg) {
    error = std::move(msg);
    return false;
  }
  char32_t at(std::size_t k) const { return k < p.size() ? p[k] : 0; }

  bool run() {
    while (i < p.size()) {
      const char32_t c = p[i];
      if (c == '\\') {
        if (!escape()) return false;
      } else if (c == '[' && !in_class) {
        in_class = true;
        out.push_back(L'[');
        ++i;
        if (at(i) == '^') {
          out.push_back(L'^');
          ++i;
        }
      } else if (c == ']' && in_class) {
        in_class = false;
        out.push_back(L']');
        ++i;
      } else if (c == '(' && !in_class) {
        if (!group()) return false;
      } else if (c == '{' && !in_class && !counts_fit(i + 1)) {
        return fail("a {n,m} count has more than 9 digits; no string is that long");
      } else if (c == '.' && !in_class) {
        // ECMA-262 `.` excludes all four line terminators, not only \n and \r.
        out += L"[^\n\r\u2028\u2029]";
        ++i;
      } else {
        if (c < 0x80) {
          out.push_back(static_cast<wchar_t>(c));
        } else {
          emit_cp(out, c);
        }
        ++i;
      }
    }
    return true;
  }

  bool group() {
    if (at(i + 1) != '?') {
      ++groups;
      out.push_back(L'(');
      ++i;
      return true;
    }
    if (at(i + 2) == '<' && (at(i + 3) == '=' || at(i + 3) == '!')) {
      if (!syntax_only)
        return fail("lookbehind assertions (?<= and (?<! are not supported by std::regex");
      // Syntax check only: a lookahead has the same grammar.
      out += at(i + 3) == '=' ? L"(?=" : L"(?!";
      i += 4;
      return true;
    }
    if (at(i + 2) != '<') {
      out += L"(?";
      i += 2;
      return true;
    }
    std::string name;
    std::size_t k = i + 3;
    for (; k < p.size() && p[k] != '>'; ++k) name.push_back(static_cast<char>(p[k]));
    if (k >= p.size() || name.empty()) return fail("unterminated named group");
    named[name] = ++groups;
    out.push_back(L'(');
    i = k + 1;
    return true;
  }

  void emit_class(std::wstring_view members, bool negate) {
    if (in_class) {
      out += members;
      return;
    }
    out += negate ? L"[^" : L"[";
    out += members;
    out.push_back(L']');
  }

  bool property(bool negate) {
    if (at(i) != '{') return fail("\\p and \\P need a {Property} name");
    std::string name;
    std::size_t k = i + 1;
    for (; k < p.size() && p[k] != '}'; ++k) name.push_back(static_cast<char>(p[k]));
    if (k >= p.size()) return fail("unterminated \\p{...}");
    i = k + 1;
    const std::string_view cat = property_category(name);
    if (cat.empty())
      return fail("Unicode property \\p{" + name +
                  "} is not supported (supported: L, Lu, Ll, N, Nd and their long names)");
    if (negate && in_class) return fail("\\P{...} inside a character class is not supported");
    std::wstring members;
    for (const auto& r : unicode_category(cat)) {
      emit_cp(members, r.lo);
      if (r.hi != r.lo) {
        members.push_back(L'-');
        emit_cp(members, r.hi);
      }
    }
    emit_class(members, negate);
    return true;
  }

  bool unicode_escape() {
    char32_t cp = 0;
    if (at(i) == '{') {
      std::size_t k = i + 1;
      for (; k < p.size() && p[k] != '}'; ++k) {
        if (hex_value(p[k]) < 0 || cp > 0x10FFFF) return fail("malformed \\u{...} escape");
        cp = cp * 16 + static_cast<char32_t>(hex_value(p[k]));
      }
      if (k >= p.size() || cp > 0x10FFFF) return fail("malformed \\u{...} escape");
      i = k + 1;
    } else {
      for (int k = 0; k < 4; ++k) {
        if (hex_value(at(i)) < 0) return fail("malformed \\uXXXX escape");
        cp = cp * 16 + static_cast<char32_t>(hex_value(at(i++)));
      }
      if (cp >= 0xD800 && cp <= 0xDBFF && at(i) == '\\' && at(i + 1) == 'u') {
        char32_t lo = 0;
        bool ok = true;
        for (std::size_t k = 0; k < 4 && ok; ++k) {
          ok = hex_value(at(i + 2 + k)) >= 0;
          if (ok) lo = lo * 16 + static_cast<char32_t>(hex_value(at(i + 2 + k)));
        }
        if (ok && lo >= 0xDC00 && lo <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          i += 6;
        }
      }
    }
    emit_cp(out, cp);
    return true;
  }

  // libstdc++ reads the numbers of a back-reference or a {n,m} count into a long without an
  // overflow check (undefined behaviour past 19 digits), so longer runs never reach it.
  bool counts_fit(std::size_t from) const {
    std::size_t digits = 0;
    for (std::size_t k = from; k < p.size() && ((p[k] >= '0' && p[k] <= '9') || p[k] == ','); ++k) {
      digits = p[k] == ',' ? 0 : digits + 1;
      if (digits > 9) return false;
    }
    return true;
  }

  bool escape() {
    const char32_t n = at(i + 1);
    if (n >= '1' && n <= '9' && !counts_fit(i + 1)) {
      return fail("a back-reference number has more than 9 digits; the pattern has fewer groups");
    }
    i += 2;
    switch (n) {
      case 0:
        return fail("pattern ends with a lone backslash");
      case 'd':
        emit_class(kDigit, false);
        return true;
      case 'w':
        emit_class(kWord, false);
        return true;
      case 's':
        emit_class(kSpace, false);
        return true;
      case 'D':
      case 'W':
      case 'S':
        if (in_class) {
          if (n == 'S') return fail("\\S inside a character class is not supported");
          out += n == 'D' ? L"\\D" : L"\\W";
        } else {
          emit_class(n == 'D' ? kDigit : n == 'W' ? kWord : kSpace, true);
        }
        return true;
      case 'p':
        return property(false);
      case 'P':
        return property(true);
      case 'u':
        return unicode_escape();
      case 'c': {
        const char32_t l = at(i);
        if (!((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z')))
          return fail("\\c must be followed by a letter");
        ++i;
        emit_cp(out, l % 32);
        return true;
      }
      case 'k': {
        std::string name;
        std::size_t k = i + 1;
        for (; k < p.size() && p[k] != '>'; ++k) name.push_back(static_cast<char>(p[k]));
        auto it = named.find(name);
        if (at(i) != '<' || k >= p.size() || it == named.end())
          return fail("\\k<name> refers to an unknown group");
        out += L"\\" + std::to_wstring(it->second);
        i = k + 1;
        return true;
      }
      case '/':
        out.push_back(L'/');
        return true;
      default:
        // Unicode-mode patterns allow identity escapes only for syntax characters.
        if (n < 0x80 && std::isalpha(static_cast<int>(n)) &&
            std::string_view("bBtnvfrx").find(static_cast<char>(n)) == std::string_view::npos)
          return fail(std::string("\\") + static_cast<char>(n) +
                      " is not a valid escape in ECMA-262 unicode mode");
        out.push_back(L'\\');
        out.push_back(static_cast<wchar_t>(n));
        return true;
    }
  }
};

bool is_literal(std::string_view s) {
  return s.find_first_of("\\^$.|?*+()[]{}") == std::string_view::npos;
}

}  // namespace

bool translate_pattern(std::string_view pattern, std::wstring& out, std::string& error,
                       bool syntax_only) {
  std::u32string cps;
  if (!decode_utf8(pattern, cps)) {
    error = "the pattern is not valid UTF-8";
    return false;
  }
  out.clear();
  translator t{cps, out, error, 0, false, 0, {}, syntax_only};
  return t.run();
}

bool utf8_to_wide(std::string_view s, std::wstring& out, std::size_t max_len) {
  out.clear();
  for (std::size_t i = 0; i < s.size();) {
    if (out.size() >= max_len) return false;
    const auto b = static_cast<unsigned char>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    char32_t cp = 0xFFFD;
    if (len > 0 && i + static_cast<std::size_t>(len) <= s.size()) {
      cp = len == 1 ? b : b & (0x7F >> len);
      for (int k = 1; k < len; ++k) {
        const auto cb = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
        if ((cb & 0xC0) != 0x80) {
          cp = 0xFFFD;
          len = k;
          break;
        }
        cp = (cp << 6) | (cb & 0x3F);
      }
    } else {
      len = 1;
    }
    out.push_back(static_cast<wchar_t>(cp));
    i += static_cast<std::size_t>(len);
  }
  return true;
}

namespace {

// libstdc++'s default matcher backtracks: `(a+)+$` takes seconds on 22 characters and
// `a*a*a*a*b` minutes on 2,000 (the json_schema fuzz timeout, issue 10). Its __polynomial mode
// runs a Thompson-NFA simulation instead; only patterns with back-references need backtracking
// (it refuses them with error_complexity). regex_search would rerun that simulation from every
// start position (quadratic in the input), so the search is one whole-input match of
// `[\s\S]*(?:P)[\s\S]*` (same answer: `^`/`$` still assert the input's ends), linear in it.
std::wregex compile_bounded(const std::wstring& translated, bool& backtracking) {
  try {
    backtracking = false;
    return std::wregex(L"[\\s\\S]*(?:" + translated + L")[\\s\\S]*",
                       std::regex::ECMAScript | std::regex_constants::__polynomial);
  } catch (const std::regex_error& e) {
    if (e.code() != std::regex_constants::error_complexity) throw;
  }
  backtracking = true;
  return std::wregex(translated, std::regex::ECMAScript);
}

}  // namespace

bool ecma_regex::check_syntax(std::string_view pattern) {
  std::wstring translated;
  std::string error;
  if (!translate_pattern(pattern, translated, error, true)) return false;
  try {
    std::wregex re(translated, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return false;
  }
  return true;
}

std::unique_ptr<ecma_regex> ecma_regex::compile(std::string_view pattern, std::string& error) {
  auto out = std::unique_ptr<ecma_regex>(new ecma_regex());
  std::wstring translated;
  if (!translate_pattern(pattern, translated, error, false)) return nullptr;
  try {
    out->re_.emplace(compile_bounded(translated, out->backtracking_));
  } catch (const std::regex_error& e) {
    error = std::string("std::regex rejected it (") + e.what() + ")";
    return nullptr;
  }
  if (is_literal(pattern)) {
    out->use_literal_ = true;
    out->literal_ = std::string(pattern);
  } else if (pattern.size() > 1 && pattern[0] == '^' && is_literal(pattern.substr(1))) {
    out->use_literal_ = true;
    out->anchored_ = true;
    out->literal_ = std::string(pattern.substr(1));
  }
  out->run_ = parse_class_run(pattern);
  return out;
}

match_result ecma_regex::search(std::string_view utf8) const {
  if (use_literal_) {
    const bool hit = anchored_ ? utf8.substr(0, literal_.size()) == literal_
                               : utf8.find(literal_) != std::string_view::npos;
    return hit ? match_result::match : match_result::no_match;
  }
  if (run_) return match_class_run(*run_, utf8);
  thread_local std::wstring buffer;
  // A backtracking (back-reference) pattern can take exponential time: shorter inputs only.
  if (!utf8_to_wide(utf8, buffer, backtracking_ ? max_backtracking_input : max_input)) {
    return match_result::too_long;
  }
  const bool hit = backtracking_ ? std::regex_search(buffer, *re_) : std::regex_match(buffer, *re_);
  return hit ? match_result::match : match_result::no_match;
}

}  // namespace mcpcxx::schema::detail

// Date/time, duration, identifier and pointer formats, plus the format table.
#include "schema/formats.hpp"

#include <array>
#include <cctype>
#include <regex>
#include <utility>

#include "schema/regex.hpp"

namespace mcpcxx::schema::detail {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// Parses exactly `n` ASCII digits at s[pos].
bool num(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!digit(s[i])) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

int days_in_month(int y, int m) {
  static constexpr std::array<int, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : days[static_cast<std::size_t>(m - 1)];
}

}  // namespace

bool is_date(std::string_view s) {
  int y = 0, m = 0, d = 0;
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  if (!num(s, 0, 4, y) || !num(s, 5, 2, m) || !num(s, 8, 2, d)) return false;
  return m >= 1 && m <= 12 && d >= 1 && d <= days_in_month(y, m);
}

bool is_time(std::string_view s) {
  int h = 0, mi = 0, sec = 0;
  if (s.size() < 9 || s[2] != ':' || s[5] != ':') return false;
  if (!num(s, 0, 2, h) || !num(s, 3, 2, mi) || !num(s, 6, 2, sec)) return false;
  std::size_t pos = 8;
  if (pos < s.size() && s[pos] == '.') {
    const std::size_t start = ++pos;
    while (pos < s.size() && digit(s[pos])) ++pos;
    if (pos == start) return false;
  }
  if (pos >= s.size()) return false;
  int oh = 0, om = 0, sign = 0;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    if (pos + 1 != s.size()) return false;
  } else if (s[pos] == '+' || s[pos] == '-') {
    sign = s[pos] == '+' ? 1 : -1;
    if (s.size() != pos + 6 || s[pos + 3] != ':' || !num(s, pos + 1, 2, oh) ||
        !num(s, pos + 4, 2, om))
      return false;
    if (oh > 23 || om > 59) return false;
  } else {
    return false;
  }
  if (h > 23 || mi > 59 || sec > 60) return false;
  if (sec == 60) {
    // A leap second is only valid at 23:59:60 UTC.
    int utc = (h * 60 + mi) - sign * (oh * 60 + om);
    utc = ((utc % 1440) + 1440) % 1440;
    return utc == 23 * 60 + 59;
  }
  return true;
}

bool is_date_time(std::string_view s) {
  if (s.size() < 20 || (s[10] != 'T' && s[10] != 't')) return false;
  return is_date(s.substr(0, 10)) && is_time(s.substr(11));
}

bool is_duration(std::string_view s) {
  if (s.size() < 2 || s[0] != 'P') return false;
  std::size_t pos = 1;
  auto units = [&](std::string_view order) {
    std::size_t next = 0;
    int count = 0;
    while (pos < s.size() && digit(s[pos])) {
      const std::size_t start = pos;
      while (pos < s.size() && digit(s[pos])) ++pos;
      if (pos == start || pos >= s.size()) return -1;
      auto at = order.find(s[pos], next);
      if (at == std::string_view::npos) return -1;
      // Components must be contiguous (Y then M then D; H then M then S) per RFC 3339 appendix A.
      if (count > 0 && at != next) return -1;
      next = at + 1;
      ++pos;
      ++count;
    }
    return count;
  };
  if (s.find('W') != std::string_view::npos) {
    return units("W") == 1 && pos == s.size();
  }
  const int date_parts = units("YMD");
  if (date_parts < 0) return false;
  if (pos == s.size()) return date_parts > 0;
  if (s[pos] != 'T') return false;
  ++pos;
  const int time_parts = units("HMS");
  return time_parts > 0 && pos == s.size();
}

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !is_hex_digit(s[i])) return false;
  }
  return true;
}

bool is_json_pointer(std::string_view s) {
  if (s.empty()) return true;
  if (s[0] != '/') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '~' && (i + 1 >= s.size() || (s[i + 1] != '0' && s[i + 1] != '1'))) return false;
  }
  return true;
}

bool is_relative_json_pointer(std::string_view s) {
  std::size_t pos = 0;
  while (pos < s.size() && digit(s[pos])) ++pos;
  if (pos == 0 || (s[0] == '0' && pos > 1)) return false;
  const std::string_view rest = s.substr(pos);
  return rest == "#" || is_json_pointer(rest);
}

bool is_regex(std::string_view s) { return ecma_regex::check_syntax(s); }

namespace {

// RFC 6570 varspec: varname [ ":" max-length | "*" ].
bool uri_template_varspec(std::string_view v) {
  std::string_view name = v;
  if (!v.empty() && v.back() == '*') {
    name = v.substr(0, v.size() - 1);
  } else if (auto colon = v.find(':'); colon != std::string_view::npos) {
    name = v.substr(0, colon);
    const std::string_view len = v.substr(colon + 1);
    if (len.empty() || len.size() > 4 || len[0] < '1' || len[0] > '9') return false;
    for (char c : len) {
      if (!digit(c)) return false;
    }
  }
  if (name.empty() || name.front() == '.' || name.back() == '.' ||
      name.find("..") != std::string_view::npos)
    return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '%') {
      if (i + 2 >= name.size() || !is_hex_digit(name[i + 1]) || !is_hex_digit(name[i + 2]))
        return false;
      i += 2;
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

bool uri_template_expression(std::string_view e) {
  static constexpr std::string_view ops = "+#./;?&=,!@|";
  if (!e.empty() && ops.find(e[0]) != std::string_view::npos) e.remove_prefix(1);
  std::size_t start = 0;
  while (true) {
    const auto comma = e.find(',', start);
    if (!uri_template_varspec(
            e.substr(start, comma == std::string_view::npos ? comma : comma - start)))
      return false;
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

bool is_uri_template(std::string_view s) {
  static constexpr std::string_view banned = " \"<>\\^`|}";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '{') {
      const auto close = s.find('}', i);
      if (close == std::string_view::npos ||
          !uri_template_expression(s.substr(i + 1, close - i - 1)))
        return false;
      i = close;
    } else if (c < 0x20 || c == 0x7F ||
               banned.find(static_cast<char>(c)) != std::string_view::npos ||
               (c == '%' &&
                (i + 2 >= s.size() || !is_hex_digit(s[i + 1]) || !is_hex_digit(s[i + 2])))) {
      return false;
    }
  }
  return true;
}

bool base64_decode(std::string_view in, std::string& out) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out.clear();
  if (in.size() % 4 != 0) return false;
  for (std::size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = in[i + static_cast<std::size_t>(k)];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        v[k] = 0;
        ++pad;
      } else if (pad > 0 || (v[k] = val(c)) < 0) {
        return false;
      }
    }
    const unsigned triple = (static_cast<unsigned>(v[0]) << 18) |
                            (static_cast<unsigned>(v[1]) << 12) |
                            (static_cast<unsigned>(v[2]) << 6) | static_cast<unsigned>(v[3]);
    out.push_back(static_cast<char>((triple >> 16) & 0xFF));
    if (pad < 2) out.push_back(static_cast<char>((triple >> 8) & 0xFF));
    if (pad < 1) out.push_back(static_cast<char>(triple & 0xFF));
  }
  return true;
}

format_check find_format(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, format_check>, 19> table = {{
      {"date", is_date},
      {"time", is_time},
      {"date-time", is_date_time},
      {"duration", is_duration},
      {"hostname", is_hostname},
      {"idn-hostname", is_idn_hostname},
      {"email", is_email},
      {"idn-email", is_idn_email},
      {"ipv4", is_ipv4},
      {"ipv6", is_ipv6},
      {"uri", is_uri},
      {"uri-reference", is_uri_reference},
      {"iri", is_iri},
      {"iri-reference", is_iri_reference},
      {"uri-template", is_uri_template},
      {"uuid", is_uuid},
      {"json-pointer", is_json_pointer},
      {"relative-json-pointer", is_relative_json_pointer},
      {"regex", is_regex},
  }};
  for (const auto& [n, fn] : table) {
    if (n == name) return fn;
  }
  return nullptr;
}

}  // namespace mcpcxx::schema::detail

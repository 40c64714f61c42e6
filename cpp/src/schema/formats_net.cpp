// Network formats: host names, e-mail addresses, IP addresses, URIs and IRIs.
#include <algorithm>
#include <cctype>
#include <vector>

#include "schema/formats.hpp"
#include "schema/idna.hpp"
#include "schema/regex.hpp"

namespace mcpcxx::schema::detail {
namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool high(char c) { return static_cast<unsigned char>(c) >= 0x80; }

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    auto at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

bool utf8_label(std::string_view l, std::u32string& out) {
  std::wstring wide;
  if (!utf8_to_wide(l, wide, 256)) return false;
  out.assign(wide.begin(), wide.end());
  return std::find(out.begin(), out.end(), U'\uFFFD') == out.end();
}

// Checks one label; stores its code points (decoded for A-labels) for the domain-wide Bidi rule.
bool host_label(std::string_view l, bool idn, std::u32string& cps) {
  cps.clear();
  if (l.empty() || l.front() == '-' || l.back() == '-') return false;
  const bool ascii = std::none_of(l.begin(), l.end(), high);
  if (!ascii) return idn && utf8_label(l, cps) && valid_u_label(cps);
  if (l.size() > 63) return false;
  for (char c : l) {
    if (!(alnum(c) || c == '-')) return false;
    cps.push_back(static_cast<char32_t>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (l.size() >= 4 && (l[0] == 'x' || l[0] == 'X') && (l[1] == 'n' || l[1] == 'N') &&
      l[2] == '-' && l[3] == '-') {
    std::string lower(l.substr(4));
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // A-labels must decode to a valid U-label and re-encode to the same text.
    return punycode_decode(lower, cps) && valid_u_label(cps) && punycode_encode(cps) == lower;
  }
  // "--" in positions 3-4 is reserved for A-labels (RFC 5891 4.2.3.1).
  return !(l.size() >= 4 && l[2] == '-' && l[3] == '-');
}

bool hostname_impl(std::string_view s, bool idn) {
  std::string normalized;
  if (idn) {
    // IDNA label separators: U+3002, U+FF0E, U+FF61 act like ".".
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::string_view rest = s.substr(i, 3);
      if (rest == "\xE3\x80\x82" || rest == "\xEF\xBC\x8E" || rest == "\xEF\xBD\xA1") {
        normalized.push_back('.');
        i += 2;
      } else {
        normalized.push_back(s[i]);
      }
    }
    s = normalized;
  }
  if (s.empty() || s.size() > 253) return false;
  std::vector<std::u32string> labels;
  bool bidi_domain = false;
  for (auto label : split(s, '.')) {
    if (!host_label(label, idn, labels.emplace_back())) return false;
    bidi_domain = bidi_domain || is_rtl_label(labels.back());
  }
  return !bidi_domain || std::all_of(labels.begin(), labels.end(), bidi_label_ok);
}

bool dot_atom(std::string_view s, bool idn) {
  static constexpr std::string_view atext = "!#$%&'*+-/=?^_`{|}~";
  if (s.empty() || s.front() == '.' || s.back() == '.' || s.find("..") != std::string_view::npos)
    return false;
  for (char c : s) {
    if (!(alnum(c) || c == '.' || atext.find(c) != std::string_view::npos || (idn && high(c))))
      return false;
  }
  return true;
}

bool quoted_local(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return false;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      if (i + 1 >= s.size()) return false;
    } else if (s[i] == '"' || static_cast<unsigned char>(s[i]) < 0x20) {
      return false;
    }
  }
  return true;
}

bool email_impl(std::string_view s, bool idn) {
  const auto at = s.rfind('@');
  if (at == std::string_view::npos || at == 0) return false;
  const std::string_view local = s.substr(0, at);
  const std::string_view domain = s.substr(at + 1);
  if (!(dot_atom(local, idn) || quoted_local(local))) return false;
  if (domain.size() > 2 && domain.front() == '[' && domain.back() == ']') {
    const std::string_view lit = domain.substr(1, domain.size() - 2);
    if (lit.substr(0, 5) == "IPv6:") return is_ipv6(lit.substr(5));
    return is_ipv4(lit);
  }
  return hostname_impl(domain, idn);
}

// Every byte is unreserved, a sub-delim, in `extra`, part of %XX, or (IRIs) non-ASCII.
bool uri_chars(std::string_view s, std::string_view extra, bool iri) {
  static constexpr std::string_view allowed = "-._~!$&'()*+,;=";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !is_hex_digit(s[i + 1]) || !is_hex_digit(s[i + 2])) return false;
      i += 2;
    } else if (!(alnum(c) || allowed.find(c) != std::string_view::npos ||
                 extra.find(c) != std::string_view::npos || (iri && high(c)))) {
      return false;
    }
  }
  return true;
}

bool authority_ok(std::string_view a, bool iri) {
  if (auto at = a.rfind('@'); at != std::string_view::npos) {
    if (!uri_chars(a.substr(0, at), ":", iri)) return false;
    a = a.substr(at + 1);
  }
  std::string_view host = a;
  std::string_view port;
  if (!a.empty() && a[0] == '[') {
    const auto close = a.find(']');
    if (close == std::string_view::npos) return false;
    host = a.substr(1, close - 1);
    const std::string_view rest = a.substr(close + 1);
    if (!rest.empty() && rest[0] != ':') return false;
    port = rest.empty() ? rest : rest.substr(1);
    const bool future = !host.empty() && (host[0] == 'v' || host[0] == 'V');
    if (!(future ? uri_chars(host, ":", false) : is_ipv6(host))) return false;
  } else {
    if (auto colon = a.rfind(':'); colon != std::string_view::npos) {
      host = a.substr(0, colon);
      port = a.substr(colon + 1);
    }
    if (!uri_chars(host, "", iri)) return false;
  }
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool uri_impl(std::string_view s, bool need_scheme, bool iri) {
  if (auto hash = s.find('#'); hash != std::string_view::npos) {
    if (!uri_chars(s.substr(hash + 1), ":@/?", iri)) return false;
    s = s.substr(0, hash);
  }
  if (auto q = s.find('?'); q != std::string_view::npos) {
    if (!uri_chars(s.substr(q + 1), ":@/?", iri)) return false;
    s = s.substr(0, q);
  }
  const auto colon = s.find(':');
  const auto slash = s.find('/');
  const bool scheme =
      colon != std::string_view::npos && (slash == std::string_view::npos || colon < slash);
  if (scheme) {
    const std::string_view name = s.substr(0, colon);
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
    for (char c : name) {
      if (!(alnum(c) || c == '+' || c == '-' || c == '.')) return false;
    }
    s = s.substr(colon + 1);
  } else if (need_scheme) {
    return false;
  }
  if (s.substr(0, 2) == "//") {
    s = s.substr(2);
    const auto end = s.find('/');
    if (!authority_ok(s.substr(0, end), iri)) return false;
    s = end == std::string_view::npos ? std::string_view{} : s.substr(end);
  }
  return uri_chars(s, ":@/", iri);
}

}  // namespace

bool is_hostname(std::string_view s) { return hostname_impl(s, false); }
bool is_idn_hostname(std::string_view s) { return hostname_impl(s, true); }
bool is_email(std::string_view s) { return email_impl(s, false); }
bool is_idn_email(std::string_view s) { return email_impl(s, true); }
bool is_uri(std::string_view s) { return uri_impl(s, true, false); }
bool is_uri_reference(std::string_view s) { return uri_impl(s, false, false); }
bool is_iri(std::string_view s) { return uri_impl(s, true, true); }
bool is_iri_reference(std::string_view s) { return uri_impl(s, false, true); }

bool is_ipv4(std::string_view s) {
  const auto parts = split(s, '.');
  if (parts.size() != 4) return false;
  for (auto p : parts) {
    if (p.empty() || p.size() > 3 || (p.size() > 1 && p[0] == '0')) return false;
    int v = 0;
    for (char c : p) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    if (v > 255) return false;
  }
  return true;
}

bool is_ipv6(std::string_view s) {
  if (s.empty()) return false;
  const auto gap = s.find("::");
  if (gap != std::string_view::npos && s.find("::", gap + 1) != std::string_view::npos)
    return false;
  auto groups = [](std::string_view part, bool allow_v4, int& count) {
    if (part.empty()) return true;
    const auto fields = split(part, ':');
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const auto f = fields[i];
      if (allow_v4 && i + 1 == fields.size() && f.find('.') != std::string_view::npos) {
        if (!is_ipv4(f)) return false;
        count += 2;
        continue;
      }
      if (f.empty() || f.size() > 4) return false;
      for (char c : f) {
        if (!is_hex_digit(c)) return false;
      }
      ++count;
    }
    return true;
  };
  int count = 0;
  if (gap == std::string_view::npos) return groups(s, true, count) && count == 8;
  if (!groups(s.substr(0, gap), false, count) || !groups(s.substr(gap + 2), true, count))
    return false;
  return count < 8;
}

}  // namespace mcpcxx::schema::detail

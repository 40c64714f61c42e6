#include "transport/http/security.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

#include "transport/http/request_parser.hpp"

namespace mcpcxx::http {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

// Splits "host:port", "[v6]:port", "host" into the host part.
std::string_view host_part(std::string_view hostport) {
  if (!hostport.empty() && hostport.front() == '[') {
    auto close = hostport.find(']');
    return close == std::string_view::npos ? hostport : hostport.substr(0, close + 1);
  }
  auto colon = hostport.rfind(':');
  return colon == std::string_view::npos ? hostport : hostport.substr(0, colon);
}

bool port_ok(std::string_view hostport, std::size_t host_len) {
  std::string_view rest = hostport.substr(host_len);
  if (rest.empty()) return true;
  if (rest.front() != ':' || rest.size() == 1 || rest.size() > 6) return false;
  return std::all_of(rest.begin() + 1, rest.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

bool listed(const std::vector<std::string>& list, std::string_view value) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& s) { return s == "*" || iequals(s, value); });
}

}  // namespace

bool is_loopback_address(std::string_view host) {
  if (iequals(host, "localhost") || host == "[::1]" || host == "::1") return true;
  return host.substr(0, 4) == "127." && host.size() <= 15 &&
         std::all_of(host.begin(), host.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0 || c == '.'; });
}

bool host_allowed(const origin_policy& p, const std::string* host) {
  if (host == nullptr || host->empty()) return false;
  std::string_view h = host_part(*host);
  if (!port_ok(*host, h.size())) return false;
  if (!p.allowed_hosts.empty()) return listed(p.allowed_hosts, *host) || listed(p.allowed_hosts, h);
  return !p.loopback_bound || is_loopback_address(h);
}

bool origin_allowed(const origin_policy& p, const std::string* origin) {
  if (origin == nullptr) return true;
  if (!p.allowed_origins.empty()) return listed(p.allowed_origins, *origin);
  std::string_view o = *origin;
  std::string_view rest;
  if (o.substr(0, 7) == "http://") {
    rest = o.substr(7);
  } else if (o.substr(0, 8) == "https://") {
    rest = o.substr(8);
  } else {
    return false;
  }
  std::string_view h = host_part(rest);
  return port_ok(rest, h.size()) && is_loopback_address(h);
}

bool accepts(const std::string* accept, std::string_view type) {
  if (accept == nullptr) return false;
  std::string_view v = *accept;
  std::string_view major = type.substr(0, type.find('/'));
  while (!v.empty()) {
    auto comma = v.find(',');
    std::string_view item = v.substr(0, comma);
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
    auto semi = item.find(';');
    std::string_view range = trim_ows(item.substr(0, semi));
    std::string_view params = semi == std::string_view::npos ? "" : item.substr(semi);
    if (params.find("q=0") != std::string_view::npos &&
        params.find_first_of("123456789", params.find("q=0") + 3) == std::string_view::npos) {
      continue;  // q=0 (or 0.0, 0.000) explicitly refuses the type
    }
    if (range == "*/*" || iequals(range, type)) return true;
    if (range.size() == major.size() + 2 && iequals(range.substr(0, major.size()), major) &&
        range.substr(major.size()) == "/*") {
      return true;
    }
  }
  return false;
}

bool is_json_content_type(const std::string* content_type) {
  if (content_type == nullptr) return false;
  std::string_view v = *content_type;
  return iequals(trim_ows(v.substr(0, v.find(';'))), "application/json");
}

bool valid_utf8(std::string_view s) {
  static constexpr std::array<std::uint32_t, 4> min_cp{0, 0x80, 0x800, 0x10000};
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    std::uint32_t cp = c;
    if (c >= 0x80) {
      if ((c >> 5) == 0x6) {
        n = 1, cp = c & 0x1Fu;
      } else if ((c >> 4) == 0xE) {
        n = 2, cp = c & 0x0Fu;
      } else if ((c >> 3) == 0x1E) {
        n = 3, cp = c & 0x07u;
      } else {
        return false;
      }
    }
    if (s.size() - i <= n) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

std::optional<std::string> base64_decode(std::string_view in) {
  // Strict RFC 4648: whole quanta, at most two '=' and only at the end.
  if (in.size() % 4 != 0) return std::nullopt;
  std::size_t pad = 0;
  while (pad < 2 && !in.empty() && in.back() == '=') {
    in.remove_suffix(1);
    ++pad;
  }
  std::string out;
  out.reserve(in.size() * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  for (char ch : in) {
    if (ch == '=') return std::nullopt;
    int v = ch >= 'A' && ch <= 'Z'   ? ch - 'A'
            : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26
            : ch >= '0' && ch <= '9' ? ch - '0' + 52
            : ch == '+'              ? 62
            : ch == '/'              ? 63
                                     : -1;
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFFu));
    }
  }
  return out;
}

std::optional<std::string> decode_header_value(std::string_view raw) {
  raw = trim_ows(raw);
  constexpr std::string_view prefix = "=?base64?";
  if (raw.size() >= prefix.size() + 2 && iequals(raw.substr(0, prefix.size()), prefix) &&
      raw.substr(raw.size() - 2) == "?=") {
    auto decoded = base64_decode(raw.substr(prefix.size(), raw.size() - prefix.size() - 2));
    if (!decoded || !valid_utf8(*decoded)) return std::nullopt;
    return decoded;
  }
  bool ok = std::all_of(raw.begin(), raw.end(),
                        [](unsigned char c) { return c == '\t' || (c >= 0x20 && c <= 0x7E); });
  if (!ok) return std::nullopt;
  return std::string(raw);
}

std::optional<std::string_view> bearer_token(const std::string* authorization) {
  if (authorization == nullptr) return std::nullopt;
  std::string_view v = trim_ows(*authorization);
  if (v.size() < 7 || !iequals(v.substr(0, 7), "bearer ")) return std::nullopt;
  std::string_view token = trim_ows(v.substr(7));
  if (token.empty()) return std::nullopt;
  return token;
}

bool is_b64token(std::string_view token) {
  std::size_t end = token.find_last_not_of('=');
  if (end == std::string_view::npos) return false;  // empty, or padding only
  return std::all_of(
      token.begin(), token.begin() + static_cast<std::ptrdiff_t>(end) + 1, [](unsigned char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
      });
}

std::string printable_header(std::string_view raw) {
  std::string out(raw);
  for (char& c : out) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7E) c = '?';
  }
  return out;
}

}  // namespace mcpcxx::http

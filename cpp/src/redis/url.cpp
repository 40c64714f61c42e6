// The store URL: parse_store_url and store_url::redacted (redis/client.hpp).
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "redis/client.hpp"

namespace mcpcxx::redis {

namespace {

constexpr std::string_view k_redis_form = "redis://[user:password@]host[:port][/db]";
constexpr std::string_view k_rediss_form =
    "rediss://[user:password@]host[:port][/db][?ca=/path/ca.pem]";
constexpr std::string_view k_unix_form = "unix:///path/to/redis.sock[?db=N][&password=P]";

std::string all_url_forms() {
  return "memory:, " + std::string(k_redis_form) + ", " + std::string(k_rediss_form) + " or " +
         std::string(k_unix_form);
}

// Thrown inside the parser only; parse_store_url turns it into `why`.
struct url_problem {
  std::string text;
};

[[noreturn]] void refuse(const std::string& what, std::string_view form) {
  throw url_problem{what + "; expected " + std::string(form)};
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view s, std::string_view what, std::string_view form) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    const int hi = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
    const int lo = i + 2 < s.size() ? hex_digit(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      refuse("the " + std::string(what) + " has a bad percent escape (use %XX with two hex digits)",
             form);
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string percent_encode_userinfo(std::string_view s) {
  static constexpr std::string_view hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::optional<long> whole_number(std::string_view s, long max) {
  long v = 0;
  if (s.empty() || s.size() > 10) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0 || v > max) return std::nullopt;
  return v;
}

int parse_db(std::string_view s, std::string_view form) {
  const auto v = whole_number(s, 2147483647);
  if (!v) refuse("the db '" + std::string(s) + "' is not a whole number 0 or more", form);
  return static_cast<int>(*v);
}

std::uint16_t parse_port(std::string_view s, std::string_view form) {
  const auto v = whole_number(s, 65535);
  if (!v || *v == 0) refuse("the port '" + std::string(s) + "' is not a number 1-65535", form);
  return static_cast<std::uint16_t>(*v);
}

// [user:password@] of redis:// and rediss://
void parse_userinfo(std::string_view info, store_url& u, std::string_view form) {
  const auto colon = info.find(':');
  if (colon == std::string_view::npos) {
    refuse("the credentials '" + std::string(info) +
               "' have no ':' (a password alone is written ':password@')",
           form);
  }
  u.user = percent_decode(info.substr(0, colon), "user", form);
  u.password = percent_decode(info.substr(colon + 1), "password", form);
  if (u.password.empty()) refuse("the password is empty (leave out '@' for no AUTH)", form);
}

void check_host(std::string_view host, std::string_view form) {
  if (host.empty()) refuse("the host is missing", form);
  for (const char c : host) {
    const auto uc = static_cast<unsigned char>(c);
    if (std::isalnum(uc) == 0 && c != '-' && c != '.' && c != '_' && c != ':') {
      refuse("the host '" + std::string(host) + "' has a character not allowed in a host name",
             form);
    }
  }
}

// host[:port] or [v6][:port]
void parse_host_port(std::string_view hp, store_url& u, std::string_view form) {
  std::string_view port;
  if (!hp.empty() && hp.front() == '[') {
    const auto close = hp.find(']');
    if (close == std::string_view::npos) refuse("the IPv6 address has no closing ']'", form);
    u.host = std::string(hp.substr(1, close - 1));
    const std::string_view rest = hp.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') {
      refuse("unexpected '" + std::string(rest) + "' after the IPv6 address", form);
    }
    if (!rest.empty()) port = rest.substr(1);
    if (u.host.empty()) refuse("the host is missing", form);
    if (!rest.empty() && port.empty()) refuse("the port after ':' is missing", form);
  } else {
    const auto colon = hp.find(':');
    if (colon != std::string_view::npos && hp.find(':', colon + 1) != std::string_view::npos) {
      refuse("the host '" + std::string(hp) + "' has several ':' (write an IPv6 address in [])",
             form);
    }
    u.host = std::string(hp.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = hp.substr(colon + 1);
      if (port.empty()) refuse("the port after ':' is missing", form);
    }
    check_host(u.host, form);
  }
  if (!port.empty()) u.port = parse_port(port, form);
}

// Calls `take(name, value)` for each name=value of `query`.
template <typename F>
void for_each_param(std::string_view query, std::string_view form, F&& take) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      refuse("the query item '" + std::string(item) + "' is not name=value", form);
    }
    take(item.substr(0, eq), item.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
}

store_url parse_network(std::string_view rest, bool tls) {
  const std::string_view form = tls ? k_rediss_form : k_redis_form;
  store_url u;
  u.kind = tls ? store_url::scheme::rediss : store_url::scheme::redis;
  const auto q = rest.find('?');
  const std::string_view query = q == std::string_view::npos ? "" : rest.substr(q + 1);
  rest = rest.substr(0, q);
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  const auto at = authority.rfind('@');
  if (at != std::string_view::npos) {
    parse_userinfo(authority.substr(0, at), u, form);
    authority.remove_prefix(at + 1);
  }
  parse_host_port(authority, u, form);
  if (slash != std::string_view::npos && slash + 1 < rest.size()) {
    u.db = parse_db(rest.substr(slash + 1), form);
  }
  if (q != std::string_view::npos && query.empty()) refuse("the query after '?' is empty", form);
  for_each_param(query, form, [&](std::string_view name, std::string_view value) {
    if (!tls || name != "ca") {
      refuse("the query parameter '" + std::string(name) + "' is not known", form);
    }
    if (value.empty()) refuse("the CA file after ca= is empty", form);
    u.ca_file = percent_decode(value, "CA file", form);
  });
  return u;
}

store_url parse_unix(std::string_view rest) {
  const std::string_view form = k_unix_form;
  store_url u;
  u.kind = store_url::scheme::unix_socket;
  const auto q = rest.find('?');
  u.path = std::string(rest.substr(0, q));
  if (u.path.empty() || u.path.front() != '/') {
    refuse("the socket path must be absolute (three slashes: unix:///path)", form);
  }
  if (u.path.size() >= 108) refuse("the socket path is longer than 107 bytes", form);
  const std::string_view query = q == std::string_view::npos ? "" : rest.substr(q + 1);
  for_each_param(query, form, [&](std::string_view name, std::string_view value) {
    if (name == "db") {
      u.db = parse_db(value, form);
    } else if (name == "password") {
      u.password = percent_decode(value, "password", form);
    } else if (name == "user") {
      u.user = percent_decode(value, "user", form);
    } else {
      refuse("the query parameter '" + std::string(name) + "' is not known", form);
    }
  });
  if (!u.user.empty() && u.password.empty()) refuse("user= needs password= too", form);
  return u;
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

store_url parse_any(std::string_view text) {
  if (text.empty()) refuse("the store URL is empty", all_url_forms());
  for (const char c : text) {
    if (static_cast<unsigned char>(c) <= ' ') {
      refuse("the store URL contains a space or control character", all_url_forms());
    }
  }
  if (starts_with_nocase(text, "redis://")) return parse_network(text.substr(8), false);
  if (starts_with_nocase(text, "rediss://")) return parse_network(text.substr(9), true);
  if (starts_with_nocase(text, "unix://")) return parse_unix(text.substr(7));
  if (starts_with_nocase(text, "memory:")) {
    if (text.size() > 7) refuse("'memory:' takes nothing after the colon", "memory:");
    return store_url{};
  }
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    refuse("'" + std::string(text) + "' has no scheme", all_url_forms());
  }
  refuse("the scheme '" + std::string(text.substr(0, colon)) + "' is not known", all_url_forms());
}

}  // namespace

std::optional<store_url> parse_store_url(std::string_view text, std::string* why) {
  try {
    return parse_any(text);
  } catch (const url_problem& p) {
    if (why != nullptr) *why = p.text;
    return std::nullopt;
  }
}

std::string store_url::redacted() const {
  std::string out;
  switch (kind) {
    case scheme::memory:
      return "memory:";
    case scheme::unix_socket:
      out = "unix://" + path;
      if (db != 0) out += "?db=" + std::to_string(db);
      if (!user.empty()) out += std::string(db != 0 ? "&" : "?") + "user=" + user;
      if (!password.empty())
        out += std::string(db != 0 || !user.empty() ? "&" : "?") + "password=***";
      return out;
    case scheme::redis:
    case scheme::rediss:
      break;
  }
  out = kind == scheme::rediss ? "rediss://" : "redis://";
  if (!password.empty()) out += percent_encode_userinfo(user) + ":***@";
  out += host.find(':') != std::string::npos ? "[" + host + "]" : host;
  out += ":" + std::to_string(port);
  if (db != 0) out += "/" + std::to_string(db);
  if (!ca_file.empty()) out += "?ca=" + ca_file;
  return out;
}

}  // namespace mcpcxx::redis

// RFC 3986 reference resolution and RFC 6901 pointer helpers.
#include "schema/uri.hpp"

#include <cctype>

namespace mcpcxx::schema::detail {
namespace {

struct uri_parts {
  std::string scheme, authority, path, query, fragment;
  bool has_scheme = false, has_authority = false, has_query = false, has_fragment = false;
};

uri_parts parse(std::string_view s) {
  uri_parts p;
  if (auto hash = s.find('#'); hash != std::string_view::npos) {
    p.has_fragment = true;
    p.fragment = std::string(s.substr(hash + 1));
    s = s.substr(0, hash);
  }
  if (auto q = s.find('?'); q != std::string_view::npos) {
    p.has_query = true;
    p.query = std::string(s.substr(q + 1));
    s = s.substr(0, q);
  }
  if (has_scheme(s)) {
    auto colon = s.find(':');
    p.has_scheme = true;
    p.scheme = std::string(s.substr(0, colon));
    s = s.substr(colon + 1);
  }
  if (s.substr(0, 2) == "//") {
    s = s.substr(2);
    auto slash = s.find('/');
    p.has_authority = true;
    p.authority = std::string(s.substr(0, slash));
    s = slash == std::string_view::npos ? std::string_view{} : s.substr(slash);
  }
  p.path = std::string(s);
  return p;
}

std::string remove_dot_segments(std::string_view in) {
  std::string out;
  std::string input(in);
  while (!input.empty()) {
    if (input.rfind("../", 0) == 0) {
      input.erase(0, 3);
    } else if (input.rfind("./", 0) == 0 || input.rfind("/./", 0) == 0) {
      input.erase(0, 2);  // "./" goes; "/./" becomes "/" (RFC 3986 5.2.4 steps A and B)
    } else if (input == "/.") {
      input = "/";
    } else if (input.rfind("/../", 0) == 0 || input == "/..") {
      input = input == "/.." ? "/" : input.substr(3);
      auto last = out.rfind('/');
      out.erase(last == std::string::npos ? 0 : last);
    } else if (input == "." || input == "..") {
      input.clear();
    } else {
      auto next = input.find('/', input[0] == '/' ? 1 : 0);
      out += input.substr(0, next);
      input.erase(0, next == std::string::npos ? input.size() : next);
    }
  }
  return out;
}

std::string compose(const uri_parts& p) {
  std::string out;
  if (p.has_scheme) out += p.scheme + ":";
  if (p.has_authority) out += "//" + p.authority;
  out += p.path;
  if (p.has_query) out += "?" + p.query;
  if (p.has_fragment) out += "#" + p.fragment;
  return out;
}

std::string merge_paths(const uri_parts& base, const std::string& ref_path) {
  if (base.has_authority && base.path.empty()) return "/" + ref_path;
  auto slash = base.path.rfind('/');
  if (slash == std::string::npos) return ref_path;
  return base.path.substr(0, slash + 1) + ref_path;
}

}  // namespace

bool has_scheme(std::string_view uri) {
  if (uri.empty() || !std::isalpha(static_cast<unsigned char>(uri[0]))) return false;
  for (char c : uri) {
    if (c == ':') return true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.')
      return false;
  }
  return false;
}

std::string resolve_uri(std::string_view base_text, std::string_view ref_text) {
  if (base_text.empty()) return std::string(ref_text);
  uri_parts r = parse(ref_text);
  uri_parts b = parse(base_text);
  uri_parts t;
  if (r.has_scheme) {
    t = r;
    t.path = remove_dot_segments(r.path);
  } else {
    t.scheme = b.scheme;
    t.has_scheme = b.has_scheme;
    if (r.has_authority) {
      t.has_authority = true;
      t.authority = r.authority;
      t.path = remove_dot_segments(r.path);
      t.has_query = r.has_query;
      t.query = r.query;
    } else {
      t.has_authority = b.has_authority;
      t.authority = b.authority;
      if (r.path.empty()) {
        t.path = b.path;
        t.has_query = r.has_query || b.has_query;
        t.query = r.has_query ? r.query : b.query;
      } else {
        t.path = remove_dot_segments(r.path[0] == '/' ? r.path : merge_paths(b, r.path));
        t.has_query = r.has_query;
        t.query = r.query;
      }
    }
  }
  t.has_fragment = r.has_fragment;
  t.fragment = r.fragment;
  return compose(t);
}

std::string strip_fragment(std::string_view uri) {
  return std::string(uri.substr(0, uri.find('#')));
}

std::string fragment_of(std::string_view uri) {
  auto hash = uri.find('#');
  if (hash == std::string_view::npos) return {};
  return percent_decode(uri.substr(hash + 1));
}

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string pointer_escape(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

void pointer_append(std::string& pointer, std::string_view token) {
  pointer += '/';
  pointer += pointer_escape(token);
}

bool pointer_split(std::string_view pointer, std::vector<std::string>& tokens) {
  tokens.clear();
  if (pointer.empty()) return true;
  if (pointer[0] != '/') return false;
  std::size_t pos = 1;
  while (true) {
    auto next = pointer.find('/', pos);
    std::string_view raw = pointer.substr(pos, next == std::string_view::npos ? next : next - pos);
    std::string tok;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        tok += raw[i];
        continue;
      }
      if (i + 1 >= raw.size() || (raw[i + 1] != '0' && raw[i + 1] != '1')) return false;
      tok += raw[i + 1] == '0' ? '~' : '/';
      ++i;
    }
    tokens.push_back(std::move(tok));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return true;
}

}  // namespace mcpcxx::schema::detail

// MCP Apps metadata: the checks of a UI resource's URI and `_meta.ui` (csp origins, permissions,
// domain) and of a tool's link, each refusal naming the field and the rule.
#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "mcpcxx/apps.hpp"

#include "apps/ui_checks.hpp"

namespace mcpcxx::apps {

namespace detail {

namespace {

constexpr std::array<std::string_view, 4> k_schemes = {"http", "https", "ws", "wss"};
constexpr std::array<std::string_view, 4> k_permissions = {"camera", "microphone", "geolocation",
                                                           "clipboardWrite"};
constexpr std::array<std::string_view, 2> k_audiences = {"model", "app"};

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A DNS label: letters, digits and inner hyphens, 1-63 characters.
bool dns_label(std::string_view l) {
  if (l.empty() || l.size() > 63 || l.front() == '-' || l.back() == '-') return false;
  return std::all_of(l.begin(), l.end(), [](char c) { return alnum(c) || c == '-'; });
}

// A host name (dot-separated labels; "*" allowed as the leftmost one) or a bracketed IPv6.
bool origin_host(std::string_view h) {
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') {
    return std::all_of(h.begin() + 1, h.end() - 1,
                       [](char c) { return alnum(c) || c == ':' || c == '.'; });
  }
  if (h.starts_with("*.")) h.remove_prefix(2);
  if (h.empty() || h.size() > 253) return false;
  for (std::size_t start = 0;;) {
    const std::size_t dot = h.find('.', start);
    if (!dns_label(h.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool port_number(std::string_view p) {
  if (p.empty() || p.size() > 5) return false;
  if (!std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  const int n = std::stoi(std::string(p));
  return n >= 1 && n <= 65535;
}

std::string quote_of(std::string_view v) {
  return "'" + std::string(v.substr(0, 120)) + (v.size() > 120 ? "...'" : "'");
}

// Why `v` is not an origin, or "" when it is one.
std::string origin_problem(std::string_view v) {
  if (v == "*" || v == "'self'" || v == "'none'") {
    return "is a CSP keyword, not an origin: list each origin the UI needs (e.g. "
           "https://api.example.com); the host already allows the UI's own content";
  }
  const std::size_t sep = v.find("://");
  if (sep == std::string_view::npos) {
    return "is not an origin: write scheme://host[:port], e.g. https://api.example.com";
  }
  const std::string_view scheme = v.substr(0, sep);
  if (std::find(k_schemes.begin(), k_schemes.end(), scheme) == k_schemes.end()) {
    return "has scheme '" + std::string(scheme) + "': use http, https, ws or wss";
  }
  std::string_view rest = v.substr(sep + 3);
  if (rest.find_first_of("/?#") != std::string_view::npos) {
    return "has a path, query or fragment: an origin ends after the host and port (e.g. "
           "https://cdn.example.com, not https://cdn.example.com/lib/)";
  }
  if (rest.find('@') != std::string_view::npos) {
    return "has user information: an origin is scheme://host[:port]";
  }
  std::string_view host = rest;
  const std::size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && rest.find(']', colon) == std::string_view::npos) {
    host = rest.substr(0, colon);
    if (!port_number(rest.substr(colon + 1))) return "has a port outside 1-65535";
  }
  if (!origin_host(host)) {
    return "has host '" + std::string(host) +
           "': use a host name (its leftmost label may be * for subdomains), an IPv4 address or "
           "a bracketed IPv6 address";
  }
  return "";
}

json origin_list(const std::string& uri, std::string_view field,
                 const std::vector<std::string>& values) {
  json out = json::array();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string problem = origin_problem(values[i]);
    if (!problem.empty()) {
      std::string message = "UI resource '" + uri + "': _meta.ui.csp.";
      message += field;
      message += "[" + std::to_string(i) + "] ";
      message += quote_of(values[i]);
      message += " " + problem;
      throw std::invalid_argument(message);
    }
    out.push_back(values[i]);
  }
  return out;
}

json csp_object(const std::string& uri, const csp& c) {
  json out = json::object();
  const std::array<std::pair<std::string_view, const std::vector<std::string>*>, 4> fields = {{
      {"connectDomains", &c.connect_domains},
      {"resourceDomains", &c.resource_domains},
      {"frameDomains", &c.frame_domains},
      {"baseUriDomains", &c.base_uri_domains},
  }};
  for (const auto& [name, values] : fields) {
    if (!values->empty()) out[std::string(name)] = origin_list(uri, name, *values);
  }
  return out;
}

json permissions_object(const std::string& uri, const std::vector<std::string>& names) {
  json out = json::object();
  for (const std::string& name : names) {
    if (std::find(k_permissions.begin(), k_permissions.end(), name) == k_permissions.end()) {
      throw std::invalid_argument("UI resource '" + uri + "': _meta.ui.permissions has " +
                                  quote_of(name) +
                                  ", which the extension does not define: use camera, "
                                  "microphone, geolocation or clipboardWrite");
    }
    if (out.contains(name)) {
      std::string message = "UI resource '" + uri + "': _meta.ui.permissions lists '";
      message += name;
      message += "' twice: name each permission once";
      throw std::invalid_argument(message);
    }
    out[name] = json::object();
  }
  return out;
}

void check_domain(const std::string& uri, const std::string& domain) {
  const bool blank =
      std::all_of(domain.begin(), domain.end(), [](char c) { return c == ' ' || c == '\t'; });
  const bool control = std::any_of(domain.begin(), domain.end(), [](char c) {
    return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
  });
  if (blank || control) {
    throw std::invalid_argument(
        "UI resource '" + uri + "': _meta.ui.domain " + quote_of(domain) +
        (blank ? " is empty" : " contains whitespace or control characters") +
        ": give the dedicated origin in the format your host documents "
        "(e.g. abc123.claudemcpcontent.com), or leave it unset");
  }
}

}  // namespace

void check_ui_uri(std::string_view what, std::string_view uri) {
  if (!uri.starts_with("ui://")) {
    throw std::invalid_argument(std::string(what) + " " + quote_of(uri) +
                                " must use the ui:// scheme (e.g. ui://issues/board): MCP Apps "
                                "hosts render only ui:// resources; register other resources "
                                "with server::add_resource");
  }
  const bool bad = uri.size() == 5 || std::any_of(uri.begin(), uri.end(), [](char c) {
                     return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f;
                   });
  if (bad) {
    throw std::invalid_argument(std::string(what) + " " + quote_of(uri) +
                                " must name a resource after ui:// (e.g. ui://issues/board) and "
                                "contain no whitespace or control characters");
  }
}

json visibility_array(std::string_view tool, const std::vector<std::string>& values) {
  json out = json::array();
  for (const std::string& v : values) {
    if (std::find(k_audiences.begin(), k_audiences.end(), v) == k_audiences.end()) {
      throw std::invalid_argument(std::string(tool) + ": _meta.ui.visibility has " + quote_of(v) +
                                  ": use \"model\" (the agent may call it) and/or \"app\" (the "
                                  "UI may call it through the host)");
    }
    if (std::find(out.begin(), out.end(), v) != out.end()) {
      throw std::invalid_argument(std::string(tool) + ": _meta.ui.visibility lists '" + v +
                                  "' twice: name each audience once");
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace detail

json resource_ui_meta(const ui_resource& r) {
  json ui = json::object();
  if (r.csp) {
    json c = detail::csp_object(r.uri, *r.csp);
    ui["csp"] = std::move(c);
  }
  if (!r.permissions.empty()) ui["permissions"] = detail::permissions_object(r.uri, r.permissions);
  if (r.domain) {
    detail::check_domain(r.uri, *r.domain);
    ui["domain"] = *r.domain;
  }
  if (r.prefers_border) ui["prefersBorder"] = *r.prefers_border;
  return ui;
}

json detail::linked_meta(std::string_view who, json meta, const tool_ui& ui) {
  detail::check_ui_uri(std::string(who) + ": the linked UI resource URI", ui.resource_uri);
  if (meta.is_null()) meta = json::object();
  if (!meta.is_object()) {
    throw std::invalid_argument(std::string(who) +
                                ": _meta must be a JSON object (or null) to carry the UI link, "
                                "got " +
                                std::string(meta.type_name()));
  }
  json& link = meta["ui"];
  if (link.is_null()) link = json::object();
  if (!link.is_object()) {
    throw std::invalid_argument(std::string(who) +
                                ": _meta.ui must be an object to carry the UI link, got " +
                                std::string(link.type_name()));
  }
  link["resourceUri"] = ui.resource_uri;
  if (!ui.visibility.empty()) link["visibility"] = detail::visibility_array(who, ui.visibility);
  meta[std::string(k_legacy_resource_uri_key)] = ui.resource_uri;
  return meta;
}

json tool_ui_meta(json meta, const tool_ui& ui) {
  return detail::linked_meta("tool link", std::move(meta), ui);
}

}  // namespace mcpcxx::apps

#include "registry/tool_headers.hpp"

#include <array>
#include <map>
#include <stdexcept>

namespace mcpcxx::detail {

namespace {

constexpr const char* k_key = "x-mcp-header";

// JSON Schema 2020-12 keywords whose values are schemas; any of them ends a `properties` chain.
// Instance keywords (const, enum, default, examples) are never entered: their values are data.
constexpr std::array<std::string_view, 11> k_single = {"items",
                                                       "contains",
                                                       "unevaluatedItems",
                                                       "additionalProperties",
                                                       "not",
                                                       "propertyNames",
                                                       "if",
                                                       "unevaluatedProperties",
                                                       "then",
                                                       "else",
                                                       "contentSchema"};
constexpr std::array<std::string_view, 4> k_lists = {"allOf", "anyOf", "oneOf", "prefixItems"};
constexpr std::array<std::string_view, 4> k_maps = {"patternProperties", "dependentSchemas",
                                                    "$defs", "definitions"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& set, std::string_view key) {
  for (std::string_view k : set) {
    if (k == key) return true;
  }
  return false;
}

bool header_token(std::string_view s) {
  constexpr std::string_view extra = "!#$%&'*+-.^_`|~";
  if (s.empty()) return false;
  for (char c : s) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && extra.find(c) == std::string_view::npos) return false;
  }
  return true;
}

std::string lowered(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::string slash_joined(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : "/") + p;
  return out;
}

// What the property's "type" is, for the refusal.
std::string type_text(const json& property) {
  auto t = property.find("type");
  if (t != property.end()) return t->dump();
  if (property.contains("anyOf") || property.contains("oneOf")) {
    return "no type but a union (anyOf/oneOf), such as an optional value (Optional[str], "
           "str | None)";
  }
  return "no type";
}

struct walker {
  std::string_view tool;
  std::map<std::string, std::string> seen;  // lower-cased header name -> property
  std::vector<std::string> path;            // the `properties` chain to the current position

  [[noreturn]] void refuse(const std::string& where, const std::string& why) const {
    throw std::invalid_argument("tool '" + std::string(tool) + "' inputSchema " + where + ": " +
                                why);
  }

  void annotation(const json& property) {
    const std::string where = "property '" + slash_joined(path) + "'";
    const json& h = property.at(k_key);
    if (!h.is_string()) {
      refuse(where, "x-mcp-header must be a string (the Mcp-Param-<Name> header suffix), not " +
                        std::string(h.type_name()));
    }
    const auto& name = h.get_ref<const std::string&>();
    if (name.empty()) {
      refuse(where, "x-mcp-header is empty; name the header, e.g. \"Region\" for Mcp-Param-Region");
    }
    if (!header_token(name)) {
      refuse(where, "x-mcp-header " + json(name.substr(0, 80)).dump() +
                        " is not an HTTP header token (RFC 9110: letters, digits and "
                        "!#$%&'*+-.^_`|~ only)");
    }
    auto t = property.find("type");
    if (t == property.end() || !t->is_string() ||
        (*t != "string" && *t != "integer" && *t != "boolean")) {
      refuse(where, "x-mcp-header needs \"type\": \"string\", \"integer\" or \"boolean\", got " +
                        type_text(property) + "; give the property one of those types alone");
    }
    auto [it, fresh] = seen.emplace(lowered(name), slash_joined(path));
    if (!fresh) {
      refuse(where, "x-mcp-header \"" + name + "\" repeats the one of property '" + it->second +
                        "' (header names are case-insensitive); give each a distinct name");
    }
  }

  void walk(const json& node, const std::string& location, bool chained) {
    if (!node.is_object()) return;
    if (node.contains(k_key)) {
      if (!chained || path.empty()) {
        refuse(location.empty() ? "at the root" : "at '" + location + "'",
               "x-mcp-header is allowed only on a property reached from the root through "
               "\"properties\" alone (not the root, items, anyOf/oneOf/allOf/not, "
               "if/then/else, $defs or $ref)");
      }
      annotation(node);
    }
    for (const auto& [key, value] : node.items()) walk_keyword(key, value, location, chained);
  }

  void walk_keyword(const std::string& key, const json& value, const std::string& location,
                    bool chained) {
    const std::string here = location + "/" + pointer_token(key);
    if (key == "properties" && value.is_object()) {
      for (const auto& [name, sub] : value.items()) {
        path.push_back(name);
        walk(sub, here + "/" + pointer_token(name), chained);
        path.pop_back();
      }
    } else if (one_of(k_single, key)) {
      walk(value, here, false);
    } else if (one_of(k_lists, key) && value.is_array()) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        walk(value[i], here + "/" + std::to_string(i), false);
      }
    } else if (one_of(k_maps, key) && value.is_object()) {
      for (const auto& [name, sub] : value.items()) {
        walk(sub, here + "/" + pointer_token(name), false);
      }
    }
  }
};

void collect(const json& schema, std::vector<std::string>& path, std::vector<param_header>& out) {
  if (!schema.is_object()) return;
  auto props = schema.find("properties");
  if (props == schema.end() || !props->is_object()) return;
  for (const auto& [key, sub] : props->items()) {
    if (!sub.is_object()) continue;
    path.push_back(key);
    auto h = sub.find(k_key);
    if (h != sub.end() && h->is_string() && !h->get_ref<const std::string&>().empty()) {
      std::string type = sub.contains("type") && sub["type"].is_string()
                             ? sub["type"].get<std::string>()
                             : std::string("string");
      out.push_back({h->get<std::string>(), path, type});
    }
    collect(sub, path, out);
    path.pop_back();
  }
}

}  // namespace

void check_param_headers(const json& schema, std::string_view tool) {
  walker w{tool, {}, {}};
  w.walk(schema, "", true);
}

std::vector<param_header> collect_param_headers(const json& schema) {
  std::vector<param_header> out;
  std::vector<std::string> path;
  collect(schema, path, out);
  return out;
}

}  // namespace mcpcxx::detail

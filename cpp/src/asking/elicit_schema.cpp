// The elicitation requestedSchema subset (see elicit_schema.hpp). Texts here are developer-facing
// exceptions for the tool author (std::invalid_argument) or the reason argument of rows T10/P33.
#include "asking/elicit_schema.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "mcpcxx/json_schema.hpp"

#include "wire/revisions.hpp"

namespace mcpcxx::detail {

namespace {

const std::set<std::string, std::less<>> k_formats = {"date", "date-time", "email", "uri"};

struct checker {
  std::string_view version;
  std::string property;  // the property being checked, for messages

  bool modern_forms() const {
    return ::mcpcxx::wire::has(version, ::mcpcxx::wire::feature::elicitation_rich_schema);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("elicitation requestedSchema: property \"" + property +
                                "\": " + what);
  }

  void only_keys(const json& s, std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, value] : s.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail("keyword \"" + key +
             "\" is not allowed here; the elicitation subset permits only flat primitive "
             "properties (see the MCP elicitation spec)");
      }
    }
  }

  void text(const json& s, std::string_view key) const {
    if (s.contains(key) && !s.at(std::string(key)).is_string()) {
      fail("\"" + std::string(key) + "\" must be a string");
    }
  }

  void count(const json& s, std::string_view key) const {
    if (!s.contains(key)) return;
    const json& v = s.at(std::string(key));
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0) {
      fail("\"" + std::string(key) + "\" must be a non-negative integer");
    }
  }

  void ordered(const json& s, std::string_view lo, std::string_view hi) const {
    if (s.contains(lo) && s.contains(hi) && s.at(std::string(lo)) > s.at(std::string(hi))) {
      fail("\"" + std::string(lo) + "\" is greater than \"" + std::string(hi) + "\"");
    }
  }

  void default_allowed(const json& s) const {
    if (s.contains("default") && !modern_forms()) {
      fail("\"default\" needs protocol 2025-11-25 or later (this session uses " +
           std::string(version) + ")");
    }
  }

  // Non-empty array of distinct strings.
  std::set<std::string> options(const json& values, std::string_view key) const {
    if (!values.is_array() || values.empty())
      fail("\"" + std::string(key) + "\" must be a non-empty array");
    std::set<std::string> seen;
    for (const auto& v : values) {
      if (!v.is_string()) fail("every \"" + std::string(key) + "\" value must be a string");
      if (!seen.insert(v.get<std::string>()).second)
        fail("\"" + std::string(key) + "\" repeats a value");
    }
    return seen;
  }

  // [{"const": string, "title": string}, ...] of the titled enum forms.
  std::set<std::string> titled(const json& values, std::string_view key) const {
    if (!values.is_array() || values.empty())
      fail("\"" + std::string(key) + "\" must be a non-empty array");
    std::set<std::string> seen;
    for (const auto& v : values) {
      if (!v.is_object() || v.size() != 2 || !v.contains("const") || !v["const"].is_string() ||
          !v.contains("title") || !v["title"].is_string()) {
        fail("each \"" + std::string(key) +
             "\" entry must be {\"const\": string, \"title\": string}");
      }
      if (!seen.insert(v["const"].get<std::string>()).second)
        fail("\"" + std::string(key) + "\" repeats a const");
    }
    return seen;
  }

  void default_in(const json& s, const std::set<std::string>& allowed) const {
    if (!s.contains("default")) return;
    const json& d = s.at("default");
    if (!d.is_string() || allowed.count(d.get<std::string>()) == 0) {
      fail("\"default\" must be one of the allowed values");
    }
  }

  void string_enum(const json& s) const {
    if (s.contains("oneOf")) {
      if (!modern_forms()) fail("titled \"oneOf\" enums need protocol 2025-11-25 or later");
      only_keys(s, {"type", "title", "description", "oneOf", "default"});
      default_in(s, titled(s.at("oneOf"), "oneOf"));
      return;
    }
    only_keys(s, {"type", "title", "description", "enum", "enumNames", "default"});
    const auto values = options(s.at("enum"), "enum");
    if (s.contains("enumNames")) {
      const json& names = s.at("enumNames");
      if (!names.is_array() || names.size() != s.at("enum").size() ||
          !std::all_of(names.begin(), names.end(), [](const json& n) { return n.is_string(); })) {
        fail("\"enumNames\" must be an array of strings as long as \"enum\"");
      }
    }
    default_allowed(s);
    default_in(s, values);
  }

  void string_schema(const json& s) const {
    text(s, "title");
    text(s, "description");
    if (s.contains("enum") || s.contains("oneOf")) return string_enum(s);
    only_keys(s, {"type", "title", "description", "minLength", "maxLength", "format", "default"});
    count(s, "minLength");
    count(s, "maxLength");
    ordered(s, "minLength", "maxLength");
    if (s.contains("format") &&
        (!s.at("format").is_string() || k_formats.count(s.at("format").get<std::string>()) == 0)) {
      fail("\"format\" must be one of date, date-time, email, uri");
    }
    default_allowed(s);
    if (s.contains("default") && !s.at("default").is_string()) fail("\"default\" must be a string");
  }

  void number_schema(const json& s, bool integer) const {
    only_keys(s, {"type", "title", "description", "minimum", "maximum", "default"});
    text(s, "title");
    text(s, "description");
    for (const char* k : {"minimum", "maximum"}) {
      if (s.contains(k) && !s.at(k).is_number())
        fail("\"" + std::string(k) + "\" must be a number");
    }
    ordered(s, "minimum", "maximum");
    default_allowed(s);
    if (!s.contains("default")) return;
    const json& d = s.at("default");
    if (integer ? !d.is_number_integer() : !d.is_number()) {
      fail(std::string("\"default\" must be ") + (integer ? "an integer" : "a number"));
    }
    if ((s.contains("minimum") && d < s.at("minimum")) ||
        (s.contains("maximum") && d > s.at("maximum"))) {
      fail("\"default\" is outside [minimum, maximum]");
    }
  }

  void boolean_schema(const json& s) const {
    only_keys(s, {"type", "title", "description", "default"});
    text(s, "title");
    text(s, "description");
    if (s.contains("default") && !s.at("default").is_boolean())
      fail("\"default\" must be a boolean");
  }

  // The values a multi-select's "items" allows: {"anyOf": titled} or {"type": "string", "enum"}.
  std::set<std::string> multi_select_values(const json& s) const {
    const json* items = s.contains("items") ? &s.at("items") : nullptr;
    if (items == nullptr || !items->is_object()) fail("a multi-select needs an \"items\" object");
    if (items->contains("anyOf")) {
      if (items->size() != 1) fail("\"items\" with \"anyOf\" takes no other keyword");
      return titled(items->at("anyOf"), "items.anyOf");
    }
    if (items->size() != 2 || items->value("type", "") != "string" || !items->contains("enum")) {
      fail("\"items\" must be {\"type\": \"string\", \"enum\": [...]} or {\"anyOf\": [...]}");
    }
    return options(items->at("enum"), "items.enum");
  }

  void multi_select_default(const json& s, const std::set<std::string>& allowed) const {
    if (!s.contains("default")) return;
    const json& d = s.at("default");
    if (!d.is_array()) fail("\"default\" must be an array of allowed values");
    for (const auto& v : d) {
      if (!v.is_string() || allowed.count(v.get<std::string>()) == 0) {
        fail("\"default\" must list only allowed values");
      }
    }
  }

  void array_schema(const json& s) const {
    if (!modern_forms()) fail("multi-select (type \"array\") needs protocol 2025-11-25 or later");
    only_keys(s, {"type", "title", "description", "items", "minItems", "maxItems", "default"});
    text(s, "title");
    text(s, "description");
    count(s, "minItems");
    count(s, "maxItems");
    ordered(s, "minItems", "maxItems");
    multi_select_default(s, multi_select_values(s));
  }

  void primitive(const json& s) const {
    if (!s.is_object()) fail("must be a schema object");
    if (!s.contains("type") || !s.at("type").is_string()) {
      fail("needs \"type\": one of string, number, integer, boolean (or array for multi-select)");
    }
    const auto type = s.at("type").get<std::string>();
    if (type == "string") return string_schema(s);
    if (type == "number" || type == "integer") return number_schema(s, type == "integer");
    if (type == "boolean") return boolean_schema(s);
    if (type == "array") return array_schema(s);
    fail("type \"" + type +
         "\" is not allowed; elicitation takes flat primitive properties only (no nested objects)");
  }
};

[[noreturn]] void fail_top(const std::string& what) {
  throw std::invalid_argument("elicitation requestedSchema: " + what);
}

constexpr std::string_view k_top_keys[] = {"type",    "properties", "required",
                                           "$schema", "title",      "description"};

void check_top_level(const json& schema) {
  if (!schema.is_object())
    fail_top("must be a JSON object {\"type\": \"object\", \"properties\": {...}}");
  for (const auto& [key, value] : schema.items()) {
    if (std::find(std::begin(k_top_keys), std::end(k_top_keys), key) == std::end(k_top_keys)) {
      fail_top("top-level keyword \"" + key +
               "\" is not allowed; use only type, properties, required (and $schema)");
    }
  }
  if (schema.value("type", json()) != "object") fail_top("\"type\" must be \"object\"");
  if (!schema.contains("properties") || !schema.at("properties").is_object()) {
    fail_top("\"properties\" must be an object of primitive property schemas");
  }
  if (schema.contains("$schema") && !schema.at("$schema").is_string()) {
    fail_top("\"$schema\" must be a string");
  }
}

void check_required(const json& schema) {
  if (!schema.contains("required")) return;
  const json& required = schema.at("required");
  if (!required.is_array()) fail_top("\"required\" must be an array of property names");
  for (const auto& r : required) {
    if (!r.is_string() || !schema.at("properties").contains(r.get<std::string>())) {
      fail_top("\"required\" names " + r.dump() + ", which is not a property");
    }
  }
}

}  // namespace

void check_elicitation_schema(const json& schema, std::string_view version) {
  check_top_level(schema);
  checker c{version, {}};
  for (const auto& [name, prop] : schema.at("properties").items()) {
    c.property = name;
    c.primitive(prop);
  }
  check_required(schema);
}

std::optional<std::string> elicitation_content_violations(const json& schema, const json& content) {
  json strict = schema;
  strict.erase("$schema");  // the subset is dialect-neutral; validate as 2020-12
  strict["additionalProperties"] = false;
  schema::compile_options opts;
  opts.assert_formats = true;
  const auto validator = schema::compile(strict, opts);
  const auto result = validator->validate(content);
  if (result.valid) return std::nullopt;
  std::string text = schema::format_violations(result, content);
  std::replace(text.begin(), text.end(), '\n', ';');
  return text;
}

}  // namespace mcpcxx::detail

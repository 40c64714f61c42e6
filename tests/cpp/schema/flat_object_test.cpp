// The flat-object fast path: which schemas take it, and that it answers exactly as the general
// evaluator does (is_valid and validate) on many instances, under default and tight bounds.
#include "schema/flat_object.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mcpcxx/json_schema.hpp"

#include "schema/ast.hpp"

namespace {

using mcpcxx::json;
namespace schema = mcpcxx::schema;
namespace detail = mcpcxx::schema::detail;

const char* const kTyped = R"({
  "type": "object",
  "properties": {
    "a": {"type": "string", "description": "text", "title": "A", "examples": ["x"]},
    "n": {"type": "integer", "default": 3},
    "x": {"type": "number", "readOnly": true, "writeOnly": false, "deprecated": false},
    "b": {"type": "boolean", "$comment": "flag"},
    "l": {"type": "array"},
    "o": {"type": "object"},
    "z": {"type": "null"},
    "m": {"type": ["string", "null"]},
    "any": {"title": "Anything"}
  },
  "required": ["a", "n"])";

// Schemas the fast path must take; each instance set below runs against every one.
std::vector<json> eligible_schemas() {
  const std::string typed = kTyped;
  return {
      json::parse(typed + R"(, "additionalProperties": false})"),
      json::parse(typed + R"(, "additionalProperties": true})"),
      json::parse(typed + "}"),
      json::parse(R"({"properties": {"a": {"type": "string"}}, "required": ["a"]})"),
      json::parse(R"({"type": "object"})"),
      json::parse(R"({"type": "object", "properties": {}})"),
      json::parse(R"({"type": "object", "properties": {}, "additionalProperties": false})"),
      json::parse(R"({"type": "object", "properties": {"a": {"type": "string"}},
                      "required": ["a", "a", "ghost"]})"),
      json::parse(R"({"type": "object", "properties": {"a": {"type": "string"}},
                      "required": ["a", "ghost"], "additionalProperties": false})"),
      json::parse(R"({"type": ["object", "null"], "properties": {"n": {"type": "integer"}},
                      "additionalProperties": false})"),
      json::parse(R"({"$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:x:tool",
                      "$comment": "c", "title": "T", "description": "D", "type": "object",
                      "properties": {"n": {"type": "integer"}, "x": {"type": "number"}},
                      "required": ["n"], "additionalProperties": false})"),
      json::parse(R"({"$schema": "https://json-schema.org/draft/2019-09/schema",
                      "type": "object", "properties": {"a": {"type": "string"}},
                      "required": []})"),
      json::parse(R"({"$schema": "https://json-schema.org/draft/2020-12/schema#",
                      "properties": {"a": {}}, "additionalProperties": false})"),
      json::parse("{}"),
      json::parse(R"({"title": "nothing but annotations", "default": {}})"),
      json::parse(R"({"type": "string", "properties": {"a": {"type": "integer"}}})"),
      json::parse(R"({"type": "object", "properties": {"": {"type": "integer"},
                      "a/b": {"type": "string"}, "~0": {"type": "boolean"},
                      "\u00e9": {"type": "number"}, "A": {"type": "null"},
                      "aa": {"type": ["integer", "number", "integer"]}},
                      "required": ["", "\u00e9"], "additionalProperties": false})"),
  };
}

// Member values of every JSON type, including numbers that sit on the integer/number boundary.
std::vector<json> member_values() {
  std::vector<json> v = {nullptr,
                         true,
                         false,
                         0,
                         -3,
                         std::numeric_limits<std::uint64_t>::max(),
                         std::numeric_limits<std::int64_t>::min(),
                         1.0,
                         -0.0,
                         1.5,
                         2.0e20,
                         1.0e300,
                         std::nan(""),
                         std::numeric_limits<double>::infinity(),
                         "",
                         "text",
                         json::array(),
                         json::array({1, "x"}),
                         json::object(),
                         json::object({{"k", 1}})};
  return v;
}

// A deterministic mix of objects over the schemas' names plus unknown ones, and non-objects.
std::vector<json> make_instances() {
  const std::vector<std::string> keys = {"a",  "n",      "x",   "b",     "l",     "o",
                                         "z",  "m",      "any", "ghost", "",      "a/b",
                                         "~0", "\u00e9", "A",   "aa",    "extra", "zz"};
  const std::vector<json> values = member_values();
  std::vector<json> out = values;  // every value as the whole instance
  std::uint64_t seed = 42;
  auto next = [&seed](std::size_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((seed >> 33) % n);
  };
  for (int i = 0; i < 600; ++i) {
    json obj = json::object();
    const std::size_t members = next(7);
    for (std::size_t m = 0; m < members; ++m)
      obj[keys[next(keys.size())]] = values[next(values.size())];
    out.push_back(std::move(obj));
  }
  out.push_back(json::parse(R"({"a": "s", "n": 1})"));
  out.push_back(json::parse(R"({"a": "s", "n": 1.0})"));
  out.push_back(json::parse(R"({"a": "s", "n": 1.5})"));
  out.push_back(json::parse(R"({"a": "s", "n": 1, "x": 2, "b": false, "l": [], "o": {},
                                "z": null, "m": null, "any": [1]})"));
  json big = json::parse(R"({"a": "s", "n": 7})");
  for (int i = 0; i < 2000; ++i) big["k" + std::to_string(i)] = i;
  out.push_back(big);
  return out;
}

const std::vector<json>& instances() {
  static const std::vector<json> all = make_instances();
  return all;
}

void expect_same(const schema::validation_result& fast, const schema::validation_result& general,
                 const std::string& what) {
  EXPECT_EQ(fast.valid, general.valid) << what;
  EXPECT_EQ(fast.limit_exceeded, general.limit_exceeded) << what;
  ASSERT_EQ(fast.violations.size(), general.violations.size()) << what;
  for (std::size_t i = 0; i < fast.violations.size(); ++i) {
    const auto& f = fast.violations[i];
    const auto& g = general.violations[i];
    EXPECT_EQ(f.instance_location, g.instance_location) << what;
    EXPECT_EQ(f.keyword_location, g.keyword_location) << what;
    EXPECT_EQ(f.keyword, g.keyword) << what;
    EXPECT_EQ(f.message, g.message) << what;
  }
}

struct tally {
  std::size_t valid = 0;
  std::size_t invalid = 0;
};

// compile() and the general evaluator agree on every instance; returns how many were valid.
tally expect_agreement(const json& s, const schema::compile_options& opts) {
  const auto fast = schema::compile(s, opts);
  const auto general = detail::compile_general(s, opts);
  tally t;
  for (const json& inst : instances()) {
    const std::string what = "schema " + s.dump() + "\ninstance " + inst.dump().substr(0, 300);
    const bool ok = general->is_valid(inst);
    EXPECT_EQ(fast->is_valid(inst), ok) << what;
    expect_same(fast->validate(inst), general->validate(inst), what);
    ++(ok ? t.valid : t.invalid);
  }
  return t;
}

TEST(schema_flat_object, eligible_schemas_take_the_fast_path) {
  for (const json& s : eligible_schemas())
    EXPECT_TRUE(detail::is_flat_object(*schema::compile(s))) << s.dump();
  schema::compile_options d7;
  d7.default_dialect = "http://json-schema.org/draft-07/schema#";
  EXPECT_TRUE(detail::is_flat_object(*schema::compile(json::parse(kTyped + std::string("}")), d7)));
}

TEST(schema_flat_object, other_schemas_keep_the_general_evaluator) {
  const char* const others[] = {
      R"({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}})",
      R"({"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}})",
      R"({"type": "object", "properties": {"a": {"enum": ["x", "y"]}}})",
      R"({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}})",
      R"({"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": {}}})",
      R"({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}})",
      R"({"type": "object", "properties": {"a": true}})",
      R"({"type": "object", "properties": {"a": {"$id": "urn:x:a"}}})",
      R"({"type": "object", "properties": {"a": {"type": "string", "nullable": true}}})",
      R"({"type": "object", "patternProperties": {"^x": {}}})",
      R"({"type": "object", "additionalProperties": {"type": "string"}})",
      R"({"type": "object", "minProperties": 1})",
      R"({"type": "object", "propertyNames": {"maxLength": 3}})",
      R"({"type": "object", "dependentRequired": {"a": ["b"]}})",
      R"({"type": "object", "allOf": [{"required": ["a"]}]})",
      R"({"type": "object", "const": {}})",
      R"({"type": "object", "$defs": {"unused": {}}})",
      R"({"type": "object", "$anchor": "top"})",
      R"({"type": "object", "unknownKeyword": 1})",
      "true",
      "false",
  };
  for (const char* text : others) {
    const json s = json::parse(text);
    EXPECT_FALSE(detail::is_flat_object(*schema::compile(s))) << text;
    expect_agreement(s, {});
  }
  const auto fmt = schema::compile(json::parse(others[1]));
  EXPECT_FALSE(fmt->is_valid(json{{"a", 3}}));
  const auto r = fmt->validate(json{{"a", 3}});
  ASSERT_EQ(r.violations.size(), 1U);
  EXPECT_EQ(r.violations[0].keyword_location, "/properties/a/type");
}

TEST(schema_flat_object, a_meta_schema_without_validation_keeps_the_general_evaluator) {
  schema::compile_options opts;
  opts.registry["https://example.com/core-only"] = json::parse(R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": true}})");
  const json s = json::parse(R"({"$schema": "https://example.com/core-only", "type": "object",
                                 "required": ["a"]})");
  EXPECT_FALSE(detail::is_flat_object(*schema::compile(s, opts)));
  EXPECT_TRUE(schema::compile(s, opts)->is_valid(42));  // "type" is not asserted here
  expect_agreement(s, opts);
}

TEST(schema_flat_object, agrees_with_the_general_evaluator) {
  tally all;
  for (const json& s : eligible_schemas()) {
    const tally t = expect_agreement(s, {});
    all.valid += t.valid;
    all.invalid += t.invalid;
  }
  // Guards against a vacuous run: the instances must exercise both answers.
  EXPECT_GT(all.valid, 1000U);
  EXPECT_GT(all.invalid, 1000U);
}

TEST(schema_flat_object, messages_and_pointers_come_from_the_general_evaluator) {
  const auto c = schema::compile(json::parse(kTyped + std::string(R"(, "additionalProperties":
                                                                     false})")));
  ASSERT_TRUE(detail::is_flat_object(*c));
  EXPECT_TRUE(c->is_valid(json::parse(R"({"a": "s", "n": 2.0})")));
  const json bad = json::parse(R"({"n": 1.5, "extra": 1})");
  EXPECT_FALSE(c->is_valid(bad));
  const auto r = c->validate(bad);
  EXPECT_FALSE(r.valid);
  ASSERT_EQ(r.violations.size(), 3U);
  EXPECT_EQ(r.violations[0].message, "missing required property 'a'");
  EXPECT_EQ(r.violations[1].keyword_location, "/additionalProperties");
  EXPECT_EQ(r.violations[2].instance_location, "/n");
  EXPECT_EQ(r.violations[2].message, "must be an integer, got number");
}

// Bounds that can stop the general evaluator on a flat schema make it ineligible, and the
// answers stay the same either way.
TEST(schema_flat_object, bounds_the_evaluator_could_hit_keep_the_general_evaluator) {
  const json s = json::parse(kTyped + std::string(R"(, "additionalProperties": false})"));
  // type + required + properties + 8 typed members = 11 keyword evaluations at most.
  schema::compile_options exact;
  exact.bounds.max_validation_steps = 11;
  EXPECT_TRUE(detail::is_flat_object(*schema::compile(s, exact)));
  schema::compile_options tight;
  tight.bounds.max_validation_steps = 10;
  EXPECT_FALSE(detail::is_flat_object(*schema::compile(s, tight)));
  const json full = json::parse(R"({"a": "s", "n": 1, "x": 2, "b": false, "l": [], "o": {},
                                    "z": null, "m": null})");
  EXPECT_TRUE(schema::compile(s, exact)->is_valid(full));
  EXPECT_FALSE(schema::compile(s, tight)->is_valid(full));
  EXPECT_TRUE(schema::compile(s, tight)->validate(full).limit_exceeded);

  schema::compile_options flat_instances;
  flat_instances.bounds.max_instance_depth = 0;
  EXPECT_FALSE(detail::is_flat_object(*schema::compile(s, flat_instances)));
  EXPECT_FALSE(schema::compile(s, flat_instances)->is_valid(full));

  schema::compile_options wraps;  // max_instance_depth * 4 wraps to 0: evaluation depth bound 1
  wraps.bounds.max_instance_depth = std::size_t{1}
                                    << (std::numeric_limits<std::size_t>::digits - 2);
  wraps.bounds.max_schema_depth = 1;
  EXPECT_FALSE(detail::is_flat_object(*schema::compile(s, wraps)));
  EXPECT_FALSE(schema::compile(s, wraps)->is_valid(full));

  for (std::size_t steps : {0, 1, 2, 3, 10, 11}) {
    schema::compile_options o;
    o.bounds.max_validation_steps = steps;
    for (const json& e : eligible_schemas()) expect_agreement(e, o);
  }
  for (const auto* o : {&flat_instances, &wraps}) {
    for (const json& e : eligible_schemas()) expect_agreement(e, *o);
  }
  schema::compile_options few_violations;
  few_violations.bounds.max_violations = 1;
  for (const json& e : eligible_schemas()) expect_agreement(e, few_violations);
}

}  // namespace

// Violation records: messages, instance/keyword locations, keyword names and ordering.
#include <gtest/gtest.h>

#include "mcpcxx/json_schema.hpp"

namespace {

using mcpcxx::json;
namespace schema = mcpcxx::schema;

schema::validation_result check(const json& s, const json& instance, const schema::compile_options& o = {}) {
  auto compiled = schema::compile(s, o);
  auto r = compiled->validate(instance);
  EXPECT_EQ(r.valid, compiled->is_valid(instance)) << "validate() and is_valid() disagree on " << instance.dump();
  return r;
}

TEST(schema_messages, type_names_expected_and_actual) {
  auto r = check(json::parse(R"({"type":"integer"})"), "x");
  ASSERT_FALSE(r.valid);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].message, "must be an integer, got string");
  EXPECT_EQ(r.violations[0].keyword, "type");
  EXPECT_EQ(r.violations[0].keyword_location, "/type");
  EXPECT_EQ(r.violations[0].instance_location, "");
  r = check(json::parse(R"({"type":["string","null"]})"), 3);
  EXPECT_EQ(r.violations.at(0).message, "must be a string or null, got integer");
}

TEST(schema_messages, required_maximum_and_locations) {
  const json s = json::parse(R"({"type":"object","required":["key"],
    "properties":{"count":{"type":"integer","maximum":50}}})");
  auto r = check(s, json::parse(R"({"count":51})"));
  ASSERT_EQ(r.violations.size(), 2u);
  EXPECT_EQ(r.violations[0].message, "missing required property 'key'");
  EXPECT_EQ(r.violations[0].keyword_location, "/required");
  EXPECT_EQ(r.violations[1].message, "must be <= 50");
  EXPECT_EQ(r.violations[1].instance_location, "/count");
  EXPECT_EQ(r.violations[1].keyword_location, "/properties/count/maximum");
  EXPECT_TRUE(check(s, json::parse(R"({"key":1,"count":50})")).valid);
}

TEST(schema_messages, enum_lists_values_and_truncates_long_lists) {
  auto r = check(json::parse(R"({"enum":["a","b"]})"), "c");
  EXPECT_EQ(r.violations.at(0).message, R"(must be one of ["a", "b"])");
  json many = json::array();
  for (int i = 0; i < 40; ++i) many.push_back("value-number-" + std::to_string(i));
  r = check(json{{"enum", many}}, "nope");
  const std::string& m = r.violations.at(0).message;
  EXPECT_LT(m.size(), 200u);
  EXPECT_NE(m.find("more"), std::string::npos) << m;
  EXPECT_EQ(m.find("value-number-39"), std::string::npos) << m;
}

TEST(schema_messages, ref_appears_in_keyword_location) {
  const json s = json::parse(R"({"$defs":{"small":{"maximum":1}},"properties":{"a":{"$ref":"#/$defs/small"}}})");
  auto r = check(s, json::parse(R"({"a":2})"));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].keyword_location, "/properties/a/$ref/maximum");
  EXPECT_EQ(r.violations[0].instance_location, "/a");
}

TEST(schema_messages, pointers_escape_keys_and_use_indices) {
  const json s = json::parse(R"({"properties":{"a/b~c":{"type":"array","items":{"type":"string"}}}})");
  auto r = check(s, json::parse(R"({"a/b~c":["x","y",3]})"));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].instance_location, "/a~1b~0c/2");
  EXPECT_EQ(r.violations[0].keyword_location, "/properties/a~1b~0c/items/type");
}

TEST(schema_messages, unexpected_properties_are_named) {
  const json s = json::parse(R"({"properties":{"a":true},"additionalProperties":false})");
  auto r = check(s, json::parse(R"({"a":1,"zeta":2,"beta":3})"));
  ASSERT_EQ(r.violations.size(), 2u);
  EXPECT_EQ(r.violations[0].message, "unexpected property 'beta'");
  EXPECT_EQ(r.violations[1].message, "unexpected property 'zeta'");
  EXPECT_EQ(r.violations[0].keyword_location, "/additionalProperties");
  EXPECT_EQ(r.violations[0].keyword, "additionalProperties");
  const json u = json::parse(R"({"properties":{"a":true},"unevaluatedProperties":false})");
  r = check(u, json::parse(R"({"a":1,"b":2})"));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].message, "unexpected property 'b'");
  EXPECT_EQ(r.violations[0].keyword, "unevaluatedProperties");
}

TEST(schema_messages, order_is_stable_across_runs) {
  const json s = json::parse(R"({"required":["b","a"],"properties":{"x":{"type":"string"},"y":{"minimum":3}}})");
  const json inst = json::parse(R"({"x":1,"y":1})");
  auto first = check(s, inst);
  ASSERT_EQ(first.violations.size(), 4u);
  EXPECT_EQ(first.violations[0].message, "missing required property 'b'");
  EXPECT_EQ(first.violations[1].message, "missing required property 'a'");
  EXPECT_EQ(first.violations[2].instance_location, "/x");
  EXPECT_EQ(first.violations[3].instance_location, "/y");
  for (int i = 0; i < 5; ++i) {
    auto again = check(s, inst);
    ASSERT_EQ(again.violations.size(), first.violations.size());
    for (std::size_t k = 0; k < again.violations.size(); ++k)
      EXPECT_EQ(again.violations[k].message, first.violations[k].message);
  }
}

TEST(schema_messages, combinators_report_at_their_keyword) {
  auto r = check(json::parse(R"({"anyOf":[{"type":"string"},{"type":"integer"}]})"), 1.5);
  EXPECT_EQ(r.violations.at(0).keyword, "anyOf");
  EXPECT_EQ(r.violations.at(0).message, "must be a string or an integer, got number");
  r = check(json::parse(R"({"anyOf":[{"type":"string"},{"type":"null"}]})"), 3);
  EXPECT_EQ(r.violations.at(0).message, "must be a string or null, got integer");
  r = check(json::parse(R"({"properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]}}})"),
            json::parse(R"({"a":1.5})"));
  EXPECT_EQ(r.violations.at(0).message, "must be a string, an integer or null, got number");
  EXPECT_EQ(r.violations.at(0).instance_location, "/a");
  EXPECT_EQ(r.violations.at(0).keyword_location, "/properties/a/anyOf");
  r = check(json::parse(R"({"anyOf":[{"type":"string","minLength":2},{"type":"null"}]})"), "x");
  EXPECT_EQ(r.violations.at(0).message, "must match at least one of the anyOf schemas, matched none");
  r = check(json::parse(R"({"oneOf":[{"minimum":0},{"maximum":10}]})"), 5);
  EXPECT_EQ(r.violations.at(0).message, "must match exactly one of the oneOf schemas, matched 0 and 1");
  r = check(json::parse(R"({"not":{"type":"null"}})"), nullptr);
  EXPECT_EQ(r.violations.at(0).message, "must not match the schema in 'not'");
  r = check(json::parse(R"({"if":{"minimum":0},"then":{"multipleOf":2}})"), 3);
  EXPECT_EQ(r.violations.at(0).keyword_location, "/then/multipleOf");
  EXPECT_EQ(r.violations.at(0).message, "must be a multiple of 2");
}

TEST(schema_messages, string_and_array_messages) {
  EXPECT_EQ(check(json::parse(R"({"minLength":3})"), "ab").violations.at(0).message,
            "must be at least 3 characters long, got 2");
  EXPECT_EQ(check(json::parse(R"({"pattern":"^[a-z]+$"})"), "A1").violations.at(0).message,
            R"(must match the pattern "^[a-z]+$")");
  EXPECT_EQ(check(json::parse(R"({"minItems":2})"), json::array({1})).violations.at(0).message,
            "must have at least 2 items, got 1");
  EXPECT_EQ(check(json::parse(R"({"uniqueItems":true})"), json::parse("[1,2,1.0]")).violations.at(0).message,
            "must not contain duplicate items (items 0 and 2 are equal)");
  EXPECT_EQ(check(json::parse(R"({"prefixItems":[true],"items":false})"), json::parse("[1,2]")).violations.at(0).message,
            "must have at most 1 item, got 2");
  EXPECT_EQ(check(json::parse(R"({"dependentRequired":{"a":["b"]}})"), json::parse(R"({"a":1})")).violations.at(0).message,
            "missing property 'b' (required when 'a' is present)");
}

TEST(schema_semantics, numbers_compare_by_value) {
  EXPECT_TRUE(check(json::parse(R"({"type":"integer"})"), json::parse("1.0")).valid);
  EXPECT_FALSE(check(json::parse(R"({"type":"integer"})"), json::parse("1.5")).valid);
  EXPECT_TRUE(check(json::parse(R"({"enum":[1]})"), json::parse("1.0")).valid);
  EXPECT_TRUE(check(json::parse(R"({"const":1.0})"), json::parse("1")).valid);
  EXPECT_TRUE(check(json::parse(R"({"multipleOf":0.01})"), json::parse("0.07")).valid);
  EXPECT_FALSE(check(json::parse(R"({"multipleOf":0.01})"), json::parse("0.075")).valid);
  EXPECT_TRUE(check(json::parse(R"({"maximum":18446744073709551615})"), json::parse("18446744073709551615")).valid);
  EXPECT_FALSE(check(json::parse(R"({"maximum":9223372036854775807})"), json::parse("9223372036854775808")).valid);
  EXPECT_TRUE(check(json::parse(R"({"minimum":-9223372036854775808})"), json::parse("-9223372036854775808")).valid);
}

TEST(schema_semantics, lengths_count_code_points) {
  EXPECT_TRUE(check(json::parse(R"({"maxLength":2})"), "\xC3\xA9\xF0\x9F\x90\xB2").valid);
  EXPECT_FALSE(check(json::parse(R"({"minLength":3})"), "\xC3\xA9\xF0\x9F\x90\xB2").valid);
}

TEST(schema_semantics, format_is_an_annotation_unless_asserted) {
  const json s = json::parse(R"({"format":"email"})");
  EXPECT_TRUE(check(s, "not an address").valid);
  schema::compile_options o;
  o.assert_formats = true;
  auto r = check(s, "not an address", o);
  ASSERT_FALSE(r.valid);
  EXPECT_EQ(r.violations.at(0).message, "must be a valid email");
  EXPECT_TRUE(check(s, "a@example.com", o).valid);
  EXPECT_TRUE(check(json::parse(R"({"format":"no-such-format"})"), "x", o).valid);
}

TEST(schema_semantics, draft7_ref_overrides_siblings) {
  const json s = json::parse(R"({"$schema":"http://json-schema.org/draft-07/schema#",
    "definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s","maxLength":1}}})");
  EXPECT_TRUE(check(s, json::parse(R"({"a":"long string"})")).valid);
  EXPECT_FALSE(check(s, json::parse(R"({"a":1})")).valid);
}

TEST(schema_semantics, registry_documents_resolve) {
  schema::compile_options o;
  o.registry["https://example.com/string.json"] = json::parse(R"({"type":"string"})");
  const json s = json::parse(R"({"$ref":"https://example.com/string.json"})");
  EXPECT_TRUE(check(s, "x", o).valid);
  EXPECT_FALSE(check(s, 1, o).valid);
}

TEST(schema_json, violations_to_json_has_the_four_fields) {
  auto r = check(json::parse(R"({"properties":{"n":{"maximum":1}}})"), json::parse(R"({"n":5})"));
  const json j = schema::violations_to_json(r);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0], json::parse(R"({"instanceLocation":"/n","keywordLocation":"/properties/n/maximum",
                                  "keyword":"maximum","message":"must be <= 1"})"));
  EXPECT_EQ(schema::violations_to_json({}), json::array());
}

}  // namespace

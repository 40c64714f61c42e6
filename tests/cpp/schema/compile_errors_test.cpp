// compile() rejects bad schemas with a schema_error that names the location and the fix.
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/json_schema.hpp"

namespace {

using mcpcxx::json;
namespace schema = mcpcxx::schema;

std::string error_of(const json& s, const schema::compile_options& o = {}) {
  try {
    schema::compile(s, o);
  } catch (const schema::schema_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected schema_error for " << s.dump();
  return {};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(schema_compile_errors, remote_ref_is_never_fetched) {
  const std::string e =
      error_of(json::parse(R"({"properties":{"a":{"$ref":"https://example.com/s.json"}}})"));
  EXPECT_TRUE(has(e, "never fetched")) << e;
  EXPECT_TRUE(has(e, "#/properties/a/$ref")) << e;
  EXPECT_TRUE(has(e, "registry")) << e;
}

TEST(schema_compile_errors, unresolvable_local_refs) {
  EXPECT_TRUE(has(error_of(json::parse(R"({"$ref":"#/$defs/missing"})")), "does not exist"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"$ref":"#nowhere"})")), "no $anchor"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"$ref":"other.json"})")), "never fetched"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"$ref":"#/a~2"})")), "malformed"));
}

TEST(schema_compile_errors, unknown_schema_dialect) {
  const std::string e =
      error_of(json::parse(R"({"$schema":"https://example.com/my-dialect","type":"string"})"));
  EXPECT_TRUE(has(e, "unknown $schema")) << e;
  EXPECT_TRUE(has(e, "2020-12")) << e;
  EXPECT_TRUE(has(error_of(json::parse(R"({"$schema":"http://json-schema.org/draft-04/schema#"})")),
                  "unknown $schema"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"$schema":5})")), "URI string"));
  schema::compile_options o;
  o.default_dialect = "urn:nope";
  EXPECT_TRUE(has(error_of(json::object(), o), "default_dialect"));
}

TEST(schema_compile_errors, known_dialects_compile) {
  EXPECT_NO_THROW(schema::compile(
      json::parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema"})")));
  EXPECT_NO_THROW(
      schema::compile(json::parse(R"({"$schema":"http://json-schema.org/draft-07/schema#"})")));
  EXPECT_NO_THROW(
      schema::compile(json::parse(R"({"$schema":"http://json-schema.org/draft-07/schema"})")));
}

TEST(schema_compile_errors, bad_regex) {
  const std::string e = error_of(json::parse(R"({"pattern":"(unclosed"})"));
  EXPECT_TRUE(has(e, "invalid regular expression")) << e;
  EXPECT_TRUE(has(e, "#/pattern")) << e;
  EXPECT_TRUE(
      has(error_of(json::parse(R"({"patternProperties":{"[z-a]":true}})")), "patternProperties"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"pattern":"(?<=a)b"})")), "lookbehind"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"pattern":"\\p{Greek}"})")), "not supported"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"pattern":"\\a"})")), "not a valid escape"));
  // Numbers std::regex would overflow on (the json_schema fuzzer's finding) are refused first.
  EXPECT_TRUE(has(error_of(json::parse(R"({"pattern":"(a)\\55555555555555555555"})")),
                  "back-reference number has more than 9 digits"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"pattern":"a{1,55555555555555555555}"})")),
                  "count has more than 9 digits"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"pattern":"a{55555555555555555555}"})")),
                  "count has more than 9 digits"));
}

TEST(schema_compile_errors, bad_keyword_values) {
  EXPECT_TRUE(has(error_of(json::parse(R"({"minLength":-1})")), "non-negative integer"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"type":"strin"})")), "unknown type 'strin'"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"required":"a"})")), "'required' must be an array"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"multipleOf":0})")), "greater than 0"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"properties":{"a":5}})")), "#/properties/a"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"enum":3})")), "'enum' must be an array"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"allOf":[]})")), "non-empty array"));
  EXPECT_TRUE(has(error_of(json::parse(R"({"items":[{}]})")), "prefixItems"));
}

TEST(schema_compile_errors, root_must_be_object_or_boolean) {
  EXPECT_TRUE(has(error_of(json(5)), "object or a boolean"));
  EXPECT_TRUE(has(error_of(json::array()), "object or a boolean"));
  EXPECT_TRUE(schema::compile(json(true))->is_valid(1));
  EXPECT_FALSE(schema::compile(json(false))->is_valid(1));
}

TEST(schema_compile_errors, unsupported_required_vocabulary) {
  schema::compile_options o;
  o.registry["https://example.com/meta"] =
      json::parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema",
    "$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true,"https://example.com/vocab/x":true}})");
  EXPECT_TRUE(has(error_of(json::parse(R"({"$schema":"https://example.com/meta"})"), o),
                  "unsupported vocabulary"));
}

}  // namespace

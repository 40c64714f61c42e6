// The elicitation requestedSchema subset (engine/elicit_schema.hpp): every form the 2025-11-25
// schema allows is accepted, revision-gated forms are refused on 2025-06-18, and accepted content
// is validated against the schema.
#include "asking/elicit_schema.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace mcpcxx::detail {
namespace {

const json k_every_form = json::parse(R"({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 20, "default": "Ada"},
    "email": {"type": "string", "format": "email"},
    "born": {"type": "string", "format": "date"},
    "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
    "score": {"type": "number", "minimum": 0.5, "default": 95.5},
    "ok": {"type": "boolean", "default": true},
    "plain": {"type": "string", "enum": ["a", "b"], "default": "a"},
    "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
    "titled": {"type": "string", "oneOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]},
    "multi": {"type": "array", "minItems": 1, "maxItems": 2,
              "items": {"type": "string", "enum": ["p", "q", "r"]}, "default": ["p"]},
    "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "v1", "title": "V1"}]}}
  },
  "required": ["name", "age"]
})");

TEST(ElicitSchema, EveryFormOf2025_11_25IsAccepted) {
  EXPECT_NO_THROW(check_elicitation_schema(k_every_form, "2025-11-25"));
}

TEST(ElicitSchema, RevisionGatedFormsAreRefusedOn2025_06_18) {
  EXPECT_THROW(check_elicitation_schema(k_every_form, "2025-06-18"), std::invalid_argument);
  const json plain = {
      {"type", "object"},
      {"properties",
       {{"a", {{"type", "string"}, {"enum", {"x", "y"}}, {"enumNames", {"X", "Y"}}}},
        {"b", {{"type", "integer"}, {"minimum", 1}}}}}};
  EXPECT_NO_THROW(check_elicitation_schema(plain, "2025-06-18"));
}

TEST(ElicitSchema, MessagesNameThePropertyAndTheKeyword) {
  const json bad = {{"type", "object"},
                    {"properties", {{"color", {{"type", "string"}, {"enum", {"red", "red"}}}}}}};
  try {
    check_elicitation_schema(bad, "2025-11-25");
    FAIL() << "a repeated enum value was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"color\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("repeats"), std::string::npos) << e.what();
  }
  for (const json& schema :
       {json{{"type", "object"}, {"properties", {{"n", {{"type", "integer"}, {"default", 1.5}}}}}},
        json{{"type", "object"}, {"properties", {{"s", {{"type", "string"}, {"minLength", -1}}}}}},
        json{{"type", "object"},
             {"properties", {{"t", {{"type", "string"}, {"oneOf", {{{"const", "x"}}}}}}}}},
        json{{"type", "object"},
             {"properties", {{"m", {{"type", "array"}, {"items", {{"type", "integer"}}}}}}}},
        json{{"type", "object"},
             {"properties",
              {{"l", {{"type", "string"}, {"enum", {"a"}}, {"enumNames", {"A", "B"}}}}}}},
        json{{"type", "object"}, {"properties", {{"x", 3}}}}, json::array()}) {
    EXPECT_THROW(check_elicitation_schema(schema, "2025-11-25"), std::invalid_argument)
        << schema.dump();
  }
}

TEST(ElicitSchema, MatchingContentPasses) {
  const json content = {{"name", "Jane"},       {"email", "jane@example.com"},
                        {"born", "1990-01-02"}, {"age", 25},
                        {"score", 88},          {"ok", false},
                        {"plain", "b"},         {"legacy", "a"},
                        {"titled", "y"},        {"multi", {"p", "q"}},
                        {"titledMulti", {"v1"}}};
  EXPECT_EQ(elicitation_content_violations(k_every_form, content), std::nullopt);
  EXPECT_EQ(elicitation_content_violations(k_every_form, json{{"name", "J"}, {"age", 0}}),
            std::nullopt);
}

TEST(ElicitSchema, ContentThatBreaksTheSchemaNamesEachViolation) {
  const json content = {{"age", 200},    {"email", "not-an-email"},
                        {"titled", "z"}, {"multi", {"p", "s"}},
                        {"ok", "yes"},   {"unknown", 1}};
  auto why = elicitation_content_violations(k_every_form, content);
  ASSERT_TRUE(why.has_value());
  for (const char* needle : {"name", "/age", "/email", "/titled", "/multi", "/ok", "unknown"}) {
    EXPECT_NE(why->find(needle), std::string::npos) << needle << " in " << *why;
  }
  EXPECT_EQ(why->find('\n'), std::string::npos) << "one line for the row's {reason}";
}

}  // namespace
}  // namespace mcpcxx::detail

// Bounds: deep instances, reference cycles, exponential schemas, violation caps, compile limits.
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/json_schema.hpp"

namespace {

using mcpcxx::json;
namespace schema = mcpcxx::schema;

json deep_array(std::size_t depth) {
  std::string text(depth, '[');
  text.append(depth, ']');
  return json::parse(text);
}

TEST(schema_limits, instance_100000_levels_deep_stops_cleanly) {
  const json deep = deep_array(100000);
  auto compiled = schema::compile(json::parse(R"({"items":{"$ref":"#"}})"));
  EXPECT_FALSE(compiled->is_valid(deep));
  auto r = compiled->validate(deep);
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(r.limit_exceeded);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations.back().keyword, "limits");
  EXPECT_NE(r.violations.back().message.find("limits.max_instance_depth"), std::string::npos);
  const std::string text = schema::format_violations(r, deep);
  EXPECT_NE(text.find("nested deeper than 256"), std::string::npos) << text.substr(0, 300);
}

TEST(schema_limits, deep_values_in_const_enum_and_unique_items) {
  const json deep = deep_array(100000);
  EXPECT_FALSE(schema::compile(json::parse(R"({"const":[[1]]})"))->is_valid(deep));
  EXPECT_FALSE(schema::compile(json::parse(R"({"enum":[[[]],3]})"))->is_valid(deep));
  EXPECT_TRUE(schema::compile(json::parse(R"({"type":"array","maxItems":1})"))->is_valid(deep));
  json two = json::array({deep_array(5000), deep_array(5000)});
  auto r = schema::compile(json::parse(R"({"uniqueItems":true})"))->validate(two);
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(r.limit_exceeded);
}

TEST(schema_limits, nesting_within_the_bound_is_validated) {
  auto compiled = schema::compile(json::parse(R"({"items":{"$ref":"#"},"maxItems":1})"));
  EXPECT_TRUE(compiled->is_valid(deep_array(200)));
  schema::compile_options o;
  o.bounds.max_instance_depth = 10;
  auto shallow = schema::compile(json::parse(R"({"items":{"$ref":"#"}})"), o);
  EXPECT_TRUE(shallow->is_valid(deep_array(10)));
  EXPECT_FALSE(shallow->is_valid(deep_array(12)));
}

TEST(schema_limits, reference_cycle_without_progress_is_bounded) {
  auto compiled =
      schema::compile(json::parse(R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},
                                                  "$ref":"#/$defs/a"})"));
  auto r = compiled->validate(1);
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(r.limit_exceeded);
  EXPECT_FALSE(compiled->is_valid(1));
}

TEST(schema_limits, exponential_schema_hits_the_step_bound) {
  // Each level references the previous one twice, so evaluation work doubles per level.
  json defs = json::object();
  defs["l0"] = json::parse(R"({"type":"string"})");
  for (int i = 1; i <= 40; ++i) {
    const json ref = {{"$ref", "#/$defs/l" + std::to_string(i - 1)}};
    defs["l" + std::to_string(i)] = json{{"anyOf", json::array({ref, ref})}};
  }
  auto compiled = schema::compile(json{{"$defs", defs}, {"$ref", "#/$defs/l40"}});
  auto r = compiled->validate(42);
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(r.limit_exceeded);
  EXPECT_NE(r.violations.back().message.find("max_validation_steps"), std::string::npos);
  EXPECT_FALSE(compiled->is_valid(42));
}

TEST(schema_limits, not_does_not_turn_a_limit_into_success) {
  auto compiled = schema::compile(json::parse(R"({"not":{"items":{"$ref":"#/not"}}})"));
  EXPECT_FALSE(compiled->is_valid(deep_array(1000)));
}

TEST(schema_limits, violations_are_capped) {
  json inst = json::object();
  for (int i = 0; i < 1000; ++i) inst["p" + std::to_string(i)] = i;
  schema::compile_options o;
  o.bounds.max_violations = 20;
  auto r = schema::compile(json::parse(R"({"additionalProperties":false})"), o)->validate(inst);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.violations.size(), 20u);
}

TEST(schema_limits, schema_depth_is_bounded_at_compile_time) {
  json s = true;
  for (int i = 0; i < 300; ++i) s = json{{"not", s}};
  try {
    schema::compile(s);
    FAIL() << "expected schema_error";
  } catch (const schema::schema_error& e) {
    EXPECT_NE(std::string(e.what()).find("limits.max_schema_depth"), std::string::npos) << e.what();
  }
  json ok = true;
  for (int i = 0; i < 100; ++i) ok = json{{"not", ok}};
  EXPECT_NO_THROW(schema::compile(ok));
}

TEST(schema_limits, subschema_count_is_bounded) {
  json props = json::object();
  for (int i = 0; i < 50; ++i) props["p" + std::to_string(i)] = json::object();
  schema::compile_options o;
  o.bounds.max_subschemas = 10;
  EXPECT_THROW(schema::compile(json{{"properties", props}}, o), schema::schema_error);
  EXPECT_NO_THROW(schema::compile(json{{"properties", props}}));
}

TEST(schema_limits, deep_const_value_is_rejected_at_compile_time) {
  EXPECT_THROW(schema::compile(json{{"const", deep_array(5000)}}), schema::schema_error);
}

TEST(schema_limits, very_long_string_for_pattern_is_a_limit) {
  auto compiled = schema::compile(json::parse(R"({"pattern":"^(a|b)*$"})"));
  EXPECT_TRUE(compiled->is_valid(std::string(5000, 'a')));
  auto r = compiled->validate(std::string(200000, 'a'));
  EXPECT_FALSE(r.valid);
  EXPECT_TRUE(r.limit_exceeded);
}

}  // namespace

namespace {

// Fuzz finding (issue 10): a count keyword written as a float past 2^64 was converted to
// std::size_t (undefined behaviour; in practice a wrong bound). It now saturates.
TEST(schema_limits, count_keywords_past_size_t_saturate) {
  const json three = json::array({1, 2, 3});
  EXPECT_TRUE(schema::compile(json::parse(R"({"maxItems":1e300})"))->is_valid(three));
  EXPECT_FALSE(schema::compile(json::parse(R"({"minItems":5e53})"))->is_valid(three));
  EXPECT_TRUE(
      schema::compile(json::parse(R"({"maxLength":1.8446744073709552e19})"))->is_valid("ab"));
  EXPECT_FALSE(schema::compile(json::parse(R"({"minProperties":1e20})"))->is_valid(json::object()));
  EXPECT_TRUE(
      schema::compile(json::parse(R"({"maxContains":1e100,"contains":{}})"))->is_valid(three));
  EXPECT_THROW(schema::compile(json::parse(R"({"minItems":1.5})")), schema::schema_error);
  EXPECT_THROW(schema::compile(json::parse(R"({"minItems":-1.0})")), schema::schema_error);
}

}  // namespace

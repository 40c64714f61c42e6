// format_violations(): the model-facing text (pointer, message, received type, truncation,
// secrecy).
#include <gtest/gtest.h>

#include "mcpcxx/json_schema.hpp"

namespace {

using mcpcxx::json;
namespace schema = mcpcxx::schema;

std::string text_for(const json& s, const json& instance, schema::format_options fo = {}) {
  auto r = schema::compile(s)->validate(instance);
  EXPECT_FALSE(r.valid);
  return schema::format_violations(r, instance, fo);
}

TEST(schema_formatter, one_line_per_violation_with_type) {
  const json s = json::parse(R"({"required":["key"],"properties":{"count":{"maximum":50}}})");
  EXPECT_EQ(
      text_for(s, json::parse(R"({"count":51})")),
      "(root): missing required property 'key' (got object)\n/count: must be <= 50 (got integer)");
}

TEST(schema_formatter, type_messages_are_not_repeated) {
  EXPECT_EQ(text_for(json::parse(R"({"type":"object"})"), "x"),
            "(root): must be an object, got string");
}

TEST(schema_formatter, never_echoes_string_values) {
  const json s = json::parse(R"({"properties":{"password":{"maxLength":3,"pattern":"^[0-9]+$",
    "enum":["a"],"format":"uuid"},"token":{"const":"x"}}})");
  const json inst = json::parse(R"({"password":"hunter2-very-secret","token":"sk-live-123456"})");
  const std::string text = text_for(s, inst);
  EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
  EXPECT_EQ(text.find("sk-live"), std::string::npos) << text;
  EXPECT_NE(text.find("/password: must be at most 3 characters long, got 19"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(got string)"), std::string::npos) << text;
}

TEST(schema_formatter, never_echoes_long_values) {
  const json big = json::array({123456789012345LL, 987654321098765LL});
  const std::string text = text_for(json::parse(R"({"items":{"maximum":1}})"), big);
  EXPECT_EQ(text.find("123456789012345"), std::string::npos) << text;
  EXPECT_EQ(text.find("987654321098765"), std::string::npos) << text;
}

TEST(schema_formatter, caps_the_list_with_and_n_more) {
  json inst = json::object();
  for (int i = 0; i < 15; ++i) inst["k" + std::to_string(i + 10)] = i;
  const std::string text = text_for(json::parse(R"({"additionalProperties":false})"), inst);
  std::size_t lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 11u) << text;
  EXPECT_NE(text.find("\nand 5 more"), std::string::npos) << text;
  schema::format_options fo;
  fo.max_violations_listed = 2;
  const std::string short_text =
      text_for(json::parse(R"({"additionalProperties":false})"), inst, fo);
  EXPECT_NE(short_text.find("\nand 13 more"), std::string::npos) << short_text;
}

TEST(schema_formatter, long_property_names_are_truncated) {
  const std::string key(500, 'k');
  const std::string text =
      text_for(json::parse(R"({"additionalProperties":false})"), json{{key, 1}});
  EXPECT_LT(text.size(), 200u);
  EXPECT_NE(text.find("..."), std::string::npos);
}

TEST(schema_formatter, empty_result_gives_empty_text) {
  EXPECT_EQ(schema::format_violations({}, json::object()), "");
}

}  // namespace

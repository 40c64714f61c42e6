// ECMA-262 pattern semantics on top of std::regex, including the documented deviations.
#include "schema/regex.hpp"

#include <gtest/gtest.h>

#include "mcpcxx/json_schema.hpp"

namespace {

using mcpcxx::json;
namespace schema = mcpcxx::schema;

bool matches(const std::string& pattern, const std::string& value) {
  return schema::compile(json{{"pattern", pattern}})->is_valid(value);
}

TEST(schema_regex, search_is_unanchored) {
  EXPECT_TRUE(matches("b", "abc"));
  EXPECT_FALSE(matches("^b", "abc"));
  EXPECT_TRUE(matches("^ab", "abc"));
  EXPECT_FALSE(matches("^abc$", "abc\n"));
}

TEST(schema_regex, ascii_classes_follow_ecma) {
  EXPECT_TRUE(matches("^\\d$", "7"));
  EXPECT_FALSE(matches("^\\d$", "\xDF\xA0"));  // U+07C0 NKO DIGIT ZERO is not \d
  EXPECT_FALSE(matches("^\\w$", "\xC3\xA9"));
  EXPECT_TRUE(matches("^\\W$", "\xC3\xA9"));
  EXPECT_TRUE(matches("^\\s$", "\xC2\xA0"));  // U+00A0 is ECMA whitespace
  EXPECT_TRUE(matches("^\\S$", "x"));
  EXPECT_TRUE(matches("^[\\d\\s]+$", "1 2"));
}

TEST(schema_regex, code_point_semantics) {
  EXPECT_TRUE(matches("^.$", "\xF0\x9F\x90\xB2"));
  EXPECT_FALSE(matches("^.$", "\n"));
  EXPECT_FALSE(matches("^a.b$",
                       "a\xE2\x80\xA8"
                       "b"));  // U+2028 LINE SEPARATOR
  EXPECT_TRUE(matches("^a[.]b$", "a.b"));
  EXPECT_TRUE(matches("^\\ud83d\\udc32*$", "\xF0\x9F\x90\xB2\xF0\x9F\x90\xB2"));
  EXPECT_TRUE(matches("^\\u{1F432}$", "\xF0\x9F\x90\xB2"));
  EXPECT_TRUE(matches("^\\p{L}+$", "\xC3\xA9t\xC3\xA9"));
  EXPECT_FALSE(matches("^\\p{L}+$", "a1"));
  EXPECT_TRUE(matches("^\\P{L}+$", "123"));
  EXPECT_TRUE(matches("^\\p{Nd}+$", "\xE0\xA7\xAA"));  // U+09EA BENGALI DIGIT FOUR
}

TEST(schema_regex, named_groups_and_control_escapes) {
  EXPECT_TRUE(matches("^(?<word>ab)\\k<word>$", "abab"));
  EXPECT_TRUE(matches("^\\cJ$", "\n"));
  EXPECT_TRUE(matches("^a\\/b$", "a/b"));
}

TEST(schema_regex, documented_deviations_are_rejected_at_compile_time) {
  EXPECT_THROW(schema::compile(json{{"pattern", "(?<!x)y"}}), schema::schema_error);
  EXPECT_THROW(schema::compile(json{{"pattern", "[\\S]"}}), schema::schema_error);
  EXPECT_THROW(schema::compile(json{{"pattern", "[\\P{L}]"}}), schema::schema_error);
  EXPECT_THROW(schema::compile(json{{"pattern", "\\p{Script=Greek}"}}), schema::schema_error);
}

TEST(schema_regex, pattern_properties_use_the_same_engine) {
  auto c = schema::compile(
      json::parse(R"({"patternProperties":{"^x-":{"type":"string"},"\\d$":{"type":"integer"}},
                                          "additionalProperties":false})"));
  EXPECT_TRUE(c->is_valid(json::parse(R"({"x-a":"s","n1":1})")));
  EXPECT_FALSE(c->is_valid(json::parse(R"({"x-a":1})")));
  EXPECT_FALSE(c->is_valid(json::parse(R"({"other":1})")));
}

TEST(schema_regex, format_regex_accepts_ecma_syntax_std_regex_cannot_run) {
  schema::compile_options o;
  o.assert_formats = true;
  auto c = schema::compile(json::parse(R"({"format":"regex"})"), o);
  EXPECT_TRUE(c->is_valid("(?<=a)b"));
  EXPECT_FALSE(c->is_valid("(unclosed"));
  EXPECT_FALSE(c->is_valid("\\a"));
}

}  // namespace

namespace {

// The "^[class]{m,n}$" fast path must agree with the general std::regex translation.
TEST(schema_regex, class_run_fast_path_agrees_with_std_regex) {
  const char* patterns[] = {"^[a-z0-9_-]{3,8}$", "^[^a-c]+$",  "^\\d*$",  "^\\w{2}$",
                            "^[\\d.]{1,}$",      "^[a\\-z]+$", "^[-x]+$", "^[A-Fa-f0-9]{4,}$"};
  const char* values[] = {"",    "ab",   "abc",  "abc_12-x", "abcdefghi",        "ABC",
                          "x-y", "d",    "1.5",  "12",       "\xC3\xA9\xC3\xA9", "a-z",
                          "--x", "beef", "bEeF0"};
  for (const char* p : patterns) {
    ASSERT_TRUE(mcpcxx::schema::detail::parse_class_run(p).has_value()) << p;
    std::wstring translated;
    std::string error;
    ASSERT_TRUE(mcpcxx::schema::detail::translate_pattern(p, translated, error, false)) << p;
    const std::wregex re(translated, std::regex::ECMAScript);
    for (const char* v : values) {
      std::wstring wide;
      ASSERT_TRUE(mcpcxx::schema::detail::utf8_to_wide(v, wide, 1000));
      EXPECT_EQ(matches(p, v), std::regex_search(wide, re)) << p << " on " << v;
    }
  }
  EXPECT_FALSE(mcpcxx::schema::detail::parse_class_run("^[a-z]+?$").has_value());
  EXPECT_FALSE(mcpcxx::schema::detail::parse_class_run("^[a-z]+\\$").has_value());
  EXPECT_FALSE(mcpcxx::schema::detail::parse_class_run("^[\xC3\xA9]+$").has_value());
}

}  // namespace

namespace {

using mcpcxx::schema::detail::ecma_regex;
using mcpcxx::schema::detail::match_result;

// The json_schema fuzz timeout (issue 10): std::regex's backtracking matcher took exponential
// (`(a+)+$`) or high-polynomial (`a*a*a*a*b`) time; these ran for seconds to minutes on inputs
// of 22 to 2,000 characters. Patterns without back-references now run on the NFA matcher in one
// pass. Each case here finishes in milliseconds; a regression hangs the test (ctest timeout).
TEST(schema_regex, catastrophic_backtracking_patterns_are_linear) {
  const std::string tail(9000, 'a');
  const struct {
    const char* pattern;
    std::string input;
    match_result expected;
  } cases[] = {
      {"(a+)+$", tail + "!", match_result::no_match},
      {"(a+)+!$", tail + "!", match_result::match},
      {"a*a*a*a*b", tail, match_result::no_match},
      {"(a|aa)*c", tail, match_result::no_match},
      {"(?=a)(a+)+$", tail + "!", match_result::no_match},
      {"^(\\w+\\s?)+$", tail + "!", match_result::no_match},
  };
  for (const auto& c : cases) {
    std::string error;
    auto re = ecma_regex::compile(c.pattern, error);
    ASSERT_NE(re, nullptr) << c.pattern << ": " << error;
    EXPECT_EQ(re->search(c.input), c.expected) << c.pattern;
  }
}

TEST(schema_regex, search_semantics_survive_the_whole_input_match) {
  std::string error;
  auto anchored = ecma_regex::compile("^b+c", error);
  ASSERT_NE(anchored, nullptr);
  EXPECT_EQ(anchored->search("bbc..."), match_result::match);
  EXPECT_EQ(anchored->search("abbc"), match_result::no_match);
  auto ended = ecma_regex::compile("x[0-9]$", error);
  EXPECT_EQ(ended->search("..x1"), match_result::match);
  EXPECT_EQ(ended->search("x1."), match_result::no_match);
  auto lines = ecma_regex::compile("a.c", error);
  EXPECT_EQ(lines->search("a\nc abc"), match_result::match);
  EXPECT_EQ(lines->search("a\nc"), match_result::no_match);
}

TEST(schema_regex, back_references_keep_backtracking_on_short_inputs_only) {
  std::string error;
  auto re = ecma_regex::compile("(a)\\1+$", error);
  ASSERT_NE(re, nullptr) << error;
  EXPECT_EQ(re->search("xaaa"), match_result::match);
  EXPECT_EQ(re->search(std::string(ecma_regex::max_backtracking_input + 1, 'a')),
            match_result::too_long);
}

}  // namespace

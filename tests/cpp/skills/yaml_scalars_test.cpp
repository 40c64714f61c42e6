// The scalar and flow pieces of the frontmatter reader, case by case: core-schema resolution of
// plain scalars, every double-quoted escape, quoted folding, and [ ] / { } reading.
#include "skills/yaml_scalars.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

using mcpcxx::json;
using mcpcxx::skills::flow_balanced;
using mcpcxx::skills::parse_flow;
using mcpcxx::skills::read_quoted;
using mcpcxx::skills::resolve_plain;

// The message of the exception `f` throws, "" when it throws none.
template <class F>
std::string refusal(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The quoted scalar spanning `lines`, and how many it used.
std::pair<std::string, std::size_t> quoted(const std::vector<std::string>& lines) {
  std::size_t used = 0;
  std::string v = read_quoted(
      [&lines](std::size_t k) -> std::optional<std::string_view> {
        if (k >= lines.size()) return std::nullopt;
        return std::string_view(lines[k]);
      },
      3, used);
  return {v, used};
}

std::string quoted_refusal(const std::vector<std::string>& lines) {
  return refusal([&lines] { quoted(lines); });
}

TEST(YamlScalars, NullAndBooleansInEveryCoreSpelling) {
  for (const char* t : {"", "~", "null", "Null", "NULL"})
    EXPECT_TRUE(resolve_plain(t, 1).is_null());
  for (const char* t : {"true", "True", "TRUE"}) EXPECT_EQ(resolve_plain(t, 1), true) << t;
  for (const char* t : {"false", "False", "FALSE"}) EXPECT_EQ(resolve_plain(t, 1), false) << t;
  for (const char* t : {"nUll", "tRue", "fAlse", "yes", "no"}) {
    EXPECT_EQ(resolve_plain(t, 1), t);
  }
}

TEST(YamlScalars, IntegersInBaseTenEightAndSixteen) {
  EXPECT_EQ(resolve_plain("0", 1), 0);
  EXPECT_EQ(resolve_plain("+12", 1), 12);
  EXPECT_EQ(resolve_plain("-12", 1), -12);
  EXPECT_EQ(resolve_plain("007", 1), 7);
  EXPECT_EQ(resolve_plain("0o17", 1), 15);
  EXPECT_EQ(resolve_plain("0x1F", 1), 31);
  EXPECT_EQ(resolve_plain("0xff", 1), 255);
  EXPECT_EQ(resolve_plain("18446744073709551615", 1).get<std::uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(resolve_plain("-9223372036854775808", 1).get<std::int64_t>(), INT64_MIN);
  // Not integers of the core schema: strings.
  for (const char* t : {"0o", "0o8", "0x", "0xg", "0X1F", "-0x1", "-0o7", "1_000", "0b1"}) {
    EXPECT_EQ(resolve_plain(t, 1), t);
  }
  EXPECT_EQ(refusal([] { resolve_plain("-9223372036854775809", 4); }),
            "line 4: the integer 9223372036854775809 is too large; quote it");
  EXPECT_EQ(refusal([] { resolve_plain("0x10000000000000000", 4); }),
            "line 4: the integer 10000000000000000 is too large; quote it");
}

TEST(YamlScalars, FloatsByTheCoreSchemaPattern) {
  const std::vector<std::pair<const char*, double>> floats = {
      {"1.5", 1.5},  {".5", 0.5},     {"5.", 5.0},        {"-.5", -0.5}, {"+.5", 0.5},
      {"1e3", 1e3},  {"1E3", 1e3},    {"1e-3", 1e-3},     {"1.e3", 1e3}, {".5e3", 500.0},
      {"-0.0", 0.0}, {"2E+2", 200.0}, {"+1.5e-3", 1.5e-3}};
  for (const auto& [t, v] : floats) {
    const json j = resolve_plain(t, 1);
    ASSERT_TRUE(j.is_number_float()) << t;
    EXPECT_DOUBLE_EQ(j.get<double>(), v) << t;
  }
  for (const char* t : {".", "-.", "+", "-", "1e", "1e+", ".e3", "e3", "1.5x", "1..2", "1.0.2",
                        "--1", "+-1", "1e3.0", "1 e3", "inf", "nan"}) {
    EXPECT_EQ(resolve_plain(t, 1), t);
  }
}

TEST(YamlScalars, InfinityAndNanAreRefused) {
  for (const char* t :
       {".inf", "-.inf", "+.inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN", "-.nan"}) {
    EXPECT_EQ(refusal([t] { resolve_plain(t, 2); }),
              "line 2: the value " + std::string(t) + " is not a JSON number; quote it");
  }
  EXPECT_EQ(resolve_plain(".iNf", 1), ".iNf");
}

TEST(YamlScalars, EveryDoubleQuotedEscapeDecodes) {
  const std::vector<std::pair<std::string, std::string>> escapes = {
      {"0", std::string(1, '\0')},
      {"a", "\a"},
      {"b", "\b"},
      {"t", "\t"},
      {"\t", "\t"},
      {"n", "\n"},
      {"v", "\v"},
      {"f", "\f"},
      {"r", "\r"},
      {"e", "\x1B"},
      {" ", " "},
      {"\"", "\""},
      {"/", "/"},
      {"\\", "\\"},
      {"N", "\xC2\x85"},
      {"_", "\xC2\xA0"},
      {"L", "\xE2\x80\xA8"},
      {"P", "\xE2\x80\xA9"},
      {"x41", "A"},
      {"x7f", "\x7F"},
      {"xC9", "\xC3\x89"},
      {"u00e9", "\xC3\xA9"},
      {"u0800", "\xE0\xA0\x80"},
      {"uFFFF", "\xEF\xBF\xBF"},
      {"U0001F600", "\xF0\x9F\x98\x80"},
      {"U0010FFFF", "\xF4\x8F\xBF\xBF"},
      {"x410", "A0"}};
  for (const auto& [e, want] : escapes) {
    EXPECT_EQ(quoted({"\"<\\" + e + ">\""}).first, "<" + want + ">") << e;
  }
}

TEST(YamlScalars, BadEscapesNameTheEscape) {
  EXPECT_EQ(quoted_refusal({"\"\\q\""}), "line 3: unknown escape \\q in a double-quoted value");
  EXPECT_EQ(quoted_refusal({"\"\\'\""}), "line 3: unknown escape \\' in a double-quoted value");
  const std::string tail = " is not a Unicode scalar value; write the character itself";
  EXPECT_EQ(quoted_refusal({"\"\\x4\""}), "line 3: the escape \\x4\"" + tail);
  EXPECT_EQ(quoted_refusal({"\"\\x4g\""}), "line 3: the escape \\x4g" + tail);
  EXPECT_EQ(quoted_refusal({"\"\\u+123\""}), "line 3: the escape \\u+123" + tail);
  EXPECT_EQ(quoted_refusal({"\"\\ud800\""}), "line 3: the escape \\ud800" + tail);
  EXPECT_EQ(quoted_refusal({"\"\\uDFFF\""}), "line 3: the escape \\uDFFF" + tail);
  EXPECT_EQ(quoted_refusal({"\"\\U00110000\""}), "line 3: the escape \\U00110000" + tail);
  EXPECT_EQ(quoted_refusal({"\"\\U", "x\""}), "line 3: the escape \\U" + tail);
  EXPECT_EQ(quoted_refusal({"\"a\"", "\"\\q\""}), "");
  EXPECT_EQ(quoted_refusal({"\"a", "\\q\""}),
            "line 4: unknown escape \\q in a double-quoted value");
}

TEST(YamlScalars, QuotedValuesFoldAcrossLines) {
  EXPECT_EQ(quoted({"'it''s'"}), std::make_pair(std::string("it's"), std::size_t{1}));
  EXPECT_EQ(quoted({"'a\\n'"}).first, "a\\n");
  EXPECT_EQ(quoted({"\"a  ", "  b\""}), std::make_pair(std::string("a b"), std::size_t{2}));
  EXPECT_EQ(quoted({"\"a", "", " \t", "b\""}),
            std::make_pair(std::string("a\n\nb"), std::size_t{4}));
  EXPECT_EQ(quoted({"\"a\\", "  b\""}).first, "ab");
  EXPECT_EQ(quoted({"\"a\\t", "b\""}).first, "a\t b");
  EXPECT_EQ(quoted({"\"a\\ ", "b\""}).first, "a  b");
  EXPECT_EQ(quoted({"'x' # note"}).first, "x");
  EXPECT_EQ(quoted({"'x'  "}).first, "x");
  EXPECT_EQ(quoted_refusal({"'x' y"}), "line 3: only a comment may follow a closing quote");
  EXPECT_EQ(quoted_refusal({"'x", "y' z"}), "line 4: only a comment may follow a closing quote");
  EXPECT_EQ(quoted_refusal({"'open", "", "still"}),
            "line 3: a quoted value is never closed; add the closing '");
  EXPECT_EQ(quoted_refusal({"\"open"}),
            "line 3: a quoted value is never closed; add the closing \"");
}

TEST(YamlScalars, FlowBalanceIgnoresBracketsInQuotes) {
  EXPECT_TRUE(flow_balanced("[]"));
  EXPECT_TRUE(flow_balanced("{a: [1, 2]} trailing"));
  EXPECT_TRUE(flow_balanced("[\"]\", ']']"));
  EXPECT_TRUE(flow_balanced("[\"\\\"]\"]"));
  EXPECT_TRUE(flow_balanced("]"));
  EXPECT_FALSE(flow_balanced("[\"]\""));
  EXPECT_FALSE(flow_balanced("[']"));
  EXPECT_TRUE(flow_balanced("['\\']"));  // no escapes in single quotes
  EXPECT_FALSE(flow_balanced("[{]"));
  EXPECT_FALSE(flow_balanced(""));
}

TEST(YamlScalars, FlowPlainScalarsEndAtIndicators) {
  EXPECT_EQ(parse_flow("[http://x.org/a:b, a:b, 'q', \"d\"]", 1, 0),
            json::parse(R"(["http://x.org/a:b","a:b","q","d"])"));
  EXPECT_EQ(parse_flow("{a: 1, b:, c, 'd e': [x]}", 1, 0),
            json::parse(R"({"a":1,"b":null,"c":null,"d e":["x"]})"));
  EXPECT_EQ(parse_flow("[a#b, c] # done", 1, 0), json::parse(R"(["a#b","c"])"));
  EXPECT_EQ(parse_flow("[ 1 , ~ , true ]", 1, 0), json::parse("[1,null,true]"));
  EXPECT_EQ(parse_flow("{a:}", 1, 0), json::parse(R"({"a":null})"));
  EXPECT_EQ(refusal([] { parse_flow("[a #b]", 6, 0); }),
            "line 6: comments inside [ ] or { } are not supported");
  EXPECT_EQ(refusal([] { parse_flow("[a, #b]", 6, 0); }),
            "line 6: comments inside [ ] or { } are not supported");
  EXPECT_EQ(refusal([] { parse_flow("{a: 1, a: 2}", 6, 0); }),
            "line 6: duplicate key 'a'; keep one");
  EXPECT_EQ(refusal([] { parse_flow("{: 1}", 6, 0); }), "line 6: an empty key in a { } mapping");
  EXPECT_EQ(refusal([] { parse_flow("['a]", 6, 0); }),
            "line 6: a quoted value inside [ ] or { } is never closed");
  EXPECT_EQ(refusal([] { parse_flow("[1] x", 6, 0); }),
            "line 6: unexpected text after the closing bracket");
}

}  // namespace

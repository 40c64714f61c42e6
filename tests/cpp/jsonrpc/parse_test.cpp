// parse(): -32700 for bad JSON and bad UTF-8, limits enforced before parsing.
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::jsonrpc {
namespace {

// Syntax errors are answered with id null; errors in well-formed JSON (bad UTF-8, unpaired
// surrogates, huge numbers) echo the id when a tolerant scan can read it.
void expect_parse_error(std::string_view bytes, std::string_view fragment,
                        const std::optional<request_id>& id = std::nullopt) {
  const message m = parse(bytes);
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::parse_error);
  EXPECT_EQ(m.id, id) << bytes;
  EXPECT_EQ(m.error.message.rfind("Parse error: ", 0), 0u) << m.error.message;
  EXPECT_NE(m.error.message.find(fragment), std::string::npos) << m.error.message;
}

const request_id k_id1{std::int64_t{1}};

std::string request_with_string(std::string_view raw_string_bytes) {
  return std::string(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"s":")") +
         std::string(raw_string_bytes) + "\"}}";
}

TEST(ParseErrors, SyntaxErrors) {
  for (const char* text : {"{", "{\"jsonrpc\":", "not json", "{\"a\":1,}", "[1,]", "{'a':1}",
                           "{\"a\":1}{\"b\":2}", "{\"a\":NaN}", "{\"a\":01}", "// c\n{}"}) {
    expect_parse_error(text, "not valid JSON");
  }
}

TEST(ParseErrors, SyntaxErrorNamesTheOffset) {
  const message m = parse("{\"jsonrpc\":\"2.0\",x}");
  EXPECT_NE(m.error.message.find("near byte 18"), std::string::npos) << m.error.message;
}

TEST(ParseErrors, EmptyAndBlankInputAreParseErrors) {
  expect_parse_error("", "empty");
  expect_parse_error(" \t\r\n ", "empty");
}

TEST(ParseErrors, ValidUtf8IsAccepted) {
  const message m = parse(request_with_string("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"));
  ASSERT_EQ(m.kind, message_kind::request);
  EXPECT_EQ(m.params.at("s"), "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(ParseErrors, EscapedSurrogatePairIsAccepted) {
  const message m = parse(request_with_string("\\uD83D\\uDE00"));
  ASSERT_EQ(m.kind, message_kind::request);
  EXPECT_EQ(m.params.at("s"), "\xF0\x9F\x98\x80");
}

TEST(ParseErrors, OverlongEncodingsAreRejected) {
  expect_parse_error(request_with_string("\xC0\xAF"), "not valid UTF-8", k_id1);  // '/'
  expect_parse_error(request_with_string("\xC1\xBF"), "not valid UTF-8", k_id1);
  expect_parse_error(request_with_string("\xE0\x80\xAF"), "not valid UTF-8", k_id1);
  expect_parse_error(request_with_string("\xF0\x80\x80\xAF"), "not valid UTF-8", k_id1);
}

TEST(ParseErrors, EncodedSurrogatesAndOutOfRangeAreRejected) {
  expect_parse_error(request_with_string("\xED\xA0\x80"), "not valid UTF-8", k_id1);  // U+D800
  expect_parse_error(request_with_string("\xF4\x90\x80\x80"), "not valid UTF-8",
                     k_id1);  // > U+10FFFF
  expect_parse_error(request_with_string("\xFF"), "not valid UTF-8", k_id1);
  expect_parse_error(request_with_string("\x80"), "not valid UTF-8", k_id1);
}

TEST(ParseErrors, TruncatedMultibyteSequencesAreRejected) {
  expect_parse_error(request_with_string("\xE2\x82"), "not valid UTF-8", k_id1);
  expect_parse_error(request_with_string("\xF0\x9F\x98"), "not valid UTF-8", k_id1);
  // Truncated after the bad byte and without an id: nothing to echo.
  expect_parse_error("{\"jsonrpc\":\"2.0\",\"method\":\"\xC3", "not valid UTF-8");
}

TEST(ParseErrors, Utf8ErrorNamesTheOffset) {
  const std::string text = request_with_string("ab\xC3");
  const message m = parse(text);
  const std::size_t offset = text.find('\xC3');
  EXPECT_NE(m.error.message.find("offset " + std::to_string(offset)), std::string::npos)
      << m.error.message;
}

TEST(ParseErrors, InvalidUtf8OutsideStrings) {
  expect_parse_error("\xFF{\"jsonrpc\":\"2.0\",\"method\":\"m\"}", "not valid UTF-8");
}

TEST(ParseErrors, LoneSurrogateEscapesAreRejected) {
  expect_parse_error(request_with_string("\\uD800"), "unpaired UTF-16 surrogate", k_id1);
  expect_parse_error(request_with_string("\\uDC00"), "unpaired UTF-16 surrogate", k_id1);
  expect_parse_error(request_with_string("\\uD800x"), "unpaired UTF-16 surrogate", k_id1);
  expect_parse_error(request_with_string("\\uD800\\u0041"), "unpaired UTF-16 surrogate", k_id1);
}

TEST(Limits, SizeIsCheckedOnTheByteLength) {
  parse_limits limits;
  limits.max_message_bytes = 40;
  const std::string ok = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  ASSERT_EQ(ok.size(), 40u);
  EXPECT_EQ(parse(ok, limits).kind, message_kind::request);
  const message m = parse(ok + " ", limits);
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  EXPECT_NE(m.error.message.find("maximum size of 40 bytes"), std::string::npos) << m.error.message;
  EXPECT_NE(m.error.message.find("41 bytes"), std::string::npos) << m.error.message;
}

TEST(Limits, OversizeGarbageIsASizeErrorNotAParseError) {
  parse_limits limits;
  limits.max_message_bytes = 8;
  const message m = parse("\xFF\xFF\xFF garbage", limits);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
}

TEST(Limits, DefaultSizeIsFourMiB) {
  EXPECT_EQ(parse_limits{}.max_message_bytes, 4u * 1024u * 1024u);
  const std::string big(4u * 1024u * 1024u + 1u, ' ');
  const message m = parse(big);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  EXPECT_NE(m.error.message.find("maximum size of 4194304 bytes; send smaller messages"),
            std::string::npos);
}

std::string nested(std::size_t depth) {
  std::string inner(depth, '[');
  inner.append(depth, ']');
  return R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"x":)" + inner + "}}";
}

TEST(Limits, DepthAtTheLimitIsAccepted) {
  EXPECT_EQ(parse(nested(62)).kind, message_kind::request);  // 2 object levels + 62 arrays = 64
}

TEST(Limits, DepthOverTheLimitIsRejected) {
  const message m = parse(nested(63));
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  EXPECT_NE(m.error.message.find("maximum depth of 64"), std::string::npos) << m.error.message;
}

TEST(Limits, MillionDeepInputIsRefusedAsTooDeep) {
  parse_limits limits;
  limits.max_message_bytes = 4'000'000;
  const message m = parse(std::string(1'000'000, '['), limits);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  const message n = parse(std::string(1'000'000, '{'), limits);
  EXPECT_EQ(n.error.code, error_code::invalid_request);
}

TEST(Limits, BracketsInsideStringsDoNotCount) {
  parse_limits limits;
  limits.max_depth = 2;
  const message m =
      parse(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"[[[{{{\"[["}})", limits);
  EXPECT_EQ(m.kind, message_kind::request) << m.error.message;
  EXPECT_EQ(parse(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"s":[1]}})", limits).kind,
            message_kind::invalid);
}

// The parser counts depth as it goes; bytes that do not parse are pre-scanned, so too deep still
// wins over bad syntax wherever the syntax error is, and the id is echoed when it can be read.
TEST(Limits, TooDeepWinsOverBadSyntaxBeforeOrAfterTheDepth) {
  const std::string deep(70, '[');
  const message early =
      parse(R"({"jsonrpc":"2.0","id":5,"method":"m","params":{"x": oops )" + deep);
  EXPECT_NE(early.error.message.find("maximum depth of 64"), std::string::npos)
      << early.error.message;
  EXPECT_EQ(early.id, request_id{std::int64_t{5}});
  const message late =
      parse(R"({"jsonrpc":"2.0","id":6,"method":"m","params":{"x":)" + deep + "oops");
  EXPECT_NE(late.error.message.find("maximum depth of 64"), std::string::npos)
      << late.error.message;
  EXPECT_EQ(late.id, request_id{std::int64_t{6}});
  const message valid = parse(nested(63));
  EXPECT_EQ(valid.id, request_id{std::int64_t{1}});
  const message shallow_bad =
      parse(R"({"jsonrpc":"2.0","id":7,"method":"m","params":{"x": oops}})");
  EXPECT_EQ(shallow_bad.error.code, error_code::parse_error) << shallow_bad.error.message;
}

TEST(Limits, CustomDepthIsNamedInTheMessage) {
  parse_limits limits;
  limits.max_depth = 3;
  const message m = parse(nested(2), limits);
  EXPECT_NE(m.error.message.find("maximum depth of 3"), std::string::npos);
}

}  // namespace
}  // namespace mcpcxx::jsonrpc

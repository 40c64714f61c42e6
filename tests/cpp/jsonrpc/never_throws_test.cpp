// Regression tests for issue 8 §3: parse() answers every byte sequence with a value. Before the
// fix, numbers beyond the double range escaped as nlohmann::out_of_range; these tests failed then.
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/jsonrpc.hpp"

#include "jsonrpc/scan.hpp"

namespace mcpcxx::jsonrpc {
namespace {

message parse_no_throw(std::string_view bytes) {
  message m;
  EXPECT_NO_THROW(m = parse(bytes)) << bytes;
  return m;
}

TEST(NeverThrows, NumberBeyondDoubleRangeIsAParseErrorWithTheId) {
  for (const char* number : {"1e400", "-1e400", "1E+999", "123456789e999"}) {
    const std::string text =
        std::string(R"({"jsonrpc":"2.0","id":7,"method":"m","params":{"x":)") + number + "}}";
    const message m = parse_no_throw(text);
    ASSERT_EQ(m.kind, message_kind::invalid) << text;
    EXPECT_EQ(m.error.code, error_code::parse_error);
    EXPECT_EQ(m.id, request_id{std::int64_t{7}});
    EXPECT_NE(m.error.message.find(number), std::string::npos) << m.error.message;
    EXPECT_NE(m.error.message.find("outside the range"), std::string::npos) << m.error.message;
    EXPECT_NE(m.error.message.find("near byte " + std::to_string(text.find(number)) + " "),
              std::string::npos)
        << "the offset is where the number starts: " << m.error.message;
  }
}

TEST(NeverThrows, HugeIntegerIsAParseErrorAndIsShortenedInTheText) {
  const std::string digits(500, '9');
  const message m = parse_no_throw(R"({"jsonrpc":"2.0","method":"m","params":{"n":)" + digits +
                                   R"(},"id":"late"})");
  ASSERT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::parse_error);
  EXPECT_EQ(m.id, request_id{std::string("late")}) << "the id after the bad number is read too";
  EXPECT_LT(m.error.message.size(), 300u) << m.error.message;
}

TEST(NeverThrows, HugeIntegerThatFitsADoubleIsAccepted) {
  const message m = parse_no_throw(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"n":)" +
                                   std::string(300, '9') + "}}");
  EXPECT_EQ(m.kind, message_kind::request) << m.error.message;
}

TEST(NeverThrows, HugeNumberAsTheIdIsNotEchoed) {
  const message m = parse_no_throw(R"({"jsonrpc":"2.0","id":1e400,"method":"m"})");
  ASSERT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::parse_error);
  EXPECT_FALSE(m.id.has_value());
}

TEST(NeverThrows, InvalidUtf8InsideAKeyEchoesTheId) {
  const message m = parse_no_throw(
      "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"m\","
      "\"params\":{\"k\xff\":1}}");
  ASSERT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::parse_error);
  EXPECT_EQ(m.id, request_id{std::string("a")});
  EXPECT_NE(m.error.message.find("UTF-8"), std::string::npos);
}

TEST(NeverThrows, InvalidUtf8InsideTheIdIsNotEchoed) {
  const message m = parse_no_throw("{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"m\"}");
  EXPECT_EQ(m.error.code, error_code::parse_error);
  EXPECT_FALSE(m.id.has_value());
}

TEST(NeverThrows, LoneSurrogateNamesItsOffsetAndEchoesTheId) {
  const std::string text = R"({"jsonrpc":"2.0","id":3,"method":"m","params":{"s":"\ud800"}})";
  const message m = parse_no_throw(text);
  EXPECT_EQ(m.error.code, error_code::parse_error);
  EXPECT_EQ(m.id, request_id{std::int64_t{3}});
  EXPECT_NE(m.error.message.find("near byte " + std::to_string(text.find("\\ud800"))),
            std::string::npos)
      << m.error.message;
}

TEST(NeverThrows, DepthAndSizeLimitsEchoTheId) {
  parse_limits limits;
  limits.max_depth = 2;
  const message deep =
      parse(R"({"jsonrpc":"2.0","id":4,"method":"m","params":{"a":[[1]]}})", limits);
  EXPECT_EQ(deep.error.code, error_code::invalid_request);
  EXPECT_EQ(deep.id, request_id{std::int64_t{4}});
  limits.max_message_bytes = 10;
  const message big = parse(R"({"id":5,"jsonrpc":"2.0","method":"m"})", limits);
  EXPECT_EQ(big.error.code, error_code::invalid_request);
  EXPECT_EQ(big.id, request_id{std::int64_t{5}});
}

TEST(NeverThrows, SyntaxErrorsKeepIdNull) {
  const message m = parse_no_throw(R"({"jsonrpc":"2.0","id":1,"method":"ping")");
  EXPECT_EQ(m.error.code, error_code::parse_error);
  EXPECT_FALSE(m.id.has_value());
}

TEST(NeverThrows, EveryByteValueAloneAndInAString) {
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    EXPECT_NO_THROW((void)parse(one));
    EXPECT_NO_THROW((void)parse(R"({"jsonrpc":"2.0","id":1,"method":")" + one + "\"}"));
    EXPECT_NO_THROW((void)parse("{\"" + one + "\":1}"));
  }
}

TEST(NeverThrows, BatchMembersClassifyWithoutThrowing) {
  const message m = parse(R"([1,"x",null,[],{},{"jsonrpc":"2.0","id":1e300,"method":"m"}])");
  ASSERT_EQ(m.kind, message_kind::batch);
  for (const json& element : m.body) {
    message part;
    EXPECT_NO_THROW(part = classify(element));
    EXPECT_EQ(part.kind, message_kind::invalid) << element.dump();
  }
}

TEST(SerializeNeverThrows, InvalidUtf8InValuesIsReplaced) {
  const std::string bad = "x\xff\xc3";
  json result = {{"text", bad}, {bad, 1}};
  std::string frame;
  ASSERT_NO_THROW(frame = serialize_result(request_id{bad}, result));
  EXPECT_FALSE(json::parse(frame, nullptr, false).is_discarded()) << frame;
  ASSERT_NO_THROW(frame = serialize_error(request_id{bad}, {-32000, bad, {{"k", bad}}}));
  EXPECT_FALSE(json::parse(frame, nullptr, false).is_discarded()) << frame;
  ASSERT_NO_THROW(frame = serialize_notification(bad, {{"p", bad}}));
  EXPECT_FALSE(json::parse(frame, nullptr, false).is_discarded()) << frame;
  EXPECT_NO_THROW((void)id_key(request_id{bad}));
}

TEST(SerializeNeverThrows, NonFiniteNumbersBecomeNull) {
  const std::string frame = serialize_result(request_id{std::int64_t{1}},
                                             {{"n", std::numeric_limits<double>::infinity()}});
  EXPECT_EQ(json::parse(frame)["result"]["n"], nullptr);
}

TEST(TolerantId, ReadsTheTopLevelIdOnly) {
  using detail::tolerant_top_level_id;
  EXPECT_EQ(tolerant_top_level_id(R"({"a":{"id":9},"id":2})"), request_id{std::int64_t{2}});
  EXPECT_EQ(tolerant_top_level_id(R"( { "x" : [1,"]",{}] , "id" : "s" , )"),
            request_id{std::string("s")});
  EXPECT_EQ(tolerant_top_level_id(R"({"id":1.5})"), std::nullopt);
  EXPECT_EQ(tolerant_top_level_id(R"({"id":true})"), std::nullopt);
  EXPECT_EQ(tolerant_top_level_id(R"({"id":99999999999999999999})"), std::nullopt);
  EXPECT_EQ(tolerant_top_level_id(R"([{"id":1}])"), std::nullopt);
  EXPECT_EQ(tolerant_top_level_id(R"({"i\u0064":1})"), std::nullopt);
  EXPECT_EQ(tolerant_top_level_id(R"({"a":"unterminated)"), std::nullopt);
  EXPECT_EQ(tolerant_top_level_id(""), std::nullopt);
}

TEST(LoneSurrogate, FindsUnpairedEscapesOnly) {
  using detail::first_lone_surrogate;
  EXPECT_EQ(first_lone_surrogate(R"("\uD83D\uDE00")"), std::nullopt);
  EXPECT_EQ(first_lone_surrogate(R"("\uD800")"), 1u);
  EXPECT_EQ(first_lone_surrogate(R"("\uDC00")"), 1u);
  EXPECT_EQ(first_lone_surrogate(R"("ab\uD800\u0041")"), 3u);
  EXPECT_EQ(first_lone_surrogate(R"("\\uD800")"), std::nullopt) << "an escaped backslash";
  EXPECT_EQ(first_lone_surrogate(R"(\uD800)"), std::nullopt) << "outside strings";
  EXPECT_EQ(first_lone_surrogate(R"("\uD8)"), std::nullopt);
}

}  // namespace
}  // namespace mcpcxx::jsonrpc

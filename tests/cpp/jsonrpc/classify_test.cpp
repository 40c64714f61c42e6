// Classification of single messages: requests, notifications, responses and every -32600 path.
#include <gtest/gtest.h>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::jsonrpc {
namespace {

TEST(Classify, RequestWithIntegerId) {
  const message m = parse(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"a":1}})");
  ASSERT_EQ(m.kind, message_kind::request);
  EXPECT_EQ(m.id, request_id{std::int64_t{7}});
  EXPECT_EQ(m.method, "tools/list");
  EXPECT_EQ(m.params, json({{"a", 1}}));
  EXPECT_EQ(m.body.at("method"), "tools/list");
  EXPECT_EQ(m.body.at("id"), 7);
}

TEST(Classify, RequestWithStringIdAndNoParams) {
  const message m = parse(R"({"jsonrpc":"2.0","id":"abc","method":"ping"})");
  ASSERT_EQ(m.kind, message_kind::request);
  EXPECT_EQ(m.id, request_id{std::string("abc")});
  EXPECT_TRUE(m.params.is_null());
}

TEST(Classify, NegativeZeroAndExtremeIntegerIds) {
  EXPECT_EQ(parse(R"({"jsonrpc":"2.0","id":-0,"method":"m"})").id, request_id{std::int64_t{0}});
  EXPECT_EQ(parse(R"({"jsonrpc":"2.0","id":-5,"method":"m"})").id, request_id{std::int64_t{-5}});
  EXPECT_EQ(parse(R"({"jsonrpc":"2.0","id":9223372036854775807,"method":"m"})").id,
            request_id{std::int64_t{9223372036854775807}});
  EXPECT_EQ(parse(R"({"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"})").id,
            request_id{std::numeric_limits<std::int64_t>::min()});
}

TEST(Classify, IdOutsideInt64IsInvalid) {
  const message m = parse(R"({"jsonrpc":"2.0","id":9223372036854775808,"method":"m"})");
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  EXPECT_FALSE(m.id.has_value());
}

TEST(Classify, EmptyStringIdIsAValidId) {
  const message m = parse(R"({"jsonrpc":"2.0","id":"","method":"m"})");
  ASSERT_EQ(m.kind, message_kind::request);
  EXPECT_EQ(m.id, request_id{std::string()});
}

TEST(Classify, ArrayParamsAreLeftToTheEngine) {
  const message m = parse(R"({"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]})");
  ASSERT_EQ(m.kind, message_kind::request);
  EXPECT_EQ(m.params, json::array({1, 2}));
}

TEST(Classify, Notification) {
  const message m = parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  ASSERT_EQ(m.kind, message_kind::notification);
  EXPECT_FALSE(m.id.has_value());
  EXPECT_EQ(m.method, "notifications/initialized");
}

TEST(Classify, NotificationWithParams) {
  const message m =
      parse(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})");
  ASSERT_EQ(m.kind, message_kind::notification);
  EXPECT_EQ(m.params.at("requestId"), 3);
}

class InvalidIds : public ::testing::TestWithParam<const char*> {};

TEST_P(InvalidIds, AreRejectedWithIdNull) {
  const std::string text = std::string(R"({"jsonrpc":"2.0","method":"m","id":)") + GetParam() + "}";
  const message m = parse(text);
  EXPECT_EQ(m.kind, message_kind::invalid) << text;
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  EXPECT_FALSE(m.id.has_value());
  EXPECT_NE(m.error.message.find("\"id\" must be a string or an integer"), std::string::npos)
      << m.error.message;
}

INSTANTIATE_TEST_SUITE_P(Classify, InvalidIds,
                         ::testing::Values("null", "true", "false", "1.0", "1.5", "1e3", "-0.0",
                                           "{}", R"({"x":1})", "[]", "[1]"));

TEST(Classify, JsonrpcVersionMustBeExactly2_0) {
  for (const char* v : {R"("1.0")", R"("2.0 ")", R"("2")", "2.0", "2", "null", R"("")"}) {
    const message m = parse(std::string(R"({"id":4,"method":"m","jsonrpc":)") + v + "}");
    EXPECT_EQ(m.kind, message_kind::invalid) << v;
    EXPECT_EQ(m.error.code, error_code::invalid_request);
    EXPECT_EQ(m.id, request_id{std::int64_t{4}}) << "the readable id is echoed";
    EXPECT_NE(m.error.message.find("\"jsonrpc\" must be exactly \"2.0\""), std::string::npos);
  }
}

TEST(Classify, MissingJsonrpcEchoesStringId) {
  const message m = parse(R"({"id":"x-1","method":"m"})");
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.id, request_id{std::string("x-1")});
}

TEST(Classify, MethodMustBeAString) {
  for (const char* v : {"1", "null", "[]", "{}", "true"}) {
    const message m = parse(std::string(R"({"jsonrpc":"2.0","id":2,"method":)") + v + "}");
    EXPECT_EQ(m.kind, message_kind::invalid) << v;
    EXPECT_EQ(m.error.code, error_code::invalid_request);
    EXPECT_EQ(m.id, request_id{std::int64_t{2}});
    EXPECT_NE(m.error.message.find("\"method\" must be a string"), std::string::npos);
  }
}

TEST(Classify, ParamsMustBeStructured) {
  for (const char* v : {"1", "null", R"("x")", "true"}) {
    const message m =
        parse(std::string(R"({"jsonrpc":"2.0","id":"p","method":"m","params":)") + v + "}");
    EXPECT_EQ(m.kind, message_kind::invalid) << v;
    EXPECT_EQ(m.error.code, error_code::invalid_request);
    EXPECT_EQ(m.id, request_id{std::string("p")});
    EXPECT_NE(m.error.message.find("\"params\" must be an object"), std::string::npos);
  }
}

TEST(Classify, NeitherMethodNorResult) {
  const message m = parse(R"({"jsonrpc":"2.0","id":9})");
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  EXPECT_EQ(m.id, request_id{std::int64_t{9}});
  EXPECT_NE(m.error.message.find("neither \"method\""), std::string::npos);
}

TEST(Classify, NonObjectTopLevelValues) {
  for (const char* v : {R"("hello")", "42", "true", "null", "1.5"}) {
    const message m = parse(v);
    EXPECT_EQ(m.kind, message_kind::invalid) << v;
    EXPECT_EQ(m.error.code, error_code::invalid_request);
    EXPECT_FALSE(m.id.has_value());
    EXPECT_NE(m.error.message.find("must be a JSON object"), std::string::npos);
  }
}

TEST(Classify, ResultResponse) {
  const message m = parse(R"({"jsonrpc":"2.0","id":"s1","result":{"ok":true}})");
  ASSERT_EQ(m.kind, message_kind::response);
  EXPECT_EQ(m.id, request_id{std::string("s1")});
  EXPECT_EQ(m.body.at("result").at("ok"), true);
}

TEST(Classify, ErrorResponse) {
  const message m =
      parse(R"({"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no","data":[1]}})");
  ASSERT_EQ(m.kind, message_kind::response);
  EXPECT_EQ(m.id, request_id{std::int64_t{3}});
  EXPECT_EQ(m.body.at("error").at("code"), -1);
}

TEST(Classify, ErrorResponseWithNullIdIsAResponseWithoutId) {
  const message m = parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})");
  ASSERT_EQ(m.kind, message_kind::response);
  EXPECT_FALSE(m.id.has_value());
}

TEST(Classify, ResultResponseNeedsAValidId) {
  for (const char* text :
       {R"({"jsonrpc":"2.0","result":{}})", R"({"jsonrpc":"2.0","id":null,"result":{}})",
        R"({"jsonrpc":"2.0","id":1.5,"result":{}})",
        R"({"jsonrpc":"2.0","error":{"code":1,"message":"m"}})"}) {
    const message m = parse(text);
    EXPECT_EQ(m.kind, message_kind::invalid) << text;
    EXPECT_EQ(m.error.code, error_code::invalid_request);
    EXPECT_FALSE(m.id.has_value());
    EXPECT_NE(m.error.message.find("response \"id\""), std::string::npos) << m.error.message;
  }
}

TEST(Classify, ResponseWithBothResultAndError) {
  const message m =
      parse(R"({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}})");
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.id, request_id{std::int64_t{1}});
  EXPECT_NE(m.error.message.find("both \"result\" and \"error\""), std::string::npos);
}

TEST(Classify, MalformedErrorObject) {
  for (const char* e : {"1", R"({"code":"x","message":"m"})", R"({"code":1})", R"({"message":"m"})",
                        R"({"code":1.5,"message":"m"})", R"({"code":1,"message":2})"}) {
    const message m = parse(std::string(R"({"jsonrpc":"2.0","id":1,"error":)") + e + "}");
    EXPECT_EQ(m.kind, message_kind::invalid) << e;
    EXPECT_EQ(m.error.code, error_code::invalid_request);
    EXPECT_NE(m.error.message.find("integer \"code\""), std::string::npos);
  }
}

TEST(Classify, ClassifyRejectsNestedArraysAsBatchElements) {
  const message m = classify(json::array({1}));
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  EXPECT_NE(m.error.message.find("inside a batch"), std::string::npos);
}

TEST(Classify, ClassifyAcceptsAParsedBatchElement) {
  const message m = classify(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}});
  EXPECT_EQ(m.kind, message_kind::request);
  EXPECT_EQ(m.method, "ping");
}

TEST(Classify, ErrorMessagesAreSingleShortSentences) {
  for (const char* text : {R"({"id":1,"method":"m"})", R"({"jsonrpc":"2.0","id":{},"method":"m"})",
                           R"({"jsonrpc":"2.0","id":1})", "[]", "", "{", "5"}) {
    const message m = parse(text);
    ASSERT_EQ(m.kind, message_kind::invalid) << text;
    EXPECT_LT(m.error.message.size(), 160u) << m.error.message;
    EXPECT_EQ(m.error.message.back(), '.') << m.error.message;
    EXPECT_EQ(m.error.message.find(". "), std::string::npos) << "one sentence: " << m.error.message;
    EXPECT_NE(m.error.message.find("; "), std::string::npos)
        << "says what to do: " << m.error.message;
  }
}

TEST(Batch, ArrayIsClassifiedAsBatch) {
  const message m =
      parse(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}])");
  ASSERT_EQ(m.kind, message_kind::batch);
  ASSERT_TRUE(m.body.is_array());
  EXPECT_EQ(m.body.size(), 2u);
  EXPECT_FALSE(m.id.has_value());
}

TEST(Batch, EmptyArrayIsInvalid) {
  const message m = parse(" [ ] ");
  EXPECT_EQ(m.kind, message_kind::invalid);
  EXPECT_EQ(m.error.code, error_code::invalid_request);
  EXPECT_NE(m.error.message.find("batch is empty"), std::string::npos);
}

TEST(Ids, IdToJson) {
  EXPECT_EQ(id_to_json(request_id{std::int64_t{12}}), json(12));
  EXPECT_EQ(id_to_json(request_id{std::string("12")}), json("12"));
}

TEST(Ids, IdKeyDistinguishesStringsFromIntegers) {
  EXPECT_EQ(id_key(request_id{std::int64_t{-12}}), "-12");
  EXPECT_EQ(id_key(request_id{std::string("12")}), "\"12\"");
  EXPECT_EQ(id_key(request_id{std::string("a\"b")}), R"("a\"b")");
  EXPECT_NE(id_key(request_id{std::int64_t{1}}), id_key(request_id{std::string("1")}));
}

}  // namespace
}  // namespace mcpcxx::jsonrpc

// serialize_*: compact, exact wire text; error data omitted when null; id null when absent.
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/jsonrpc.hpp"

#include "jsonrpc/plain_text.hpp"
#include "jsonrpc/splice.hpp"

namespace mcpcxx::jsonrpc {
namespace {

TEST(Serialize, ResultWithIntegerId) {
  EXPECT_EQ(serialize_result(request_id{std::int64_t{-3}}, json{{"b", 1}, {"a", {1, 2}}}),
            R"({"jsonrpc":"2.0","id":-3,"result":{"a":[1,2],"b":1}})");
}

TEST(Serialize, ResultWithStringIdNeedingEscapes) {
  EXPECT_EQ(serialize_result(request_id{std::string("a\"b\\c\n")}, json::object()),
            R"({"jsonrpc":"2.0","id":"a\"b\\c\n","result":{}})");
}

TEST(Serialize, ResultWithNonAsciiStringId) {
  const std::string out = serialize_result(request_id{std::string("\xC3\xA9")}, json::object());
  EXPECT_EQ(out, "{\"jsonrpc\":\"2.0\",\"id\":\"\xC3\xA9\",\"result\":{}}");
}

TEST(Serialize, ExtremeIntegerIds) {
  EXPECT_EQ(serialize_result(request_id{std::numeric_limits<std::int64_t>::min()}, 1),
            R"({"jsonrpc":"2.0","id":-9223372036854775808,"result":1})");
}

TEST(Serialize, ResultRoundTripsThroughParse) {
  const json result = {{"content", {{{"type", "text"}, {"text", "hi \xE2\x82\xAC"}}}}};
  const std::string out = serialize_result(request_id{std::string("r")}, result);
  const message m = parse(out);
  ASSERT_EQ(m.kind, message_kind::response);
  EXPECT_EQ(m.body.at("result"), result);
}

TEST(Serialize, IllFormedUtf8InResultIsReplacedNotThrown) {
  const std::string out = serialize_result(request_id{std::int64_t{1}}, json("a\xFF"
                                                                             "b"));
  EXPECT_EQ(out,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\xEF\xBF\xBD"
            "b\"}");
}

TEST(Serialize, ErrorWithoutDataOmitsIt) {
  EXPECT_EQ(serialize_error(request_id{std::int64_t{5}}, {-32601, "Method not found: x", nullptr}),
            R"({"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: x"}})");
}

TEST(Serialize, ErrorWithData) {
  EXPECT_EQ(
      serialize_error(request_id{std::string("q")}, {-32601, "m", json{{"method", "x"}}}),
      R"({"jsonrpc":"2.0","id":"q","error":{"code":-32601,"message":"m","data":{"method":"x"}}})");
}

TEST(Serialize, ErrorWithFalsyButNonNullData) {
  EXPECT_EQ(serialize_error(std::nullopt, {1, "m", json::object()}),
            R"({"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m","data":{}}})");
  EXPECT_EQ(serialize_error(std::nullopt, {1, "m", false}),
            R"({"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m","data":false}})");
}

TEST(Serialize, ErrorWithoutIdWritesNull) {
  EXPECT_EQ(
      serialize_error(std::nullopt, {-32700, "Message is \"bad\"", nullptr}),
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Message is \"bad\""}})");
}

TEST(Serialize, ParseErrorRepliesAreThemselvesValidResponses) {
  const message bad = parse("{oops");
  const message reply = parse(serialize_error(bad.id, bad.error));
  ASSERT_EQ(reply.kind, message_kind::response);
  EXPECT_EQ(reply.body.at("error").at("code"), -32700);
  EXPECT_TRUE(reply.body.at("id").is_null());
}

TEST(Serialize, NotificationWithAndWithoutParams) {
  EXPECT_EQ(serialize_notification("notifications/tools/list_changed", nullptr),
            R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
  EXPECT_EQ(serialize_notification("notifications/progress", json{{"progress", 1}}),
            R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})");
}

TEST(Serialize, NotificationMethodIsEscaped) {
  EXPECT_EQ(serialize_notification("a\"b", json::object()),
            R"({"jsonrpc":"2.0","method":"a\"b","params":{}})");
}

TEST(Serialize, OutputHasNoNewlines) {
  const std::string out =
      serialize_result(request_id{std::int64_t{1}}, json{{"text", "line1\nline2\r\n"}});
  EXPECT_EQ(out.find('\n'), std::string::npos);
  EXPECT_EQ(out.find('\r'), std::string::npos);
}

// The writer's own walk (plain strings, integers, containers) must give nlohmann's exact bytes
// for every kind of value, including those it hands back to nlohmann (floats, escapes, UTF-8).
TEST(Serialize, ResultBytesEqualNlohmannDumpForEveryKindOfValue) {
  const json value = {{"plain", "hello world"},
                      {"escapes", "quote \" backslash \\ newline \n tab \t nul " +
                                      std::string(1, '\0') + " del \x7F"},
                      {"utf8", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"},
                      {"ints",
                       {0, -1, 1, std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::int64_t>::max()}},
                      {"unsigned", std::numeric_limits<std::uint64_t>::max()},
                      {"floats", {0.0, -0.0, 1.5, 2.0, 1e300, 3.141592653589793, 1e-7}},
                      {"bools", {true, false}},
                      {"null", nullptr},
                      {"empty object", json::object()},
                      {"empty array", json::array()},
                      {"nested", {{"a", {{"b", {1, {{"c", "d"}}, json::array()}}}}}},
                      {"key \"quoted\"\n", 1},
                      {"cl\xC3\xA9", "k"}};
  EXPECT_EQ(serialize_result(request_id{std::int64_t{1}}, value),
            R"({"jsonrpc":"2.0","id":1,"result":)" + value.dump() + "}");
}

// The writer escapes ASCII itself (append_quoted_ascii): every one of the 128 ASCII bytes, alone
// and between plain runs, must give nlohmann's bytes, in values and in keys; a byte of 0x80 or
// above leaves the string to nlohmann, untouched.
TEST(Serialize, EveryAsciiByteIsEscapedAsNlohmannDoes) {
  for (int b = 0; b < 0x80; ++b) {
    const std::string c(1, static_cast<char>(b));
    std::string between = "ab";
    between.append(c).append("cd").append(c);
    for (const std::string& text : {c, between, std::string(2, c[0]).append("x")}) {
      const json value = {{text, text}, {"k", json::array({text})}};
      EXPECT_EQ(serialize_result(request_id{std::int64_t{1}}, value),
                R"({"jsonrpc":"2.0","id":1,"result":)" + value.dump() + "}")
          << "byte " << b;
    }
  }
  std::string out = "x";
  EXPECT_FALSE(append_quoted_ascii(out, "line\nthen caf\xC3\xA9"));
  EXPECT_EQ(out, "x");
  EXPECT_TRUE(append_quoted_ascii(out, "a\"b\\c\nd\x01"));
  EXPECT_EQ(out, R"(x"a\"b\\c\nd\u0001")");
}

// The spliced members must give the bytes of setting them in the tree and dumping it: every
// modern reply's resultType and serverInfo are written this way (golden transcripts rely on it).
std::string decorated_then_dumped(json result, const json& info, const char* type) {
  if (result.is_null()) result = json::object();
  result["resultType"] = type;
  json& meta = result["_meta"];
  if (!meta.is_object()) meta = json::object();
  meta["io.modelcontextprotocol/serverInfo"] = info;
  return mcpcxx::jsonrpc::serialize_result(std::int64_t{7}, result);
}

TEST(Serialize, SplicedMembersEqualTheDecoratedTreeDumped) {
  const json info = {{"name", "srv \"q\""}, {"version", "1.0"}, {"title", "Ünï"}};
  const std::string info_text = info.dump(-1, ' ', false, json::error_handler_t::replace);
  const json results[] = {
      json::object(),
      nullptr,
      {{"content", json::array({{{"type", "text"}, {"text", "hi"}}})}},
      {{"_meta", {{"a", 1}, {"zzz", 2}, {"io.modelcontextprotocol/serverInfo", "stale"}}}},
      {{"_meta", "not an object"}, {"isError", true}},
      {{"_meta", json::object()}, {"resultType", "stale"}, {"structuredContent", {{"x", 1}}}},
      {{"$first", 1}, {"A", 2}, {"_", 3}, {"_meta0", 4}, {"resultTypeX", 5}, {"resultTyp", 6}},
      {{"z", {{"_meta", 1}, {"resultType", 2}}}},
  };
  for (const char* type : {"complete", "input_required", "task"}) {
    const std::string type_text = json(type).dump();
    for (const json& r : results) {
      const json tree = r.is_null() ? json::object() : r;
      EXPECT_EQ(mcpcxx::jsonrpc::serialize_result_spliced(
                    std::int64_t{7}, tree,
                    {{{}, "resultType", type_text},
                     {"_meta", "io.modelcontextprotocol/serverInfo", info_text}}),
                decorated_then_dumped(r, info, type))
          << r.dump();
    }
  }
}

TEST(Serialize, SplicedMembersAtOneLevelKeepTheirSortedOrder) {
  const std::string s = mcpcxx::jsonrpc::serialize_result_spliced(
      std::int64_t{1}, json{{"m", 1}},
      {{{}, "z", "3"}, {{}, "a", "0"}, {"p", "y", "2"}, {"p", "b", "1"}});
  EXPECT_EQ(s, R"({"jsonrpc":"2.0","id":1,"result":{"a":0,"m":1,"p":{"b":1,"y":2},"z":3}})");
}

}  // namespace
}  // namespace mcpcxx::jsonrpc

// The codec names the situation-table row of every refusal (message::refusal), so the engine and
// the transports take the row from the codec instead of inferring it from the JSON-RPC code.
// Before this, parse() returned only the rendered error and every P2/P3 row looked alike.
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/jsonrpc.hpp"

#include "wire/situation.hpp"

namespace mcpcxx::jsonrpc {
namespace {

struct bad_input {
  std::string name;
  std::string bytes;
  std::string row;  ///< the stable id the codec must name
};

void PrintTo(const bad_input& c, std::ostream* os) { *os << c.name; }

std::vector<bad_input> cases() {
  const std::string deep = std::string(70, '[') + std::string(70, ']');
  return {
      {"not_json", "{\"jsonrpc\":", "P1"},
      {"blank", " \t ", "P1a"},
      {"invalid_utf8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\xff\"}", "P1b"},
      {"lone_surrogate", R"({"jsonrpc":"2.0","id":1,"method":"\udc00"})", "P1c"},
      {"number_out_of_range", R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"n":1e400}})",
       "P1d"},
      {"not_an_object", "42", "P2"},
      {"string", "\"ping\"", "P2"},
      {"missing_jsonrpc", R"({"id":1,"method":"ping"})", "P2b"},
      {"wrong_jsonrpc", R"({"jsonrpc":"1.0","id":1,"method":"ping"})", "P2b"},
      {"bad_id_type", R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", "P2c"},
      {"method_not_string", R"({"jsonrpc":"2.0","id":1,"method":7})", "P2d"},
      {"params_not_structured", R"({"jsonrpc":"2.0","id":1,"method":"m","params":3})", "P2e"},
      {"neither_call_nor_response", R"({"jsonrpc":"2.0","id":1})", "P2f"},
      {"result_and_error",
       R"({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}})", "P2g"},
      {"bad_error_object", R"({"jsonrpc":"2.0","id":1,"error":{"code":"x"}})", "P2h"},
      {"response_bad_id", R"({"jsonrpc":"2.0","id":true,"result":{}})", "P2i"},
      {"too_deep", deep, "P3a"},
      {"empty_batch", "[]", "P5a"},
  };
}

class refusal_row : public ::testing::TestWithParam<bad_input> {};

TEST_P(refusal_row, parse_names_the_row_it_rendered) {
  const bad_input& c = GetParam();
  const message m = parse(c.bytes);
  ASSERT_EQ(m.kind, message_kind::invalid) << c.bytes;
  ASSERT_TRUE(m.refusal.has_value()) << "the codec must name its row for " << c.name;
  const wire::row& r = wire::row_of(*m.refusal);
  EXPECT_EQ(r.id, c.row) << c.name;
  EXPECT_EQ(m.error.code, r.code) << "the error is the named row's rendering";
}

INSTANTIATE_TEST_SUITE_P(codec, refusal_row, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(RefusalRow, SizeLimitIsP3) {
  parse_limits small;
  small.max_message_bytes = 16;
  const message m = parse(R"({"jsonrpc":"2.0","id":9,"method":"ping"})", small);
  ASSERT_TRUE(m.refusal.has_value());
  EXPECT_EQ(wire::row_of(*m.refusal).id, "P3");
  EXPECT_EQ(m.id, request_id{std::int64_t{9}});
}

TEST(RefusalRow, ClassifyNamesTheRowOfABatchMember) {
  const message nested = classify(json::array({1}));
  ASSERT_TRUE(nested.refusal.has_value());
  EXPECT_EQ(wire::row_of(*nested.refusal).id, "P2a");
  const message scalar = classify(json(1));
  ASSERT_TRUE(scalar.refusal.has_value());
  EXPECT_EQ(wire::row_of(*scalar.refusal).id, "P2");
}

TEST(RefusalRow, AcceptedMessagesNameNoRow) {
  for (const char* ok : {R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                         R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                         R"({"jsonrpc":"2.0","id":1,"result":{}})", R"([{"jsonrpc":"2.0"}])"}) {
    const message m = parse(ok);
    EXPECT_NE(m.kind, message_kind::invalid) << ok;
    EXPECT_FALSE(m.refusal.has_value()) << ok;
  }
}

}  // namespace
}  // namespace mcpcxx::jsonrpc

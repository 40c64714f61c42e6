// 2025-03-26 batch limits (issue 10): the member count (P28) and the reply bytes (P29), and the
// reply handed to the sink as pieces (frame_sink::send_pieces) rather than one joined string.
#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

/// Records batch replies given as pieces, and plain frames, separately.
class pieces_sink final : public frame_sink {
 public:
  void send(std::string frame, frame_kind) override {
    std::lock_guard lock(mutex_);
    frames.push_back(json::parse(frame));
  }
  void send_pieces(std::vector<std::string> pieces, const frame_info&) override {
    std::lock_guard lock(mutex_);
    piece_counts.push_back(pieces.size());
    std::string joined;
    for (const auto& p : pieces) joined += p;
    batches.push_back(json::parse(joined));
  }
  std::vector<json> frames;
  std::vector<json> batches;
  std::vector<std::size_t> piece_counts;

 private:
  std::mutex mutex_;
};

json echo_batch(int members, std::size_t text_bytes) {
  json batch = json::array();
  for (int id = 1; id <= members; ++id) {
    batch.push_back(json::parse(
        request(id, "tools/call",
                {{"name", "echo"}, {"arguments", {{"text", std::string(text_bytes, 'x')}}}})));
  }
  return batch;
}

class batch_limits_test : public ::testing::Test {
 protected:
  std::shared_ptr<pieces_sink> sink = std::make_shared<pieces_sink>();
  std::unique_ptr<server> srv;
  std::optional<session> s;

  void start(std::size_t max_members, std::size_t max_reply_bytes) {
    server_options o = captured_log{}.options();
    o.max_batch_members = max_members;
    o.max_batch_reply_bytes = max_reply_bytes;
    srv = std::make_unique<server>(o);
    srv->add_tool({.name = "echo"}, [](const json& a, request_context&) {
      return tool_result::text(a.value("text", ""));
    });
    s = srv->open_session(sink, {.inline_dispatch = true});
    s->receive(request(0, "initialize",
                       {{"protocolVersion", "2025-03-26"},
                        {"capabilities", json::object()},
                        {"clientInfo", {{"name", "t"}, {"version", "1"}}}}));
    s->receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    sink->frames.clear();
  }
};

TEST_F(batch_limits_test, a_batch_over_the_member_limit_is_refused_whole_with_p28) {
  start(5, 1u << 20);
  s->receive(echo_batch(6, 1).dump());
  ASSERT_EQ(sink->frames.size(), 1u);
  EXPECT_TRUE(sink->batches.empty()) << "no member may run";
  const json& e = sink->frames[0];
  EXPECT_TRUE(e["id"].is_null());
  EXPECT_EQ(e["error"]["code"], -32600);
  EXPECT_EQ(e["error"]["data"]["members"], 6);
  EXPECT_EQ(e["error"]["data"]["limit"], 5);
  EXPECT_EQ(srv->metrics().by_category.at("batch_too_many_members"), 1u);
}

TEST_F(batch_limits_test, a_batch_at_the_member_limit_is_served) {
  start(5, 1u << 20);
  s->receive(echo_batch(5, 1).dump());
  ASSERT_EQ(sink->batches.size(), 1u);
  EXPECT_EQ(sink->batches[0].size(), 5u);
}

TEST_F(batch_limits_test, members_past_the_reply_byte_limit_get_p29_and_the_reply_stays_bounded) {
  constexpr std::size_t k_limit = 10000;
  start(1000, k_limit);
  s->receive(echo_batch(20, 1000).dump());  // about 20 x 1.1 KB of replies
  ASSERT_EQ(sink->batches.size(), 1u);
  const json& reply = sink->batches[0];
  ASSERT_EQ(reply.size(), 20u) << "every member still gets exactly one reply";
  std::size_t results = 0;
  std::size_t refused = 0;
  for (const auto& m : reply) {
    if (m.contains("result")) ++results;
    if (m.contains("error")) {
      ++refused;
      EXPECT_EQ(m["error"]["code"], -32603);
      EXPECT_EQ(m["error"]["data"]["limit"], k_limit);
      EXPECT_TRUE(m["id"].is_number_integer()) << "the member's id is echoed";
    }
  }
  EXPECT_GT(results, 0u);
  EXPECT_GT(refused, 0u);
  EXPECT_LT(reply.dump().size(), k_limit + refused * 400);
}

TEST_F(batch_limits_test, the_reply_reaches_the_sink_as_pieces_not_one_string) {
  start(1000, 1u << 20);
  s->receive(echo_batch(3, 5).dump());
  ASSERT_EQ(sink->piece_counts.size(), 1u);
  EXPECT_EQ(sink->piece_counts[0], 7u);  // "[", m1, ",", m2, ",", m3, "]"
}

TEST(batch_pieces_default, a_sink_without_send_pieces_gets_one_joined_frame) {
  server_options o = captured_log{}.options();
  server srv(o);
  srv.add_tool({.name = "echo"}, [](const json& a, request_context&) {
    return tool_result::text(a.value("text", ""));
  });
  harness h(srv);
  h.initialize("2025-03-26");
  h.sink->clear();
  h.s.receive(echo_batch(2, 3).dump());
  auto frames = h.sink->frames();
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_TRUE(frames[0].frame.is_array());
  EXPECT_EQ(frames[0].frame.size(), 2u);
}

}  // namespace
}  // namespace mcpcxx::testing

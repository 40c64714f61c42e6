// One exchange per request: row ids handed to transports, batches with cancelled members,
// legacy capability errors, and the era hint.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

// Records the frame_info of every frame next to the frame.
class info_sink final : public frame_sink {
 public:
  void send(std::string, frame_kind) override {}
  void send_frame(std::string frame, const frame_info& info) override {
    std::lock_guard lock(mutex_);
    seen.push_back({json::parse(frame), std::string(info.situation), info.modern, info.kind});
  }
  struct entry {
    json frame;
    std::string situation;
    bool modern;
    frame_kind kind;
  };
  std::vector<entry> seen;

 private:
  std::mutex mutex_;
};

class exchange_test : public ::testing::Test {
 protected:
  captured_log log;
  std::unique_ptr<server> srv;

  void SetUp() override {
    srv = std::make_unique<server>(log.options());
    srv->add_tool({.name = "echo"}, [](const json& a, request_context&) {
      return tool_result::text(a.value("text", "none"));
    });
    srv->add_tool({.name = "wait_cancel"}, [](const json&, request_context& ctx) {
      while (!ctx.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      return tool_result::text("cancelled");
    });
    srv->add_tool({.name = "needs_elicitation"}, [](const json&, request_context& ctx) {
      ctx.require_client_capability("elicitation");
      return tool_result::text("ok");
    });
  }
};

TEST_F(exchange_test, every_error_reply_carries_its_row_and_results_carry_none) {
  auto sink = std::make_shared<info_sink>();
  session s = srv->open_session(sink, {.inline_dispatch = true});
  s.receive(modern_request(1, "no/such"));
  s.receive(modern_request(2, "ping"));
  s.receive(modern_request(3, "tools/call", {{"name", "echo"}}));
  s.receive(modern_request(4, "tools/call", {{"name", "ech"}}));
  s.receive(modern_request(5, "resources/read", json::object()));
  s.receive("{not json");
  ASSERT_EQ(sink->seen.size(), 6u);
  EXPECT_EQ(sink->seen[0].situation, "P8");
  EXPECT_EQ(sink->seen[1].situation, "P9");
  EXPECT_EQ(sink->seen[2].situation, "");
  EXPECT_TRUE(sink->seen[2].modern);
  EXPECT_EQ(sink->seen[3].situation, "P17");
  EXPECT_EQ(sink->seen[4].situation, "P10");  // no resources registered: capability gate
  EXPECT_EQ(sink->seen[5].situation, "P1");
}

// The codec names the row of a refused message; the engine passes it on unchanged (before, it
// inferred "P1" or "P2" from the JSON-RPC code, so these were P2, P1 and P2).
TEST_F(exchange_test, refused_messages_carry_the_row_the_codec_named) {
  auto sink = std::make_shared<info_sink>();
  session s = srv->open_session(sink, {.inline_dispatch = true});
  s.receive(R"({"id":1,"method":"ping"})");
  s.receive(R"({"jsonrpc":"2.0","id":2,"method":"m","params":{"n":1e400}})");
  s.receive("[]");
  ASSERT_EQ(sink->seen.size(), 3u);
  EXPECT_EQ(sink->seen[0].situation, "P2b");
  EXPECT_EQ(sink->seen[1].situation, "P1d");
  EXPECT_EQ(sink->seen[2].situation, "P5a");
}

TEST_F(exchange_test, params_decoding_errors_name_their_row) {
  auto sink = std::make_shared<info_sink>();
  session s = srv->open_session(sink, {.inline_dispatch = true});
  s.receive(modern_request(1, "tools/call", {{"name", 5}}));
  s.receive(modern_request(2, "tools/call", {{"name", "echo"}, {"arguments", json::array()}}));
  s.receive(modern_request(3, "tools/list", {{"cursor", 7}}));
  ASSERT_EQ(sink->seen.size(), 3u);
  EXPECT_EQ(sink->seen[0].situation, "P16");
  EXPECT_EQ(sink->seen[1].situation, "P16a");
  EXPECT_EQ(sink->seen[2].situation, "P15b");
  EXPECT_EQ(sink->seen[2].frame["error"]["message"],
            "Invalid params: cursor must be a string taken from a previous nextCursor");
}

// Regression: a cancelled member used to keep the batch waiting forever, losing every reply.
TEST_F(exchange_test, a_cancelled_batch_member_does_not_lose_the_other_replies) {
  harness h(*srv, /*inline_dispatch=*/false);
  h.initialize("2025-03-26");
  h.sink->clear();
  const json batch = json::array(
      {json::parse(request(1, "tools/call", {{"name", "wait_cancel"}})),
       json::parse(request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}))});
  h.s.receive(batch.dump());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  auto frames = h.sink->wait_for(1);
  ASSERT_EQ(frames.size(), 1u);
  const json& reply = frames[0].frame;
  ASSERT_TRUE(reply.is_array()) << reply.dump();
  ASSERT_EQ(reply.size(), 1u) << reply.dump();
  EXPECT_EQ(reply[0]["id"], 2);
  EXPECT_EQ(reply[0]["result"]["content"][0]["text"], "hi");
  h.s.wait_idle();
}

TEST_F(exchange_test, a_batch_whose_members_are_all_cancelled_sends_nothing) {
  harness h(*srv, /*inline_dispatch=*/false);
  h.initialize("2025-03-26");
  h.sink->clear();
  const json batch =
      json::array({json::parse(request(1, "tools/call", {{"name", "wait_cancel"}})),
                   json::parse(request(2, "tools/call", {{"name", "wait_cancel"}}))});
  h.s.receive(batch.dump());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}})");
  h.s.wait_idle();
  EXPECT_TRUE(h.sink->frames().empty());
}

// Regression: legacy sessions were told to declare the capability in _meta, which they cannot.
TEST_F(exchange_test, a_legacy_session_missing_a_client_capability_is_told_to_reinitialize) {
  harness h(*srv);
  h.initialize("2025-11-25");
  json r = h.roundtrip(request(5, "tools/call", {{"name", "needs_elicitation"}}));
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["code"], -32600);
  const std::string m = r["error"]["message"];
  EXPECT_EQ(m.find("_meta"), std::string::npos) << m;
  EXPECT_NE(m.find("initialize"), std::string::npos) << m;
  EXPECT_EQ(r["error"]["data"]["requiredCapabilities"], json({{"elicitation", json::object()}}));
  EXPECT_EQ(r["error"]["data"]["method"], "tools/call");
  // A legacy session that declared it is served.
  harness ok(*srv);
  ok.roundtrip(request(0, "initialize",
                       {{"protocolVersion", "2025-11-25"},
                        {"capabilities", {{"elicitation", json::object()}}},
                        {"clientInfo", {{"name", "t"}, {"version", "1"}}}}));
  json served = ok.roundtrip(request(6, "tools/call", {{"name", "needs_elicitation"}}));
  EXPECT_EQ(served["result"]["content"][0]["text"], "ok") << served.dump();
  // The modern era keeps -32021.
  harness modern(*srv);
  json m2 = modern.roundtrip(modern_request(7, "tools/call", {{"name", "needs_elicitation"}}));
  EXPECT_EQ(m2["error"]["code"], -32021);
}

TEST_F(exchange_test, the_era_hint_decides_the_era) {
  auto sink = std::make_shared<info_sink>();
  session s = srv->open_session(sink, {.inline_dispatch = true});
  // Modern hint: a request without _meta is a malformed modern request, not a legacy one.
  s.receive(request(1, "tools/list"), nullptr, era_hint::modern);
  // Modern hint: initialize does not exist in 2026-07-28.
  s.receive(request(2, "initialize", {{"protocolVersion", "2025-11-25"}}), nullptr,
            era_hint::modern);
  // Legacy hint: modern _meta does not bypass initialize.
  s.receive(modern_request(3, "tools/list"), nullptr, era_hint::legacy);
  // Unknown: the request's _meta decides.
  s.receive(modern_request(4, "tools/list"), nullptr, era_hint::unknown);
  ASSERT_EQ(sink->seen.size(), 4u);
  EXPECT_EQ(sink->seen[0].situation, "P11");
  EXPECT_EQ(sink->seen[1].situation, "P9");
  EXPECT_EQ(sink->seen[1].frame["error"]["code"], -32601);
  EXPECT_EQ(sink->seen[2].situation, "P14");
  EXPECT_FALSE(sink->seen[2].modern);
  EXPECT_EQ(sink->seen[3].situation, "");
  EXPECT_TRUE(sink->seen[3].modern);
}

TEST_F(exchange_test, the_request_log_names_the_row) {
  harness h(*srv);
  h.roundtrip(modern_request(1, "no/such"));
  bool found = false;
  for (const auto& line : log.snapshot()) {
    json j = json::parse(line);
    if (j["event"] == "request" && j.value("situation", "") == "P8") found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace mcpcxx::testing

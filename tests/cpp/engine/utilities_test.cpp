// Progress, logging (legacy setLevel and modern per-request logLevel) and cancellation tokens.
#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

class utilities_test : public ::testing::Test {
 protected:
  server srv{captured_log{}.options()};
  void SetUp() override {
    srv.add_tool({.name = "work"}, [](const json&, request_context& ctx) {
      ctx.report_progress(1, 3, "one");
      ctx.report_progress(2, 3);
      ctx.log(log_level::debug, "debug line");
      ctx.log(log_level::warning, {{"detail", "warn line"}}, "work");
      return tool_result::text("done");
    });
    srv.add_tool({.name = "backwards"}, [](const json&, request_context& ctx) {
      ctx.report_progress(5);
      ctx.report_progress(4);
      return tool_result::text("unreachable");
    });
  }
};

TEST_F(utilities_test, progress_notifications_echo_the_token_and_precede_the_response) {
  harness h(srv);
  json meta = modern_meta();
  meta["progressToken"] = "tok-1";
  h.s.receive(json{{"jsonrpc", "2.0"},
                   {"id", 1},
                   {"method", "tools/call"},
                   {"params", {{"name", "work"}, {"_meta", meta}}}}
                  .dump());
  auto frames = h.sink->frames();
  ASSERT_EQ(frames.size(), 3u);  // two progress, no log (no logLevel), one response
  EXPECT_EQ(frames[0].frame["method"], "notifications/progress");
  EXPECT_EQ(frames[0].frame["params"]["progressToken"], "tok-1");
  EXPECT_EQ(frames[0].frame["params"]["total"], 3);
  EXPECT_EQ(frames[0].kind, frame_kind::notification);
  EXPECT_EQ(frames[2].kind, frame_kind::response);
  EXPECT_EQ(frames[2].frame["id"], 1);
}

TEST_F(utilities_test, non_increasing_progress_is_refused) {
  harness h(srv);
  json r = h.roundtrip(modern_request(1, "tools/call", {{"name", "backwards"}}));
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["_meta"]["mcpcxx/error"]["category"], "internal");
}

TEST_F(utilities_test, legacy_set_level_filters_log_notifications) {
  harness h(srv);
  h.initialize();
  EXPECT_EQ(h.roundtrip(request(1, "logging/setLevel", {{"level", "warning"}}))["result"],
            json::object());
  EXPECT_EQ(h.roundtrip(request(2, "logging/setLevel", {{"level", "loud"}}))["error"]["code"],
            -32602);
  h.sink->clear();
  h.s.receive(request(3, "tools/call", {{"name", "work"}}));
  auto frames = h.sink->frames();
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].frame["method"], "notifications/message");
  EXPECT_EQ(frames[0].frame["params"]["level"], "warning");
  EXPECT_EQ(frames[0].frame["params"]["logger"], "work");
}

TEST_F(utilities_test, modern_log_level_comes_from_request_meta) {
  harness h(srv);
  json meta = modern_meta();
  meta["io.modelcontextprotocol/logLevel"] = "debug";
  h.s.receive(json{{"jsonrpc", "2.0"},
                   {"id", 1},
                   {"method", "tools/call"},
                   {"params", {{"name", "work"}, {"_meta", meta}}}}
                  .dump());
  EXPECT_EQ(h.sink->frames().size(), 3u);  // two log messages and the response (no token)
  meta["io.modelcontextprotocol/logLevel"] = "verbose";
  json r = h.roundtrip(json{{"jsonrpc", "2.0"},
                            {"id", 2},
                            {"method", "tools/call"},
                            {"params", {{"name", "work"}, {"_meta", meta}}}}
                           .dump());
  EXPECT_EQ(r["error"]["code"], -32602);
}

TEST(cancellation_token_test, callbacks_run_once_and_late_registration_runs_at_once) {
  cancellation_token t;
  int calls = 0;
  t.on_cancel([&] { ++calls; });
  EXPECT_FALSE(t.cancelled());
  t.cancel();
  t.cancel();
  EXPECT_TRUE(t.cancelled());
  EXPECT_EQ(calls, 1);
  t.on_cancel([&] { ++calls; });
  EXPECT_EQ(calls, 2);
}

TEST(cancellation_test, initialize_cannot_be_cancelled) {
  server srv(captured_log{}.options());
  harness h(srv);
  h.s.cancel(std::int64_t{0}, "no");
  EXPECT_EQ(h.initialize()["result"]["protocolVersion"], "2025-11-25");
}

}  // namespace
}  // namespace mcpcxx::testing

// http_options::inline_dispatch: handlers run on the I/O thread that read the request. The wire is
// the same as with the worker pool; what changes is that a running handler holds its I/O thread.
#include <future>
#include <stdexcept>
#include <string>

#include "mcpcxx/http_json.hpp"

#include "http/fixture.hpp"
#include "http/hold_and_peer.hpp"

namespace mcpcxx::http_test {
namespace {

http_options inline_options(std::size_t io_threads = 1) {
  http_options o;
  o.inline_dispatch = true;
  o.io_threads = io_threads;
  return o;
}

TEST(HttpInline, ModernCallsAreAnsweredLikeOnThePool) {
  http_fixture f(inline_options());
  client c(f.port());
  for (int i = 0; i < 20; ++i) {
    const std::string text = "call " + std::to_string(i);
    auto call = modern_call(i, "echo", {{"text", text}});
    const reply r = c.post(call.body, call.headers);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json_body()["id"], i);
    EXPECT_EQ(r.json_body()["result"]["content"][0]["text"], text) << r.body;
  }
  // Refusals take the same path: an unknown tool is still a protocol error.
  auto unknown = modern_call(99, "no_such_tool");
  const reply missing = c.post(unknown.body, unknown.headers);
  ASSERT_EQ(missing.status, 200) << missing.body;
  EXPECT_EQ(missing.json_body()["error"]["code"], -32602) << missing.body;
}

TEST(HttpInline, LegacySessionCallsAndProgressStreamAreAnswered) {
  http_fixture f(inline_options());
  client c(f.port());
  const std::string sid = open_legacy_session(c);
  const reply echo = c.post(legacy_call(2, "echo", {{"text", "legacy"}}), legacy_headers(sid));
  ASSERT_EQ(echo.status, 200) << echo.body;
  EXPECT_EQ(echo.json_body()["result"]["content"][0]["text"], "legacy") << echo.body;
  // Progress events are written after the handler returns, in order, before the result.
  const reply progress = c.post(legacy_call(3, "progress", json::object(), {{"progressToken", 7}}),
                                legacy_headers(sid));
  ASSERT_EQ(progress.status, 200) << progress.body;
  const auto events = progress.events();
  ASSERT_EQ(events.size(), 4U) << progress.body;
  for (std::size_t i = 0; i < 3; ++i) {
    const json note = json::parse(events[i]);
    EXPECT_EQ(note["method"], "notifications/progress") << events[i];
    EXPECT_EQ(note["params"]["progress"], static_cast<double>(i + 1)) << events[i];
  }
  EXPECT_EQ(json::parse(events[3])["result"]["content"][0]["text"], "done") << events[3];
}

TEST(HttpInline, ARunningHandlerHoldsItsIoThread) {
  http_fixture f(inline_options(1));
  auto st = std::make_shared<hold_and_peer>();
  add_hold_and_peer(*f.srv, st, std::chrono::milliseconds(300));
  // The only I/O thread is inside "hold": "peer" is read only once "hold" returned.
  EXPECT_EQ(hold_then_peer(f, st), "alone");
}

TEST(HttpInline, ThePoolRunsAPeerBesideARunningHandler) {
  http_fixture f;  // the default: handlers on the worker pool
  auto st = std::make_shared<hold_and_peer>();
  add_hold_and_peer(*f.srv, st, std::chrono::seconds(20));
  EXPECT_EQ(hold_then_peer(f, st), "met");
}

TEST(HttpInline, TheOptionRoundTripsThroughJsonAndIsCheckedThere) {
  const http_options parsed = json{{"inline_dispatch", true}, {"io_threads", 2}};
  EXPECT_TRUE(parsed.inline_dispatch);
  EXPECT_EQ(json(parsed)["inline_dispatch"], true);
  EXPECT_EQ(json(http_options{})["inline_dispatch"], false);
  const json not_a_bool = {{"inline_dispatch", "yes"}};
  EXPECT_THROW((void)not_a_bool.get<http_options>(), std::exception);
}

TEST(HttpInline, AnEndpointRefusesIt) {
  server s;
  try {
    http_endpoint endpoint(s, inline_options());
    FAIL() << "an http_endpoint accepted inline_dispatch";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("inline_dispatch is for http_server only (Python: "),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mcpcxx::http_test

namespace mcpcxx::http_test {
namespace {

// With inline dispatch the final reply is handed over on the connection's strand and usually
// written at once: pipelined requests must still be answered in order, each after the one before,
// and a closing reply (HTTP/1.0, Connection: close) must still close the connection.
TEST(HttpInline, PipelinedRequestsAreAnsweredInOrderAndACloseStillCloses) {
  for (const bool inline_dispatch : {true, false}) {
    http_options o = inline_options();
    o.inline_dispatch = inline_dispatch;
    http_fixture f(o);
    client c(f.port());
    std::string batch;
    for (int i = 0; i < 20; ++i) {
      auto r = modern_call(i, "echo", {{"text", std::to_string(i)}});
      batch += client::request("POST", "/mcp", r.headers, r.body);
    }
    c.send_raw(batch);
    for (int i = 0; i < 20; ++i) {
      const reply a = c.read_reply();
      ASSERT_EQ(a.status, 200) << a.body;
      EXPECT_EQ(a.json_body()["id"], i) << "inline " << inline_dispatch;
      EXPECT_EQ(a.json_body()["result"]["content"][0]["text"], std::to_string(i));
    }
    auto last = modern_call(20, "echo", {{"text", "bye"}});
    last.headers.emplace_back("Connection: close");
    const reply bye = c.post(last.body, last.headers);
    ASSERT_EQ(bye.status, 200) << bye.body;
    EXPECT_EQ(bye.header("connection"), "close");
    EXPECT_TRUE(c.peer_closed()) << "inline " << inline_dispatch;
  }
}

}  // namespace
}  // namespace mcpcxx::http_test

// Bounds of the HTTP transport that had no test of their own (issue 10): the SSE replay buffer's
// eviction (resuming from an evicted Last-Event-ID), the keep-alive comment on an idle stream,
// and the drain bounds of stop() (in-flight calls finish within the grace, the rest get H18 503;
// answered bytes get stop_flush_timeout, not more).
#include <future>
#include <thread>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

using namespace std::chrono_literals;

TEST(HttpStreamBounds, ResumingFromAnEvictedEventIdReplaysOnlyWhatTheBufferKept) {
  http_options o;
  o.replay_buffer_events = 2;
  http_fixture f(o);
  client c(f.port());
  std::string sid = open_legacy_session(c);
  // priming, three progress notifications and the response: five events on one stream.
  reply s = c.post(legacy_call(2, "progress", json::object(), {{"progressToken", "p"}}),
                   legacy_headers(sid));
  auto ids = s.event_ids();
  ASSERT_EQ(ids.size(), 5u) << s.body;
  auto h = legacy_headers(sid);
  h.push_back("Last-Event-ID: " + ids[1]);  // the first progress event, long evicted
  c.send_raw(client::request("GET", "/mcp", h, ""));
  reply replay = c.read_reply();
  ASSERT_EQ(replay.status, 200) << "an id that was issued is accepted even when evicted";
  auto events = replay.events();
  ASSERT_EQ(events.size(), 2u) << "only the last two events are kept: " << replay.body;
  EXPECT_EQ(json::parse(events[0])["params"]["progress"], 3.0);
  EXPECT_EQ(json::parse(events[1])["id"], 2);
}

TEST(HttpStreamBounds, AnIdleStreamGetsKeepAliveComments) {
  http_options o;
  o.sse_keepalive = 100ms;
  http_fixture f(o);
  client c(f.port());
  std::string sid = open_legacy_session(c);
  client stream(f.port());
  stream.send_raw(client::request("GET", "/mcp", legacy_headers(sid), ""));
  ASSERT_EQ(stream.read_head().status, 200);
  auto priming = stream.next_chunk();
  ASSERT_TRUE(priming);
  EXPECT_NE(priming->find("id: "), std::string::npos) << *priming;
  for (int i = 0; i < 2; ++i) {  // nothing else is sent: each chunk is a keep-alive comment
    auto comment = stream.next_chunk();
    ASSERT_TRUE(comment) << "no keep-alive comment arrived on the idle stream";
    EXPECT_EQ(*comment, ":\n\n");
  }
}

TEST(HttpStreamBounds, DrainLetsCallsFinishWithinTheGraceAndAnswersTheRest503) {
  http_fixture f;
  client quick(f.port());
  client stuck(f.port());
  auto q = modern_call(1, "slow_short");  // 300 ms, well within the grace
  auto s = modern_call(2, "slow");        // runs until cancelled
  quick.send_raw(client::request("POST", "/mcp", q.headers, q.body));
  stuck.send_raw(client::request("POST", "/mcp", s.headers, s.body));
  ASSERT_TRUE(eventually([&] { return f.http->stats().exchanges == 2; }));
  ASSERT_TRUE(eventually([&] { return f.probe->slow_started.load() == 1; }));
  auto stopped = std::async(std::launch::async, [&] { f.http->stop(1500ms); });

  reply done = quick.read_reply();
  EXPECT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(done.json_body()["result"]["content"][0]["text"], "finished") << done.body;
  reply cut = stuck.read_reply();
  EXPECT_EQ(cut.status, 503) << cut.body;
  EXPECT_EQ(cut.json_body()["id"], 2) << cut.body;
  EXPECT_EQ(cut.json_body()["error"]["code"], -32603) << cut.body;
  EXPECT_EQ(stopped.wait_for(20s), std::future_status::ready) << "stop() must return";
  EXPECT_TRUE(eventually([&] { return f.probe->slow_cancelled.load() == 1; }))
      << "the handler cut off at the grace is cancelled";
}

TEST(HttpStreamBounds, StopFlushesAnsweredBytesOnlyForTheFlushTimeout) {
  http_options o;
  o.stop_flush_timeout = 200ms;
  http_fixture f(o);
  client reader(f.port(), 2000);
  constexpr std::size_t k_bytes = std::size_t{32} << 20;  // more than loopback socket buffers
  auto r = modern_call(1, "big", {{"bytes", k_bytes}});
  reader.send_raw(client::request("POST", "/mcp", r.headers, r.body));
  std::string head;
  ASSERT_TRUE(reader.read_some(64, head)) << "the reply started";  // then the client stops reading
  ASSERT_TRUE(eventually([&] { return f.http->stats().exchanges == 0; })) << "it was answered";
  auto stopped = std::async(std::launch::async, [&] { f.http->stop(0ms); });
  EXPECT_EQ(stopped.wait_for(20s), std::future_status::ready)
      << "a client that never reads must not hold stop() past stop_flush_timeout";
  std::string rest;
  std::size_t total = head.size();
  while (reader.read_some(1 << 20, rest)) {
    total += rest.size();
    rest.clear();
  }
  EXPECT_LT(total, k_bytes) << "the connection was closed before the whole reply was written";
}

}  // namespace
}  // namespace mcpcxx::http_test

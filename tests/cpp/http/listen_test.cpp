// subscriptions/listen over Streamable HTTP: the POST's SSE stream carries the acknowledgement and
// the notifications; a client disconnect cancels the listen; stop() ends it with its result.
#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

constexpr const char* k_sub = "io.modelcontextprotocol/subscriptionId";

std::vector<resource_contents> text_of(const std::string& uri, request_context&) {
  return {{.uri = uri, .mime_type = "text/plain", .text = "x"}};
}

// Opens a listen on `c` and returns the acknowledgement (the stream's first event).
json open_listen(client& c, int id, json notifications) {
  auto r = modern(id, "subscriptions/listen", {{"notifications", std::move(notifications)}});
  c.send_raw(client::request("POST", "/mcp", r.headers, r.body));
  reply head = c.read_head();
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("content-type"), "text/event-stream");
  auto chunk = c.next_chunk();
  if (!chunk) return nullptr;
  auto events = split_events(*chunk, false);
  return events.empty() ? json() : json::parse(events.front());
}

// The next SSE event of the stream on `c` (null at its end).
json next_listen_event(client& c) {
  auto chunk = c.next_chunk();
  if (!chunk) return nullptr;
  auto events = split_events(*chunk, false);
  return events.empty() ? json() : json::parse(events.front());
}

bool logged(tool_probe& probe, const std::string& needle) {
  std::lock_guard g(probe.lock);
  for (const auto& l : probe.log_lines) {
    if (l.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(HttpListen, StreamCarriesNotificationsAndStopEndsItWithTheResult) {
  http_fixture f;
  f.srv->add_resource({.uri = "memo://a", .name = "a"}, text_of);
  client c(f.port());
  json ack =
      open_listen(c, 5, {{"toolsListChanged", true}, {"resourceSubscriptions", {"memo://a"}}});
  EXPECT_EQ(ack["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(ack["params"]["_meta"][k_sub], 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(40));  // past the list_changed window
  f.srv->notify_resource_updated("memo://a");
  json updated = next_listen_event(c);
  EXPECT_EQ(updated["method"], "notifications/resources/updated");
  EXPECT_EQ(updated["params"]["uri"], "memo://a");
  EXPECT_EQ(updated["params"]["_meta"][k_sub], 5);
  f.srv->remove_tool("echo");
  json changed = next_listen_event(c);
  EXPECT_EQ(changed["method"], "notifications/tools/list_changed");

  // Another request is served meanwhile, on its own POST.
  client other(f.port());
  auto call = modern_call(6, "progress");
  EXPECT_EQ(other.post(call.body, call.headers).status, 200);

  f.http->stop(std::chrono::milliseconds(2000));
  json result = next_listen_event(c);
  EXPECT_EQ(result["id"], 5);
  EXPECT_EQ(result["result"]["resultType"], "complete");
  EXPECT_EQ(result["result"]["_meta"][k_sub], 5);
  EXPECT_TRUE(next_listen_event(c).is_null()) << "the stream ends after the result (no cancelled)";
}

// A keep-alive comment is the connection's own write: it must not upset the count of bytes
// waiting to be written, or every later notification on the stream would wait behind a backlog
// that never drains (the stream went quiet after its first keep-alive).
TEST(HttpListen, NotificationsStillArriveAfterKeepAliveComments) {
  http_options o;
  o.sse_keepalive = std::chrono::milliseconds(50);
  http_fixture f(o);
  f.srv->add_resource({.uri = "memo://a", .name = "a"}, text_of);
  client c(f.port());
  json ack = open_listen(c, 3, {{"resourceSubscriptions", {"memo://a"}}});
  ASSERT_EQ(ack["method"], "notifications/subscriptions/acknowledged");
  for (int i = 0; i < 2; ++i) {
    auto comment = c.next_chunk();
    ASSERT_TRUE(comment) << "no keep-alive comment on the idle listen stream";
    ASSERT_EQ(*comment, ":\n\n");
  }
  f.srv->notify_resource_updated("memo://a");
  json updated;
  for (int i = 0; i < 20 && updated.is_null(); ++i) {  // skip further keep-alive comments
    auto chunk = c.next_chunk();
    ASSERT_TRUE(chunk) << "the stream ended";
    auto events = split_events(*chunk, false);
    if (!events.empty()) updated = json::parse(events.front());
  }
  EXPECT_EQ(updated["method"], "notifications/resources/updated") << updated;
}

TEST(HttpListen, ClientDisconnectCancelsTheListen) {
  http_fixture f;
  f.srv->add_resource({.uri = "memo://a", .name = "a"}, text_of);
  {
    client c(f.port());
    json ack = open_listen(c, 9, {{"resourceSubscriptions", {"memo://a"}}});
    EXPECT_EQ(ack["method"], "notifications/subscriptions/acknowledged");
    c.close();
  }
  for (int i = 0; i < 200 && !logged(*f.probe, "request_cancelled"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(logged(*f.probe, "request_cancelled"));
  f.srv->notify_resource_updated("memo://a");  // nobody listens any more: nothing to write
  client c(f.port());
  auto call = modern_call(1, "echo", {{"text", "still here"}});
  EXPECT_EQ(c.post(call.body, call.headers).json_body()["result"]["content"][0]["text"],
            "still here");
}

TEST(HttpListen, ManyListenersEachGetTheirOwnStream) {
  http_fixture f;
  std::vector<std::unique_ptr<client>> clients;
  for (int i = 0; i < 20; ++i) {
    clients.push_back(std::make_unique<client>(f.port()));
    json ack = open_listen(*clients.back(), 100 + i, {{"toolsListChanged", true}});
    ASSERT_EQ(ack["params"]["_meta"][k_sub], 100 + i);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  f.srv->remove_tool("echo");
  for (int i = 0; i < 20; ++i) {
    json n = next_listen_event(*clients[static_cast<std::size_t>(i)]);
    EXPECT_EQ(n["method"], "notifications/tools/list_changed");
    EXPECT_EQ(n["params"]["_meta"][k_sub], 100 + i);
  }
}

// A client that does not read: the server writes until the connection holds
// k_listen_backlog_bytes unwritten, then coalesces (the same URI again takes no new entry), so
// what it holds stays bounded; once the client reads, it gets the latest state, then the result.
TEST(HttpListen, ASlowReaderIsBoundedByCoalescing) {
  http_options opts;
  opts.stop_flush_timeout = std::chrono::milliseconds(30000);
  http_fixture f(opts);
  f.srv->add_resource({.uri = "memo://a", .name = "a"}, text_of);
  client c(f.port(), 30000);
  json ack = open_listen(c, 3, {{"resourceSubscriptions", {"memo://a"}}});
  ASSERT_EQ(ack["method"], "notifications/subscriptions/acknowledged");
  // ~4.5 MB of events if nothing were coalesced: 17 times the 256 KiB backlog bound, and few
  // enough that the sanitizer build on a loaded machine finishes well inside the 30 s bounds.
  constexpr int k_sent = 30000;
  for (int i = 0; i < k_sent; ++i) f.srv->notify_resource_updated("memo://a");
  // The grace and the flush timeout only bound the drain: a healthy stop ends as soon as the
  // coalesced backlog and the listen result are written. They are generous because under the
  // sanitizers, on a loaded machine, that took longer than the defaults (5 s and 1 s).
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    f.http->stop(std::chrono::milliseconds(30000));
  });
  int updates = 0;
  json last;
  for (json e = next_listen_event(c); !e.is_null(); e = next_listen_event(c)) {
    if (e.value("method", "") == "notifications/resources/updated") ++updates;
    last = e;
  }
  stopper.join();
  EXPECT_GT(updates, 0);
  EXPECT_LT(updates, k_sent) << "nothing was coalesced: the backlog was not bounded";
  EXPECT_EQ(last["id"], 3) << "the stream ends with the listen result";
}

TEST(HttpListen, BadParamsAre200WithTheRow) {
  http_fixture f;
  client c(f.port());
  auto r = modern(1, "subscriptions/listen", {{"notifications", {{"toolsListChanged", 1}}}});
  reply a = c.post(r.body, r.headers);
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.json_body()["error"]["code"], -32602);
  EXPECT_EQ(a.json_body()["error"]["data"]["field"], "toolsListChanged");
}

}  // namespace
}  // namespace mcpcxx::http_test

// Legacy sessions over HTTP: ids, required headers, DELETE, the GET stream, event ids with
// Last-Event-ID resumption, and concurrent requests on one session.
#include <future>
#include <set>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

TEST(HttpLegacy, InitializeMintsASessionThatLaterRequestsNeed) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  ASSERT_EQ(sid.size(), 32u);
  EXPECT_EQ(f.http->stats().sessions, 1u);
  reply ok = c.post(legacy_call(2, "echo", {{"text", "x"}}), legacy_headers(sid));
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.header("mcp-session-id"), sid);
  EXPECT_EQ(ok.json_body()["result"]["content"][0]["text"], "x");

  reply missing = c.post(legacy_call(3, "echo"), k_accept);
  EXPECT_EQ(missing.status, 400);
  EXPECT_NE(missing.body.find("Mcp-Session-Id"), std::string::npos);

  reply unknown =
      c.post(legacy_call(4, "echo"), legacy_headers("0123456789abcdef0123456789abcdef"));
  EXPECT_EQ(unknown.status, 404);

  reply bad_version = c.post(legacy_call(5, "echo"), legacy_headers(sid, "1999-01-01"));
  EXPECT_EQ(bad_version.status, 400);
  EXPECT_NE(bad_version.body.find("MCP-Protocol-Version"), std::string::npos);

  reply other_version = c.post(legacy_call(6, "echo"), legacy_headers(sid, "2025-06-18"));
  EXPECT_EQ(other_version.status, 400) << "must match the negotiated version";

  auto no_version = k_accept;
  no_version.push_back("Mcp-Session-Id: " + sid);
  reply tolerated = c.post(legacy_call(7, "echo", {{"text", "y"}}), no_version);
  EXPECT_EQ(tolerated.status, 200) << "pre-2025-06-18 clients send no version header";
}

TEST(HttpLegacy, TwoInitializesGiveDistinctSessions) {
  http_fixture f;
  client a(f.port()), b(f.port());
  EXPECT_NE(open_legacy_session(a), open_legacy_session(b));
  EXPECT_EQ(f.http->stats().sessions, 2u);
}

TEST(HttpLegacy, DeleteEndsTheSession) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  c.send_raw(client::request("DELETE", "/mcp", legacy_headers(sid), ""));
  reply del = c.read_reply();
  EXPECT_EQ(del.status, 204);
  EXPECT_EQ(f.http->stats().sessions, 0u);
  reply after = c.post(legacy_call(2, "echo"), legacy_headers(sid));
  EXPECT_EQ(after.status, 404);
  c.send_raw(client::request("DELETE", "/mcp", legacy_headers(sid), ""));
  EXPECT_EQ(c.read_reply().status, 404);
  c.send_raw(client::request("DELETE", "/mcp", k_accept, ""));
  EXPECT_EQ(c.read_reply().status, 400);
}

TEST(HttpLegacy, ClientResponsesAndNotificationsGet202) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  reply resp = c.post(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})", legacy_headers(sid));
  EXPECT_EQ(resp.status, 202);
  EXPECT_TRUE(resp.body.empty());
}

TEST(HttpLegacy, ProgressStreamsWithEventIdsAndPriming) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  reply s = c.post(legacy_call(2, "progress", json::object(), {{"progressToken", "p"}}),
                   legacy_headers(sid));
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(s.header("content-type"), "text/event-stream");
  EXPECT_EQ(s.header("mcp-session-id"), sid);
  auto ids = s.event_ids();
  ASSERT_EQ(ids.size(), 5u) << "priming + 3 progress + response: " << s.body;
  std::set<std::string> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size());
  EXPECT_EQ(s.events().size(), 4u);
}

TEST(HttpLegacy, ResumingAPostStreamReplaysWhatFollowsLastEventId) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  reply s = c.post(legacy_call(2, "progress", json::object(), {{"progressToken", "p"}}),
                   legacy_headers(sid));
  auto ids = s.event_ids();
  ASSERT_GE(ids.size(), 3u);
  auto h = legacy_headers(sid);
  h.push_back("Last-Event-ID: " + ids[1]);  // after the first progress event
  c.send_raw(client::request("GET", "/mcp", h, ""));
  reply replay = c.read_reply();
  ASSERT_EQ(replay.status, 200);
  auto events = replay.events();
  ASSERT_EQ(events.size(), 3u) << replay.body;
  EXPECT_EQ(json::parse(events[0])["params"]["progress"], 2.0);
  EXPECT_EQ(json::parse(events[2])["id"], 2);
  auto bad = legacy_headers(sid);
  bad.push_back("Last-Event-ID: foreign-id");
  c.send_raw(client::request("GET", "/mcp", bad, ""));
  EXPECT_EQ(c.read_reply().status, 400);
}

TEST(HttpLegacy, GetStreamCarriesServerNotificationsAndResumes) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  client stream(f.port());
  stream.send_raw(client::request("GET", "/mcp", legacy_headers(sid), ""));
  reply head = stream.read_head();
  ASSERT_EQ(head.status, 200);
  EXPECT_EQ(head.header("content-type"), "text/event-stream");
  auto priming = stream.next_chunk();
  ASSERT_TRUE(priming);
  client second(f.port());
  second.send_raw(client::request("GET", "/mcp", legacy_headers(sid), ""));
  EXPECT_EQ(second.read_reply().status, 409);

  tool_spec spec;
  spec.name = "added_later";
  spec.description = "added while a session listens";
  f.srv->add_tool(spec, [](const json&, request_context&) { return tool_result::text("x"); });
  auto event = stream.next_chunk();
  ASSERT_TRUE(event);
  EXPECT_NE(event->find("notifications/tools/list_changed"), std::string::npos) << *event;
  std::string first_id = split_events(*priming, true).at(0);
  stream.close();

  client resumed(f.port());
  auto h = legacy_headers(sid);
  h.push_back("Last-Event-ID: " + first_id);
  resumed.send_raw(client::request("GET", "/mcp", h, ""));
  ASSERT_EQ(resumed.read_head().status, 200);
  auto again = resumed.next_chunk();
  ASSERT_TRUE(again);
  EXPECT_NE(again->find("notifications/tools/list_changed"), std::string::npos) << *again;
}

TEST(HttpLegacy, ConcurrentRequestsOnOneSession) {
  http_options o;
  o.io_threads = 2;
  http_fixture f(o);
  client c(f.port());
  std::string sid = open_legacy_session(c);
  std::vector<std::future<int>> results;
  results.reserve(8);
  for (int t = 0; t < 8; ++t) {
    results.push_back(std::async(std::launch::async, [&, t] {
      client mine(f.port());
      int good = 0;
      for (int i = 0; i < 25; ++i) {
        int id = 1000 * (t + 1) + i;
        std::string text = std::to_string(id);
        reply r = mine.post(legacy_call(id, "echo", {{"text", text}}), legacy_headers(sid));
        json b = r.json_body();
        if (r.status == 200 && b["id"] == id && b["result"]["content"][0]["text"] == text) ++good;
      }
      return good;
    }));
  }
  for (auto& r : results) EXPECT_EQ(r.get(), 25);
}

TEST(HttpLegacy, DisconnectIsNotCancellation) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  {
    client gone(f.port());
    gone.send_raw(client::request("POST", "/mcp", legacy_headers(sid), legacy_call(9, "slow")));
    ASSERT_TRUE(eventually([&] { return f.probe->slow_started.load() == 1; }));
  }
  // The connection's close handler runs before it leaves the registry, so once the count drops
  // a disconnect-cancel would already have marked the token.
  ASSERT_TRUE(eventually([&] { return f.http->stats().connections == 1; }));
  {
    std::lock_guard g(f.probe->lock);
    ASSERT_TRUE(f.probe->slow_token);
    EXPECT_FALSE(f.probe->slow_token->cancelled());
  }
  // A later cancel through the protocol still reaches the running request.
  reply cancel =
      c.post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}})",
             legacy_headers(sid));
  EXPECT_EQ(cancel.status, 202);
  EXPECT_TRUE(eventually([&] { return f.probe->slow_cancelled.load() == 1; }));
}

TEST(HttpLegacy, ACancelledRequestStillEndsItsHttpExchange) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  client waiting(f.port());
  waiting.send_raw(client::request("POST", "/mcp", legacy_headers(sid), legacy_call(9, "slow")));
  ASSERT_TRUE(eventually([&] { return f.probe->slow_started.load() == 1; }));
  reply cancel =
      c.post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}})",
             legacy_headers(sid));
  EXPECT_EQ(cancel.status, 202);
  // No JSON-RPC reply for a cancelled request, but an end the transport allows for a request:
  // an event stream that closes with no event (no id, so nothing to resume).
  reply ended = waiting.read_reply();
  EXPECT_TRUE(ended.ok);
  EXPECT_EQ(ended.status, 200);
  EXPECT_EQ(ended.header("content-type"), "text/event-stream");
  EXPECT_TRUE(ended.events().empty()) << ended.body;
  EXPECT_TRUE(ended.event_ids().empty()) << ended.body;
  // The session is idle again, so the reaper may expire it.
  EXPECT_TRUE(eventually([&] {
    return f.http->stats().sessions == 1 &&
           waiting.post(legacy_call(10, "echo", {{"text", "k"}}), legacy_headers(sid)).status ==
               200;
  }));
}

}  // namespace
}  // namespace mcpcxx::http_test

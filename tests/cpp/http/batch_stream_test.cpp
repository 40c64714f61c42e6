// 2025-03-26 batches over HTTP (issue 10): the POST is answered with an SSE stream carrying each
// member's reply as it completes, so a slow member holds nobody and no whole-batch string is
// built; the batch limits (P28, P29) hold on this path too.
#include <set>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

constexpr const char* k_version = "2025-03-26";

json call(int id, const std::string& tool, json args = json::object()) {
  return json::parse(legacy_call(id, tool, std::move(args)));
}

TEST(HttpBatch, AFastMemberIsWrittenWhileASlowOneStillRuns) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c, k_version);
  json batch = {call(1, "slow"), call(2, "echo", {{"text", "fast"}})};
  c.send_raw(client::request("POST", "/mcp", legacy_headers(sid, k_version), batch.dump()));
  reply head = c.read_head();
  ASSERT_EQ(head.status, 200);
  EXPECT_EQ(head.header("content-type"), "text/event-stream");
  auto first = c.next_chunk();
  ASSERT_TRUE(first) << "the fast member's reply must not wait for the slow one";
  auto events = split_events(*first, false);
  ASSERT_EQ(events.size(), 1u) << *first;
  EXPECT_EQ(json::parse(events[0])["id"], 2);
  EXPECT_EQ(json::parse(events[0])["result"]["content"][0]["text"], "fast");
  EXPECT_EQ(f.probe->slow_cancelled.load(), 0) << "the slow member is still running";

  client other(f.port());  // cancelling the slow member ends the stream without an entry for it
  json cancel = {{"jsonrpc", "2.0"},
                 {"method", "notifications/cancelled"},
                 {"params", {{"requestId", 1}, {"reason", "test"}}}};
  EXPECT_EQ(other.post(cancel.dump(), legacy_headers(sid, k_version)).status, 202);
  std::string rest;
  while (auto chunk = c.next_chunk()) rest += *chunk;
  EXPECT_TRUE(split_events(rest, false).empty()) << rest;
  EXPECT_TRUE(eventually([&] { return f.probe->slow_cancelled.load() == 1; }));
}

TEST(HttpBatch, EveryMemberGetsOneEventAndTheStreamEnds) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c, k_version);
  json batch = {call(1, "echo", {{"text", "a"}}),
                call(2, "progress"),
                {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                json::parse(R"({"jsonrpc":"2.0","id":3})"),  // invalid: no method
                call(4, "echo", {{"text", "b"}})};
  reply r = c.post(batch.dump(), legacy_headers(sid, k_version));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  std::multiset<std::string> ids;
  for (const auto& e : r.events()) {
    json m = json::parse(e);
    ASSERT_TRUE(m.is_object()) << "one response per event: " << e;
    ids.insert(m["id"].dump());
  }
  EXPECT_EQ(ids, (std::multiset<std::string>{"1", "2", "3", "4"})) << r.body;
  reply ping =
      c.post(R"({"jsonrpc":"2.0","id":9,"method":"ping"})", legacy_headers(sid, k_version));
  EXPECT_EQ(ping.status, 200) << "the connection keeps serving after the stream ended";
}

TEST(HttpBatch, TheReplyByteLimitHoldsOnTheStream) {
  server_options so;
  so.max_batch_reply_bytes = 2500;
  http_fixture f({}, so);
  client c(f.port());
  std::string sid = open_legacy_session(c, k_version);
  json batch = json::array();
  for (int id = 1; id <= 5; ++id) batch.push_back(call(id, "big", {{"bytes", 1000}}));
  reply r = c.post(batch.dump(), legacy_headers(sid, k_version));
  ASSERT_EQ(r.status, 200) << r.body;
  int results = 0;
  int refused = 0;
  for (const auto& e : r.events()) {
    json m = json::parse(e);
    if (m.contains("result")) ++results;
    if (m.contains("error") && m["error"]["data"]["limit"] == 2500) ++refused;
  }
  EXPECT_EQ(results, 2) << r.body;
  EXPECT_EQ(refused, 3) << "members past the bound get P29 naming their id: " << r.body;
}

TEST(HttpBatch, TooManyMembersIsRefusedWholeAsJson) {
  server_options so;
  so.max_batch_members = 3;
  http_fixture f({}, so);
  client c(f.port());
  std::string sid = open_legacy_session(c, k_version);
  json batch = json::array();
  for (int id = 1; id <= 4; ++id) batch.push_back(call(id, "echo"));
  reply r = c.post(batch.dump(), legacy_headers(sid, k_version));
  EXPECT_EQ(r.header("content-type"), "application/json");
  json e = r.json_body();
  EXPECT_TRUE(e["id"].is_null()) << r.body;
  EXPECT_EQ(e["error"]["code"], -32600);
  EXPECT_EQ(e["error"]["data"]["limit"], 3);
}

}  // namespace
}  // namespace mcpcxx::http_test

// Which Last-Event-ID a legacy GET may resume from: only an id the session issued (row H11
// otherwise, also for well-formed ids beyond its counter or of a stream it never had), and a
// resume of the GET stream takes over from the open one visibly (it is told and ended).
#include <string>
#include <vector>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

reply get_from(std::uint16_t port, const std::string& sid, const std::string& last) {
  client c(port);
  auto h = legacy_headers(sid);
  h.push_back("Last-Event-ID: " + last);
  c.send_raw(client::request("GET", "/mcp", h, ""));
  return c.read_reply();
}

void expect_h11(const reply& r, const std::string& id) {
  EXPECT_EQ(r.status, 400) << id << ": " << r.body;
  EXPECT_EQ(r.json_body()["error"].value("message", ""),
            "Bad Request: Last-Event-ID is not an event id of this session; open a GET stream "
            "without it")
      << id;
}

TEST(HttpLastEventId, IdsAFreshSessionNeverIssuedGet400) {
  http_fixture f;
  client c(f.port());
  const std::string sid = open_legacy_session(c);
  for (const char* id : {"7-99", "0-42", "0-1", "1-1", "0-0"})
    expect_h11(get_from(f.port(), sid, id), id);
}

TEST(HttpLastEventId, AnIdOfAnotherStreamThanItsEventWentOnGets400) {
  http_fixture f;
  client c(f.port());
  const std::string sid = open_legacy_session(c);
  const reply post = c.post(legacy_call(2, "progress", json::object(), {{"progressToken", "p"}}),
                            legacy_headers(sid));
  const auto ids = post.event_ids();
  ASSERT_GE(ids.size(), 3u) << post.body;
  const std::size_t dash = ids[1].find('-');
  const std::uint64_t stream = std::stoull(ids[1].substr(0, dash));
  const std::string seq = ids[1].substr(dash + 1);
  const std::string on_get_stream = "0-" + seq;  // issued, but on the POST's stream
  expect_h11(get_from(f.port(), sid, on_get_stream), on_get_stream);
  const std::string never = std::to_string(stream + 1) + "-" + seq;  // a stream never opened
  expect_h11(get_from(f.port(), sid, never), never);
  const reply resumed = get_from(f.port(), sid, ids[1]);
  EXPECT_EQ(resumed.status, 200) << resumed.body;
  EXPECT_FALSE(resumed.events().empty()) << "what followed " << ids[1] << " is replayed";
}

TEST(HttpLastEventId, AnEvictedIdOfAStreamTheSessionHadStillResumes) {
  http_options o;
  o.replay_buffer_events = 2;
  http_fixture f(o);
  client c(f.port());
  const std::string sid = open_legacy_session(c);
  const reply post = c.post(legacy_call(2, "progress", json::object(), {{"progressToken", "p"}}),
                            legacy_headers(sid));
  const auto ids = post.event_ids();
  ASSERT_GE(ids.size(), 4u) << post.body;
  EXPECT_EQ(get_from(f.port(), sid, ids[0]).status, 200) << "evicted, but issued";
}

TEST(HttpLastEventId, ResumingTheGetStreamTakesOverVisiblyAndAPlainGetStillConflicts) {
  http_fixture f;
  client c(f.port());
  const std::string sid = open_legacy_session(c);
  client first(f.port());
  first.send_raw(client::request("GET", "/mcp", legacy_headers(sid), ""));
  ASSERT_EQ(first.read_head().status, 200);
  const auto priming = first.next_chunk();
  ASSERT_TRUE(priming);
  const std::string id = split_events(*priming, true).at(0);

  client resumed(f.port());
  auto h = legacy_headers(sid);
  h.push_back("Last-Event-ID: " + id);
  resumed.send_raw(client::request("GET", "/mcp", h, ""));
  ASSERT_EQ(resumed.read_head().status, 200);
  std::string rest;
  while (auto chunk = first.next_chunk()) rest += *chunk;
  EXPECT_NE(rest.find(": replaced by a GET that resumed this stream with Last-Event-ID"),
            std::string::npos)
      << rest;

  client plain(f.port());
  plain.send_raw(client::request("GET", "/mcp", legacy_headers(sid), ""));
  EXPECT_EQ(plain.read_reply().status, 409);
}

}  // namespace
}  // namespace mcpcxx::http_test

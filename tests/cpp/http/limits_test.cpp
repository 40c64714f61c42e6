// Malformed and hostile HTTP: each gets a clear 4xx and the server keeps serving. Also keep-alive,
// slow clients, the connection bound and graceful stop.
#include <fstream>
#include <unistd.h>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

void expect_limits_still_serving(std::uint16_t port) {
  client c(port);
  auto r = modern_call(77, "echo", {{"text", "alive"}});
  reply a = c.post(r.body, r.headers);
  EXPECT_EQ(a.status, 200) << "the server must keep serving: " << a.body;
}

reply raw_exchange(std::uint16_t port, const std::string& bytes, bool half_close = false) {
  client c(port);
  c.send_raw(bytes);
  if (half_close) c.shutdown_send();
  return c.read_reply();
}

TEST(HttpLimits, MalformedRequestsGetClear4xx) {
  http_options o;
  o.max_body_bytes = 1024;
  o.max_header_bytes = 2048;
  o.max_headers = 16;
  http_fixture f(o);
  struct bad {
    const char* what;
    std::string bytes;
    int status;
    const char* says;
    bool half_close = false;
  };
  std::string many;
  for (int i = 0; i < 20; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  std::vector<bad> cases = {
      {"bad request line", "GARBAGE\r\n\r\n", 400, "Malformed HTTP request"},
      {"bad version", "GET /mcp HTTP/9\r\n\r\n", 400, "Malformed"},
      {"oversized header",
       "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(4000, 'a') + "\r\n\r\n", 431,
       "too large"},
      {"too many headers", "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + "\r\n", 431,
       "header fields"},
      {"body over limit", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n",
       413, "too large"},
      {"truncated body",
       "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
       "Content-Length: 100\r\n\r\n{\"jsonrpc\"",
       400, "Truncated", true},
      {"wrong content type",
       client::request("POST", "/mcp",
                       {"Accept: application/json, text/event-stream", "Content-Type: text/plain"},
                       "{}"),
       415, "Content-Type"},
      {"missing accept", client::request("POST", "/mcp", {"Content-Type: application/json"}, "{}"),
       406, "Accept"},
  };
  for (const auto& b : cases) {
    reply r = raw_exchange(f.port(), b.bytes, b.half_close);
    EXPECT_TRUE(r.ok) << b.what;
    EXPECT_EQ(r.status, b.status) << b.what << ": " << r.body;
    EXPECT_NE(r.body.find(b.says), std::string::npos) << b.what << ": " << r.body;
    expect_limits_still_serving(f.port());
  }
}

TEST(HttpLimits, SlowClientsTimeOutWith408) {
  http_options o;
  o.header_timeout = std::chrono::milliseconds(200);
  o.body_timeout = std::chrono::milliseconds(200);
  http_fixture f(o);
  {
    client c(f.port());
    c.send_raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");  // never finishes the head
    reply r = c.read_reply();
    EXPECT_EQ(r.status, 408);
    EXPECT_EQ(r.header("connection"), "close");
  }
  {
    client c(f.port());
    c.send_raw("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\n{");
    EXPECT_EQ(c.read_reply().status, 408);
  }
  expect_limits_still_serving(f.port());
}

TEST(HttpLimits, IdleKeepAliveConnectionsAreClosed) {
  http_options o;
  o.idle_timeout = std::chrono::milliseconds(100);
  http_fixture f(o);
  client c(f.port());
  auto r = modern_call(1, "echo", {{"text", "a"}});
  EXPECT_EQ(c.post(r.body, r.headers).status, 200);
  EXPECT_TRUE(c.peer_closed());
}

TEST(HttpLimits, KeepAliveServesManyRequestsAndPipelining) {
  http_fixture f;
  client c(f.port());
  std::string batch;
  for (int i = 0; i < 20; ++i) {
    auto r = modern_call(i, "echo", {{"text", std::to_string(i)}});
    batch += client::request("POST", "/mcp", r.headers, r.body);
  }
  c.send_raw(batch);  // pipelined: answered in order
  for (int i = 0; i < 20; ++i) {
    reply a = c.read_reply();
    ASSERT_EQ(a.status, 200);
    EXPECT_EQ(a.json_body()["id"], i);
  }
  c.send_raw("GET /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
  reply old = c.read_reply();
  EXPECT_EQ(old.header("connection"), "close");
  EXPECT_TRUE(c.peer_closed());
}

TEST(HttpLimits, ConnectionsAreBounded) {
  http_options o;
  o.max_connections = 2;
  http_fixture f(o);
  client a(f.port()), b(f.port());
  ASSERT_TRUE(eventually([&] { return f.http->stats().connections == 2; }));
  // At the cap a new client takes the place of the oldest connection that never sent a byte.
  client extra(f.port());
  EXPECT_TRUE(a.peer_closed());
  EXPECT_TRUE(eventually([&] { return f.http->stats().evicted_connections == 1; }));
  auto r = modern_call(1, "echo", {{"text", "x"}});
  EXPECT_EQ(extra.post(r.body, r.headers).status, 200);
  EXPECT_EQ(f.http->stats().rejected_connections, 0u);
}

TEST(HttpLimits, ExpectContinueIsHonoured) {
  http_fixture f;
  client c(f.port());
  auto r = modern_call(1, "echo", {{"text", "big"}});
  auto h = r.headers;
  h.push_back("Expect: 100-continue");
  std::string head = client::request("POST", "/mcp", h, "");
  head.replace(head.find("Content-Length: 0"), 17,
               "Content-Length: " + std::to_string(r.body.size()));
  c.send_raw(head);
  EXPECT_EQ(c.read_head().status, 100);
  c.send_raw(r.body);
  EXPECT_EQ(c.read_reply().status, 200);
}

TEST(HttpLimits, GracefulStopFinishesInFlightRequests) {
  http_fixture f;
  client c(f.port());
  auto r = modern_call(1, "progress");
  c.send_raw(client::request("POST", "/mcp", r.headers, r.body));
  reply a = c.read_reply();
  EXPECT_EQ(a.status, 200);
  client slow(f.port());
  auto s = modern_call(2, "slow");
  slow.send_raw(client::request("POST", "/mcp", s.headers, s.body));
  ASSERT_TRUE(eventually([&] { return f.probe->slow_started.load() == 1; }));
  f.http->stop(std::chrono::milliseconds(50));  // the slow call outlives the grace: cancelled
  EXPECT_TRUE(eventually([&] { return f.probe->slow_cancelled.load() == 1; }));
  reply cut = slow.read_reply();  // either the connection closed first, or a 503 came
  EXPECT_TRUE(!cut.ok || cut.status == 503) << cut.status << " " << cut.body;
  f.http->wait();
  EXPECT_THROW(client late(f.port()), std::system_error);
}

}  // namespace
}  // namespace mcpcxx::http_test

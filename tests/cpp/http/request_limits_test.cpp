// Hostile request framing answered at once: a chunk that announces more than the body limit gets
// 413 before any of it arrives (never a 408 after the body timeout), and a header that must appear
// once (Host, Origin, Content-Type, ...) sent twice gets 400 with its own row (H40).
#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

constexpr int k_quick_ms = 3000;  // a reply that takes longer was not sent "at once"

std::string chunked_head(const std::vector<std::string>& headers) {
  std::string out = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n";
  for (const auto& h : headers) out += h + "\r\n";
  return out + "\r\n";
}

TEST(HttpRequestLimits, OversizedChunkSizeIs413AtOnce) {
  http_options o;
  o.max_body_bytes = 1024;
  http_fixture f(o);  // default body_timeout (30 s): a 408 could not arrive within k_quick_ms
  auto r = modern_call(1, "echo", {{"text", "x"}});
  // 1 GiB; 16 EiB - 1 (the largest size that fits 64 bits); 16 EiB and far more (overflowing hex);
  // and a first chunk under the limit followed by one that would cross it.
  for (const std::string size :
       {"40000000", "FFFFFFFFFFFFFFFF", "10000000000000000", "1FFFFFFFFFFFFFFFFFFFFFFFF"}) {
    client c(f.port(), k_quick_ms);
    c.send_raw(chunked_head(r.headers) + size + "\r\n{");
    reply a = c.read_reply();
    ASSERT_TRUE(a.ok) << "chunk size " << size << ": no reply within " << k_quick_ms << " ms";
    EXPECT_EQ(a.status, 413) << size << ": " << a.body;
    EXPECT_NE(a.body.find("exceeds the limit of 1024 bytes"), std::string::npos) << a.body;
    EXPECT_EQ(a.header("connection"), "close");
  }
  client c(f.port(), k_quick_ms);
  c.send_raw(chunked_head(r.headers) + "200\r\n" + std::string(0x200, ' ') + "\r\n300\r\n{");
  reply a = c.read_reply();
  ASSERT_TRUE(a.ok) << "a second chunk crossing the limit: no reply within " << k_quick_ms;
  EXPECT_EQ(a.status, 413) << a.body;
  client ok(f.port());
  EXPECT_EQ(ok.post(r.body, r.headers).status, 200) << "the server keeps serving";
}

struct duplicate_case {
  const char* name;   // as sent
  const char* first;  // a valid value
  const char* second;
};

TEST(HttpRequestLimits, HeadersThatMustBeSingleAre400WhenRepeated) {
  http_fixture f;
  client setup(f.port());
  std::string sid = open_legacy_session(setup);
  const std::vector<duplicate_case> cases = {
      {"Host", "127.0.0.1", "evil.example.com"},
      {"Origin", "http://localhost", "http://evil.example.com"},
      {"Content-Type", "application/json", "text/plain"},
      {"Authorization", "Bearer a", "Bearer b"},
      {"Mcp-Session-Id", sid.c_str(), "0123456789abcdef0123456789abcdef"},
      {"Last-Event-ID", "1-1", "2-1"},
  };
  for (const auto& dc : cases) {
    for (bool modern_era : {true, false}) {
      std::vector<std::string> h;
      std::string body;
      if (modern_era) {
        auto r = modern_call(5, "echo", {{"text", "x"}});
        h = r.headers;
        body = r.body;
      } else {
        h = legacy_headers(sid);
        body = legacy_call(5, "echo", {{"text", "x"}});
      }
      std::erase_if(h, [&](const std::string& l) {
        return l.rfind(std::string(dc.name) + ":", 0) == 0 ||
               (std::string(dc.name) == "Host" && l.rfind("Host:", 0) == 0);
      });
      h.push_back(std::string(dc.name) + ": " + dc.first);
      h.push_back(std::string(dc.name) + ": " + dc.second);
      std::string raw = client::request("POST", "/mcp", h, body);
      if (std::string(dc.name) == "Host") raw.erase(raw.find("Host: 127.0.0.1\r\n"), 17);
      client c(f.port());
      c.send_raw(raw);
      reply a = c.read_reply();
      EXPECT_EQ(a.status, 400) << dc.name << (modern_era ? " modern: " : " legacy: ") << a.body;
      json err = a.json_body();
      EXPECT_EQ(err["error"]["code"], -32600) << a.body;
      EXPECT_EQ(err["error"]["message"], "Bad Request: the " + std::string(dc.name) +
                                             " header appears more than once; send it once")
          << a.body;
    }
  }
  // A legacy session's MCP-Protocol-Version twice (the 2026-07-28 era keeps its -32020 row H29).
  auto h = legacy_headers(sid);
  h.push_back("MCP-Protocol-Version: 2025-06-18");
  reply pv = setup.post(legacy_call(6, "echo", {{"text", "x"}}), h);
  EXPECT_EQ(pv.status, 400) << pv.body;
  EXPECT_NE(pv.body.find("MCP-Protocol-Version header appears more than once"), std::string::npos)
      << pv.body;
  auto r = modern_call(7, "echo", {{"text", "x"}});
  r.headers.push_back("MCP-Protocol-Version: 2026-07-28");
  reply modern_pv = setup.post(r.body, r.headers);
  EXPECT_EQ(modern_pv.json_body()["error"]["code"], -32020) << modern_pv.body;
}

}  // namespace
}  // namespace mcpcxx::http_test

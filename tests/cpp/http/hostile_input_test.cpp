// Hostile bytes in headers and bodies: header values that are not UTF-8 and numbers beyond the
// double range each get their documented 4xx with a JSON body, never a 500, on a socket and
// through http_endpoint; the server keeps serving afterwards.
#include "http/fixture.hpp"
#include "transport/http/security.hpp"

namespace mcpcxx::http_test {
namespace {

/// Bytes that are not UTF-8 (a lone continuation byte, an overlong lead, 0xFF).
const std::string k_bad_utf8 = "\x80\xC0\xAF\xFF";

/// True when `r` carries a JSON error body that is itself valid UTF-8.
::testing::AssertionResult json_error_body(const reply& r) {
  if (!http::valid_utf8(r.body)) return ::testing::AssertionFailure() << "body not UTF-8";
  json j = r.json_body();
  if (!j.is_object() || !j.contains("error") || !j["error"].is_object() ||
      !j["error"]["message"].is_string()) {
    return ::testing::AssertionFailure() << "no JSON-RPC error body: " << r.body;
  }
  return ::testing::AssertionSuccess();
}

/// Replaces (or adds) header `name` in `headers`.
std::vector<std::string> with_header(std::vector<std::string> headers, const std::string& name,
                                     const std::string& value) {
  std::erase_if(headers, [&](const std::string& line) { return line.rfind(name + ":", 0) == 0; });
  headers.push_back(name + ": " + value);
  return headers;
}

void expect_still_serving(std::uint16_t port) {
  client c(port);
  auto r = modern_call(77, "echo", {{"text", "alive"}});
  EXPECT_EQ(c.post(r.body, r.headers).status, 200) << "the server must keep serving";
}

TEST(HttpHostileInput, LegacyVersionHeaderWithInvalidUtf8Is400OnEveryMethod) {
  http_fixture f;
  client c(f.port());
  std::string sid = open_legacy_session(c);
  auto h = legacy_headers(sid, "2025-" + k_bad_utf8);
  reply post = c.post(legacy_call(2, "echo", {{"text", "x"}}), h);
  EXPECT_EQ(post.status, 400) << post.body;
  EXPECT_TRUE(json_error_body(post));
  EXPECT_NE(post.body.find("MCP-Protocol-Version"), std::string::npos) << post.body;
  for (const char* method : {"GET", "DELETE"}) {
    client m(f.port());
    auto mh = with_header(h, "Accept", "text/event-stream");
    m.send_raw(client::request(method, "/mcp", mh, ""));
    reply r = m.read_reply();
    EXPECT_EQ(r.status, 400) << method << ": " << r.body;
    EXPECT_TRUE(json_error_body(r)) << method;
  }
  EXPECT_EQ(f.http->stats().sessions, 1u) << "a rejected DELETE leaves the session alone";
  expect_still_serving(f.port());
}

struct header_case {
  const char* header;
  std::string value;
  int status;
};

TEST(HttpHostileInput, NonUtf8ModernHeaderValuesGetTheirRow) {
  http_fixture f;
  const std::vector<header_case> cases = {
      {"MCP-Protocol-Version", "2026-07-28" + k_bad_utf8, 400},
      {"Mcp-Method", "tools/call" + k_bad_utf8, 400},
      {"Mcp-Name", "region" + k_bad_utf8, 400},
      {"Mcp-Param-Region", "eu" + k_bad_utf8, 400},
      {"Origin", "http://localhost" + k_bad_utf8, 403},
      {"Accept", "application/json" + k_bad_utf8, 406},
      {"Content-Type", "application/json" + k_bad_utf8, 415},
  };
  for (const auto& hc : cases) {
    client c(f.port());
    auto r = modern_call(5, "region", {{"region", "eu"}});
    r.headers.push_back("Mcp-Param-Region: eu");
    reply a = c.post(r.body, with_header(r.headers, hc.header, hc.value));
    EXPECT_EQ(a.status, hc.status) << hc.header << ": " << a.body;
    EXPECT_TRUE(json_error_body(a)) << hc.header;
    if (hc.status == 400) {
      EXPECT_EQ(a.json_body()["error"]["code"], -32020) << hc.header;
    }
  }
  for (const char* ignored : {"Mcp-Session-Id", "Last-Event-ID"}) {
    client c(f.port());
    auto r = modern_call(6, "echo", {{"text", "x"}});
    reply a = c.post(r.body, with_header(r.headers, ignored, k_bad_utf8));
    EXPECT_EQ(a.status, 200) << ignored << " is ignored by 2026-07-28: " << a.body;
  }
  expect_still_serving(f.port());
}

TEST(HttpHostileInput, NonUtf8HostAndSessionHeadersGetTheirRow) {
  http_fixture f;
  {
    client c(f.port());
    auto r = modern_call(1, "echo", {{"text", "x"}});
    std::string raw = client::request("POST", "/mcp", r.headers, r.body);
    raw.replace(raw.find("Host: 127.0.0.1"), 15, "Host: 127.0.0.1" + k_bad_utf8);
    c.send_raw(raw);
    reply a = c.read_reply();
    EXPECT_EQ(a.status, 403) << a.body;
    EXPECT_TRUE(json_error_body(a));
  }
  client c(f.port());
  std::string sid = open_legacy_session(c);
  reply unknown = c.post(legacy_call(2, "echo"), legacy_headers(sid + k_bad_utf8));
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_TRUE(json_error_body(unknown));
  client g(f.port());
  auto gh = with_header(legacy_headers(sid), "Accept", "text/event-stream");
  gh.push_back("Last-Event-ID: 1-" + k_bad_utf8);
  g.send_raw(client::request("GET", "/mcp", gh, ""));
  reply resume = g.read_reply();
  EXPECT_EQ(resume.status, 400) << resume.body;
  EXPECT_TRUE(json_error_body(resume));
  expect_still_serving(f.port());
}

/// A tools/call whose arguments hold a number no double can represent.
std::string huge_number_call(int id, bool modern) {
  std::string meta = modern ? R"(,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                              R"("io.modelcontextprotocol/clientCapabilities":{}})"
                            : "";
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"echo","arguments":{"n":1e400})" + meta + "}}";
}

/// The codec's row for an unrepresentable number: a parse or invalid-request error.
::testing::AssertionResult codec_rejection(const reply& r) {
  if (r.status != 400) return ::testing::AssertionFailure() << "status " << r.status;
  if (auto body = json_error_body(r); !body) return body;
  int code = r.json_body()["error"]["code"].get<int>();
  if (code != -32700 && code != -32600) return ::testing::AssertionFailure() << "code " << code;
  return ::testing::AssertionSuccess();
}

TEST(HttpHostileInput, NumberBeyondDoubleRangeIsACodecErrorInBothEras) {
  http_fixture f;
  {
    client c(f.port());
    auto r = modern_call(3, "echo");
    EXPECT_TRUE(codec_rejection(c.post(huge_number_call(3, true), r.headers)));
  }
  client c(f.port());
  std::string sid = open_legacy_session(c);
  EXPECT_TRUE(codec_rejection(c.post(huge_number_call(4, false), legacy_headers(sid))));
  reply ok = c.post(legacy_call(5, "echo", {{"text", "after"}}), legacy_headers(sid));
  EXPECT_EQ(ok.status, 200) << "the session survives: " << ok.body;
  expect_still_serving(f.port());
}

TEST(HttpHostileInput, MessageOverTheCodecLimitIs413FromItsRow) {
  server_options so;
  so.limits.max_message_bytes = 256;  // below the transport's max_body_bytes
  http_fixture f({}, so);
  client c(f.port());
  auto r = modern_call(8, "echo", {{"text", std::string(1000, 'x')}});
  reply a = c.post(r.body, r.headers);
  EXPECT_EQ(a.status, 413) << "P3's HTTP column: " << a.body;
  EXPECT_TRUE(json_error_body(a));
  EXPECT_EQ(a.json_body()["error"]["code"], -32600);
  EXPECT_EQ(a.json_body()["id"], 8) << "the id is echoed when it can be read";
  expect_still_serving(f.port());
}

/// Collects one http_endpoint response (written from engine threads).
struct collected_reply : http_response_sink {
  std::mutex lock;
  reply r;
  std::atomic<bool> ended{false};
  void start(int s, std::vector<std::pair<std::string, std::string>> h) override {
    std::lock_guard g(lock);
    r.status = s;
    for (auto& [k, v] : h) r.headers[k] = v;
  }
  void write(std::string d) override {
    std::lock_guard g(lock);
    r.body += d;
  }
  void end() override { ended = true; }
};

TEST(HttpHostileInput, EndpointNeverThrowsIntoTheForeignServer) {
  server srv;
  auto probe = std::make_shared<tool_probe>();
  add_test_tools(srv, probe);
  http_endpoint ep(srv);
  auto send = [&](std::string body, const std::vector<std::string>& lines) {
    http_request_data d{"POST", "/mcp", {{"Host", "localhost"}}, std::move(body)};
    for (const auto& line : lines) {
      auto colon = line.find(": ");
      d.headers.emplace_back(line.substr(0, colon), line.substr(colon + 2));
    }
    auto out = std::make_shared<collected_reply>();
    EXPECT_NO_THROW(ep.handle(std::move(d), out));
    EXPECT_TRUE(eventually([&] { return out->ended.load(); }));
    std::lock_guard g(out->lock);
    return out->r;
  };
  auto modern_headers = modern_call(1, "echo").headers;
  EXPECT_TRUE(codec_rejection(send(huge_number_call(1, true), modern_headers)));
  reply init = send(initialize_body(), k_accept);
  ASSERT_EQ(init.status, 200) << init.body;
  std::string sid = init.header("mcp-session-id");
  EXPECT_TRUE(codec_rejection(send(huge_number_call(2, false), legacy_headers(sid))));
  reply bad_version = send(legacy_call(3, "echo"), legacy_headers(sid, "2025-" + k_bad_utf8));
  EXPECT_EQ(bad_version.status, 400) << bad_version.body;
  EXPECT_TRUE(json_error_body(bad_version));
}

}  // namespace
}  // namespace mcpcxx::http_test

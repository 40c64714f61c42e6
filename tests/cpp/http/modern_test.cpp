// 2026-07-28 over HTTP: JSON vs SSE replies, 202 for notifications, SEP-2243 header validation,
// the HTTP status of each error class, 405 on a modern-only server, disconnect = cancellation.
#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

TEST(HttpModern, RequestGetsJsonAndProgressSwitchesToSse) {
  http_fixture f;
  client c(f.port());
  auto r = modern_call(1, "echo", {{"text", "hi"}});
  reply a = c.post(r.body, r.headers);
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.header("content-type"), "application/json");
  EXPECT_EQ(a.header("mcp-session-id"), "");
  EXPECT_EQ(a.json_body()["result"]["content"][0]["text"], "hi");

  json params = {{"name", "progress"}, {"arguments", json::object()}, {"_meta", modern_meta()}};
  params["_meta"]["progressToken"] = 7;
  auto p = modern(2, "tools/call", params);
  reply s = c.post(p.body, p.headers);  // same keep-alive connection
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(s.header("content-type"), "text/event-stream");
  auto events = s.events();
  ASSERT_EQ(events.size(), 4u) << s.body;
  for (int i = 0; i < 3; ++i) {
    json n = json::parse(events[static_cast<std::size_t>(i)]);
    EXPECT_EQ(n["method"], "notifications/progress");
    EXPECT_EQ(n["params"]["progressToken"], 7);
  }
  EXPECT_EQ(json::parse(events[3])["id"], 2);
  EXPECT_TRUE(s.event_ids().empty()) << "2026-07-28 streams carry no event ids";
}

TEST(HttpModern, NotificationGets202WithoutBody) {
  http_fixture f;
  client c(f.port());
  json n = {{"jsonrpc", "2.0"},
            {"method", "notifications/cancelled"},
            {"params", {{"requestId", 99}, {"_meta", modern_meta()}}}};
  auto h = k_accept;
  h.push_back("MCP-Protocol-Version: 2026-07-28");
  h.push_back("Mcp-Method: notifications/cancelled");
  reply r = c.post(n.dump(), h);
  EXPECT_EQ(r.status, 202);
  EXPECT_TRUE(r.body.empty());
}

struct modern_header_case {
  const char* what;
  std::vector<std::string> drop;  // header prefixes to remove
  std::vector<std::string> add;
};

TEST(HttpModern, HeaderMismatchesAre400With32020) {
  http_fixture f;
  std::vector<modern_header_case> cases = {
      {"missing version", {"MCP-Protocol-Version"}, {}},
      {"version differs from _meta",
       {"MCP-Protocol-Version"},
       {"MCP-Protocol-Version: 2025-11-25"}},
      {"missing method", {"Mcp-Method"}, {}},
      {"method case differs", {"Mcp-Method"}, {"Mcp-Method: TOOLS/CALL"}},
      {"missing name", {"Mcp-Name"}, {}},
      {"wrong name", {"Mcp-Name"}, {"Mcp-Name: other"}},
      {"bad base64 name", {"Mcp-Name"}, {"Mcp-Name: =?base64?ZWNo?="}},
      {"duplicate method", {}, {"Mcp-Method: tools/call"}},
      {"raw non-ascii", {"Mcp-Name"}, {"Mcp-Name: \xC3\xA9"}},
  };
  for (const auto& hc : cases) {
    client c(f.port());
    auto r = modern_call(5, "echo", {{"text", "x"}});
    std::vector<std::string> h;
    for (const auto& line : r.headers) {
      bool drop = false;
      for (const auto& d : hc.drop) drop = drop || line.rfind(d + ":", 0) == 0;
      if (!drop) h.push_back(line);
    }
    h.insert(h.end(), hc.add.begin(), hc.add.end());
    reply a = c.post(r.body, h);
    EXPECT_EQ(a.status, 400) << hc.what << ": " << a.body;
    EXPECT_EQ(a.json_body()["error"]["code"], -32020) << hc.what;
    EXPECT_EQ(a.json_body()["id"], 5) << hc.what;
  }
}

TEST(HttpModern, HeaderValuesAcceptWhitespaceCaseInsensitiveNamesAndBase64) {
  http_fixture f;
  client c(f.port());
  auto r = modern_call(1, "echo", {{"text", "x"}});
  std::vector<std::string> h = k_accept;
  h.push_back("mcp-protocol-version: 2026-07-28");
  h.push_back("MCP-METHOD:   tools/call  ");
  h.push_back("mcp-name: =?base64?ZWNobw==?=");
  reply a = c.post(r.body, h);
  EXPECT_EQ(a.status, 200) << a.body;
}

TEST(HttpModern, McpParamHeadersFollowXMcpHeader) {
  http_fixture f;
  auto call = [&](json args, std::vector<std::string> extra) {
    client c(f.port());
    auto r = modern_call(3, "region", std::move(args));
    r.headers.insert(r.headers.end(), extra.begin(), extra.end());
    return c.post(r.body, r.headers);
  };
  reply ok = call({{"region", "eu-west"}, {"count", 12}},
                  {"Mcp-Param-Region: eu-west", "mcp-param-count: 12"});
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.json_body()["result"]["content"][0]["text"], "eu-west/12");
  reply b64 = call({{"region", "\xC3\xA9u"}}, {"Mcp-Param-Region: =?base64?w6l1?="});
  EXPECT_EQ(b64.status, 200) << b64.body;
  for (const auto& bad : std::vector<std::pair<json, std::vector<std::string>>>{
           {{{"region", "eu"}}, {}},                        // header missing
           {{{"region", "eu"}}, {"Mcp-Param-Region: us"}},  // mismatch
           {{{"region", "eu"}, {"count", 2}}, {"Mcp-Param-Region: eu", "Mcp-Param-Count: 3"}},
           {{{"count", 2}}, {"Mcp-Param-Count: 2", "Mcp-Param-Region: eu"}},  // absent arg
           {{{"region", "eu"}}, {"Mcp-Param-Region: =?base64?ZXU?="}},        // bad padding
           {{{"region", "eu"}}, {"Mcp-Param-Region: eu", "Mcp-Param-Color: red"}}}) {  // undeclared
    reply r = call(bad.first, bad.second);
    EXPECT_EQ(r.status, 400) << bad.first.dump() << " " << r.body;
    EXPECT_EQ(r.json_body()["error"]["code"], -32020);
  }
}

TEST(HttpModern, EngineErrorsMapToTheirStatus) {
  http_fixture f;
  auto send = [&](const modern_request& r) {
    client c(f.port());
    return c.post(r.body, r.headers);
  };
  json no_caps = {{"name", "echo"},
                  {"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}};
  reply missing_meta = send(modern(1, "tools/call", no_caps));
  EXPECT_EQ(missing_meta.status, 400);
  EXPECT_EQ(missing_meta.json_body()["error"]["code"], -32602);

  json future = {{"_meta",
                  {{"io.modelcontextprotocol/protocolVersion", "2099-01-01"},
                   {"io.modelcontextprotocol/clientCapabilities", json::object()}}}};
  auto fr = modern(2, "tools/list", future);
  fr.headers[2] = "MCP-Protocol-Version: 2099-01-01";
  reply unsupported = send(fr);
  EXPECT_EQ(unsupported.status, 400);
  EXPECT_EQ(unsupported.json_body()["error"]["code"], -32022);

  for (const char* m : {"initialize", "ping", "logging/setLevel", "no/such/method"}) {
    reply r = send(modern(3, m));
    EXPECT_EQ(r.status, 404) << m << " " << r.body;
    EXPECT_EQ(r.json_body()["error"]["code"], -32601) << m;
  }
  reply unknown_tool = send(modern_call(4, "nope"));
  EXPECT_EQ(unknown_tool.status, 200);
  EXPECT_EQ(unknown_tool.json_body()["error"]["code"], -32602);
  reply ok = send(modern(5, "server/discover"));
  EXPECT_EQ(ok.status, 200) << ok.body;
}

TEST(HttpModern, BodyAndMediaTypeProblems) {
  http_fixture f;
  auto r = modern_call(1, "echo");
  {
    client c(f.port());
    reply a = c.post("{not json", r.headers);
    EXPECT_EQ(a.status, 400);
    EXPECT_EQ(a.json_body()["error"]["code"], -32700);
    EXPECT_TRUE(a.json_body()["id"].is_null());
  }
  {
    client c(f.port());
    reply a = c.post("[" + r.body + "]", r.headers);
    EXPECT_EQ(a.status, 400);
    EXPECT_EQ(a.json_body()["error"]["code"], -32600);
  }
  {
    client c(f.port());
    std::vector<std::string> h = {"Content-Type: application/json", "Accept: application/json",
                                  "MCP-Protocol-Version: 2026-07-28"};
    reply a = c.post(r.body, h);
    EXPECT_EQ(a.status, 406);
    EXPECT_NE(a.body.find("text/event-stream"), std::string::npos);
  }
  {
    client c(f.port());
    std::vector<std::string> h = {"Accept: application/json, text/event-stream",
                                  "Content-Type: text/plain"};
    reply a = c.post(r.body, h);
    EXPECT_EQ(a.status, 415);
    EXPECT_NE(a.body.find("application/json"), std::string::npos);
  }
}

TEST(HttpModern, ModernOnlyServerAnswersGetAndDeleteWith405) {
  http_options o;
  o.legacy = false;
  http_fixture f(o);
  for (const char* m : {"GET", "DELETE"}) {
    client c(f.port());
    c.send_raw(client::request(m, "/mcp", {"Accept: text/event-stream"}, ""));
    reply r = c.read_reply();
    EXPECT_EQ(r.status, 405) << m;
    EXPECT_EQ(r.header("allow"), "POST");
  }
  client c(f.port());
  reply init = c.post(initialize_body(), k_accept);
  EXPECT_EQ(init.status, 404) << "no legacy sessions on a modern-only server: " << init.body;
  EXPECT_EQ(init.header("mcp-session-id"), "");
}

TEST(HttpModern, ClosingTheStreamCancelsTheRequest) {
  http_fixture f;
  {
    client c(f.port());
    auto r = modern_call(1, "slow");
    c.send_raw(client::request("POST", "/mcp", r.headers, r.body));
    ASSERT_TRUE(eventually([&] { return f.probe->slow_started.load() == 1; }));
    c.close();
  }
  EXPECT_TRUE(eventually([&] { return f.probe->slow_cancelled.load() == 1; }));
}

TEST(HttpModern, SessionIdAndLastEventIdAreIgnored) {
  http_fixture f;
  client c(f.port());
  auto r = modern_call(1, "echo", {{"text", "a"}});
  r.headers.push_back("Mcp-Session-Id: not-a-session");
  r.headers.push_back("Last-Event-ID: 1-1");
  reply a = c.post(r.body, r.headers);
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.header("mcp-session-id"), "");
}

}  // namespace
}  // namespace mcpcxx::http_test

// request_context::http_headers over Streamable HTTP: every header but the credentials, which
// http_options::expose_headers opts into; both eras; bad option values refused at construction.
#include "mcpcxx/http_json.hpp"

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

void add_headers_tool(server& s) {
  s.add_tool({.name = "headers"}, [](const json&, request_context& ctx) {
    return tool_result::structured({{"headers", ctx.http_headers()}});
  });
}

json modern_headers_seen(http_fixture& f, std::vector<std::string> extra) {
  client c(f.port());
  auto r = modern_call(1, "headers");
  r.headers.insert(r.headers.end(), extra.begin(), extra.end());
  reply a = c.post(r.body, r.headers);
  EXPECT_EQ(a.status, 200) << a.body;
  return a.json_body()["result"]["structuredContent"]["headers"];
}

TEST(HttpHandlerHeaders, HandlersSeeHeadersButNotCredentialsByDefault) {
  http_fixture f;
  add_headers_tool(*f.srv);
  json h = modern_headers_seen(f, {"Cookie: sid=secret", "X-Request-Id: r-1", "X-Multi: a",
                                   "X-Multi: b", "Proxy-Authorization: Basic eA=="});
  ASSERT_TRUE(h.is_object()) << h.dump();
  EXPECT_EQ(h["x-request-id"], "r-1");
  EXPECT_EQ(h["x-multi"], "a, b");
  EXPECT_EQ(h["mcp-method"], "tools/call");
  EXPECT_FALSE(h.contains("cookie"));
  EXPECT_FALSE(h.contains("proxy-authorization"));
  EXPECT_EQ(h.dump().find("secret"), std::string::npos);
}

TEST(HttpHandlerHeaders, ExposeHeadersOptsIntoNamedCredentialsOnly) {
  http_options o;
  o.expose_headers = {"Cookie"};
  http_fixture f(o);
  add_headers_tool(*f.srv);
  json h = modern_headers_seen(f, {"Cookie: sid=1", "Authorization: Bearer abc"});
  EXPECT_EQ(h["cookie"], "sid=1");
  EXPECT_FALSE(h.contains("authorization"));
}

TEST(HttpHandlerHeaders, LegacySessionRequestsSeeTheirOwnPostsHeaders) {
  http_fixture f;
  add_headers_tool(*f.srv);
  client c(f.port());
  std::string sid = open_legacy_session(c);
  auto h = legacy_headers(sid);
  h.push_back("X-Trace: first");
  json call = {{"jsonrpc", "2.0"},
               {"id", 2},
               {"method", "tools/call"},
               {"params", {{"name", "headers"}, {"arguments", json::object()}}}};
  reply r = c.post(call.dump(), h);
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.header("content-type") == "text/event-stream" ? json::parse(r.events().back())
                                                              : r.json_body();
  json seen = body["result"]["structuredContent"]["headers"];
  EXPECT_EQ(seen["x-trace"], "first");
  EXPECT_EQ(seen["mcp-session-id"], sid);
}

TEST(HttpHandlerHeaders, ExposingANonCredentialHeaderIsRefused) {
  server srv;
  http_options o;
  o.expose_headers = {"X-Request-Id"};
  try {
    http_server bad(srv, o);
    ADD_FAILURE() << "expose_headers naming a header never withheld must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("X-Request-Id"), std::string::npos) << e.what();
  }
  http_options parsed = json{{"expose_headers", {"authorization", "SET-COOKIE"}}};
  EXPECT_EQ(parsed.expose_headers, (std::vector<std::string>{"authorization", "SET-COOKIE"}));
  EXPECT_NO_THROW(http_server ok(srv, parsed));
  const json not_a_list = {{"expose_headers", "cookie"}};
  EXPECT_THROW(not_a_list.get<http_options>(), std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::http_test

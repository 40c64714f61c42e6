// Per-tool scopes (tool_spec::scopes) behind the HTTP auth hook: tools/list hides what the
// principal may not use, tools/call is refused 403 (H42) with a scope challenge, a legacy batch
// member gets P55, no principal gets P56, and a verifier that cannot verify gets 503 (H43).
#include <algorithm>
#include <string>
#include <vector>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

void add_admin_tool(server& s) {
  tool_spec spec;
  spec.name = "reset";
  spec.scopes = {"mcp:admin", "mcp:write"};
  s.add_tool(std::move(spec), [](const json&, request_context& ctx) {
    return tool_result::text("reset by " + ctx.principal().value("sub", std::string()));
  });
}

http_options scoped_auth() {
  http_options o;
  http_auth_options a;
  a.authorization_servers = {"https://auth.example.com"};
  a.verifier = [](std::string_view token, const http_auth_request&) {
    if (token == "reader") return http_auth_result::allow({{"sub", "r"}, {"scopes", {"mcp:read"}}});
    if (token == "admin") {
      return http_auth_result::allow({{"sub", "a"}, {"scopes", {"mcp:admin", "mcp:write"}}});
    }
    if (token == "down") return http_auth_result::unavailable("jwks at 10.1.2.3 unreachable");
    return http_auth_result::invalid();
  };
  o.auth = a;
  return o;
}

// Every tool on one tools/list page.
server_options one_page() {
  server_options so;
  so.page_size = 1000;
  return so;
}

reply send(http_fixture& f, const modern_request& r, const std::string& token) {
  client c(f.port());
  auto h = r.headers;
  if (!token.empty()) h.push_back("Authorization: Bearer " + token);
  return c.post(r.body, h);
}

std::vector<std::string> tool_names(const reply& r) {
  std::vector<std::string> names;
  const json body = r.json_body();
  for (const auto& t : body["result"]["tools"]) names.push_back(t["name"]);
  return names;
}

TEST(HttpAuthScopes, ToolsListShowsOnlyToolsThePrincipalHoldsScopesFor) {
  http_fixture f(scoped_auth(), one_page());
  add_admin_tool(*f.srv);
  reply reader = send(f, modern(1, "tools/list"), "reader");
  ASSERT_EQ(reader.status, 200) << reader.body;
  auto names = tool_names(reader);
  EXPECT_EQ(std::find(names.begin(), names.end(), "reset"), names.end());
  EXPECT_EQ(reader.json_body()["result"]["cacheScope"], "private");
  names = tool_names(send(f, modern(2, "tools/list"), "admin"));
  EXPECT_NE(std::find(names.begin(), names.end(), "reset"), names.end());
}

TEST(HttpAuthScopes, ACallWithoutTheScopesIs403NamingThem) {
  http_fixture f(scoped_auth());
  add_admin_tool(*f.srv);
  reply r = send(f, modern_call(1, "reset"), "reader");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("www-authenticate"),
            "Bearer resource_metadata=\"http://127.0.0.1:" + std::to_string(f.port()) +
                "/.well-known/oauth-protected-resource/mcp\", error=\"insufficient_scope\", "
                "scope=\"mcp:admin mcp:write\"");
  EXPECT_EQ(r.json_body()["error"]["message"],
            "Forbidden: tool reset needs the scope(s) mcp:admin mcp:write, which the access token "
            "lacks; nothing was executed. Obtain a token that grants them (step-up "
            "authorization) and retry");
  reply ok = send(f, modern_call(2, "reset"), "admin");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.json_body()["result"]["content"][0]["text"], "reset by a");
}

TEST(HttpAuthScopes, ALegacyBatchMemberLackingScopesGetsP55) {
  http_fixture f(scoped_auth());
  add_admin_tool(*f.srv);
  client c(f.port());
  std::string sid = open_legacy_session(c, "2025-03-26", {"Authorization: Bearer reader"});
  auto h = legacy_headers(sid, "2025-03-26");
  h.push_back("Authorization: Bearer reader");
  reply r = c.post(
      R"([{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"reset","arguments":{}}}])",
      h);
  ASSERT_EQ(r.status, 200) << r.body;
  auto data = r.body.find("data: ");  // the member's reply is an SSE event
  ASSERT_NE(data, std::string::npos) << r.body;
  json member = json::parse(r.body.substr(data + 6, r.body.find('\n', data) - data - 6));
  EXPECT_EQ(member["error"]["code"], -32602);
  EXPECT_EQ(member["error"]["data"]["missing"], "mcp:admin mcp:write");
  EXPECT_EQ(member["error"]["message"],
            "Invalid params: tool reset needs the scope(s) mcp:admin mcp:write and the access "
            "token lacks mcp:admin mcp:write; nothing was executed. Obtain a token that grants "
            "them (step-up authorization) and call again; the same token fails the same way");
}

TEST(HttpAuthScopes, WithoutAuthAScopedToolIsHiddenAndRefusedWithP56) {
  http_fixture f({}, one_page());
  add_admin_tool(*f.srv);
  auto names = tool_names(send(f, modern(1, "tools/list"), ""));
  EXPECT_EQ(std::find(names.begin(), names.end(), "reset"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "echo"), names.end());
  reply r = send(f, modern_call(2, "reset"), "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json_body()["error"]["code"], -32602);
  EXPECT_EQ(r.json_body()["error"]["data"]["scopes"], "mcp:admin mcp:write");
  reply typo = send(f, modern_call(3, "rese"), "");
  EXPECT_EQ(typo.json_body()["error"]["message"], "Unknown tool: rese");
  EXPECT_EQ(typo.body.find("reset"), std::string::npos) << "a hidden tool is never suggested";
}

TEST(HttpAuthScopes, AnUnavailableVerifierIs503WithRetryAfterAndTheReasonOnlyLogged) {
  http_fixture f(scoped_auth());
  reply r = send(f, modern_call(1, "echo", {{"text", "x"}}), "down");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.header("retry-after"), "5");
  EXPECT_EQ(r.body.find("10.1.2.3"), std::string::npos) << r.body;
  std::lock_guard g(f.probe->lock);
  bool logged = false;
  for (const auto& line : f.probe->log_lines) {
    logged = logged || (line.find("http_auth_unavailable") != std::string::npos &&
                        line.find("10.1.2.3") != std::string::npos);
  }
  EXPECT_TRUE(logged);
}

TEST(HttpAuthScopes, BadScopesAreRefusedAtRegistration) {
  server s;
  for (const std::string& bad : {std::string(""), std::string("a b"), std::string("q\"x")}) {
    tool_spec spec;
    spec.name = "t";
    spec.scopes = {bad};
    EXPECT_THROW(
        s.add_tool(spec, [](const json&, request_context&) { return tool_result::text(""); }),
        std::invalid_argument)
        << bad;
  }
}

TEST(HttpAuthScopes, PrincipalScopesReadTheScopesArrayOnly) {
  json p = {{"sub", "x"}, {"scopes", {"a", 7, "b"}}};
  EXPECT_EQ(principal_scopes(p), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(principal_scopes(nullptr).empty());
  EXPECT_TRUE(principal_scopes({{"sub", "x"}, {"scope", "a b"}}).empty());
  EXPECT_EQ(missing_scopes(p, {"b", "c", "a", "d"}), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(missing_scopes(nullptr, {"a"}), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(missing_scopes(nullptr, {}).empty());
}

}  // namespace
}  // namespace mcpcxx::http_test

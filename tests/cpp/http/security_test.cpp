// DNS-rebinding protection (Host and Origin), configurable allow lists, and the bearer-token hook:
// 401/403 challenges, the RFC 9728 metadata document, principals reaching tools, no token leaks.
#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

reply post_with(std::uint16_t port, const std::vector<std::string>& extra,
                const std::string& host = "127.0.0.1") {
  client c(port);
  auto r = modern_call(1, "echo", {{"text", "x"}});
  r.headers.insert(r.headers.end(), extra.begin(), extra.end());
  std::string raw = client::request("POST", "/mcp", r.headers, r.body);
  raw.replace(raw.find("Host: 127.0.0.1"), 15, "Host: " + host);
  c.send_raw(raw);
  return c.read_reply();
}

TEST(HttpSecurity, BadHostOrOriginIs403) {
  http_fixture f;
  EXPECT_EQ(post_with(f.port(), {}).status, 200);
  EXPECT_EQ(post_with(f.port(), {"Origin: http://localhost:5173"}).status, 200);
  reply host = post_with(f.port(), {}, "evil.example.com");
  EXPECT_EQ(host.status, 403);
  EXPECT_NE(host.body.find("Host"), std::string::npos);
  reply origin = post_with(f.port(), {"Origin: http://evil.example.com"});
  EXPECT_EQ(origin.status, 403);
  EXPECT_NE(origin.body.find("Origin"), std::string::npos);
  EXPECT_EQ(post_with(f.port(), {}, "localhost:" + std::to_string(f.port())).status, 200);
}

TEST(HttpSecurity, AllowListsAreConfigurable) {
  http_options o;
  o.allowed_hosts = {"mcp.example.com"};
  o.allowed_origins = {"https://app.example.com"};
  http_fixture f(o);
  EXPECT_EQ(post_with(f.port(), {"Origin: https://app.example.com"}, "mcp.example.com").status,
            200);
  EXPECT_EQ(post_with(f.port(), {"Origin: http://localhost"}, "mcp.example.com").status, 403);
  EXPECT_EQ(post_with(f.port(), {}, "127.0.0.1").status, 403);
}

TEST(HttpSecurity, UnknownPathIs404AndOtherMethodsAre405) {
  http_fixture f;
  client c(f.port());
  c.send_raw(client::request("GET", "/other", {}, ""));
  EXPECT_EQ(c.read_reply().status, 404);
  c.send_raw(client::request("PUT", "/mcp", {}, ""));
  reply put = c.read_reply();
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.header("allow"), "POST, GET, DELETE");
}

http_options auth_options(const std::shared_ptr<std::atomic<int>>& calls) {
  http_options o;
  http_auth_options a;
  a.authorization_servers = {"https://auth.example.com"};
  a.scopes_supported = {"mcp:read", "mcp:admin"};
  a.verifier = [calls](std::string_view token, const http_auth_request& req) {
    ++*calls;
    if (token == "secret-alice") {
      if (req.mcp_name == "whoami" || req.mcp_method != "tools/call") {
        return http_auth_result::allow({{"sub", "alice"}, {"scopes", {"mcp:read"}}});
      }
      return http_auth_result::insufficient({"mcp:admin"});
    }
    if (token == "secret-bob") return http_auth_result::allow({{"sub", "bob"}});
    return http_auth_result::invalid("The token expired");
  };
  o.auth = a;
  return o;
}

TEST(HttpAuth, MissingOrBadTokensGet401WithResourceMetadata) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  http_fixture f(auth_options(calls));
  reply none = post_with(f.port(), {});
  EXPECT_EQ(none.status, 401);
  std::string challenge = none.header("www-authenticate");
  std::string url =
      "http://127.0.0.1:" + std::to_string(f.port()) + "/.well-known/oauth-protected-resource/mcp";
  EXPECT_NE(challenge.find("Bearer resource_metadata=\"" + url + "\""), std::string::npos)
      << challenge;
  EXPECT_EQ(challenge.find("error="), std::string::npos) << "no error code without a token";
  reply bad = post_with(f.port(), {"Authorization: Bearer secret-mallory"});
  EXPECT_EQ(bad.status, 401);
  EXPECT_NE(bad.header("www-authenticate").find("error=\"invalid_token\""), std::string::npos);
  EXPECT_NE(bad.header("www-authenticate").find("The token expired"), std::string::npos);
  reply basic = post_with(f.port(), {"Authorization: Basic YTpi"});
  EXPECT_EQ(basic.status, 401);
}

TEST(HttpAuth, MalformedTokensGet401WithoutReachingTheVerifier) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  http_fixture f(auth_options(calls));
  for (const std::string& token :
       {std::string("secret alice"), std::string("secret-\xFF\xC0"), std::string("=abc")}) {
    reply r = post_with(f.port(), {"Authorization: Bearer " + token});
    EXPECT_EQ(r.status, 401) << token;
    EXPECT_NE(r.header("www-authenticate").find("error=\"invalid_token\""), std::string::npos);
    EXPECT_NE(r.header("www-authenticate").find("malformed"), std::string::npos);
    EXPECT_FALSE(r.json_body().is_discarded()) << r.body;
  }
  EXPECT_EQ(calls->load(), 0) << "the verifier must only see well-formed bearer tokens";
}

TEST(HttpAuth, AVerifierThatThrowsGetsA500WithAReferenceAndTheDetailIsLogged) {
  http_options o = auth_options(std::make_shared<std::atomic<int>>(0));
  o.auth->verifier = [](std::string_view, const http_auth_request&) -> http_auth_result {
    throw std::runtime_error("token store unreachable at 10.0.0.7");
  };
  http_fixture f(o);
  reply r = post_with(f.port(), {"Authorization: Bearer abc"});
  EXPECT_EQ(r.status, 500);
  ASSERT_FALSE(r.json_body().is_discarded()) << r.body;
  EXPECT_EQ(r.json_body()["error"]["code"], -32603);
  std::string message = r.json_body()["error"]["message"];
  EXPECT_EQ(r.body.find("10.0.0.7"), std::string::npos) << "internals must not leak: " << r.body;
  auto at = message.find("ERR-");
  ASSERT_NE(at, std::string::npos) << message;
  std::string ref = message.substr(at, 12);
  EXPECT_EQ(r.json_body()["error"]["data"]["reference"], ref) << "H26 carries its reference";
  std::lock_guard g(f.probe->lock);
  bool logged = false;
  for (const auto& line : f.probe->log_lines) {
    logged = logged ||
             (line.find(ref) != std::string::npos && line.find("10.0.0.7") != std::string::npos);
  }
  EXPECT_TRUE(logged) << "the detail is logged under " << ref;
}

TEST(HttpAuth, InsufficientScopeIs403) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  http_fixture f(auth_options(calls));
  reply r = post_with(f.port(), {"Authorization: Bearer secret-alice"});  // echo needs mcp:admin
  EXPECT_EQ(r.status, 403);
  std::string c = r.header("www-authenticate");
  EXPECT_NE(c.find("error=\"insufficient_scope\""), std::string::npos) << c;
  EXPECT_NE(c.find("scope=\"mcp:admin\""), std::string::npos) << c;
  EXPECT_NE(c.find("resource_metadata="), std::string::npos) << c;
}

TEST(HttpAuth, MetadataDocumentAndPrincipalReachTools) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  http_fixture f(auth_options(calls));
  client c(f.port());
  c.send_raw(client::request("GET", "/.well-known/oauth-protected-resource/mcp", {}, ""));
  reply meta = c.read_reply();
  ASSERT_EQ(meta.status, 200);
  json doc = meta.json_body();
  EXPECT_EQ(doc["resource"], "http://127.0.0.1:" + std::to_string(f.port()) + "/mcp");
  EXPECT_EQ(doc["authorization_servers"][0], "https://auth.example.com");
  EXPECT_EQ(doc["scopes_supported"].size(), 2u);

  auto r = modern_call(2, "whoami");
  r.headers.push_back("Authorization: Bearer secret-alice");
  reply who = c.post(r.body, r.headers);
  ASSERT_EQ(who.status, 200) << who.body;
  std::lock_guard g(f.probe->lock);
  ASSERT_EQ(f.probe->principals.size(), 1u);
  EXPECT_EQ(f.probe->principals[0]["sub"], "alice");
  EXPECT_EQ(who.body.find("secret-alice"), std::string::npos);
  for (const auto& line : f.probe->log_lines) {
    EXPECT_EQ(line.find("secret-"), std::string::npos) << "token leaked into the log: " << line;
  }
}

TEST(HttpAuth, LegacySessionsAreBoundToTheirPrincipal) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  http_fixture f(auth_options(calls));
  client c(f.port());
  std::string sid = open_legacy_session(c, "2025-11-25", {"Authorization: Bearer secret-alice"});
  auto as_alice = legacy_headers(sid);
  as_alice.push_back("Authorization: Bearer secret-alice");
  EXPECT_EQ(c.post(legacy_call(2, "whoami"), as_alice).status, 200);
  auto as_bob = legacy_headers(sid);
  as_bob.push_back("Authorization: Bearer secret-bob");
  EXPECT_EQ(c.post(legacy_call(3, "whoami"), as_bob).status, 404)
      << "another principal must not use alice's session id";
  auto no_token = legacy_headers(sid);
  EXPECT_EQ(c.post(legacy_call(4, "whoami"), no_token).status, 401);
}

TEST(HttpAuth, OptionsAreValidated) {
  server s;
  http_options o;
  o.auth = http_auth_options{};
  EXPECT_THROW(http_server(s, o), std::invalid_argument);
  o.auth->verifier = [](std::string_view, const http_auth_request&) {
    return http_auth_result::invalid();
  };
  EXPECT_THROW(http_server(s, o), std::invalid_argument);  // no authorization server
  http_options bad_path;
  bad_path.path = "mcp";
  EXPECT_THROW(http_server(s, bad_path), std::invalid_argument);
  http_options no_threads;
  no_threads.io_threads = 0;
  EXPECT_THROW(http_server(s, no_threads), std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::http_test

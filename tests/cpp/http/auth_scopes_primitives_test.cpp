// Scopes of resources, resource templates and prompts behind the HTTP auth hook: a read, a
// subscribe or a prompts/get lacking them is 403 with a scope challenge naming the primitive's
// scopes (H44), a rule that refuses the caller is P66 with HTTP 200 (no step-up helps), lists
// show each principal what it may use, and the tool challenge (H42) is unchanged.
#include <algorithm>
#include <string>
#include <vector>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

void add_guarded(server& s) {
  auto reader = [](const std::string& uri, request_context&) {
    return std::vector<resource_contents>{{.uri = uri, .text = "secret"}};
  };
  s.add_resource({.uri = "ops://runbook", .name = "runbook", .scopes = {"ops:read", "ops:write"}},
                 reader);
  s.add_resource_template(
      {.uri_template = "ops://job/{id}", .name = "job", .scopes = {"ops:read"}},
      [](const std::string& uri, const std::map<std::string, std::string>&, request_context&) {
        return std::vector<resource_contents>{{.uri = uri, .text = "job"}};
      });
  s.add_prompt({.name = "handover", .visible_to = require_roles({"ops"})}, [](const std::map<
                                                                                  std::string,
                                                                                  std::string>&,
                                                                              request_context&) {
    prompt_result r;
    r.messages = json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", "go"}}}}});
    return r;
  });
}

http_options auth() {
  http_options o;
  http_auth_options a;
  a.authorization_servers = {"https://auth.example.com"};
  a.verifier = [](std::string_view token, const http_auth_request&) {
    if (token == "reader") return http_auth_result::allow({{"sub", "r"}, {"scopes", {"ops:read"}}});
    if (token == "ops") {
      return http_auth_result::allow(
          {{"sub", "o"}, {"scopes", {"ops:read", "ops:write"}}, {"roles", {"ops"}}});
    }
    return http_auth_result::invalid();
  };
  o.auth = a;
  return o;
}

reply send_as(http_fixture& f, const modern_request& r, const std::string& token) {
  client c(f.port());
  auto h = r.headers;
  h.push_back("Authorization: Bearer " + token);
  return c.post(r.body, h);
}

std::string challenge(http_fixture& f, const std::string& scopes) {
  return "Bearer resource_metadata=\"http://127.0.0.1:" + std::to_string(f.port()) +
         "/.well-known/oauth-protected-resource/mcp\", error=\"insufficient_scope\", scope=\"" +
         scopes + "\"";
}

TEST(HttpAuthScopesPrimitives, AReadLackingScopesIs403NamingTheResourceAndItsScopes) {
  http_fixture f(auth());
  add_guarded(*f.srv);
  reply r = send_as(f, modern(1, "resources/read", {{"uri", "ops://runbook"}}), "reader");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.header("www-authenticate"), challenge(f, "ops:read ops:write"));
  EXPECT_EQ(r.json_body()["error"]["code"], -32600);
  EXPECT_EQ(r.json_body()["error"]["message"],
            "Forbidden: resource ops://runbook needs the scope(s) ops:read ops:write, which the "
            "access token lacks; nothing was done. Obtain a token that grants them (step-up "
            "authorization) and retry");
  reply ok = send_as(f, modern(2, "resources/read", {{"uri", "ops://runbook"}}), "ops");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.json_body()["result"]["contents"][0]["text"], "secret");
}

TEST(HttpAuthScopesPrimitives, ATemplatedReadAndASubscribeUseTheTemplateScopes) {
  http_fixture f(auth());
  add_guarded(*f.srv);
  reply r = send_as(f, modern(1, "resources/read", {{"uri", "ops://job/4"}}), "ops");
  EXPECT_EQ(r.status, 200) << r.body;
  client c(f.port());
  std::string sid = open_legacy_session(c, "2025-11-25", {"Authorization: Bearer reader"});
  auto h = legacy_headers(sid, "2025-11-25");
  h.push_back("Authorization: Bearer reader");
  reply sub = c.post(
      R"({"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"ops://runbook"}})",
      h);
  EXPECT_EQ(sub.status, 403) << sub.body;
  EXPECT_EQ(sub.header("www-authenticate"), challenge(f, "ops:read ops:write"));
  reply job = c.post(
      R"({"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"ops://job/1"}})",
      h);
  EXPECT_EQ(job.status, 200) << job.body;
}

TEST(HttpAuthScopesPrimitives, ARuleRefusalIsP66WithStatus200) {
  http_fixture f(auth());
  add_guarded(*f.srv);
  reply r = send_as(f, modern(1, "prompts/get", {{"name", "handover"}}), "reader");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("www-authenticate"), "");
  EXPECT_EQ(r.json_body()["error"]["data"],
            json({{"primitive", "prompt"}, {"name", "handover"}, {"requirement", "the role ops"}}));
  reply ok = send_as(f, modern(2, "prompts/get", {{"name", "handover"}}), "ops");
  EXPECT_EQ(ok.json_body()["result"]["messages"][0]["content"]["text"], "go") << ok.body;
}

TEST(HttpAuthScopesPrimitives, ListsShowEachPrincipalWhatItMayUse) {
  server_options one_page;
  one_page.page_size = 1000;  // every entry on the first page
  http_fixture f(auth(), one_page);
  add_guarded(*f.srv);
  auto uris = [&](const std::string& token) {
    std::vector<std::string> out;
    const json body = send_as(f, modern(1, "resources/list"), token).json_body();
    for (const auto& e : body["result"]["resources"]) out.push_back(e["uri"]);
    EXPECT_EQ(body["result"]["cacheScope"], "private");
    return out;
  };
  const auto some = uris("reader");
  EXPECT_EQ(std::count(some.begin(), some.end(), "ops://runbook"), 0);
  const auto all = uris("ops");
  EXPECT_EQ(std::count(all.begin(), all.end(), "ops://runbook"), 1);
  reply t = send_as(f, modern(2, "resources/templates/list"), "reader");
  EXPECT_EQ(t.json_body()["result"]["resourceTemplates"].size(), 1u) << t.body;
  const json prompts = send_as(f, modern(3, "prompts/list"), "reader").json_body();
  ASSERT_TRUE(prompts["result"]["prompts"].is_array()) << prompts.dump();
  for (const auto& e : prompts["result"]["prompts"]) EXPECT_NE(e["name"], "handover");
}

}  // namespace
}  // namespace mcpcxx::http_test

// Ownership by the principal's identity over HTTP (docs/auth.md): a task and a 2026-07-28
// input_required round survive a token refresh (same sub, other iat/exp/jti) and a step-up to
// more scopes, on both eras; another subject, issuer or client id is refused as before (P45,
// P38, H14), and http_auth_options::identity_claims adds a tenant to the identity.
#include <map>
#include <string>
#include <vector>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

const std::string k_tasks_ext = "io.modelcontextprotocol/tasks";

// A token per principal: the same user refreshed and stepped up, and three other identities.
json principal_for(const std::string& token) {
  json p = {{"sub", "alice"},
            {"scopes", {"read"}},
            {"client_id", "cli-1"},
            {"claims", {{"iss", "https://as.example"}, {"iat", 100}, {"jti", "j1"}, {"tid", "t1"}}},
            {"exp", 3700}};
  if (token == "refreshed") {
    p["claims"]["iat"] = 4000;
    p["claims"]["jti"] = "j2";
    p["exp"] = 7600;
  } else if (token == "stepped-up") {
    p["scopes"] = {"read", "write"};
    p["claims"]["jti"] = "j3";
  } else if (token == "bob") {
    p["sub"] = "bob";
  } else if (token == "other-issuer") {
    p["claims"]["iss"] = "https://evil.example";
  } else if (token == "other-client") {
    p["client_id"] = "cli-2";
  } else if (token == "other-tenant") {
    p["claims"]["tid"] = "t2";
  } else if (token != "alice") {
    return nullptr;
  }
  return p;
}

http_options identity_auth(std::vector<std::string> identity_claims = {}) {
  http_options o;
  http_auth_options a;
  a.authorization_servers = {"https://as.example"};
  a.identity_claims = std::move(identity_claims);
  a.verifier = [](std::string_view token, const http_auth_request&) {
    json p = principal_for(std::string(token));
    return p.is_null() ? http_auth_result::invalid() : http_auth_result::allow(std::move(p));
  };
  o.auth = a;
  return o;
}

void add_identity_tools(server& s) {
  tool_spec job;
  job.name = "job";
  job.task = task_support::optional;
  s.add_tool(job, [](const json&, request_context& ctx) {
    return tool_result::text("job of " + ctx.principal().value("sub", std::string()));
  });
  s.add_tool({.name = "confirm"}, [](const json&, request_context& ctx) {
    const elicit_result r =
        ctx.elicit("Sure?", {{"type", "object"}, {"properties", json::object()}});
    return tool_result::text("confirmed " + r.action);
  });
}

// The JSON-RPC message of a reply: its JSON body, or the last data event of an SSE body.
json message_of(const reply& r) {
  if (r.header("content-type").rfind("text/event-stream", 0) != 0) return r.json_body();
  json last;
  for (const auto& e : r.events()) {
    if (!e.empty()) last = json::parse(e, nullptr, false);
  }
  return last;
}

json modern_with_token(http_fixture& f, const modern_request& r, const std::string& token) {
  client c(f.port());
  auto h = r.headers;
  h.push_back("Authorization: Bearer " + token);
  const reply rep = c.post(r.body, h);
  EXPECT_EQ(rep.status, 200) << rep.body;
  return message_of(rep);
}

json tasks_meta() {
  json meta = modern_meta();
  meta["io.modelcontextprotocol/clientCapabilities"] = {{"extensions", {{k_tasks_ext, {}}}}};
  return meta;
}

std::string modern_task(http_fixture& f) {
  const json created = modern_with_token(
      f,
      modern(1, "tools/call",
             {{"name", "job"}, {"arguments", json::object()}, {"_meta", tasks_meta()}}),
      "alice");
  EXPECT_EQ(created["result"].value("resultType", ""), "task") << created;
  return created["result"].value("taskId", "");
}

json modern_get(http_fixture& f, const std::string& task_id, const std::string& token) {
  modern_request r = modern(2, "tasks/get", {{"taskId", task_id}, {"_meta", tasks_meta()}});
  r.headers.push_back("Mcp-Name: " + task_id);  // SEP-2243 names tasks/* by their task id
  return modern_with_token(f, r, token);
}

void expect_p45(const json& reply) {
  EXPECT_EQ(reply["error"].value("code", 0), -32602) << reply;
  EXPECT_NE(reply["error"].value("message", "").find("exists for you"), std::string::npos) << reply;
}

TEST(HttpIdentity, AModernTaskSurvivesARefreshAndAStepUp) {
  http_fixture f(identity_auth());
  add_identity_tools(*f.srv);
  const std::string id = modern_task(f);
  ASSERT_FALSE(id.empty());
  for (const char* token : {"refreshed", "stepped-up", "alice"}) {
    const json got = modern_get(f, id, token);
    EXPECT_TRUE(got.contains("result")) << token << ": " << got;
  }
}

TEST(HttpIdentity, AModernTaskStaysRefusedToAnotherSubjectIssuerOrClient) {
  http_fixture f(identity_auth());
  add_identity_tools(*f.srv);
  const std::string id = modern_task(f);
  for (const char* token : {"bob", "other-issuer", "other-client"}) {
    SCOPED_TRACE(token);
    expect_p45(modern_get(f, id, token));
  }
}

TEST(HttpIdentity, AConfiguredTenantClaimIsPartOfTheIdentity) {
  http_fixture f(identity_auth({"tid"}));
  add_identity_tools(*f.srv);
  const std::string id = modern_task(f);
  EXPECT_TRUE(modern_get(f, id, "refreshed").contains("result"));
  expect_p45(modern_get(f, id, "other-tenant"));
}

TEST(HttpIdentity, WithoutTheSettingTheTenantIsNotPartOfIt) {
  http_fixture f(identity_auth());
  add_identity_tools(*f.srv);
  EXPECT_TRUE(modern_get(f, modern_task(f), "other-tenant").contains("result"));
}

json elicit_meta() {
  json meta = modern_meta();
  meta["io.modelcontextprotocol/clientCapabilities"] = {
      {"elicitation", {{"form", json::object()}}}};
  return meta;
}

modern_request confirm_retry(int id, const json& state) {
  return modern(
      id, "tools/call",
      {{"name", "confirm"},
       {"arguments", json::object()},
       {"requestState", state},
       {"inputResponses", {{"ask-0", {{"action", "accept"}, {"content", json::object()}}}}},
       {"_meta", elicit_meta()}});
}

TEST(HttpIdentity, AnInputRequiredRoundSurvivesARefreshAndAStepUp) {
  http_fixture f(identity_auth());
  add_identity_tools(*f.srv);
  const json first = modern_with_token(
      f,
      modern(1, "tools/call",
             {{"name", "confirm"}, {"arguments", json::object()}, {"_meta", elicit_meta()}}),
      "alice");
  ASSERT_EQ(first["result"].value("resultType", ""), "input_required")
      << first << "\n"
      << ::testing::PrintToString(f.probe->log_lines);
  const json state = first["result"]["requestState"];
  for (const char* token : {"bob", "other-issuer", "other-client"}) {
    const json refused = modern_with_token(f, confirm_retry(2, state), token);
    EXPECT_NE(refused["error"].value("message", "").find("another authenticated principal"),
              std::string::npos)
        << token << ": " << refused;
  }
  for (const char* token : {"refreshed", "stepped-up"}) {
    const json done = modern_with_token(f, confirm_retry(3, state), token);
    EXPECT_EQ(done["result"]["content"][0].value("text", ""), "confirmed accept")
        << token << ": " << done;
  }
}

// A legacy session opened with alice's first token, and a task it created.
struct legacy_task {
  std::string sid;
  std::string task_id;
};

legacy_task open_legacy_task(http_fixture& f) {
  client c(f.port());
  legacy_task t;
  t.sid = open_legacy_session(c, "2025-11-25", {"Authorization: Bearer alice"});
  auto h = legacy_headers(t.sid);
  h.push_back("Authorization: Bearer alice");
  const json call = {
      {"jsonrpc", "2.0"},
      {"id", 2},
      {"method", "tools/call"},
      {"params", {{"name", "job"}, {"arguments", json::object()}, {"task", json::object()}}}};
  const json created = message_of(c.post(call.dump(), h));
  t.task_id = created["result"]["task"].value("taskId", "");
  EXPECT_FALSE(t.task_id.empty()) << created;
  return t;
}

reply legacy_get(http_fixture& f, const legacy_task& t, const std::string& token) {
  client c(f.port());
  auto h = legacy_headers(t.sid);
  h.push_back("Authorization: Bearer " + token);
  const json get = {
      {"jsonrpc", "2.0"}, {"id", 3}, {"method", "tasks/get"}, {"params", {{"taskId", t.task_id}}}};
  return c.post(get.dump(), h);
}

TEST(HttpIdentity, ALegacySessionAndItsTaskSurviveARefreshAndAStepUp) {
  http_fixture f(identity_auth());
  add_identity_tools(*f.srv);
  const legacy_task t = open_legacy_task(f);
  for (const char* token : {"refreshed", "stepped-up"}) {
    const reply r = legacy_get(f, t, token);
    ASSERT_EQ(r.status, 200) << token << ": " << r.body;
    EXPECT_EQ(message_of(r)["result"].value("taskId", ""), t.task_id) << token << ": " << r.body;
  }
}

TEST(HttpIdentity, ALegacySessionStaysClosedToAnotherSubjectIssuerOrClient) {
  http_fixture f(identity_auth());
  add_identity_tools(*f.srv);
  const legacy_task t = open_legacy_task(f);
  for (const char* token : {"bob", "other-issuer", "other-client"}) {
    const reply r = legacy_get(f, t, token);
    EXPECT_EQ(r.status, 404) << token << ": " << r.body;  // H14: not this caller's session
  }
}

TEST(HttpIdentity, AnIdentityClaimARefreshChangesIsRefusedAtConstruction) {
  server srv;
  for (const char* name : {"exp", "iat", "jti", "scope"}) {
    SCOPED_TRACE(name);
    try {
      http_server s(srv, identity_auth({"tid", name}));
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("cannot be an identity claim"), std::string::npos)
          << e.what();
    }
    http_options hosted = identity_auth({name});
    hosted.auth->resource = "https://mcp.example/mcp";
    hosted.auth->resource_metadata_url = "https://mcp.example/.well-known/oauth-protected-resource";
    try {
      http_endpoint e(srv, hosted);
      ADD_FAILURE() << "accepted by http_endpoint";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("identity_claims"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace mcpcxx::http_test

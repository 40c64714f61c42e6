// Scopes and principal rules on resources, resource templates, prompts (and rules on tools):
// every list hides what a principal may not use, resources/read, resources/subscribe,
// prompts/get and completion/complete refuse it with rows P64-P66 (P24 for a rule that throws),
// a templated read has its template's scopes, subscriptions/listen honors only readable URIs,
// and a server with no guarded primitive keeps its shared list hints.
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

resource_reader reader_of(const std::string& body) {
  return [body](const std::string& uri, request_context&) {
    return std::vector<resource_contents>{{.uri = uri, .text = body}};
  };
}

resource_template_reader job_reader() {
  return [](const std::string& uri, const std::map<std::string, std::string>& v, request_context&) {
    return std::vector<resource_contents>{{.uri = uri, .text = "job " + v.at("id")}};
  };
}

prompt_handler say(std::string text) {
  return [text](const std::map<std::string, std::string>&, request_context&) {
    prompt_result r;
    r.messages = json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}});
    return r;
  };
}

principal_rule throwing_rule() {
  return {
      .test = [](const json&) -> bool { throw std::runtime_error("claims db at 10.9.8.7 down"); },
      .requirement = ""};
}

json reader_principal() { return {{"sub", "rita"}, {"scopes", {"docs:read"}}}; }
json ops_principal() {
  return {{"sub", "olga"},
          {"scopes", {"docs:read", "ops:read"}},
          {"claims", {{"roles", "ops audit"}, {"tenant", "acme"}}}};
}

class primitive_access : public ::testing::Test {
 protected:
  captured_log log;
  std::unique_ptr<server> srv;
  void SetUp() override {
    auto o = log.options();
    o.page_size = 100;
    srv = std::make_unique<server>(o);
    srv->add_resource({.uri = "docs://readme", .name = "readme"}, reader_of("hello"));
    srv->add_resource({.uri = "ops://runbook", .name = "runbook", .scopes = {"ops:read"}},
                      reader_of("restart it"));
    srv->add_resource({.uri = "ops://pager", .name = "pager", .visible_to = require_roles({"ops"})},
                      reader_of("call olga"));
    srv->add_resource({.uri = "ops://broken", .name = "broken", .visible_to = throwing_rule()},
                      reader_of("never"));
    srv->add_resource_template({.uri_template = "docs://page/{id}", .name = "page"}, job_reader());
    srv->add_resource_template(
        {.uri_template = "ops://job/{id}", .name = "job", .scopes = {"ops:read"}}, job_reader());
    srv->add_prompt({.name = "greet"}, say("hi"));
    srv->add_prompt({.name = "postmortem",
                     .scopes = {"ops:read"},
                     .visible_to = require_claims({{"tenant", "acme"}})},
                    say("write it"));
    srv->set_completion_handler([](const completion_request&, request_context&) {
      return completion_result{.values = {"a", "b"}};
    });
  }
  std::vector<std::string> listed(harness& h, const std::string& method, const char* field,
                                  const char* key) {
    json r = h.roundtrip(modern_request(1, method));
    std::vector<std::string> out;
    for (const auto& e : r["result"][field]) out.push_back(e[key]);
    return out;
  }
  static json error_of(const json& reply) { return reply["error"]; }
};

using names = std::vector<std::string>;

TEST_F(primitive_access, every_list_hides_what_the_principal_may_not_use) {
  harness anon(*srv);
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  harness olga(*srv);
  olga.s.set_principal(ops_principal());
  EXPECT_EQ(listed(anon, "resources/list", "resources", "uri"), names({"docs://readme"}));
  EXPECT_EQ(listed(rita, "resources/list", "resources", "uri"), names({"docs://readme"}));
  EXPECT_EQ(listed(olga, "resources/list", "resources", "uri"),
            names({"docs://readme", "ops://runbook", "ops://pager"}));
  EXPECT_EQ(listed(anon, "resources/templates/list", "resourceTemplates", "uriTemplate"),
            names({"docs://page/{id}"}));
  EXPECT_EQ(listed(olga, "resources/templates/list", "resourceTemplates", "uriTemplate"),
            names({"docs://page/{id}", "ops://job/{id}"}));
  EXPECT_EQ(listed(rita, "prompts/list", "prompts", "name"), names({"greet"}));
  EXPECT_EQ(listed(olga, "prompts/list", "prompts", "name"), names({"greet", "postmortem"}));
  for (const char* m : {"resources/list", "resources/templates/list", "prompts/list"}) {
    EXPECT_EQ(olga.roundtrip(modern_request(2, m))["result"]["cacheScope"], "private") << m;
  }
}

TEST_F(primitive_access, the_legacy_lists_hide_the_same_entries) {
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  rita.initialize();
  json r = rita.roundtrip(request(1, "resources/list"));
  ASSERT_EQ(r["result"]["resources"].size(), 1u) << r.dump();
  EXPECT_FALSE(r["result"].contains("cacheScope"));
  r = rita.roundtrip(request(2, "prompts/list"));
  ASSERT_EQ(r["result"]["prompts"].size(), 1u);
}

TEST_F(primitive_access, lists_without_guarded_entries_keep_the_shared_hints) {
  server plain;
  plain.add_resource({.uri = "docs://readme", .name = "readme"}, reader_of("hello"));
  plain.add_prompt({.name = "greet"}, say("hi"));
  plain.add_prompt({.name = "secret", .scopes = {"s"}}, say("x"));
  harness h(plain);
  EXPECT_EQ(h.roundtrip(modern_request(1, "resources/list"))["result"]["cacheScope"], "public");
  EXPECT_EQ(h.roundtrip(modern_request(2, "prompts/list"))["result"]["cacheScope"], "private");
  EXPECT_TRUE(plain.remove_prompt("secret"));
  EXPECT_EQ(h.roundtrip(modern_request(3, "prompts/list"))["result"]["cacheScope"], "public")
      << "the last guarded prompt gone, the list is shared again";
}

TEST_F(primitive_access, a_read_without_a_principal_is_p65) {
  harness anon(*srv);
  json e =
      error_of(anon.roundtrip(modern_request(1, "resources/read", {{"uri", "ops://runbook"}})));
  EXPECT_EQ(e["code"], -32602);
  EXPECT_EQ(e["message"],
            "Invalid params: resource ops://runbook is served only to authenticated callers "
            "holding the scope(s) ops:read, and this request carries no verified access token; "
            "nothing was done. Send it over HTTP with a bearer access token of a caller it is "
            "served to");
  EXPECT_EQ(e["data"]["scopes"], "ops:read");
  e = error_of(anon.roundtrip(modern_request(2, "resources/read", {{"uri", "ops://pager"}})));
  EXPECT_EQ(e["message"],
            "Invalid params: resource ops://pager is served only to authenticated callers, and "
            "this request carries no verified access token; nothing was done. Send it over HTTP "
            "with a bearer access token of a caller it is served to");
  EXPECT_TRUE(e["data"]["scopes"].is_null());
}

TEST_F(primitive_access, a_read_lacking_scopes_is_p64_and_a_failed_rule_p66) {
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  json e =
      error_of(rita.roundtrip(modern_request(1, "resources/read", {{"uri", "ops://runbook"}})));
  EXPECT_EQ(e["message"],
            "Invalid params: resource ops://runbook needs the scope(s) ops:read and the access "
            "token lacks ops:read; nothing was done. Obtain a token that grants them (step-up "
            "authorization) and send the request again; the same token fails the same way");
  EXPECT_EQ(e["data"], json({{"primitive", "resource"},
                             {"name", "ops://runbook"},
                             {"scopes", "ops:read"},
                             {"missing", "ops:read"}}));
  e = error_of(rita.roundtrip(modern_request(2, "resources/read", {{"uri", "ops://pager"}})));
  EXPECT_EQ(e["message"],
            "Invalid params: resource ops://pager is not available to this caller: it requires "
            "the role ops; nothing was done. Sending it again with the same identity fails the "
            "same way; use what this caller may use, or ask the server's operator for access");
  EXPECT_EQ(e["data"]["requirement"], "the role ops");
}

TEST_F(primitive_access, an_allowed_read_works_and_is_private) {
  harness olga(*srv);
  olga.s.set_principal(ops_principal());
  json r = olga.roundtrip(modern_request(1, "resources/read", {{"uri", "ops://pager"}}));
  EXPECT_EQ(r["result"]["contents"][0]["text"], "call olga") << r.dump();
  EXPECT_EQ(r["result"]["cacheScope"], "private");
  r = olga.roundtrip(modern_request(2, "resources/read", {{"uri", "docs://readme"}}));
  EXPECT_EQ(r["result"]["cacheScope"], "public");
}

TEST_F(primitive_access, a_read_through_a_template_has_the_template_scopes) {
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  json e = error_of(rita.roundtrip(modern_request(1, "resources/read", {{"uri", "ops://job/7"}})));
  EXPECT_EQ(e["data"]["name"], "ops://job/7");
  EXPECT_EQ(e["data"]["missing"], "ops:read");
  json ok = rita.roundtrip(modern_request(2, "resources/read", {{"uri", "docs://page/7"}}));
  EXPECT_EQ(ok["result"]["contents"][0]["text"], "job 7");
  harness olga(*srv);
  olga.s.set_principal(ops_principal());
  ok = olga.roundtrip(modern_request(3, "resources/read", {{"uri", "ops://job/7"}}));
  EXPECT_EQ(ok["result"]["contents"][0]["text"], "job 7");
}

TEST_F(primitive_access, an_unknown_uri_is_still_not_found) {
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  json e = error_of(rita.roundtrip(modern_request(1, "resources/read", {{"uri", "ops://none"}})));
  EXPECT_NE(e["message"].get<std::string>().find("ops://none"), std::string::npos);
  EXPECT_FALSE(e["data"].contains("primitive")) << e.dump();
}

TEST_F(primitive_access, prompts_get_refuses_and_never_suggests_a_hidden_prompt) {
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  json e = error_of(rita.roundtrip(modern_request(1, "prompts/get", {{"name", "postmortem"}})));
  EXPECT_EQ(e["data"]["primitive"], "prompt");
  EXPECT_EQ(e["data"]["missing"], "ops:read");
  harness scoped(*srv);
  scoped.s.set_principal(
      {{"sub", "x"}, {"scopes", {"ops:read"}}, {"claims", {{"tenant", "zeta"}}}});
  e = error_of(scoped.roundtrip(modern_request(2, "prompts/get", {{"name", "postmortem"}})));
  EXPECT_EQ(e["data"]["requirement"], "the claim tenant=\"acme\"");
  e = error_of(rita.roundtrip(modern_request(3, "prompts/get", {{"name", "postmortem2"}})));
  EXPECT_EQ(e["data"]["didYouMean"], json::array()) << e.dump();
  harness olga(*srv);
  olga.s.set_principal(ops_principal());
  e = error_of(olga.roundtrip(modern_request(4, "prompts/get", {{"name", "postmortem2"}})));
  EXPECT_EQ(e["data"]["didYouMean"], json::array({"postmortem"}));
  json ok = olga.roundtrip(modern_request(5, "prompts/get", {{"name", "postmortem"}}));
  EXPECT_EQ(ok["result"]["messages"][0]["content"]["text"], "write it") << ok.dump();
}

TEST_F(primitive_access, completion_of_a_guarded_prompt_or_template_is_refused) {
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  const json arg = {{"name", "id"}, {"value", ""}};
  json e = error_of(rita.roundtrip(modern_request(
      1, "completion/complete",
      {{"ref", {{"type", "ref/prompt"}, {"name", "postmortem"}}}, {"argument", arg}})));
  EXPECT_EQ(e["data"]["primitive"], "prompt");
  e = error_of(rita.roundtrip(modern_request(
      2, "completion/complete",
      {{"ref", {{"type", "ref/resource"}, {"uri", "ops://job/{id}"}}}, {"argument", arg}})));
  EXPECT_EQ(e["data"]["primitive"], "resource template");
  EXPECT_EQ(e["data"]["name"], "ops://job/{id}");
  json ok = rita.roundtrip(modern_request(
      3, "completion/complete",
      {{"ref", {{"type", "ref/resource"}, {"uri", "docs://page/{id}"}}}, {"argument", arg}}));
  EXPECT_EQ(ok["result"]["completion"]["values"], json({"a", "b"})) << ok.dump();
}

TEST_F(primitive_access, a_rule_that_throws_is_p24_with_the_detail_only_logged) {
  harness olga(*srv);
  olga.s.set_principal(ops_principal());
  json r = olga.roundtrip(modern_request(1, "resources/read", {{"uri", "ops://broken"}}));
  const std::string message = r["error"]["message"];
  EXPECT_EQ(r["error"]["code"], -32603);
  EXPECT_EQ(message.find("10.9.8.7"), std::string::npos) << message;
  const std::string ref = r["error"]["data"]["reference"];
  auto lines = log.snapshot();
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(ref) != std::string::npos && l.find("10.9.8.7") != std::string::npos;
  }));
  auto listed_uris = listed(olga, "resources/list", "resources", "uri");
  EXPECT_EQ(std::find(listed_uris.begin(), listed_uris.end(), "ops://broken"), listed_uris.end());
  lines = log.snapshot();
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("principal_rule_exception") != std::string::npos &&
           l.find("ops://broken") != std::string::npos;
  }));
}

TEST_F(primitive_access, legacy_subscribe_is_refused_and_updates_reach_only_readers) {
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  rita.initialize();
  json e = rita.roundtrip(request(1, "resources/subscribe", {{"uri", "ops://runbook"}}));
  EXPECT_EQ(e["error"]["data"]["primitive"], "resource") << e.dump();
  harness olga(*srv);
  olga.s.set_principal(ops_principal());
  olga.initialize();
  json ok = olga.roundtrip(request(2, "resources/subscribe", {{"uri", "ops://runbook"}}));
  EXPECT_TRUE(ok.contains("result")) << ok.dump();
  rita.sink->clear();
  olga.sink->clear();
  srv->notify_resource_updated("ops://runbook");
  auto frames = olga.sink->wait_for(1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].frame["method"], "notifications/resources/updated");
  EXPECT_TRUE(rita.sink->frames().empty());
}

// Waits (5 s at most) until `h` received notifications/resources/updated of `uri`.
bool got_update(harness& h, const std::string& uri) {
  for (int i = 0; i < 1000; ++i) {
    for (const auto& f : h.sink->frames()) {
      if (f.frame.value("method", "") == "notifications/resources/updated" &&
          f.frame.value("params", json::object()).value("uri", "") == uri) {
        return true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

TEST_F(primitive_access, updates_stop_when_a_subscribed_resource_gains_scopes) {
  srv->add_resource({.uri = "docs://news", .name = "news"}, reader_of("old"));
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  rita.initialize();
  for (const char* uri : {"docs://news", "docs://readme"}) {
    ASSERT_TRUE(
        rita.roundtrip(request(1, "resources/subscribe", {{"uri", uri}})).contains("result"));
  }
  json params = {{"notifications", {{"resourceSubscriptions", {"docs://news", "docs://readme"}}}},
                 {"_meta", modern_meta()}};
  harness listener(*srv);
  listener.s.set_principal(reader_principal());
  listener.roundtrip(json{
      {"jsonrpc", "2.0"},
      {"id", 5},
      {"method", "subscriptions/listen"},
      {"params", params}}.dump());
  srv->notify_resource_updated("docs://news");
  ASSERT_TRUE(got_update(rita, "docs://news"));
  ASSERT_TRUE(got_update(listener, "docs://news"));
  ASSERT_TRUE(srv->remove_resource("docs://news"));
  srv->add_resource({.uri = "docs://news", .name = "news", .scopes = {"ops:read"}},
                    reader_of("new"));
  rita.sink->clear();
  listener.sink->clear();
  srv->notify_resource_updated("docs://news");
  srv->notify_resource_updated("docs://readme");  // delivered after it: the news would be first
  ASSERT_TRUE(got_update(rita, "docs://readme"));
  ASSERT_TRUE(got_update(listener, "docs://readme"));
  for (harness* h : {&rita, &listener}) {
    for (const auto& f : h->sink->frames()) {
      EXPECT_NE(f.frame.value("params", json::object()).value("uri", ""), "docs://news")
          << f.frame.dump();
    }
  }
}

TEST_F(primitive_access, listen_honors_only_resources_the_caller_may_read) {
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  json params = {{"notifications",
                  {{"resourceSubscriptions", {"docs://readme", "ops://job/1", "ops://runbook"}}}},
                 {"_meta", modern_meta()}};
  json ack = rita.roundtrip(json{
      {"jsonrpc", "2.0"},
      {"id", 9},
      {"method", "subscriptions/listen"},
      {"params", params}}.dump());
  EXPECT_EQ(ack["params"]["notifications"]["resourceSubscriptions"], json({"docs://readme"}))
      << ack.dump();
}

TEST_F(primitive_access, a_tool_rule_hides_and_refuses_while_scoped_tools_keep_p55_p56) {
  srv->add_tool({.name = "page_ops", .visible_to = require_roles({"ops"})},
                [](const json&, request_context&) { return tool_result::text("paged"); });
  harness anon(*srv);
  json e = error_of(anon.roundtrip(
      modern_request(1, "tools/call", {{"name", "page_ops"}, {"arguments", json::object()}})));
  EXPECT_EQ(e["data"]["primitive"], "tool");
  EXPECT_NE(e["message"].get<std::string>().find("served only to authenticated callers, and"),
            std::string::npos);
  harness rita(*srv);
  rita.s.set_principal(reader_principal());
  EXPECT_EQ(listed(rita, "tools/list", "tools", "name"), names());
  e = error_of(rita.roundtrip(
      modern_request(2, "tools/call", {{"name", "page_ops"}, {"arguments", json::object()}})));
  EXPECT_EQ(e["data"]["requirement"], "the role ops");
  harness olga(*srv);
  olga.s.set_principal(ops_principal());
  EXPECT_EQ(listed(olga, "tools/list", "tools", "name"), names({"page_ops"}));
  json ok = olga.roundtrip(
      modern_request(3, "tools/call", {{"name", "page_ops"}, {"arguments", json::object()}}));
  EXPECT_EQ(ok["result"]["content"][0]["text"], "paged");
}

TEST(primitive_access_mount, a_mounted_primitive_keeps_its_scopes_and_rule) {
  server child;
  child.add_resource({.uri = "ops://runbook", .name = "runbook", .scopes = {"ops:read"}},
                     reader_of("restart it"));
  child.add_prompt({.name = "handover", .visible_to = require_roles({"ops"})}, say("go"));
  server parent;
  parent.mount(child, "team");
  harness rita(parent);
  rita.s.set_principal(reader_principal());
  json r = rita.roundtrip(modern_request(1, "resources/list"));
  EXPECT_EQ(r["result"]["resources"], json::array()) << r.dump();
  r = rita.roundtrip(modern_request(2, "prompts/get", {{"name", "team_handover"}}));
  EXPECT_EQ(r["error"]["data"]["requirement"], "the role ops") << r.dump();
  harness olga(parent);
  olga.s.set_principal(ops_principal());
  r = olga.roundtrip(modern_request(3, "resources/list"));
  ASSERT_EQ(r["result"]["resources"].size(), 1u) << r.dump();
  const std::string uri = r["result"]["resources"][0]["uri"];
  r = rita.roundtrip(modern_request(4, "resources/read", {{"uri", uri}}));
  EXPECT_EQ(r["error"]["data"]["missing"], "ops:read") << r.dump();
  r = olga.roundtrip(modern_request(5, "resources/read", {{"uri", uri}}));
  EXPECT_EQ(r["result"]["contents"][0]["text"], "restart it") << r.dump();
}

TEST(primitive_access_rules, roles_and_claims_match_top_level_or_nested_claims) {
  const principal_rule ops = require_roles({"ops", "audit"});
  EXPECT_TRUE(ops.test({{"sub", "a"}, {"roles", {"audit", "ops"}}}));
  EXPECT_TRUE(ops.test({{"sub", "a"}, {"claims", {{"roles", "ops audit"}}}}));
  EXPECT_FALSE(ops.test({{"sub", "a"}, {"claims", {{"roles", "ops auditor"}}}}));
  EXPECT_FALSE(ops.test({{"sub", "a"}, {"roles", 3}}));
  EXPECT_EQ(ops.requirement, "the roles ops audit");
  const principal_rule acme = require_claims({{"tenant", "acme"}, {"tier", 2}});
  EXPECT_TRUE(acme.test({{"sub", "a"}, {"claims", {{"tenant", "acme"}, {"tier", 2}}}}));
  EXPECT_FALSE(acme.test({{"sub", "a"}, {"claims", {{"tenant", "acme"}, {"tier", "2"}}}}));
  EXPECT_THROW(require_roles({}), std::invalid_argument);
  EXPECT_THROW(require_roles({"two words"}), std::invalid_argument);
  EXPECT_THROW(require_claims(json::array()), std::invalid_argument);
  EXPECT_THROW(require_claims(json::object()), std::invalid_argument);
}

TEST(primitive_access_rules, registration_refuses_a_scope_that_is_not_a_token) {
  server srv;
  EXPECT_THROW(
      srv.add_resource({.uri = "a://b", .name = "b", .scopes = {"two words"}}, reader_of("x")),
      std::invalid_argument);
  EXPECT_THROW(srv.add_prompt({.name = "p", .scopes = {""}}, say("x")), std::invalid_argument);
  EXPECT_THROW(srv.add_resource_template(
                   {.uri_template = "a://{x}", .name = "t", .scopes = {"a\"b"}}, job_reader()),
               std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::testing

// 2026-07-28 multi-round-trip requests: the input_required outcome, re-runs with answers from
// inputResponses and the sealed requestState, and every refusal of a state.
#include <atomic>
#include <stdexcept>

#include <gtest/gtest.h>

#include "state/sealer.hpp"
#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

const std::string k_key = "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=";  // 32 x 'A'
const std::string k_other_key = "QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=";

const json k_all_caps = {
    {"elicitation", json::object()}, {"sampling", json::object()}, {"roots", json::object()}};

json confirm_schema() {
  return {{"type", "object"}, {"properties", {{"confirm", {{"type", "boolean"}}}}}};
}

json accept(json content) { return {{"action", "accept"}, {"content", std::move(content)}}; }

// A modern request frame with the given client capabilities.
std::string call(int id, const std::string& method, json params, const json& caps = k_all_caps) {
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", caps}};
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

json tool(const std::string& name, json args = json::object()) {
  return {{"name", name}, {"arguments", std::move(args)}};
}

json retry(json params, json responses, const json& state) {
  params["inputResponses"] = std::move(responses);
  if (!state.is_null()) params["requestState"] = state;
  return params;
}

std::unique_ptr<server> make_server(const captured_log& log, std::string key,
                                    std::vector<std::string> previous = {}) {
  server_options o = log.options();
  o.request_state_key = std::move(key);
  o.request_state_previous_keys = std::move(previous);
  return std::make_unique<server>(o);
}

class input_required_test : public ::testing::Test {
 protected:
  captured_log log;
  std::unique_ptr<server> srv;
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> version = std::make_shared<std::atomic<int>>(1);

  void SetUp() override {
    srv = make_server(log, k_key);
    register_fixtures(*srv);
  }

  void register_fixtures(server& s) {
    auto n = runs;
    s.add_tool({.name = "deploy"}, [n](const json& a, request_context& ctx) {
      ++*n;
      const elicit_result r =
          ctx.elicit("Deploy to " + a.value("env", "?") + "?", confirm_schema());
      return tool_result::text("deploy " + r.action);
    });
    s.add_tool({.name = "two_steps"}, [](const json&, request_context& ctx) {
      const json first = ctx.ask_all({{"elicitation/create", {{"message", "1?"}}, "first"}})[0];
      const json second = ctx.ask_all({{"elicitation/create", {{"message", "2?"}}, "second"}})[0];
      return tool_result::text(first.at("action").get<std::string>() + "," +
                               second.at("action").get<std::string>());
    });
    s.add_tool({.name = "three_at_once"}, [](const json&, request_context& ctx) {
      const auto a = ctx.ask_all({{"elicitation/create", {{"message", "name?"}}, "name"},
                                  {"sampling/createMessage", {{"maxTokens", 5}}, "gen"},
                                  {"roots/list", json::object(), "roots"}});
      return tool_result::text(std::to_string(a.size()) + " answers");
    });
    s.add_tool({.name = "swallower"}, [](const json&, request_context& ctx) {
      try {
        (void)ctx.elicit("Sure?", confirm_schema());
      } catch (const std::exception&) {
        return tool_result::text("swallowed");
      }
      return tool_result::text("answered");
    });
    auto linked = std::make_shared<std::atomic<bool>>(false);
    linked_ = linked;
    s.add_tool({.name = "needs_login"}, [linked](const json&, request_context&) {
      if (!linked->load()) {
        throw url_elicitation_required(json::array({{{"mode", "url"},
                                                     {"elicitationId", "login-1"},
                                                     {"url", "https://auth.example/login"},
                                                     {"message", "Sign in to the tracker"}}}));
      }
      return tool_result::text("linked");
    });
    auto v = version;
    s.add_tool({.name = "changing"}, [v](const json&, request_context& ctx) {
      const elicit_result r =
          ctx.elicit("question v" + std::to_string(v->load()), confirm_schema());
      return tool_result::text("answered " + r.action);
    });
    s.add_prompt(
        {.name = "greet"}, [](const std::map<std::string, std::string>&, request_context& ctx) {
          const elicit_result r = ctx.elicit("Whom?", confirm_schema());
          json message = {{"role", "user"}, {"content", {{"type", "text"}, {"text", r.action}}}};
          return prompt_result{{}, json::array({message})};
        });
    s.add_resource({.uri = "mem://secret", .name = "secret"},
                   [](const std::string& uri, request_context& ctx) {
                     const json roots = ctx.list_roots();
                     return std::vector{resource_contents{
                         .uri = uri, .mime_type = "text/plain", .text = roots.dump()}};
                   });
  }

  json send(const std::string& frame) {
    harness h(*srv);
    return h.roundtrip(frame);
  }

  std::shared_ptr<std::atomic<bool>> linked_;
};

TEST_F(input_required_test, first_run_answers_input_required_with_the_question_and_a_state) {
  const json r = send(call(1, "tools/call", tool("deploy", {{"env", "prod"}})));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const json& res = r["result"];
  EXPECT_EQ(res["resultType"], "input_required");
  ASSERT_TRUE(res["inputRequests"].contains("ask-0"));
  EXPECT_EQ(res["inputRequests"]["ask-0"]["method"], "elicitation/create");
  EXPECT_EQ(res["inputRequests"]["ask-0"]["params"]["message"], "Deploy to prod?");
  EXPECT_EQ(res["inputRequests"]["ask-0"]["params"]["requestedSchema"], confirm_schema());
  EXPECT_TRUE(res["requestState"].is_string());
  EXPECT_TRUE(res["_meta"].contains("io.modelcontextprotocol/serverInfo"));
  EXPECT_FALSE(res.contains("content"));
}

TEST_F(input_required_test, retry_with_the_answer_reruns_the_handler_and_completes) {
  const json params = tool("deploy", {{"env", "prod"}});
  const json first = send(call(1, "tools/call", params))["result"];
  const json done =
      send(call(2, "tools/call",
                retry(params, {{"ask-0", accept({{"confirm", true}})}}, first["requestState"])));
  ASSERT_TRUE(done.contains("result")) << done.dump();
  EXPECT_EQ(done["result"]["resultType"], "complete");
  EXPECT_EQ(done["result"]["content"][0]["text"], "deploy accept");
  EXPECT_EQ(runs->load(), 2);
}

TEST_F(input_required_test, answers_without_a_state_are_accepted) {
  const json done = send(
      call(1, "tools/call", retry(tool("deploy"), {{"ask-0", {{"action", "decline"}}}}, nullptr)));
  EXPECT_EQ(done["result"]["content"][0]["text"], "deploy decline") << done.dump();
}

TEST_F(input_required_test, multi_round_carries_earlier_answers_in_the_state) {
  const json params = tool("two_steps");
  const json r1 = send(call(1, "tools/call", params))["result"];
  ASSERT_TRUE(r1["inputRequests"].contains("first"));
  const json r2 =
      send(call(2, "tools/call",
                retry(params, {{"first", {{"action", "decline"}}}}, r1["requestState"])))["result"];
  ASSERT_EQ(r2["resultType"], "input_required") << r2.dump();
  ASSERT_TRUE(r2["inputRequests"].contains("second"));
  EXPECT_FALSE(r2["inputRequests"].contains("first"));
  EXPECT_NE(r2["requestState"], r1["requestState"]);
  // Round 3 answers only "second": "first" comes from the sealed state.
  const json r3 =
      send(call(3, "tools/call",
                retry(params, {{"second", {{"action", "cancel"}}}}, r2["requestState"])))["result"];
  EXPECT_EQ(r3["resultType"], "complete") << r3.dump();
  EXPECT_EQ(r3["content"][0]["text"], "decline,cancel");
}

TEST_F(input_required_test, several_questions_of_one_ask_go_out_together) {
  const json params = tool("three_at_once");
  const json r1 = send(call(1, "tools/call", params))["result"];
  ASSERT_EQ(r1["inputRequests"].size(), 3U) << r1.dump();
  EXPECT_EQ(r1["inputRequests"]["gen"]["method"], "sampling/createMessage");
  EXPECT_EQ(r1["inputRequests"]["roots"]["method"], "roots/list");
  // Two of three answered: the third is asked again, alone.
  const json partial = {
      {"name", accept({{"n", "x"}})},
      {"gen",
       {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "hi"}}}, {"model", "m"}}}};
  const json r2 = send(call(2, "tools/call", retry(params, partial, r1["requestState"])))["result"];
  ASSERT_EQ(r2["resultType"], "input_required");
  EXPECT_EQ(r2["inputRequests"].size(), 1U);
  EXPECT_TRUE(r2["inputRequests"].contains("roots"));
  const json r3 = send(
      call(3, "tools/call",
           retry(params, {{"roots", {{"roots", json::array()}}}}, r2["requestState"])))["result"];
  EXPECT_EQ(r3["content"][0]["text"], "3 answers") << r3.dump();
}

TEST_F(input_required_test, missing_or_wrong_answers_get_a_new_input_required_not_an_error) {
  const json params = tool("deploy");
  const json r1 = send(call(1, "tools/call", params))["result"];
  const json none = send(call(2, "tools/call", retry(params, json::object(), r1["requestState"])));
  ASSERT_TRUE(none.contains("result")) << none.dump();
  EXPECT_EQ(none["result"]["resultType"], "input_required");
  EXPECT_TRUE(none["result"]["inputRequests"].contains("ask-0"));
  const json wrong =
      send(call(3, "tools/call", retry(params, {{"wrong_key", accept({})}}, r1["requestState"])));
  EXPECT_EQ(wrong["result"]["resultType"], "input_required");
  // An answer of the wrong shape is no answer.
  const json bad = send(call(4, "tools/call", retry(params, {{"ask-0", 12345}}, nullptr)));
  EXPECT_EQ(bad["result"]["resultType"], "input_required");
  const json bad_action =
      send(call(5, "tools/call", retry(params, {{"ask-0", {{"action", "maybe"}}}}, nullptr)));
  EXPECT_EQ(bad_action["result"]["resultType"], "input_required");
}

TEST_F(input_required_test, extra_answers_are_ignored) {
  const json params = tool("deploy");
  const json r1 = send(call(1, "tools/call", params))["result"];
  const json done = send(call(
      2, "tools/call",
      retry(
          params,
          {{"ask-0", accept({{"confirm", true}})}, {"unknown", accept({{"x", 1}})}, {"another", 7}},
          r1["requestState"])));
  EXPECT_EQ(done["result"]["content"][0]["text"], "deploy accept") << done.dump();
}

TEST_F(input_required_test, an_answer_to_a_changed_question_is_not_reused) {
  const json params = tool("changing");
  const json r1 = send(call(1, "tools/call", params))["result"];
  version->store(2);  // the handler now asks something else under the same position
  const json r2 = send(
      call(2, "tools/call",
           retry(params, {{"ask-0", accept({{"confirm", true}})}}, r1["requestState"])))["result"];
  ASSERT_EQ(r2["resultType"], "input_required") << r2.dump();
  EXPECT_EQ(r2["inputRequests"]["ask-0"]["params"]["message"], "question v2");
  const json r3 = send(
      call(3, "tools/call",
           retry(params, {{"ask-0", accept({{"confirm", true}})}}, r2["requestState"])))["result"];
  EXPECT_EQ(r3["content"][0]["text"], "answered accept") << r3.dump();
}

// The binding of a fresh request is digested only when a run is sealed, from the params the
// exchange keeps; a context kept past its request can no longer ask (nothing could carry the
// question to the client), and says so instead of touching the ended request.
TEST_F(input_required_test, a_context_kept_after_its_request_ended_refuses_to_ask) {
  // The tool holds the slot weakly: the kept context holds its session and so the engine, which
  // holds the tool; a strong capture would be a cycle that outlives the test.
  auto kept = std::make_shared<std::unique_ptr<request_context>>();
  srv->add_tool({.name = "keeper"},
                [slot = std::weak_ptr(kept)](const json&, request_context& ctx) {
                  if (auto k = slot.lock()) *k = std::make_unique<request_context>(std::move(ctx));
                  return tool_result::text("kept");
                });
  const json r = send(call(1, "tools/call", tool("keeper")));
  ASSERT_EQ(r["result"]["content"][0]["text"], "kept") << r.dump();
  ASSERT_TRUE(*kept);
  try {
    (void)(*kept)->elicit("Still there?", confirm_schema());
    FAIL() << "an ask after the request ended returned";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("after its request had ended"), std::string::npos)
        << e.what();
  }
}

TEST_F(input_required_test, the_signal_is_not_a_std_exception) {
  const json r = send(call(1, "tools/call", tool("swallower")))["result"];
  EXPECT_EQ(r["resultType"], "input_required") << r.dump();
}

TEST_F(input_required_test, undeclared_capability_asks_nothing_and_is_an_error) {
  const json no_caps = json::object();
  const json r = send(call(1, "tools/call", tool("deploy"), no_caps));
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"].value("code", 0), -32021);  // MissingRequiredClientCapability
  // Only sampling declared: the batch with elicitation and roots is refused as a whole.
  const json r2 =
      send(call(2, "tools/call", tool("three_at_once"), {{"sampling", json::object()}}));
  ASSERT_TRUE(r2.contains("error")) << r2.dump();
  EXPECT_EQ(r2["error"].value("code", 0), -32021);
}

TEST_F(input_required_test, prompts_get_and_resources_read_may_require_input) {
  const json p = send(call(1, "prompts/get", {{"name", "greet"}}))["result"];
  ASSERT_EQ(p["resultType"], "input_required") << p.dump();
  const json p2 = send(call(2, "prompts/get",
                            retry({{"name", "greet"}}, {{"ask-0", {{"action", "decline"}}}},
                                  p["requestState"])))["result"];
  EXPECT_EQ(p2["messages"][0]["content"]["text"], "decline") << p2.dump();
  const json r = send(call(3, "resources/read", {{"uri", "mem://secret"}}))["result"];
  ASSERT_EQ(r["resultType"], "input_required") << r.dump();
  EXPECT_EQ(r["inputRequests"]["ask-0"]["method"], "roots/list");
  const json r2 = send(call(4, "resources/read",
                            retry({{"uri", "mem://secret"}},
                                  {{"ask-0", {{"roots", json::array({{{"uri", "file:///w"}}})}}}},
                                  r["requestState"])))["result"];
  EXPECT_EQ(r2["resultType"], "complete") << r2.dump();
  EXPECT_NE(r2["contents"][0]["text"].get<std::string>().find("file:///w"), std::string::npos);
}

TEST_F(input_required_test, other_methods_never_answer_input_required) {
  srv->set_completion_handler([](const completion_request&, request_context& ctx) {
    (void)ctx.elicit("Which?", confirm_schema());
    return completion_result{};
  });
  const json r = send(call(1, "completion/complete",
                           {{"ref", {{"type", "ref/prompt"}, {"name", "greet"}}},
                            {"argument", {{"name", "a"}, {"value", "b"}}}}));
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"].value("code", 0), -32021);
}

// ---- refusals of a requestState: each its own row, the handler never runs ----

class state_refusal_test : public input_required_test {
 protected:
  json refused(const json& params, const std::string& method = "tools/call") {
    const int before = runs->load();
    const json r = send(call(9, method, params));
    EXPECT_EQ(runs->load(), before) << "the handler ran on a refused state";
    EXPECT_TRUE(r.contains("error")) << r.dump();
    return r.value("error", json::object());
  }
  json first_state(const json& params) {
    return send(call(1, "tools/call", params))["result"]["requestState"];
  }
};

TEST_F(state_refusal_test, tampered_state_is_p34) {
  const json params = tool("deploy");
  const std::string state = first_state(params).get<std::string>();
  for (const std::string& bad : {state + "-TAMPERED", state.substr(0, state.size() - 2),
                                 std::string("not a state"), std::string()}) {
    const json e = refused(retry(params, {{"ask-0", accept({})}}, bad));
    EXPECT_EQ(e.value("code", 0), -32602);
    EXPECT_NE(e.value("message", "").find("requestState was not issued by this server"),
              std::string::npos)
        << e.dump();
  }
  std::string flipped = state;
  flipped[flipped.size() / 2] = flipped[flipped.size() / 2] == 'A' ? 'B' : 'A';
  EXPECT_EQ(refused(retry(params, json::object(), flipped)).value("code", 0), -32602);
}

TEST_F(state_refusal_test, foreign_key_is_p34_and_a_shared_key_opens) {
  const json params = tool("deploy");
  captured_log other_log;
  auto foreign = make_server(other_log, k_other_key);
  register_fixtures(*foreign);
  harness fh(*foreign);
  const json foreign_state = fh.roundtrip(call(1, "tools/call", params))["result"]["requestState"];
  EXPECT_NE(refused(retry(params, json::object(), foreign_state))
                .value("message", "")
                .find("not issued by this server"),
            std::string::npos);
  // A replica with the same key accepts this server's state.
  auto replica = make_server(other_log, k_key);
  register_fixtures(*replica);
  harness rh(*replica);
  const json done = rh.roundtrip(
      call(2, "tools/call",
           retry(params, {{"ask-0", accept({{"confirm", true}})}}, first_state(params))));
  EXPECT_EQ(done["result"]["content"][0]["text"], "deploy accept") << done.dump();
}

TEST_F(state_refusal_test, rotated_keys_still_open_states_of_the_previous_key) {
  const json params = tool("deploy");
  const json old_state = first_state(params);
  captured_log other_log;
  auto rotated = make_server(other_log, k_other_key, {k_key});
  register_fixtures(*rotated);
  harness h(*rotated);
  const json done = h.roundtrip(
      call(2, "tools/call", retry(params, {{"ask-0", accept({{"confirm", true}})}}, old_state)));
  EXPECT_EQ(done["result"]["content"][0]["text"], "deploy accept") << done.dump();
  // Its new states are sealed with the new key: the old server cannot open them.
  const json new_state = h.roundtrip(call(3, "tools/call", params))["result"]["requestState"];
  EXPECT_EQ(refused(retry(params, json::object(), new_state)).value("code", 0), -32602);
}

TEST_F(state_refusal_test, expired_state_is_p35) {
  const json params = tool("deploy");
  // A state sealed with the server's key an hour ago (ttl 600 s): authentic but expired.
  const state::sealer old(state::key_ring::from_config(k_key, {}), std::chrono::seconds(600));
  const std::string state = old.seal(state::bind_request("tools/call", params, ""),
                                     {{"a", json::object()}, {"q", json::object()}},
                                     state::sealer::clock::now() - std::chrono::hours(1));
  const json e = refused(retry(params, {{"ask-0", accept({})}}, state));
  EXPECT_EQ(e.value("code", 0), -32602);
  EXPECT_NE(e.value("message", "").find("expired"), std::string::npos) << e.dump();
  EXPECT_GE(e["data"].value("expiredForS", 0), 2999);
  EXPECT_EQ(e["data"].value("ttlS", 0), 600);
}

TEST_F(state_refusal_test, state_of_another_method_is_p36) {
  const json state = first_state(tool("deploy"));
  const json e = refused(retry({{"name", "greet"}}, json::object(), state), "prompts/get");
  EXPECT_EQ(e["data"].value("sealedMethod", ""), "tools/call") << e.dump();
  EXPECT_EQ(e["data"].value("method", ""), "prompts/get");
}

TEST_F(state_refusal_test, state_of_other_params_is_p37) {
  const json state = first_state(tool("deploy", {{"env", "staging"}}));
  const json e = refused(retry(tool("deploy", {{"env", "prod"}}), {{"ask-0", accept({})}}, state));
  EXPECT_NE(e.value("message", "").find("other params"), std::string::npos) << e.dump();
  const json e2 = refused(retry(tool("two_steps"), json::object(), state));
  EXPECT_NE(e2.value("message", "").find("other params"), std::string::npos) << e2.dump();
}

TEST_F(state_refusal_test, state_of_another_principal_is_p38) {
  const json params = tool("deploy");
  harness alice(*srv);
  alice.s.set_principal({{"sub", "alice"}});
  const json state = alice.roundtrip(call(1, "tools/call", params))["result"]["requestState"];
  harness bob(*srv);
  bob.s.set_principal({{"sub", "bob"}});
  const json e = bob.roundtrip(call(2, "tools/call", retry(params, json::object(), state)));
  EXPECT_NE(e["error"].value("message", "").find("another authenticated principal"),
            std::string::npos)
      << e.dump();
  const json anonymous = send(call(3, "tools/call", retry(params, json::object(), state)));
  EXPECT_EQ(anonymous["error"].value("code", 0), -32602);
  const json same = alice.roundtrip(
      call(4, "tools/call", retry(params, {{"ask-0", accept({{"confirm", true}})}}, state)));
  EXPECT_EQ(same["result"]["content"][0]["text"], "deploy accept") << same.dump();
}

TEST_F(state_refusal_test, the_same_identity_with_a_refreshed_token_completes_the_round) {
  const json params = tool("deploy");
  harness first(*srv);
  first.s.set_principal({{"sub", "alice"}, {"iss", "A"}, {"exp", 100}, {"jti", "j1"}});
  const json state = first.roundtrip(call(1, "tools/call", params))["result"]["requestState"];
  harness other_issuer(*srv);
  other_issuer.s.set_principal({{"sub", "alice"}, {"iss", "B"}, {"exp", 100}, {"jti", "j1"}});
  const json e =
      other_issuer.roundtrip(call(2, "tools/call", retry(params, json::object(), state)));
  EXPECT_NE(e["error"].value("message", "").find("another authenticated principal"),
            std::string::npos)
      << e.dump();
  harness refreshed(*srv);
  refreshed.s.set_principal(
      {{"sub", "alice"}, {"iss", "A"}, {"exp", 7300}, {"jti", "j2"}, {"scopes", {"deploy"}}});
  const json same = refreshed.roundtrip(
      call(3, "tools/call", retry(params, {{"ask-0", accept({{"confirm", true}})}}, state)));
  EXPECT_EQ(same["result"]["content"][0]["text"], "deploy accept") << same.dump();
}

TEST_F(state_refusal_test, wrongly_typed_round_trip_fields_are_p15b) {
  const json e = refused(retry(tool("deploy"), json::array(), nullptr));
  EXPECT_NE(e.value("message", "").find("params.inputResponses must be"), std::string::npos)
      << e.dump();
  json p = tool("deploy");
  p["requestState"] = 5;
  const json e2 = refused(p);
  EXPECT_NE(e2.value("message", "").find("params.requestState must be"), std::string::npos)
      << e2.dump();
  json nul = tool("deploy");
  nul["inputResponses"] = nullptr;
  EXPECT_EQ(refused(nul).value("code", 0), -32602);
}

TEST_F(state_refusal_test, refusals_are_logged_with_their_reason) {
  const json params = tool("deploy");
  (void)refused(retry(params, json::object(), "garbage"));
  bool found = false;
  for (const auto& line : log.snapshot()) {
    if (line.find("request_state_refused") != std::string::npos &&
        line.find("malformed") != std::string::npos) {
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(InputRequiredOptions, BadKeysFailAtServerConstruction) {
  server_options o;
  o.request_state_key = "too-short";
  EXPECT_THROW(server{o}, std::invalid_argument);
  server_options ttl;
  ttl.request_state_ttl_s = 0;
  EXPECT_THROW(server{ttl}, std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::testing

namespace mcpcxx::testing {
namespace {

const json k_url_caps = {{"elicitation", {{"form", json::object()}, {"url", json::object()}}}};

// -32042 does not exist on 2026-07-28: the same throw becomes URL-mode inputRequests.
TEST_F(input_required_test, url_elicitation_required_becomes_url_input_requests_on_2026) {
  const json first = send(call(1, "tools/call", tool("needs_login"), k_url_caps));
  ASSERT_TRUE(first.contains("result")) << first.dump();
  const json& res = first["result"];
  EXPECT_EQ(res["resultType"], "input_required");
  const json& asked = res["inputRequests"]["url:login-1"];
  EXPECT_EQ(asked["method"], "elicitation/create");
  EXPECT_EQ(asked["params"]["mode"], "url");
  EXPECT_EQ(asked["params"]["url"], "https://auth.example/login");
  EXPECT_TRUE(res["requestState"].is_string());

  linked_->store(true);  // the user completed the flow; the retry runs the tool again
  const json done = send(call(
      2, "tools/call",
      retry(tool("needs_login"), {{"url:login-1", {{"action", "accept"}}}}, res["requestState"]),
      k_url_caps));
  EXPECT_EQ(done["result"]["content"][0]["text"], "linked") << done.dump();
}

TEST_F(input_required_test, url_elicitation_required_without_the_url_capability_is_p13) {
  const json r = send(call(1, "tools/call", tool("needs_login")));  // elicitation without url
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["code"], -32021);
  EXPECT_EQ(r["error"]["data"]["requiredCapabilities"],
            json({{"elicitation", {{"url", json::object()}}}}))
      << r.dump();
}

TEST_F(input_required_test, url_flows_still_required_once_answered_are_an_internal_error) {
  const json first = send(call(1, "tools/call", tool("needs_login"), k_url_caps))["result"];
  const json again = send(call(
      2, "tools/call",
      retry(tool("needs_login"), {{"url:login-1", {{"action", "accept"}}}}, first["requestState"]),
      k_url_caps));
  ASSERT_TRUE(again.contains("result")) << again.dump();
  EXPECT_EQ(again["result"]["isError"], true);
  EXPECT_NE(again["result"]["content"][0]["text"].get<std::string>().find("reference"),
            std::string::npos)
      << again.dump();
}

}  // namespace
}  // namespace mcpcxx::testing

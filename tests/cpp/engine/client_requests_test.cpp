// Legacy server-to-client requests (issue 12): elicitation, sampling and roots asked from a
// handler, answered (or not) by the client through the session; capabilities, timeouts,
// cancellation, bad schemas and bad answers.
#include <algorithm>
#include <atomic>
#include <functional>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

const json k_schema = {{"type", "object"},
                       {"properties",
                        {{"name", {{"type", "string"}, {"minLength", 1}}},
                         {"age", {{"type", "integer"}, {"minimum", 0}}}}},
                       {"required", {"name"}}};

// A legacy session dispatching on the worker pool, so a handler can wait while this thread
// delivers the client's answer.
struct client {
  std::shared_ptr<collecting_sink> sink = std::make_shared<collecting_sink>();
  session s;
  explicit client(server& srv, session_options o = {}) : s(srv.open_session(sink, std::move(o))) {}

  void initialize(const json& caps, const std::string& version = "2025-11-25") {
    s.receive(request(0, "initialize",
                      {{"protocolVersion", version},
                       {"capabilities", caps},
                       {"clientInfo", {{"name", "test"}, {"version", "1"}}}}));
    ASSERT_FALSE(wait([](const json& f) { return f.value("id", json()) == 0; }).is_null());
    s.receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    sink->clear();
  }
  // Waits (10 s at most) for a frame matching `pred`; returns it (null when none came).
  json wait(const std::function<bool(const json&)>& pred) {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < until) {
      for (const auto& e : sink->frames()) {
        if (pred(e.frame)) return e.frame;
      }
      std::this_thread::sleep_for(2ms);
    }
    return nullptr;
  }
  json server_request(const std::string& method) {
    return wait([&](const json& f) { return f.value("method", "") == method && f.contains("id"); });
  }
  json reply_to(int id) {
    return wait([&](const json& f) {
      return f.value("id", json()) == id && (f.contains("result") || f.contains("error"));
    });
  }
  void answer(const json& req, const json& result) {
    s.receive(json{{"jsonrpc", "2.0"}, {"id", req["id"]}, {"result", result}}.dump());
  }
  void call(int id, const std::string& tool, const json& args = json::object()) {
    s.receive(request(id, "tools/call", {{"name", tool}, {"arguments", args}}));
  }
  std::size_t count(const std::string& method) {
    auto all = sink->frames();
    return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](const auto& e) {
      return e.frame.value("method", "") == method;
    }));
  }
};

std::string text_of(const json& reply) {
  return reply["result"]["content"][0].value("text", std::string());
}

// How many responses the engine logged as unexpected (no request of its own waits for them).
std::size_t unexpected_responses(const captured_log& log) {
  auto lines = log.snapshot();
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(),
      [](const std::string& l) { return l.find("unexpected_response") != std::string::npos; }));
}

class client_requests_test : public ::testing::Test {
 protected:
  captured_log log;
  server_options options() const {
    auto o = log.options();
    o.client_request_timeout = 300ms;
    return o;
  }
  server srv{options()};
  std::atomic<int> roots_changed{0};

  void SetUp() override {
    srv.add_tool({.name = "ask"}, [](const json& a, request_context& ctx) {
      auto r = ctx.elicit(a.value("message", "Who are you?"), k_schema);
      return tool_result::text(r.action + " " + r.content.dump());
    });
    srv.add_tool({.name = "ask_bad_schema"}, [](const json& a, request_context& ctx) {
      try {
        ctx.elicit("?", a.at("schema"));
      } catch (const std::invalid_argument& e) {
        return tool_result::text(std::string("invalid_argument: ") + e.what());
      }
      return tool_result::text("accepted");
    });
    srv.add_tool({.name = "ask_url"}, [](const json&, request_context& ctx) {
      auto r = ctx.elicit_url("Sign in", "https://example.com/login", "el-1");
      return tool_result::text(r.action);
    });
    srv.add_tool({.name = "needs_url"}, [](const json&, request_context&) -> tool_result {
      throw url_elicitation_required(json::array({{{"mode", "url"},
                                                   {"elicitationId", "el-9"},
                                                   {"url", "https://example.com/auth"},
                                                   {"message", "Authorize access"}}}));
    });
    srv.add_tool({.name = "sample"}, [](const json& a, request_context& ctx) {
      json params = {
          {"messages",
           json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", "hi"}}}}})},
          {"maxTokens", 10}};
      params.update(a);
      return tool_result::text(ctx.sample(params)["content"]["text"].get<std::string>());
    });
    srv.add_tool({.name = "roots"}, [](const json&, request_context& ctx) {
      return tool_result::text(ctx.list_roots().dump());
    });
    srv.add_tool({.name = "ask_twice"}, [](const json&, request_context& ctx) {
      auto a = ctx.list_roots();
      auto b = ctx.list_roots();
      return tool_result::text(std::to_string(a.size() + b.size()));
    });
    srv.add_prompt({.name = "rooted"}, [](const std::map<std::string, std::string>&,
                                          request_context& ctx) {
      prompt_result r;
      r.messages = json::array(
          {{{"role", "user"}, {"content", {{"type", "text"}, {"text", ctx.list_roots().dump()}}}}});
      return r;
    });
  }
};

const json k_every_capability = {
    {"elicitation", {{"form", json::object()}, {"url", json::object()}}},
    {"sampling", {{"tools", json::object()}, {"context", json::object()}}},
    {"roots", {{"listChanged", true}}}};

TEST_F(client_requests_test, elicitation_accept_is_validated_and_returned) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(7, "ask", {{"message", "Your name?"}});
  json req = c.server_request("elicitation/create");
  ASSERT_FALSE(req.is_null());
  EXPECT_EQ(req["params"]["mode"], "form");
  EXPECT_EQ(req["params"]["message"], "Your name?");
  EXPECT_EQ(req["params"]["requestedSchema"], k_schema);
  EXPECT_TRUE(req["id"].is_number_integer());
  auto kinds = c.sink->frames();
  EXPECT_EQ(kinds.back().kind, frame_kind::request);
  c.answer(req, {{"action", "accept"}, {"content", {{"name", "Ada"}, {"age", 36}}}});
  json reply = c.reply_to(7);
  EXPECT_EQ(text_of(reply), R"(accept {"age":36,"name":"Ada"})");
  EXPECT_FALSE(reply["result"].contains("isError"));
}

TEST_F(client_requests_test, elicitation_2025_06_18_has_no_mode_field) {
  client c(srv);
  c.initialize({{"elicitation", json::object()}}, "2025-06-18");
  c.call(1, "ask");
  json req = c.server_request("elicitation/create");
  ASSERT_FALSE(req.is_null());
  EXPECT_FALSE(req["params"].contains("mode"));
  c.answer(req, {{"action", "decline"}});
  EXPECT_EQ(text_of(c.reply_to(1)), "decline null");
}

TEST_F(client_requests_test, decline_and_cancel_reach_the_tool_without_content) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(1, "ask");
  c.answer(c.server_request("elicitation/create"), {{"action", "decline"}});
  EXPECT_EQ(text_of(c.reply_to(1)), "decline null");
  c.sink->clear();
  c.call(2, "ask");
  // Content sent with a non-accept action is dropped: only an accepted form carries data.
  c.answer(c.server_request("elicitation/create"), {{"action", "cancel"}, {"content", {{"x", 1}}}});
  EXPECT_EQ(text_of(c.reply_to(2)), "cancel null");
}

TEST_F(client_requests_test, content_that_breaks_the_schema_is_row_T10) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(1, "ask");
  c.answer(c.server_request("elicitation/create"),
           {{"action", "accept"}, {"content", {{"name", ""}, {"age", -1}, {"extra", true}}}});
  json reply = c.reply_to(1);
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_EQ(reply["result"]["_meta"]["mcpcxx/error"]["category"], "invalid_arguments");
  const std::string text = text_of(reply);
  EXPECT_NE(text.find("ask could not finish"), std::string::npos) << text;
  EXPECT_NE(text.find("/age"), std::string::npos) << text;
  EXPECT_NE(text.find("/name"), std::string::npos) << text;
}

TEST_F(client_requests_test, an_unknown_action_or_a_non_object_result_is_row_T10) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(1, "ask");
  c.answer(c.server_request("elicitation/create"), {{"action", "maybe"}});
  json reply = c.reply_to(1);
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_NE(text_of(reply).find("accept, decline or cancel"), std::string::npos);
  c.sink->clear();
  c.call(2, "roots");
  json req = c.server_request("roots/list");
  c.s.receive(json{{"jsonrpc", "2.0"}, {"id", req["id"]}, {"result", 42}}.dump());
  EXPECT_NE(text_of(c.reply_to(2)).find("not a JSON object"), std::string::npos);
}

TEST_F(client_requests_test, a_client_error_is_row_T9_with_its_code_and_message) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(1, "sample");
  json req = c.server_request("sampling/createMessage");
  c.s.receive(json{{"jsonrpc", "2.0"},
                   {"id", req["id"]},
                   {"error", {{"code", -1}, {"message", "User rejected sampling"}}}}
                  .dump());
  json reply = c.reply_to(1);
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_EQ(reply["result"]["_meta"]["mcpcxx/error"]["clientCode"], -1);
  EXPECT_NE(text_of(reply).find("User rejected sampling"), std::string::npos);
}

TEST_F(client_requests_test, a_timeout_sends_notifications_cancelled_and_is_row_T8) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(1, "roots");
  json req = c.server_request("roots/list");
  ASSERT_FALSE(req.is_null());
  json reply = c.reply_to(1);
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_EQ(reply["result"]["_meta"]["mcpcxx/error"]["category"], "timeout");
  EXPECT_EQ(reply["result"]["_meta"]["mcpcxx/error"]["timeoutMs"], 300);
  json cancelled =
      c.wait([](const json& f) { return f.value("method", "") == "notifications/cancelled"; });
  ASSERT_FALSE(cancelled.is_null());
  EXPECT_EQ(cancelled["params"]["requestId"], req["id"]);
  // The late answer has nobody waiting: logged, never a crash or a frame.
  const auto before = c.sink->frames().size();
  c.answer(req, {{"roots", json::array()}});
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(c.sink->frames().size(), before);
}

TEST_F(client_requests_test, cancelling_the_call_cancels_the_pending_request) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(5, "ask");
  json req = c.server_request("elicitation/create");
  ASSERT_FALSE(req.is_null());
  c.s.receive(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}})");
  json cancelled =
      c.wait([](const json& f) { return f.value("method", "") == "notifications/cancelled"; });
  ASSERT_FALSE(cancelled.is_null());
  EXPECT_EQ(cancelled["params"]["requestId"], req["id"]);
  c.s.wait_idle();
  std::this_thread::sleep_for(20ms);
  for (const auto& e : c.sink->frames()) {
    EXPECT_FALSE(e.frame.value("id", json()) == 5) << "a cancelled request gets no reply";
  }
}

TEST_F(client_requests_test, a_response_with_an_unknown_id_is_logged_and_ignored) {
  client c(srv);
  c.initialize(k_every_capability);
  c.s.receive(R"({"jsonrpc":"2.0","id":999,"result":{}})");
  c.s.receive(R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"nope"}})");
  EXPECT_TRUE(c.sink->frames().empty());
  EXPECT_EQ(unexpected_responses(log), 2u);
  // The session still works.
  c.call(1, "roots");
  c.answer(c.server_request("roots/list"), {{"roots", json::array({{{"uri", "file:///a"}}})}});
  EXPECT_EQ(text_of(c.reply_to(1)), R"([{"uri":"file:///a"}])");
}

TEST_F(client_requests_test, ids_are_the_servers_own_and_increase) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(1, "ask_twice");
  json first = c.server_request("roots/list");
  c.sink->clear();
  c.answer(first, {{"roots", json::array()}});
  json second = c.server_request("roots/list");
  ASSERT_FALSE(second.is_null());
  EXPECT_EQ(first["id"], 1);
  EXPECT_EQ(second["id"], 2);
  c.answer(second, {{"roots", json::array({{{"uri", "file:///x"}}})}});
  EXPECT_EQ(text_of(c.reply_to(1)), "1");
}

// Replicas sharing a store name themselves in the ids they send (request_id_prefix), so an
// answer reaching any replica finds the one that asked; only the exact id settles a request.
TEST_F(client_requests_test, a_request_id_prefix_makes_string_ids_that_only_match_exactly) {
  client c(srv, {.request_id_prefix = "replica7-"});
  c.initialize(k_every_capability);
  c.call(1, "ask_twice");
  json first = c.server_request("roots/list");
  ASSERT_FALSE(first.is_null());
  EXPECT_EQ(first["id"], "replica7-1");
  c.sink->clear();
  // Neither the bare number, another replica's id nor trailing bytes settle it.
  for (const json& wrong : {json(1), json("replica8-1"), json("replica7-1x"), json("replica7-")}) {
    c.s.receive(
        json{{"jsonrpc", "2.0"}, {"id", wrong}, {"result", {{"roots", json::array()}}}}.dump());
  }
  c.answer(first, {{"roots", json::array()}});
  json second = c.server_request("roots/list");
  ASSERT_FALSE(second.is_null());
  EXPECT_EQ(second["id"], "replica7-2");
  c.answer(second, {{"roots", json::array({{{"uri", "file:///x"}}})}});
  EXPECT_EQ(text_of(c.reply_to(1)), "1");
  EXPECT_EQ(unexpected_responses(log), 4u);
}

TEST_F(client_requests_test, a_timeout_cancels_the_prefixed_id) {
  client c(srv, {.request_id_prefix = "r-"});
  c.initialize(k_every_capability);
  c.call(1, "roots");
  json req = c.server_request("roots/list");
  ASSERT_FALSE(req.is_null());
  EXPECT_EQ(c.reply_to(1)["result"]["isError"], true);
  json cancelled =
      c.wait([](const json& f) { return f.value("method", "") == "notifications/cancelled"; });
  ASSERT_FALSE(cancelled.is_null());
  EXPECT_EQ(cancelled["params"]["requestId"], "r-1");
}

TEST_F(client_requests_test, nothing_is_sent_without_the_capability) {
  client c(srv);
  c.initialize(json::object());
  for (const auto& [id, tool] : std::vector<std::pair<int, std::string>>{
           {1, "ask"}, {2, "sample"}, {3, "roots"}, {4, "ask_url"}}) {
    c.call(id, tool);
    json reply = c.reply_to(id);
    EXPECT_EQ(reply["error"]["code"], -32600) << tool;
    EXPECT_TRUE(reply["error"]["data"].contains("requiredCapabilities")) << tool;
  }
  EXPECT_EQ(
      c.count("elicitation/create") + c.count("sampling/createMessage") + c.count("roots/list"),
      0u);
}

TEST_F(client_requests_test, sampling_tools_and_context_need_their_sub_capabilities) {
  client c(srv);
  c.initialize({{"sampling", json::object()}});
  c.call(1, "sample",
         {{"tools", json::array({{{"name", "t"}, {"inputSchema", {{"type", "object"}}}}})}});
  EXPECT_EQ(c.reply_to(1)["error"]["data"]["requiredCapabilities"],
            json({{"sampling", {{"tools", json::object()}}}}));
  c.call(2, "sample", {{"includeContext", "thisServer"}});
  EXPECT_EQ(c.reply_to(2)["error"]["data"]["requiredCapabilities"],
            json({{"sampling", {{"context", json::object()}}}}));
  c.call(3, "sample", {{"includeContext", "none"}});
  json req = c.server_request("sampling/createMessage");
  ASSERT_FALSE(req.is_null());
  c.answer(
      req,
      {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "hello"}}}, {"model", "m"}});
  EXPECT_EQ(text_of(c.reply_to(3)), "hello");
}

TEST_F(client_requests_test, sampling_with_tools_is_sent_when_declared) {
  client c(srv);
  c.initialize(k_every_capability);
  const json tools = json::array({{{"name", "t"}, {"inputSchema", {{"type", "object"}}}}});
  c.call(1, "sample", {{"tools", tools}, {"includeContext", "thisServer"}});
  json req = c.server_request("sampling/createMessage");
  ASSERT_FALSE(req.is_null());
  EXPECT_EQ(req["params"]["tools"], tools);
  EXPECT_EQ(req["params"]["maxTokens"], 10);
  c.answer(req, {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "ok"}}}});
  json reply = c.reply_to(1);  // no "model": the answer is invalid
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_NE(text_of(reply).find("\"model\""), std::string::npos);
}

TEST_F(client_requests_test, sampling_context_is_free_in_2025_06_18_but_tools_are_not) {
  client c(srv);
  c.initialize({{"sampling", json::object()}}, "2025-06-18");
  c.call(1, "sample", {{"tools", json::array()}});
  EXPECT_EQ(c.reply_to(1)["error"]["code"], -32600);
  c.call(2, "sample", {{"includeContext", "allServers"}});
  json req = c.server_request("sampling/createMessage");
  ASSERT_FALSE(req.is_null());
  EXPECT_EQ(req["params"]["includeContext"], "allServers");
}

TEST_F(client_requests_test, url_mode_needs_2025_11_25_and_the_url_capability) {
  client old(srv);
  old.initialize({{"elicitation", json::object()}}, "2025-06-18");
  old.call(1, "ask_url");
  EXPECT_EQ(old.reply_to(1)["error"]["data"]["requiredCapabilities"],
            json({{"elicitation", {{"url", json::object()}}}}));
  client form_only(srv);
  form_only.initialize({{"elicitation", json::object()}});
  form_only.call(1, "ask_url");
  EXPECT_EQ(form_only.reply_to(1)["error"]["code"], -32600);
  client url_only(srv);
  url_only.initialize({{"elicitation", {{"url", json::object()}}}});
  url_only.call(1, "ask");  // form mode is not declared when only url is
  EXPECT_EQ(url_only.reply_to(1)["error"]["data"]["requiredCapabilities"],
            json({{"elicitation", {{"form", json::object()}}}}));
}

TEST_F(client_requests_test, url_elicitation_and_its_completion_notification) {
  client c(srv);
  c.initialize(k_every_capability);
  client other(srv);
  other.initialize(k_every_capability);
  c.call(1, "ask_url");
  json req = c.server_request("elicitation/create");
  ASSERT_FALSE(req.is_null());
  EXPECT_EQ(req["params"], json({{"mode", "url"},
                                 {"message", "Sign in"},
                                 {"url", "https://example.com/login"},
                                 {"elicitationId", "el-1"}}));
  c.answer(req, {{"action", "accept"}});
  EXPECT_EQ(text_of(c.reply_to(1)), "accept");
  EXPECT_TRUE(srv.notify_elicitation_complete("el-1"));
  json done = c.wait(
      [](const json& f) { return f.value("method", "") == "notifications/elicitation/complete"; });
  EXPECT_EQ(done["params"], json({{"elicitationId", "el-1"}}));
  EXPECT_EQ(other.count("notifications/elicitation/complete"), 0u);
  EXPECT_FALSE(srv.notify_elicitation_complete("el-1")) << "sent once";
  EXPECT_FALSE(srv.notify_elicitation_complete("never-asked"));
}

TEST_F(client_requests_test, url_elicitation_required_is_32042_with_the_elicitations) {
  client c(srv);
  c.initialize(k_every_capability);
  c.call(3, "needs_url");
  json reply = c.reply_to(3);
  EXPECT_EQ(reply["error"]["code"], -32042);
  EXPECT_EQ(reply["error"]["data"]["elicitations"][0]["elicitationId"], "el-9");
  EXPECT_NE(reply["error"]["message"].get<std::string>().find("tools/call needs the user"),
            std::string::npos);
  EXPECT_TRUE(srv.notify_elicitation_complete("el-9"));
  auto make = [](json elicitations) { return url_elicitation_required(std::move(elicitations)); };
  EXPECT_THROW(make(json::array()), std::invalid_argument);
  EXPECT_THROW(make(json::array({{{"mode", "form"}}})), std::invalid_argument);
}

TEST_F(client_requests_test, a_bad_schema_is_the_authors_error_and_nothing_is_sent) {
  client c(srv);
  c.initialize(k_every_capability);
  const std::vector<std::pair<json, std::string>> bad = {
      {{{"type", "object"}, {"properties", {{"a", {{"type", "object"}}}}}}, "flat primitive"},
      {{{"type", "array"}}, "\"type\" must be \"object\""},
      {{{"type", "object"}}, "\"properties\""},
      {{{"type", "object"}, {"properties", {{"a", {{"type", "string"}, {"pattern", "x"}}}}}},
       "\"pattern\""},
      {{{"type", "object"}, {"properties", {{"a", {{"type", "string"}, {"format", "ipv4"}}}}}},
       "\"format\""},
      {{{"type", "object"},
        {"properties", {{"a", {{"type", "number"}, {"minimum", 5}, {"maximum", 1}}}}}},
       "greater than"},
      {{{"type", "object"},
        {"properties", {{"a", {{"type", "string"}, {"enum", {"x"}}, {"default", "y"}}}}}},
       "allowed values"},
      {{{"type", "object"}, {"properties", {{"a", {{"type", "string"}}}}}, {"required", {"b"}}},
       "not a property"},
      {{{"type", "object"}, {"properties", json::object()}, {"allOf", json::array()}}, "\"allOf\""},
  };
  int id = 1;
  for (const auto& [schema, needle] : bad) {
    c.call(id, "ask_bad_schema", {{"schema", schema}});
    const std::string text = text_of(c.reply_to(id));
    EXPECT_NE(text.find("invalid_argument: elicitation requestedSchema"), std::string::npos)
        << schema.dump() << " -> " << text;
    EXPECT_NE(text.find(needle), std::string::npos) << schema.dump() << " -> " << text;
    ++id;
  }
  EXPECT_EQ(c.count("elicitation/create"), 0u);
}

TEST_F(client_requests_test, defaults_and_titled_enums_need_2025_11_25) {
  client c(srv);
  c.initialize({{"elicitation", json::object()}}, "2025-06-18");
  const json with_default = {{"type", "object"},
                             {"properties", {{"a", {{"type", "string"}, {"default", "x"}}}}}};
  c.call(1, "ask_bad_schema", {{"schema", with_default}});
  EXPECT_NE(text_of(c.reply_to(1)).find("2025-11-25"), std::string::npos);
  const json multi = {
      {"type", "object"},
      {"properties",
       {{"a", {{"type", "array"}, {"items", {{"type", "string"}, {"enum", {"x"}}}}}}}}};
  c.call(2, "ask_bad_schema", {{"schema", multi}});
  EXPECT_NE(text_of(c.reply_to(2)).find("2025-11-25"), std::string::npos);
  // A boolean default existed in 2025-06-18 already.
  const json flag = {{"type", "object"},
                     {"properties", {{"a", {{"type", "boolean"}, {"default", true}}}}}};
  c.call(3, "ask_bad_schema", {{"schema", flag}});
  json req = c.server_request("elicitation/create");
  ASSERT_FALSE(req.is_null());
  c.answer(req, {{"action", "accept"}, {"content", {{"a", false}}}});
  EXPECT_EQ(text_of(c.reply_to(3)), "accepted");
}

TEST_F(client_requests_test, a_prompt_handler_gets_rows_P31_P32_P33) {
  client c(srv);
  c.initialize(k_every_capability);
  c.s.receive(request(1, "prompts/get", {{"name", "rooted"}}));
  json req = c.server_request("roots/list");
  ASSERT_FALSE(req.is_null());
  c.s.receive(json{{"jsonrpc", "2.0"},
                   {"id", req["id"]},
                   {"error", {{"code", -32601}, {"message", "roots not supported"}}}}
                  .dump());
  json reply = c.reply_to(1);
  EXPECT_EQ(reply["error"]["code"], -32603);
  EXPECT_EQ(reply["error"]["data"]["clientMethod"], "roots/list");
  EXPECT_EQ(reply["error"]["data"]["clientCode"], -32601);
  c.sink->clear();
  c.s.receive(request(2, "prompts/get", {{"name", "rooted"}}));
  c.answer(c.server_request("roots/list"), {{"roots", "none"}});  // P33: not an array
  reply = c.reply_to(2);
  EXPECT_EQ(reply["error"]["code"], -32603);
  EXPECT_NE(reply["error"]["data"]["reason"].get<std::string>().find("\"roots\" array"),
            std::string::npos);
  EXPECT_NE(reply["error"]["message"].get<std::string>().find("prompts/get could not finish"),
            std::string::npos);
  c.sink->clear();
  c.s.receive(request(3, "prompts/get", {{"name", "rooted"}}));  // P31: never answered
  reply = c.reply_to(3);
  EXPECT_EQ(reply["error"]["code"], -32603);
  EXPECT_EQ(reply["error"]["data"], json({{"clientMethod", "roots/list"}, {"timeoutMs", 300}}));
}

TEST(client_requests_hooks, roots_list_changed_calls_the_server_callback) {
  std::atomic<int> calls{0};
  auto o = captured_log{}.options();
  o.on_roots_list_changed = [&calls](const session& s) {
    EXPECT_EQ(s.negotiated_version(), "2025-11-25");
    ++calls;
  };
  server srv(o);
  client c(srv);
  c.initialize({{"roots", {{"listChanged", true}}}});
  c.s.receive(R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})");
  EXPECT_EQ(calls.load(), 1);
}

TEST(client_requests_hooks, an_empty_ask_hook_refuses_with_client_capability_error) {
  request_context ctx(1, "2025-11-25", nullptr, k_every_capability, std::nullopt, std::nullopt,
                      cancellation_token{}, context_hooks{});
  EXPECT_THROW(ctx.list_roots(), client_capability_error);
  EXPECT_THROW(ctx.elicit("m", k_schema), client_capability_error);
  EXPECT_THROW(ctx.sample({{"messages", json::array()}, {"maxTokens", 1}}),
               client_capability_error);
  EXPECT_THROW(ctx.elicit("m", json::object()), std::invalid_argument) << "schema first";
}

TEST(client_requests_hooks, shutdown_wakes_a_waiting_handler) {
  server srv(captured_log{}.options());
  std::atomic<bool> saw_cancel{false};
  srv.add_tool({.name = "wait"}, [&saw_cancel](const json&, request_context& ctx) {
    try {
      ctx.list_roots();
    } catch (const request_cancelled&) {
      saw_cancel = true;
      throw;
    }
    return tool_result::text("answered");
  });
  client c(srv);
  c.initialize(k_every_capability);
  c.call(1, "wait");
  ASSERT_FALSE(c.server_request("roots/list").is_null());
  EXPECT_TRUE(c.s.shutdown(200ms));  // the grace passes, then the waiting handler is cancelled
  EXPECT_TRUE(saw_cancel.load());
}

}  // namespace
}  // namespace mcpcxx::testing

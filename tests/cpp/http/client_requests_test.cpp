// Server-to-client requests over Streamable HTTP on a legacy session (issue 12): a tool's request
// rides its call's SSE stream, another handler's request rides the session's GET stream, and the
// client's response arrives as a POST (202) routed to the waiting handler.
#include <future>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

std::string init_with_caps(const json& caps) {
  return json{{"jsonrpc", "2.0"},
              {"id", 1},
              {"method", "initialize"},
              {"params",
               {{"protocolVersion", "2025-11-25"},
                {"capabilities", caps},
                {"clientInfo", {{"name", "http-test"}, {"version", "1"}}}}}}
      .dump();
}

std::string open_session_with(client& c, const json& caps) {
  reply init = c.post(init_with_caps(caps), k_accept);
  EXPECT_EQ(init.status, 200) << init.body;
  std::string sid = init.header("mcp-session-id");
  EXPECT_EQ(c.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", legacy_headers(sid))
                .status,
            202);
  return sid;
}

// Reads SSE chunks until an event's JSON satisfies `pred`; null when the stream ends first.
json next_event(client& stream, const std::function<bool(const json&)>& pred) {
  while (auto chunk = stream.next_chunk()) {
    for (const auto& data : split_events(*chunk, false)) {
      json msg = json::parse(data, nullptr, false);
      if (!msg.is_discarded() && pred(msg)) return msg;
    }
  }
  return nullptr;
}

std::string answer(const json& req, const json& result) {
  return json{{"jsonrpc", "2.0"}, {"id", req.at("id")}, {"result", result}}.dump();
}

TEST(HttpClientRequests, ATooledElicitationRidesTheCallsStreamAndTheAnswerIsAPost) {
  http_fixture f;
  tool_spec spec;
  spec.name = "confirm";
  f.srv->add_tool(spec, [](const json&, request_context& ctx) {
    auto r = ctx.elicit("Proceed?",
                        {{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}});
    return tool_result::text(r.action + " " + r.content.dump());
  });
  client c(f.port());
  const std::string sid = open_session_with(c, {{"elicitation", json::object()}});
  client call(f.port());
  call.send_raw(client::request("POST", "/mcp", legacy_headers(sid), legacy_call(4, "confirm")));
  reply head = call.read_head();
  ASSERT_EQ(head.status, 200);
  EXPECT_EQ(head.header("content-type"), "text/event-stream");
  json req = next_event(call, [](const json& m) { return m.contains("method"); });
  ASSERT_EQ(req.value("method", ""), "elicitation/create") << req;
  reply posted =
      c.post(answer(req, {{"action", "accept"}, {"content", {{"ok", true}}}}), legacy_headers(sid));
  EXPECT_EQ(posted.status, 202);
  json result = next_event(call, [](const json& m) { return m.value("id", json()) == 4; });
  ASSERT_TRUE(result.contains("result")) << result;
  EXPECT_EQ(result["result"]["content"][0]["text"], R"(accept {"ok":true})");
}

TEST(HttpClientRequests, APromptsRootsRequestRidesTheGetStream) {
  http_fixture f;
  prompt_spec spec;
  spec.name = "rooted";
  f.srv->add_prompt(spec, [](const std::map<std::string, std::string>&, request_context& ctx) {
    prompt_result r;
    r.messages = json::array(
        {{{"role", "user"}, {"content", {{"type", "text"}, {"text", ctx.list_roots().dump()}}}}});
    return r;
  });
  client c(f.port());
  const std::string sid = open_session_with(c, {{"roots", json::object()}});
  client stream(f.port());
  stream.send_raw(client::request("GET", "/mcp", legacy_headers(sid), ""));
  ASSERT_EQ(stream.read_head().status, 200);
  auto get = std::async(std::launch::async, [&] {
    client p(f.port());
    return p.post(json{{"jsonrpc", "2.0"},
                       {"id", 8},
                       {"method", "prompts/get"},
                       {"params", {{"name", "rooted"}}}}
                      .dump(),
                  legacy_headers(sid));
  });
  json req =
      next_event(stream, [](const json& m) { return m.value("method", "") == "roots/list"; });
  ASSERT_FALSE(req.is_null());
  EXPECT_EQ(
      c.post(answer(req, {{"roots", json::array({{{"uri", "file:///srv"}}})}}), legacy_headers(sid))
          .status,
      202);
  reply r = get.get();
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.header("content-type") == "text/event-stream" ? json::parse(r.events().back())
                                                              : r.json_body();
  EXPECT_EQ(body["result"]["messages"][0]["content"]["text"], R"([{"uri":"file:///srv"}])");
}

TEST(HttpClientRequests, AResponseNobodyWaitsForIsAcceptedAndLogged) {
  http_fixture f;
  client c(f.port());
  const std::string sid = open_session_with(c, json::object());
  EXPECT_EQ(c.post(R"({"jsonrpc":"2.0","id":77,"result":{}})", legacy_headers(sid)).status, 202);
  EXPECT_TRUE(eventually([&] {
    std::lock_guard g(f.probe->lock);
    for (const auto& l : f.probe->log_lines) {
      if (l.find("unexpected_response") != std::string::npos) return true;
    }
    return false;
  }));
}

}  // namespace
}  // namespace mcpcxx::http_test

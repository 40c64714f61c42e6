// tool_spec::inline_dispatch: a tool's calls run on the thread that received them while every
// other request keeps the worker pool; the replies are the pool's, byte for byte; legacy questions
// from such a tool are refused at once, 2026-07-28 input rounds still work.
#include <atomic>
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

const json k_elicit_caps = {{"elicitation", json::object()}};

const json k_text_schema = {
    {"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}, {"required", {"text"}}};

const json k_name_schema = {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}};

tool_result echo(const json& a, request_context&) {
  if (a.at("text") == "fail")
    throw tool_error("cannot echo 'fail'", error_category::invalid_arguments);
  return tool_result::text(a.at("text").get<std::string>());
}

class inline_tool_test : public ::testing::Test {
 protected:
  captured_log log;
  server srv{[this] {
    auto o = log.options();
    o.client_request_timeout = 2s;  // a question that was sent would time out as "timeout"
    return o;
  }()};
  std::atomic<std::thread::id> ran_on{};

  void SetUp() override {
    auto record = [this](const json& a, request_context& ctx) {
      ran_on = std::this_thread::get_id();
      return echo(a, ctx);
    };
    srv.add_tool({.name = "quick", .input_schema = k_text_schema, .inline_dispatch = true}, record);
    srv.add_tool({.name = "pooled", .input_schema = k_text_schema}, record);
    srv.add_tool({.name = "asks", .inline_dispatch = true}, [](const json&, request_context& ctx) {
      const elicit_result r = ctx.elicit("Who?", k_name_schema);
      return tool_result::text("answered " + r.action);
    });
  }

  // A legacy session on the worker pool (the harness's default is inline for every request).
  json call_legacy(harness& h, int id, const std::string& tool, const json& args) {
    return h.roundtrip(request(id, "tools/call", {{"name", tool}, {"arguments", args}}));
  }
};

// Sends `frame` on a pool session and returns the reply written before receive() returned, which
// only a call run on this thread can do; null (and a failure) when none was.
json answered_on_this_thread(harness& h, const std::string& frame) {
  const std::size_t before = h.sink->frames().size();
  h.s.receive(frame);
  const auto frames = h.sink->frames();
  EXPECT_EQ(frames.size(), before + 1) << "no reply when receive() returned";
  return frames.size() == before + 1 ? frames.back().frame : json();
}

TEST_F(inline_tool_test, an_inline_tool_runs_on_the_receiving_thread_and_others_on_the_pool) {
  harness h(srv, /*inline_dispatch=*/false);
  h.initialize();
  const json quick = answered_on_this_thread(
      h, request(1, "tools/call", {{"name", "quick"}, {"arguments", {{"text", "a"}}}}));
  EXPECT_EQ(ran_on.load(), std::this_thread::get_id());
  EXPECT_EQ(quick["result"]["content"][0]["text"], "a") << quick.dump();

  const json pooled = call_legacy(h, 2, "pooled", {{"text", "b"}});
  EXPECT_EQ(pooled["result"]["content"][0]["text"], "b") << pooled.dump();
  EXPECT_NE(ran_on.load(), std::this_thread::get_id());
}

TEST_F(inline_tool_test, replies_are_those_of_the_pool_on_every_path) {
  harness h(srv, /*inline_dispatch=*/false);
  h.initialize();
  const json cases[] = {{{"text", "ok"}}, {{"text", "fail"}}, {{"text", 7}}, json::object()};
  int id = 10;
  for (const json& args : cases) {
    json a = call_legacy(h, ++id, "quick", args);
    json b = call_legacy(h, id, "pooled", args);
    ASSERT_TRUE(a.contains("result")) << a.dump();
    // Only the tool's name differs (it is echoed in error details); the rest is the same tree.
    const std::string quick = a.dump();
    std::string pooled = b.dump();
    for (auto at = pooled.find("pooled"); at != std::string::npos; at = pooled.find("pooled")) {
      pooled.replace(at, 6, "quick");
    }
    EXPECT_EQ(quick, pooled) << args.dump();
  }
}

TEST_F(inline_tool_test, unknown_and_malformed_names_keep_their_rows) {
  harness h(srv, /*inline_dispatch=*/false);
  h.initialize();
  // An unknown tool runs no user code: it is refused on the receiving thread, before receive()
  // returns, whatever the other tools declare.
  const json unknown = answered_on_this_thread(
      h, request(1, "tools/call", {{"name", "quik"}, {"arguments", {{"text", "a"}}}}));
  ASSERT_TRUE(unknown.contains("error")) << unknown.dump();
  EXPECT_EQ(unknown["error"]["code"], -32602);
  EXPECT_EQ(unknown["error"]["data"]["didYouMean"], json::array({"quick"})) << unknown.dump();
  const json not_a_name = h.roundtrip(request(2, "tools/call", {{"name", 42}}));
  ASSERT_TRUE(not_a_name.contains("error")) << not_a_name.dump();
  EXPECT_EQ(not_a_name["error"]["code"], -32602);
}

TEST_F(inline_tool_test, a_legacy_question_from_an_inline_tool_is_refused_at_once) {
  harness h(srv, /*inline_dispatch=*/false);
  h.roundtrip(request(0, "initialize",
                      {{"protocolVersion", "2025-06-18"},
                       {"capabilities", k_elicit_caps},
                       {"clientInfo", {{"name", "test"}, {"version", "1"}}}}));
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  // Answered before receive() returned, and its one frame is the reply: no question was sent to
  // the client, nothing waited.
  const json reply = answered_on_this_thread(h, request(1, "tools/call", {{"name", "asks"}}));
  ASSERT_TRUE(reply.contains("result")) << reply.dump();
  ASSERT_TRUE(reply["result"].value("isError", false)) << reply.dump();
  const json details = reply["result"]["_meta"]["mcpcxx/error"];
  EXPECT_EQ(details["category"], "internal") << reply.dump();
  const std::string ref = details.value("reference", "");
  ASSERT_FALSE(ref.empty()) << reply.dump();
  EXPECT_EQ(reply.dump().find("inline_dispatch"), std::string::npos) << "leaked: " << reply.dump();
  // The operator's log says why, under the reference the client got.
  bool explained = false;
  for (const std::string& line : log.snapshot()) {
    if (line.find(ref) != std::string::npos &&
        line.find("remove inline_dispatch from this tool") != std::string::npos &&
        line.find("elicitation/create") != std::string::npos) {
      explained = true;
    }
  }
  EXPECT_TRUE(explained);
}

TEST_F(inline_tool_test, a_modern_question_from_an_inline_tool_is_an_input_round) {
  harness h(srv, /*inline_dispatch=*/false);
  json params = {{"name", "asks"}};
  params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                     {"io.modelcontextprotocol/clientCapabilities", k_elicit_caps}};
  const json reply = h.roundtrip(
      json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", params}}.dump());
  ASSERT_TRUE(reply.contains("result")) << reply.dump();
  EXPECT_EQ(reply["result"]["resultType"], "input_required") << reply.dump();
  EXPECT_EQ(reply["result"]["inputRequests"]["ask-0"]["method"], "elicitation/create");
}

TEST_F(inline_tool_test, registration_refuses_an_inline_task_tool) {
  const auto handler = [](const json&, request_context&) { return tool_result::text("x"); };
  for (const task_support t : {task_support::optional, task_support::required}) {
    try {
      srv.add_tool({.name = "slow_task", .task = t, .inline_dispatch = true}, handler);
      ADD_FAILURE() << "an inline task tool was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("inline_dispatch"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("set task to forbidden"), std::string::npos);
    }
  }
  EXPECT_FALSE(srv.remove_tool("slow_task"));
}

}  // namespace
}  // namespace mcpcxx::testing

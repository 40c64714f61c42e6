// The tools/call pipeline: every row of the error model, observed on the wire.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

const json k_args_schema = {{"type", "object"},
                            {"properties",
                             {{"count", {{"type", "integer"}, {"maximum", 50}}},
                              {"token", {{"type", "string"}, {"maxLength", 4}}}}},
                            {"required", {"count"}},
                            {"additionalProperties", false}};

class tools_call_test : public ::testing::Test {
 protected:
  captured_log log;
  std::unique_ptr<server> srv;
  std::atomic<bool> observed_cancel{false};
  std::atomic<bool> started_waiting{false};

  void SetUp() override { make_server(false); }

  void make_server(bool expose) {
    auto o = log.options();
    o.expose_exception_details = expose;
    srv = std::make_unique<server>(o);
    srv->add_tool(
        {.name = "count", .input_schema = k_args_schema},
        [](const json& a, request_context&) { return tool_result::text(a["count"].dump()); });
    srv->add_tool({.name = "missing_thing"}, [](const json&, request_context&) -> tool_result {
      throw tool_error("Issue lookup failed: issue ENG-42 was not found. List recent issues first.",
                       error_category::not_found, false, "ENG-42");
    });
    srv->add_tool({.name = "missing_thing_returned"}, [](const json&, request_context&) {
      return tool_result::failed(
          tool_error("Issue lookup failed: issue ENG-42 was not found. List recent issues first.",
                     error_category::not_found, false, "ENG-42"));
    });
    srv->add_tool({.name = "failed_with_output", .output_schema = json{{"type", "object"}}},
                  [](const json&, request_context&) {
                    return tool_result::failed(tool_error("Nope.", error_category::conflict));
                  });
    srv->add_tool({.name = "explode"}, [](const json&, request_context&) -> tool_result {
      throw std::runtime_error("password=hunter2 at db.internal");
    });
    srv->add_tool({.name = "foreign_thrown"}, [](const json&, request_context&) -> tool_result {
      throw unexpected_error("KeyError: 'hunter2'", "Traceback: line 3\nKeyError: 'hunter2'");
    });
    srv->add_tool({.name = "foreign_returned"}, [](const json&, request_context&) {
      return tool_result::failed(
          unexpected_error("KeyError: 'hunter2'", "Traceback: line 3\nKeyError: 'hunter2'"));
    });
    srv->add_tool({.name = "custom_protocol"}, [](const json&, request_context&) -> tool_result {
      throw protocol_error(-31000, "Quota exhausted", {{"quota", "daily"}});
    });
    const json out = {
        {"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}, {"required", {"n"}}};
    srv->add_tool({.name = "good_out", .output_schema = out}, [](const json&, request_context&) {
      return tool_result::structured({{"n", 1}});
    });
    srv->add_tool({.name = "bad_out", .output_schema = out}, [](const json&, request_context&) {
      return tool_result::structured({{"n", "one"}});
    });
    srv->add_tool({.name = "error_out", .output_schema = out}, [](const json&, request_context&) {
      tool_result r = tool_result::text("explicit failure");
      r.is_error = true;
      return r;
    });
    srv->add_tool({.name = "slow", .timeout = std::chrono::milliseconds(50)},
                  [](const json&, request_context& ctx) {
                    while (!ctx.cancelled())
                      std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    return tool_result::text("late");
                  });
    srv->add_tool({.name = "slow_read",
                   .annotations = {{"readOnlyHint", true}},
                   .timeout = std::chrono::milliseconds(50)},
                  [](const json&, request_context& ctx) {
                    while (!ctx.cancelled())
                      std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    return tool_result::text("late");
                  });
    srv->add_tool({.name = "wait_cancel"}, [this](const json&, request_context& ctx) {
      started_waiting = true;
      while (!ctx.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      observed_cancel = true;
      return tool_result::text("cancelled");
    });
    srv->add_tool({.name = "needs_elicitation"}, [](const json&, request_context& ctx) {
      ctx.require_client_capability("elicitation");
      return tool_result::text("ok");
    });
  }

  json call_tool(harness& h, const json& params, int id = 7) {
    return h.roundtrip(modern_request(id, "tools/call", params));
  }
  std::string text_of(const json& r) {
    return r["result"]["content"][0]["text"].get<std::string>();
  }
};

TEST_F(tools_call_test, a_missing_name_or_non_object_arguments_is_invalid_params) {
  harness h(*srv);
  EXPECT_EQ(call_tool(h, json::object())["error"]["code"], -32602);
  EXPECT_EQ(call_tool(h, {{"name", 5}})["error"]["code"], -32602);
  json r = call_tool(h, {{"name", "count"}, {"arguments", "count=1"}});
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("must be an object"), std::string::npos);
}

TEST_F(tools_call_test, b_unknown_tool_names_the_closest_tools) {
  harness h(*srv);
  json r = call_tool(h, {{"name", "cont"}});
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_EQ(r["error"]["message"], "Unknown tool: cont");
  EXPECT_EQ(r["error"]["data"]["didYouMean"][0], "count");
}

TEST_F(tools_call_test, c_invalid_arguments_are_a_tool_error_naming_each_violation) {
  harness h(*srv);
  json r = call_tool(
      h, {{"name", "count"}, {"arguments", {{"count", 99}, {"token", "sk-secret-value"}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], true);
  const std::string t = text_of(r);
  EXPECT_NE(t.find("nothing was executed"), std::string::npos) << t;
  EXPECT_NE(t.find("/count"), std::string::npos) << t;
  EXPECT_NE(t.find("50"), std::string::npos) << t;
  EXPECT_NE(t.find("/token"), std::string::npos) << t;
  EXPECT_EQ(t.find("sk-secret-value"), std::string::npos) << t;
  const json& e = r["result"]["_meta"]["mcpcxx/error"];
  EXPECT_EQ(e["category"], "invalid_arguments");
  EXPECT_EQ(e["effect"], "not_applied");
  EXPECT_GE(e["violations"].size(), 2u);
  EXPECT_EQ(r["result"]["structuredContent"]["category"], "invalid_arguments");
}

TEST_F(tools_call_test, c_missing_required_argument_is_reported) {
  harness h(*srv);
  json r = call_tool(h, {{"name", "count"}, {"arguments", json::object()}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(text_of(r).find("count"), std::string::npos);
}

// A handler's own conversion refusing schema-valid arguments (a runtime validator) answers as
// row T1 with the shape of a schema failure: violations, resource, the same text.
TEST_F(tools_call_test, c_a_handlers_converted_arguments_failure_is_row_t1) {
  srv->add_tool({.name = "window"}, [](const json&, request_context&) -> tool_result {
    throw invalid_arguments_error(json::array(
        {{{"instanceLocation", "/w/end"}, {"keyword", "value_error"}, {"message", "too early"}},
         {{"instanceLocation", ""}, {"keyword", "model"}, {"message", "bad window"}}}));
  });
  harness h(*srv);
  json r = call_tool(h, {{"name", "window"}, {"arguments", {{"w", {{"end", 1}}}}}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(text_of(r),
            "Invalid arguments for tool window; nothing was executed. Fix the following and call "
            "again:\n- /w/end: too early\n- (root): bad window");
  const json& e = r["result"]["_meta"]["mcpcxx/error"];
  EXPECT_EQ(e["category"], "invalid_arguments");
  EXPECT_EQ(e["effect"], "not_applied");
  EXPECT_EQ(e["retryable"], false);
  EXPECT_EQ(e["resource"], "window");
  EXPECT_EQ(
      e["violations"][0],
      json({{"instanceLocation", "/w/end"}, {"keyword", "value_error"}, {"message", "too early"}}));
  EXPECT_EQ(r["result"]["structuredContent"], e);
  // The constructor refuses what is not a list of violations (before anything is thrown).
  EXPECT_THROW(throw invalid_arguments_error(json::array()), std::invalid_argument);
  EXPECT_THROW(throw invalid_arguments_error(json::array({{{"keyword", "x"}}})),
               std::invalid_argument);
}

TEST_F(tools_call_test, d_tool_error_text_is_exact_with_structured_details) {
  harness h(*srv);
  json r = call_tool(h, {{"name", "missing_thing"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(text_of(r),
            "Issue lookup failed: issue ENG-42 was not found. List recent issues first.");
  EXPECT_EQ(r["result"]["structuredContent"]["category"], "not_found");
  EXPECT_EQ(r["result"]["structuredContent"]["resource"], "ENG-42");
  EXPECT_EQ(r["result"]["structuredContent"]["retryable"], false);
  EXPECT_EQ(r["result"]["_meta"]["mcpcxx/error"]["category"], "not_found");
}

// tool_result::failed is the non-throwing spelling of `throw tool_error`: the same reply bytes
// (apart from the tool's own name, which T2 does not mention), counted as a tool error.
TEST_F(tools_call_test, d_a_returned_tool_error_gives_the_reply_of_a_thrown_one) {
  harness h(*srv);
  const json thrown = call_tool(h, {{"name", "missing_thing"}}, 8);
  const json returned = call_tool(h, {{"name", "missing_thing_returned"}}, 8);
  EXPECT_EQ(returned, thrown);
  EXPECT_EQ(returned["result"]["isError"], true);
  EXPECT_EQ(srv->metrics().by_category["not_found"], 2u);
  // With an outputSchema the details stay out of structuredContent, as for a thrown error.
  const json r = call_tool(h, {{"name", "failed_with_output"}});
  EXPECT_EQ(text_of(r), "Nope.");
  EXPECT_FALSE(r["result"].contains("structuredContent"));
  EXPECT_EQ(r["result"]["_meta"]["mcpcxx/error"]["category"], "conflict");
  // The JSON form of a failed result is its T2 result.
  const json j = tool_result::failed(tool_error("Gone.", error_category::not_found));
  EXPECT_EQ(j["isError"], true);
  EXPECT_EQ(j["content"][0]["text"], "Gone.");
  EXPECT_EQ(j["_meta"]["mcpcxx/error"]["category"], "not_found");
}

TEST_F(tools_call_test, e_explicit_protocol_errors_pass_through) {
  harness h(*srv);
  json r = call_tool(h, {{"name", "custom_protocol"}});
  EXPECT_EQ(r["error"]["code"], -31000);
  EXPECT_EQ(r["error"]["message"], "Quota exhausted");
  EXPECT_EQ(r["error"]["data"]["quota"], "daily");
}

TEST_F(tools_call_test, e_spec_reserved_codes_are_refused_at_construction) {
  auto make = [](int code) { return protocol_error(code, "x"); };
  EXPECT_THROW(make(-32601), std::invalid_argument);
  EXPECT_THROW(make(-32021), std::invalid_argument);
  EXPECT_EQ(make(-32602).code(), -32602);
}

TEST_F(tools_call_test, f_unexpected_exceptions_are_sanitized_and_logged_with_a_reference) {
  harness h(*srv);
  json r = call_tool(h, {{"name", "explode"}});
  EXPECT_EQ(r["result"]["isError"], true);
  const std::string t = text_of(r);
  EXPECT_EQ(t.find("hunter2"), std::string::npos) << t;
  const std::string ref = r["result"]["_meta"]["mcpcxx/error"]["reference"];
  EXPECT_EQ(ref.rfind("ERR-", 0), 0u);
  EXPECT_NE(t.find(ref), std::string::npos);
  bool logged = false;
  for (const auto& line : log.snapshot()) {
    if (line.find(ref) != std::string::npos && line.find("hunter2") != std::string::npos)
      logged = true;
  }
  EXPECT_TRUE(logged);
}

// tool_result::failed(unexpected_error) is the non-throwing spelling of throwing it (the Python
// binding's path for an exception a tool raised): the same T3 reply apart from the reference id,
// and the same log entry, detail included, under the reply's reference.
TEST_F(tools_call_test, f_a_returned_unexpected_error_gives_the_reply_of_a_thrown_one) {
  harness h(*srv);
  json thrown = call_tool(h, {{"name", "foreign_thrown"}}, 8);
  json returned = call_tool(h, {{"name", "foreign_returned"}}, 8);
  auto& thrown_error = thrown["result"]["_meta"]["mcpcxx/error"];
  auto& returned_error = returned["result"]["_meta"]["mcpcxx/error"];
  const std::string ref = returned_error["reference"];
  const std::string thrown_ref = thrown_error["reference"];
  EXPECT_NE(ref, thrown_ref);
  EXPECT_EQ(returned["result"]["isError"], true);
  EXPECT_EQ(returned_error["category"], "internal");
  EXPECT_EQ(text_of(returned).find("hunter2"), std::string::npos) << text_of(returned);
  // The two replies apart from the reference id and the tool's name.
  auto normalized = [](std::string text, const std::string& r, const std::string& tool) {
    for (auto at = text.find(r); at != std::string::npos; at = text.find(r))
      text.erase(at, r.size());
    for (auto at = text.find(tool); at != std::string::npos; at = text.find(tool)) {
      text.replace(at, tool.size(), "TOOL");
    }
    return text;
  };
  EXPECT_EQ(normalized(returned.dump(), ref, "foreign_returned"),
            normalized(thrown.dump(), thrown_ref, "foreign_thrown"));
  int logged = 0;
  for (const auto& line : log.snapshot()) {
    if (line.find(ref) == std::string::npos) continue;
    const json entry = json::parse(line);
    if (entry.value("event", "") != "tool_exception") continue;  // not the request's own line
    EXPECT_EQ(entry["detail"], "Traceback: line 3\nKeyError: 'hunter2'");
    EXPECT_EQ(entry["tool"], "foreign_returned");
    ++logged;
  }
  EXPECT_EQ(logged, 1);
  EXPECT_EQ(srv->metrics().by_category["internal"], 2u);
  // Only the engine can give it a CallToolResult: its reference must be logged.
  const tool_result failed = tool_result::failed(unexpected_error("E: x", "detail"));
  EXPECT_THROW((void)json(failed), std::logic_error);
}

TEST_F(tools_call_test, f_exception_text_reaches_the_wire_only_when_exposed) {
  make_server(true);
  harness h(*srv);
  EXPECT_NE(text_of(call_tool(h, {{"name", "explode"}})).find("hunter2"), std::string::npos);
}

TEST_F(tools_call_test, g_output_schema_mismatch_is_an_internal_tool_error) {
  harness h(*srv);
  json ok = call_tool(h, {{"name", "good_out"}});
  EXPECT_EQ(ok["result"]["structuredContent"]["n"], 1);
  EXPECT_FALSE(ok["result"].contains("isError"));
  json bad = call_tool(h, {{"name", "bad_out"}});
  EXPECT_EQ(bad["result"]["isError"], true);
  EXPECT_EQ(bad["result"]["_meta"]["mcpcxx/error"]["category"], "internal");
  EXPECT_FALSE(bad["result"].contains("structuredContent"));
  json explicit_error = call_tool(h, {{"name", "error_out"}});
  EXPECT_EQ(text_of(explicit_error), "explicit failure");
}

TEST_F(tools_call_test, h_deadline_gives_timeout_with_unknown_outcome_for_writes) {
  harness h(*srv, false);
  json r = call_tool(h, {{"name", "slow"}});
  EXPECT_EQ(r["result"]["_meta"]["mcpcxx/error"]["category"], "timeout");
  EXPECT_NE(text_of(r).find("outcome is unknown"), std::string::npos);
  json ro = call_tool(h, {{"name", "slow_read"}}, 8);
  EXPECT_NE(text_of(ro).find("retrying is safe"), std::string::npos);
  h.s.wait_idle();
  EXPECT_EQ(h.sink->frames().size(), 2u);  // the late handler results were dropped
}

TEST_F(tools_call_test, i_cancelled_requests_get_no_response_and_the_handler_sees_it) {
  harness h(*srv, false);
  h.s.receive(modern_request(11, "tools/call", {{"name", "wait_cancel"}}));
  // Cancelled while it runs (a request cancelled before a worker started it never starts).
  while (!started_waiting.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  h.s.receive(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11,"reason":"user"}})");
  h.s.wait_idle();
  EXPECT_TRUE(observed_cancel.load());
  EXPECT_TRUE(h.sink->frames().empty());
}

TEST_F(tools_call_test, duplicate_in_flight_ids_are_invalid_requests) {
  harness h(*srv, false);
  h.s.receive(modern_request(12, "tools/call", {{"name", "wait_cancel"}}));
  json dup = h.roundtrip(
      modern_request(12, "tools/call", {{"name", "count"}, {"arguments", {{"count", 1}}}}));
  EXPECT_EQ(dup["error"]["code"], -32600);
  h.s.cancel(std::int64_t{12}, "test over");
  h.s.wait_idle();
}

TEST_F(tools_call_test, missing_client_capability_is_32021) {
  harness h(*srv);
  json r = call_tool(h, {{"name", "needs_elicitation"}});
  EXPECT_EQ(r["error"]["code"], -32021);
  EXPECT_EQ(r["error"]["data"]["requiredCapabilities"], json({{"elicitation", json::object()}}));
}

TEST_F(tools_call_test, j_every_outcome_is_counted_and_logged_as_one_json_line) {
  harness h(*srv);
  call_tool(h, {{"name", "count"}, {"arguments", {{"count", 1}}}}, 1);
  call_tool(h, {{"name", "missing_thing"}}, 2);
  call_tool(h, {{"name", "nope"}}, 3);
  const auto m = srv->metrics();
  EXPECT_EQ(m.requests, 3u);
  EXPECT_EQ(m.tool_errors, 1u);
  EXPECT_EQ(m.protocol_errors, 1u);
  EXPECT_EQ(m.by_category.at("not_found"), 1u);
  int request_lines = 0;
  for (const auto& line : log.snapshot()) {
    json j = json::parse(line);
    if (j["event"] != "request") continue;
    ++request_lines;
    EXPECT_TRUE(j.contains("latencyMs") && j.contains("id") && j.contains("category")) << line;
    if (j["id"] == 2) {
      EXPECT_EQ(j["tool"], "missing_thing");
    }
  }
  EXPECT_EQ(request_lines, 3);
}

}  // namespace
}  // namespace mcpcxx::testing

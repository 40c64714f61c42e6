// Rendering rules of the situation table: formats, optional segments, missing arguments, bytes
// that are not UTF-8, and the tool-result shape.
#include <gtest/gtest.h>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/jsonrpc.hpp"

#include "wire/situation.hpp"

namespace mcpcxx::wire {
namespace {

using s = situation;

TEST(WireRender, StringsVerbatimJsonFormatQuotes) {
  EXPECT_EQ(render(s::P8_method_not_found, {{"method", "foo/bar"}}).message,
            "Method not found: foo/bar. Check the method name against the MCP revision you speak");
  EXPECT_EQ(render(s::P12_unsupported_version, {{"requested", "2099-01-01"}}).message,
            "Unsupported protocol version \"2099-01-01\": retry with one of the supported "
            "versions (legacy versions via initialize)");
  EXPECT_EQ(render(s::P22_invalid_log_level, {{"level", 7}}).message.substr(0, 40),
            "Invalid params: unknown log level 7; use");
}

TEST(WireRender, ListFormatJoinsWithComma) {
  EXPECT_EQ(render(s::P19a_missing_prompt_arguments,
                   {{"name", "greet"}, {"missing", json::array({"a", "b"})}})
                .message,
            "Invalid params: prompt greet requires argument(s) a, b");
}

TEST(WireRender, BulletsPrefixEveryLine) {
  const json r = render_tool_result(s::T1_invalid_arguments,
                                    {{"name", "echo"},
                                     {"violations_text", "/a: must be a string\n/b: too long"},
                                     {"violations", json::array()}},
                                    false);
  EXPECT_EQ(r["content"][0]["text"],
            "Invalid arguments for tool echo; nothing was executed. Fix the following and call "
            "again:\n- /a: must be a string\n- /b: too long");
}

TEST(WireRender, OptionalSegmentOnlyWithItsArgument) {
  const json without = {{"name", "t"}, {"reference", "ERR-1"}};
  json with = without;
  with["detail"] = "boom";
  const auto text = [](const json& r) { return r["content"][0]["text"].get<std::string>(); };
  EXPECT_EQ(text(render_tool_result(s::T3_unexpected_read_only, without, false)),
            "t failed with an internal error (reference ERR-1). Retry once; if it persists, "
            "report the reference.");
  EXPECT_EQ(text(render_tool_result(s::T3_unexpected_read_only, with, false)),
            "t failed with an internal error (reference ERR-1). Detail: boom. Retry once; if it "
            "persists, report the reference.");
}

TEST(WireRender, BracketsWithoutPlaceholderAreLiteral) {
  EXPECT_EQ(render(s::H32_version_header_mismatch).message,
            "Header mismatch: MCP-Protocol-Version does not match "
            "params._meta[\"io.modelcontextprotocol/protocolVersion\"]");
}

TEST(WireRender, PlaceholderSyntaxInArgumentsIsNotExpanded) {
  EXPECT_EQ(render(s::P8_method_not_found, {{"method", "{method}[x]"}}).message.substr(0, 29),
            "Method not found: {method}[x]");
}

// A missing argument is a programming error: release builds render "?" and count it (never an
// exception on the wire); debug builds assert.
TEST(WireRender, MissingArgumentRendersQuestionMarkAndIsCounted) {
#ifdef NDEBUG
  const std::size_t before = missing_argument_count();
  const jsonrpc::error_object e = render(s::P8_method_not_found, json::object());
  EXPECT_EQ(e.message,
            "Method not found: ?. Check the method name against the MCP revision you speak");
  EXPECT_TRUE(e.data.contains("method"));
  EXPECT_TRUE(e.data["method"].is_null());
  EXPECT_GT(missing_argument_count(), before);
  // Arguments that are not even an object degrade the same way.
  EXPECT_EQ(render(s::P7_already_initialized, json("junk")).code, error_code::invalid_request);
#else
  EXPECT_DEATH(render(s::P8_method_not_found, json::object()), "rendered without");
#endif
}

TEST(WireRender, InvalidUtf8ArgumentsNeverThrowAndSerialize) {
  const std::string bad = "v\xff\xfe";
  const jsonrpc::error_object e =
      render(s::H15_session_version_mismatch, {{"version", bad}, {"negotiated", "2025-06-18"}});
  EXPECT_EQ(e.code, error_code::invalid_request);
  EXPECT_NE(e.message.find("\xef\xbf\xbd"), std::string::npos);  // U+FFFD replaced the bytes
  const std::string frame = jsonrpc::serialize_error(std::nullopt, e);
  EXPECT_FALSE(json::parse(frame, nullptr, false).is_discarded()) << frame;
}

TEST(WireRender, HandlerProtocolErrorPassesThrough) {
  const jsonrpc::error_object e = render(
      s::P23_handler_protocol_error, {{"code", -31000}, {"message", "{x} [y]"}, {"data", {1, 2}}});
  EXPECT_EQ(e.code, -31000);
  EXPECT_EQ(e.message, "{x} [y]");
  EXPECT_EQ(e.data, json({1, 2}));
}

TEST(WireToolResult, StructuredContentOnlyWithoutOutputSchema) {
  const json args = {{"name", "add"}, {"reference", "ERR-2"}};
  const json plain = render_tool_result(s::T4w_output_mismatch_applied, args, false);
  const json schema = render_tool_result(s::T4w_output_mismatch_applied, args, true);
  const json details = {{"category", "internal"},
                        {"effect", "applied"},
                        {"reference", "ERR-2"},
                        {"resource", "add"},
                        {"retryable", false}};
  EXPECT_EQ(plain["structuredContent"], details);
  EXPECT_EQ(plain["_meta"]["mcpcxx/error"], details);
  EXPECT_FALSE(schema.contains("structuredContent"));
  EXPECT_EQ(schema["_meta"]["mcpcxx/error"], details);
  EXPECT_EQ(schema["isError"], true);
}

TEST(WireToolResult, TimeoutUsesShortNumberAndRetryFlagPerVariant) {
  const json args = {{"name", "slow"}, {"seconds", 2.0}, {"timeoutSeconds", 2.0}};
  const json ro = render_tool_result(s::T5_timeout_read_only, args, false);
  const json rw = render_tool_result(s::T5w_timeout_may_have_run, args, false);
  EXPECT_EQ(ro["content"][0]["text"].get<std::string>().substr(0, 25), "slow timed out after 2 s.");
  EXPECT_EQ(ro["structuredContent"]["retryable"], true);
  EXPECT_EQ(rw["structuredContent"]["retryable"], false);
  EXPECT_EQ(rw["structuredContent"]["effect"], "unknown");
  EXPECT_EQ(rw["structuredContent"]["timeoutSeconds"], 2.0);
}

TEST(WireToolResult, ToolErrorUsesItsOwnDetailsAndToolReportedPassesThrough) {
  const json details = {{"category", "not_found"}, {"retryable", false}};
  const json r = render_tool_result(s::T2_tool_error,
                                    {{"name", "t"}, {"message", "m"}, {"details", details}}, false);
  EXPECT_EQ(r["content"][0]["text"], "m");
  EXPECT_EQ(r["_meta"]["mcpcxx/error"], details);
  const json own = {{"content", json::array()}, {"isError", true}};
  EXPECT_EQ(render_tool_result(s::T6_tool_reported_error, {{"result", own}}, false), own);
}

TEST(WireToolResult, ProtocolRowAsToolResultStillIsAnErrorResult) {
  const json r = render_tool_result(s::P18_invalid_cursor, json::object(), false);
  EXPECT_EQ(r["isError"], true);
}

// The engine writes a T row in parts (details spliced into the frame as it is written): put
// back, the parts must equal the whole result, for every T row, with and without an outputSchema,
// and for a tool_error's own details; a row without details comes back whole.
json put_back(tool_failure_parts p) {
  if (p.details.is_null()) return p.result;
  if (p.structured) p.result["structuredContent"] = p.details;
  p.result["_meta"]["mcpcxx/error"] = p.details;
  return p.result;
}

TEST(WireRender, ToolFailurePartsPutBackEqualTheWholeResult) {
  const json args = {{"name", "lookup"},
                     {"violations_text", "/key: must be a string, got integer"},
                     {"violations", json::array({{{"keyword", "type"}}})},
                     {"reference", "ref-1"},
                     {"seconds", 0.2},
                     {"timeoutSeconds", 0.2},
                     {"uri", "file:///x"},
                     {"message", "boom"},
                     {"details", {{"category", "not_found"}, {"retryable", false}}}};
  for (const s row :
       {s::T1_invalid_arguments, s::T3_unexpected_read_only, s::T3w_unexpected_may_have_run,
        s::T4_output_mismatch_read_only, s::T4w_output_mismatch_applied, s::T5_timeout_read_only,
        s::T5w_timeout_may_have_run, s::T2_tool_error}) {
    for (const bool schema : {false, true}) {
      const auto parts = render_tool_failure(row, json(args), schema);
      EXPECT_FALSE(parts.details.is_null()) << row_of(row).id;
      EXPECT_EQ(parts.structured, !schema) << row_of(row).id;
      EXPECT_FALSE(parts.result.contains("_meta")) << row_of(row).id;
      EXPECT_EQ(put_back(parts), render_tool_result(row, args, schema)) << row_of(row).id;
    }
  }
  const json details = {{"category", "conflict"}, {"retryable", true}, {"resource", "ENG-1"}};
  for (const bool schema : {false, true}) {
    // A thrown tool_error (the classifier: row T2 with its arguments) and a returned one
    // (tool_result::failed: render_tool_error_result) give the same result.
    const json t2_args = {{"message", "Conflict on ENG-1"}, {"details", details}};
    EXPECT_EQ(put_back(render_tool_failure(s::T2_tool_error, json(t2_args), schema)),
              render_tool_error_result("Conflict on ENG-1", details, schema));
  }
  const json reported = {{"content", json::array()}, {"isError", true}};
  const auto t6 = render_tool_failure(s::T6_tool_reported_error, {{"result", reported}}, false);
  EXPECT_TRUE(t6.details.is_null());
  EXPECT_EQ(t6.result, reported);
}

}  // namespace
}  // namespace mcpcxx::wire

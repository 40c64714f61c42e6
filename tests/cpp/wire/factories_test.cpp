// The engine's detail::wire factories now render through the table; their texts must stay what
// clients already see (pinned here), except the fixes the table made on purpose (T1 bullets).
#include <algorithm>

#include <gtest/gtest.h>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/server.hpp"

#include "engine/wire_errors.hpp"
#include "wire/era.hpp"

namespace mcpcxx {
namespace {

namespace w = detail::wire;

TEST(WireFactories, ProtocolTextsAreUnchanged) {
  EXPECT_EQ(w::method_not_in_era("ping", "2026-07-28").message,
            "Method not found: ping does not exist in protocol version 2026-07-28");
  EXPECT_EQ(w::capability_not_advertised("prompts/list", "prompts").message,
            "Method not found: prompts/list needs the 'prompts' capability, which this server "
            "does not offer");
  EXPECT_EQ(w::missing_modern_meta({"a", "b"}).message,
            "Invalid params: params._meta lacks a, b; every 2026-07-28 request must carry both");
  EXPECT_EQ(w::missing_client_capability({{"sampling", json::object()}}).message,
            "Missing required client capability: declare {\"sampling\":{}} in _meta "
            "io.modelcontextprotocol/clientCapabilities and retry");
  EXPECT_EQ(w::already_initialized("2025-06-18").message,
            "Invalid request: this session is already initialized with protocol version "
            "2025-06-18; start a new session to initialize again");
  EXPECT_EQ(w::duplicate_request_id(jsonrpc::request_id{std::string("x")}).message,
            "Invalid request: id \"x\" is already in use by a request in flight; use a unique id "
            "per request");
  EXPECT_EQ(w::duplicate_request_id(jsonrpc::request_id{std::int64_t{7}}).message,
            "Invalid request: id 7 is already in use by a request in flight; use a unique id per "
            "request");
  EXPECT_EQ(w::invalid_params("x must be y").message, "Invalid params: x must be y");
  EXPECT_EQ(w::invalid_params("x", {{"k", 1}}).data, (json{{"k", 1}}));
  EXPECT_EQ(w::resource_not_found("file:///x", false).code, error_code::resource_not_found_legacy);
  EXPECT_EQ(w::resource_not_found("file:///x", true).code, error_code::invalid_params);
  EXPECT_EQ(w::internal_error("ERR-1").message,
            "Internal error (reference ERR-1); retry once and report the reference if it "
            "persists");
  EXPECT_EQ(w::internal_error("ERR-1").data, (json{{"reference", "ERR-1"}}));
}

TEST(WireFactories, DataShapesAreUnchanged) {
  EXPECT_EQ(w::unknown_tool("ech", {"echo"}).data,
            (json{{"name", "ech"}, {"didYouMean", {"echo"}}}));
  EXPECT_EQ(w::missing_prompt_arguments("p", {"a"}).data,
            (json{{"name", "p"}, {"missing", {"a"}}}));
  const auto v = w::unsupported_version("1999-01-01");
  EXPECT_EQ(v.code, error_code::unsupported_protocol_version);
  EXPECT_EQ(v.data["requested"], "1999-01-01");
  EXPECT_EQ(v.data["supported"].size(), std::size(k_supported_versions));
  EXPECT_EQ(w::not_initialized("tools/list").data["method"], "tools/list");
  EXPECT_TRUE(w::invalid_cursor().data.is_null());
  EXPECT_TRUE(w::batch_not_allowed().data.is_null());
}

TEST(WireFactories, ToolResultsKeepTheirShape) {
  const w::tool_facts ro{"look", true, false};
  const w::tool_facts rw{"write", false, true};
  const json t1 = w::invalid_arguments_result(ro, "/x: bad", json::array({1}));
  EXPECT_EQ(t1["content"][0]["text"],
            "Invalid arguments for tool look; nothing was executed. Fix the following and call "
            "again:\n- /x: bad");
  EXPECT_EQ(t1["structuredContent"]["violations"], json::array({1}));
  const json t3 = w::unexpected_error_result(rw, "ERR-9", std::string("disk full"));
  EXPECT_EQ(t3["content"][0]["text"],
            "write failed with an internal error (reference ERR-9). Detail: disk full. It may "
            "have partly run: check the current state before retrying once; if it persists, "
            "report the reference.");
  EXPECT_FALSE(t3.contains("structuredContent"));
  EXPECT_EQ(t3["_meta"]["mcpcxx/error"]["effect"], "unknown");
  const json t5 = w::timeout_result(ro, 0.25);
  EXPECT_EQ(t5["content"][0]["text"],
            "look timed out after 0.25 s. Nothing was changed; retrying is safe, ideally with a "
            "smaller request.");
  EXPECT_EQ(t5["structuredContent"]["timeoutSeconds"], 0.25);
  const json t2 =
      w::tool_error_result(ro, tool_error("Lookup failed: x.", error_category::not_found));
  EXPECT_EQ(t2["content"][0]["text"], "Lookup failed: x.");
  EXPECT_EQ(t2["structuredContent"]["category"], "not_found");
}

TEST(WireFactories, PublicVersionListIsTheWireList) {
  ASSERT_EQ(std::size(k_supported_versions), std::size(wire::k_versions));
  for (std::size_t i = 0; i < std::size(wire::k_versions); ++i) {
    EXPECT_EQ(k_supported_versions[i], wire::k_versions[i]);
  }
  EXPECT_EQ(k_modern_version, wire::k_modern);
  EXPECT_EQ(k_latest_legacy_version, wire::k_latest_legacy);
}

}  // namespace
}  // namespace mcpcxx

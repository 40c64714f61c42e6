// Dual-era lifecycle and dispatcher gating, observed on the wire.
#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

server_options with_info(server_options o) {
  o.info = {"srv", "1.2.3", "Server", "A test server", nullptr, "https://example.invalid"};
  o.instructions = "Be nice.";
  return o;
}

class lifecycle_test : public ::testing::Test {
 protected:
  captured_log log;
  server srv{with_info(log.options())};
  void SetUp() override {
    srv.add_tool({.name = "echo", .description = "Echo"},
                 [](const json& a, request_context&) { return tool_result::text(a.dump()); });
  }
};

TEST_F(lifecycle_test, initialize_echoes_a_supported_version_and_reports_server_info) {
  harness h(srv);
  json r = h.initialize("2025-06-18");
  EXPECT_EQ(r["id"], 0);
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "srv");
  EXPECT_EQ(r["result"]["serverInfo"]["title"], "Server");
  EXPECT_EQ(r["result"]["serverInfo"]["description"], "A test server");
  EXPECT_EQ(r["result"]["serverInfo"]["websiteUrl"], "https://example.invalid");
  EXPECT_EQ(r["result"]["instructions"], "Be nice.");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  EXPECT_FALSE(r["result"].contains("resultType"));
  EXPECT_EQ(h.s.negotiated_version(), "2025-06-18");
}

TEST_F(lifecycle_test, initialize_counter_offers_latest_legacy_for_unknown_versions) {
  harness h(srv);
  EXPECT_EQ(h.initialize("1999-01-01")["result"]["protocolVersion"], "2025-11-25");
  harness h2(srv);
  EXPECT_EQ(h2.initialize("2026-07-28")["result"]["protocolVersion"], "2025-11-25");
}

TEST_F(lifecycle_test, second_initialize_is_an_invalid_request) {
  harness h(srv);
  h.initialize();
  json r = h.roundtrip(request(1, "initialize", {{"protocolVersion", "2025-11-25"}}));
  EXPECT_EQ(r["error"]["code"], -32600);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("already initialized"),
            std::string::npos);
}

TEST_F(lifecycle_test, initialize_without_protocol_version_is_invalid_params) {
  harness h(srv);
  json r = h.roundtrip(request(1, "initialize", {{"capabilities", json::object()}}));
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_EQ(h.s.negotiated_version(), "");
}

TEST_F(lifecycle_test, request_before_initialize_says_how_to_recover) {
  harness h(srv);
  json r = h.roundtrip(request(3, "tools/list"));
  EXPECT_EQ(r["id"], 3);
  EXPECT_EQ(r["error"]["code"], -32602);
  const std::string msg = r["error"]["message"];
  EXPECT_NE(msg.find("send initialize"), std::string::npos);
  EXPECT_NE(msg.find("io.modelcontextprotocol/protocolVersion"), std::string::npos);
  EXPECT_EQ(r["error"]["data"]["supported"][0], "2026-07-28");
  EXPECT_EQ(r["error"]["data"]["supported"].size(), 5u);
}

TEST_F(lifecycle_test, ping_works_before_and_after_initialize) {
  harness h(srv);
  EXPECT_EQ(h.roundtrip(request(1, "ping"))["result"], json::object());
  h.initialize();
  EXPECT_EQ(h.roundtrip(request(2, "ping"))["result"], json::object());
}

TEST_F(lifecycle_test, modern_request_needs_both_meta_fields) {
  harness h(srv);
  json r = h.roundtrip(
      json{{"jsonrpc", "2.0"},
           {"id", 1},
           {"method", "tools/list"},
           {"params", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}}}
          .dump());
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_EQ(r["error"]["data"]["missing"],
            json::array({"io.modelcontextprotocol/clientCapabilities"}));
}

TEST_F(lifecycle_test, unsupported_modern_version_lists_supported_versions) {
  harness h(srv);
  json params = {{"_meta",
                  {{"io.modelcontextprotocol/protocolVersion", "2030-01-01"},
                   {"io.modelcontextprotocol/clientCapabilities", json::object()}}}};
  json r = h.roundtrip(
      json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}, {"params", params}}.dump());
  EXPECT_EQ(r["error"]["code"], -32022);
  EXPECT_EQ(r["error"]["data"]["requested"], "2030-01-01");
  EXPECT_EQ(r["error"]["data"]["supported"][0], "2026-07-28");
}

TEST_F(lifecycle_test, modern_results_carry_result_type_and_server_info) {
  harness h(srv);
  json r = h.roundtrip(modern_request(1, "tools/list"));
  EXPECT_EQ(r["result"]["resultType"], "complete");
  EXPECT_EQ(r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "srv");
  EXPECT_EQ(r["result"]["ttlMs"], 60000);
  EXPECT_EQ(r["result"]["cacheScope"], "public");
  json c = h.roundtrip(modern_request(2, "tools/call", {{"name", "echo"}}));
  EXPECT_EQ(c["result"]["resultType"], "complete");
  EXPECT_FALSE(c["result"].contains("ttlMs"));
}

TEST_F(lifecycle_test, server_discover_reports_versions_capabilities_and_cache_hints) {
  harness h(srv);
  json r = h.roundtrip(modern_request(1, "server/discover"))["result"];
  EXPECT_EQ(r["supportedVersions"].size(), 5u);
  EXPECT_TRUE(r["capabilities"].contains("tools"));
  // subscriptions/listen delivers list_changed in the modern era (listen_test.cpp).
  EXPECT_EQ(r["capabilities"]["tools"]["listChanged"], true);
  EXPECT_EQ(r["instructions"], "Be nice.");
  EXPECT_EQ(r["ttlMs"], 60000);
  EXPECT_EQ(r["cacheScope"], "public");
  EXPECT_EQ(r["resultType"], "complete");
}

TEST_F(lifecycle_test, legacy_only_methods_are_not_found_in_the_modern_era) {
  harness h(srv);
  for (const char* m : {"ping", "initialize", "logging/setLevel"}) {
    json r =
        h.roundtrip(modern_request(1, m, {{"level", "info"}, {"protocolVersion", "2025-11-25"}}));
    if (std::string(m) == "initialize") {
      // initialize always selects the legacy era, even with modern _meta present.
      EXPECT_TRUE(r.contains("result")) << m;
      continue;
    }
    EXPECT_EQ(r["error"]["code"], -32601) << m;
  }
}

TEST_F(lifecycle_test, legacy_session_still_serves_modern_requests_per_message) {
  harness h(srv);
  h.initialize();
  EXPECT_EQ(h.roundtrip(modern_request(5, "tools/list"))["result"]["resultType"], "complete");
  EXPECT_FALSE(h.roundtrip(request(6, "tools/list"))["result"].contains("resultType"));
}

TEST_F(lifecycle_test, unknown_method_is_not_found_with_the_method_in_data) {
  harness h(srv);
  h.initialize();
  json r = h.roundtrip(request(9, "tools/frobnicate"));
  EXPECT_EQ(r["error"]["code"], -32601);
  EXPECT_EQ(r["error"]["data"]["method"], "tools/frobnicate");
}

TEST_F(lifecycle_test, unadvertised_capability_is_method_not_found) {
  harness h(srv);
  h.initialize();
  json r = h.roundtrip(request(9, "prompts/list"));
  EXPECT_EQ(r["error"]["code"], -32601);
  EXPECT_EQ(r["error"]["data"]["capability"], "prompts");
}

TEST_F(lifecycle_test, notifications_are_never_answered_and_unknown_ones_are_logged) {
  harness h(srv);
  h.initialize();
  const auto before = h.sink->frames().size();
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/whatever","params":{}})");
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})");
  EXPECT_EQ(h.sink->frames().size(), before);
  bool logged = false;
  for (const auto& line : log.snapshot()) {
    if (line.find("unknown_notification") != std::string::npos &&
        line.find("notifications/whatever") != std::string::npos) {
      logged = true;
    }
  }
  EXPECT_TRUE(logged);
}

TEST_F(lifecycle_test, batches_are_refused_except_on_2025_03_26_sessions) {
  harness h(srv);
  h.initialize("2025-11-25");
  json r = h.roundtrip(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(r["error"]["code"], -32600);
  EXPECT_TRUE(r["id"].is_null());

  harness b(srv);
  b.initialize("2025-03-26");
  json arr = b.roundtrip(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},)"
                         R"({"jsonrpc":"2.0","method":"notifications/initialized"},)"
                         R"({"jsonrpc":"2.0","id":2,"method":"tools/list"},)"
                         R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}])");
  ASSERT_TRUE(arr.is_array());
  ASSERT_EQ(arr.size(), 3u);
  std::set<int> ids;
  for (const auto& m : arr) ids.insert(m["id"].get<int>());
  EXPECT_EQ(ids, (std::set<int>{1, 2, 3}));
  for (const auto& m : arr) {
    if (m["id"] == 3) {
      EXPECT_EQ(m["error"]["code"], -32600);
    }
  }
}

TEST_F(lifecycle_test, non_object_params_are_invalid_params) {
  harness h(srv);
  h.initialize();
  json r = h.roundtrip(R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]})");
  EXPECT_EQ(r["error"]["code"], -32602);
}

TEST_F(lifecycle_test, invalid_messages_get_parse_and_invalid_request_errors) {
  harness h(srv);
  json r = h.roundtrip("{not json");
  EXPECT_EQ(r["error"]["code"], -32700);
  EXPECT_TRUE(r["id"].is_null());
  json r2 = h.roundtrip(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})");
  EXPECT_EQ(r2["error"]["code"], -32600);
}

}  // namespace
}  // namespace mcpcxx::testing

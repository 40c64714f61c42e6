// Issue 13 section 3: request _meta, HTTP headers (null off HTTP), declared extensions and the
// client's extension settings, per-primitive cache hints.
#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

// A tool answering with what its context saw, as structuredContent.
void add_probe(server& srv) {
  srv.add_tool({.name = "probe"}, [](const json&, request_context& ctx) {
    const json* ext = ctx.client_extension("com.example/trace");
    return tool_result::structured({{"meta", ctx.request_meta()},
                                    {"headers", ctx.http_headers()},
                                    {"ext", ext ? *ext : json(nullptr)}});
  });
}

json call_probe(harness& h, json meta) {
  json msg = {{"jsonrpc", "2.0"},
              {"id", 5},
              {"method", "tools/call"},
              {"params", {{"name", "probe"}, {"arguments", json::object()}, {"_meta", meta}}}};
  return h.roundtrip(msg.dump())["result"]["structuredContent"];
}

TEST(request_context_test, modern_handler_reads_request_meta_and_client_extension_settings) {
  server srv(captured_log{}.options());
  add_probe(srv);
  harness h(srv);
  json meta = modern_meta();
  meta["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  meta["tracestate"] = "vendor=1";
  meta["com.example/custom"] = {{"k", 1}};
  meta["io.modelcontextprotocol/clientCapabilities"] = {
      {"extensions", {{"com.example/trace", {{"sample", 0.5}}}}}};
  json seen = call_probe(h, meta);
  EXPECT_EQ(seen["meta"], meta);
  EXPECT_TRUE(seen["headers"].is_null()) << "not served over HTTP";
  EXPECT_EQ(seen["ext"], json({{"sample", 0.5}}));
}

TEST(request_context_test, undeclared_extension_and_absent_meta_read_as_nothing) {
  server srv(captured_log{}.options());
  add_probe(srv);
  harness h(srv);
  h.initialize();
  json seen = h.roundtrip(request(2, "tools/call", {{"name", "probe"}}))["result"];
  ASSERT_TRUE(seen.contains("structuredContent")) << seen.dump();
  EXPECT_EQ(seen["structuredContent"]["meta"], json::object());
  EXPECT_TRUE(seen["structuredContent"]["ext"].is_null());
}

TEST(request_context_test, legacy_handler_reads_the_sessions_declared_extensions) {
  server srv(captured_log{}.options());
  add_probe(srv);
  harness h(srv);
  h.roundtrip(request(0, "initialize",
                      {{"protocolVersion", "2025-11-25"},
                       {"capabilities", {{"extensions", {{"com.example/trace", json::object()}}}}},
                       {"clientInfo", {{"name", "t"}, {"version", "1"}}}}));
  json seen = call_probe(h, {{"traceparent", "00-abc-def-01"}});
  EXPECT_EQ(seen["ext"], json::object());
  EXPECT_EQ(seen["meta"]["traceparent"], "00-abc-def-01");
}

TEST(request_context_test, extensions_are_advertised_in_discover_and_initialize) {
  server srv(captured_log{}.options());
  srv.add_extension("com.example/trace", {{"formats", {"w3c"}}});
  srv.add_extension("io.modelcontextprotocol/ui");
  harness h(srv);
  json d = h.roundtrip(modern_request(1, "server/discover"))["result"];
  EXPECT_EQ(d["capabilities"]["extensions"],
            json({{"com.example/trace", {{"formats", {"w3c"}}}},
                  {"io.modelcontextprotocol/ui", json::object()}}));
  json init = harness(srv).initialize()["result"];
  EXPECT_EQ(init["capabilities"]["extensions"], d["capabilities"]["extensions"]);
  EXPECT_TRUE(srv.remove_extension("io.modelcontextprotocol/ui"));
  EXPECT_FALSE(srv.remove_extension("io.modelcontextprotocol/ui"));
  d = h.roundtrip(modern_request(2, "server/discover"))["result"];
  EXPECT_FALSE(d["capabilities"]["extensions"].contains("io.modelcontextprotocol/ui"));
}

TEST(request_context_test, bad_extensions_are_refused_at_declaration) {
  server srv(captured_log{}.options());
  for (const char* id :
       {"", "tasks", "/tasks", "com.example/", "1com/x", "com-/x", "com..x/y", "com.example/-x",
        "com.example/x y", "com.example/a/b", "com.ex_ample/x"}) {
    EXPECT_THROW(srv.add_extension(id), std::invalid_argument) << id;
  }
  for (const json& bad : {json(nullptr), json(1), json("x"), json::array()}) {
    EXPECT_THROW(srv.add_extension("com.example/x", bad), std::invalid_argument) << bad.dump();
  }
  EXPECT_NO_THROW(srv.add_extension("com.example-2.io/x_y.z-1"));
  EXPECT_THROW(srv.add_extension("com.example-2.io/x_y.z-1"), std::invalid_argument);
  try {
    srv.add_extension("tasks");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("com.example/feature"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(srv.capabilities()["extensions"].contains("com.example-2.io/x_y.z-1"));
}

tool_handler noop_handler() {
  return [](const json&, request_context&) { return tool_result::text("ok"); };
}

resource_reader context_text_reader() {
  return [](const std::string& uri, request_context&) {
    return std::vector<resource_contents>{{.uri = uri, .text = "x"}};
  };
}

TEST(request_context_test, list_hints_combine_every_entry_of_the_list) {
  auto o = captured_log{}.options();
  o.page_size = 1;
  o.list_ttl_ms = 30000;
  server srv(o);
  srv.add_tool({.name = "a"}, noop_handler());
  srv.add_tool({.name = "b", .cache = {.ttl_ms = 500}}, noop_handler());
  srv.add_tool({.name = "c", .cache = {.scope = "private"}}, noop_handler());
  harness h(srv);
  json first = h.roundtrip(modern_request(1, "tools/list"))["result"];
  EXPECT_EQ(first["tools"].size(), 1u);
  EXPECT_EQ(first["ttlMs"], 500);
  EXPECT_EQ(first["cacheScope"], "private") << "one scope on every page";
  json later = h.roundtrip(modern_request(2, "tools/list", {{"cursor", first["nextCursor"]}}));
  EXPECT_EQ(later["result"]["cacheScope"], "private");
  EXPECT_EQ(later["result"]["ttlMs"], 500);
  ASSERT_TRUE(srv.remove_tool("b"));
  ASSERT_TRUE(srv.remove_tool("c"));
  json after = h.roundtrip(modern_request(3, "tools/list"))["result"];
  EXPECT_EQ(after["ttlMs"], 30000) << "the cached page follows the registry";
  EXPECT_EQ(after["cacheScope"], "public");
  EXPECT_FALSE(after["tools"][0].contains("ttlMs")) << "no wire field on the primitive";
}

TEST(request_context_test, empty_lists_and_discover_carry_the_server_defaults) {
  auto o = captured_log{}.options();
  o.list_ttl_ms = 1234;
  o.cache_scope = "private";
  server srv(o);
  srv.add_tool({.name = "a", .cache = {.ttl_ms = 1}}, noop_handler());
  srv.add_resource_template(
      {.uri_template = "x://t/{id}", .name = "t", .cache = {.ttl_ms = 2, .scope = "public"}},
      [](const std::string&, const std::map<std::string, std::string>&, request_context&) {
        return std::vector<resource_contents>{};
      });
  harness h(srv);
  json p = h.roundtrip(modern_request(1, "resources/list"))["result"];
  EXPECT_EQ(p["resources"], json::array());
  EXPECT_EQ(p["ttlMs"], 1234) << "no resource: the defaults, not the template's hints";
  EXPECT_EQ(p["cacheScope"], "private");
  json d = h.roundtrip(modern_request(2, "server/discover"))["result"];
  EXPECT_EQ(d["ttlMs"], 1234);
  EXPECT_EQ(d["cacheScope"], "private");
}

TEST(request_context_test, resource_read_carries_its_own_hints) {
  server srv(captured_log{}.options());
  srv.add_resource({.uri = "x://plain", .name = "plain"}, context_text_reader());
  srv.add_resource({.uri = "x://mine", .name = "mine", .cache = {.ttl_ms = 0, .scope = "private"}},
                   context_text_reader());
  srv.add_resource_template(
      {.uri_template = "x://t/{id}", .name = "t", .cache = {.ttl_ms = 250}},
      [](const std::string& uri, const std::map<std::string, std::string>&, request_context&) {
        return std::vector<resource_contents>{{.uri = uri, .text = "t"}};
      });
  harness h(srv);
  json plain = h.roundtrip(modern_request(1, "resources/read", {{"uri", "x://plain"}}))["result"];
  EXPECT_EQ(plain["ttlMs"], 60000);
  EXPECT_EQ(plain["cacheScope"], "public");
  json mine = h.roundtrip(modern_request(2, "resources/read", {{"uri", "x://mine"}}))["result"];
  EXPECT_EQ(mine["ttlMs"], 0);
  EXPECT_EQ(mine["cacheScope"], "private");
  json t = h.roundtrip(modern_request(3, "resources/read", {{"uri", "x://t/7"}}))["result"];
  EXPECT_EQ(t["ttlMs"], 250);
  json list = h.roundtrip(modern_request(4, "resources/list"))["result"];
  EXPECT_EQ(list["ttlMs"], 0);
  EXPECT_EQ(list["cacheScope"], "private");
  json templates = h.roundtrip(modern_request(5, "resources/templates/list"))["result"];
  EXPECT_EQ(templates["ttlMs"], 250);
  EXPECT_EQ(templates["cacheScope"], "public");
}

TEST(request_context_test, bad_cache_hints_are_refused_at_registration) {
  server srv(captured_log{}.options());
  EXPECT_THROW(srv.add_tool({.name = "t", .cache = {.ttl_ms = -1}}, noop_handler()),
               std::invalid_argument);
  EXPECT_THROW(srv.add_tool({.name = "t", .cache = {.scope = "shared"}}, noop_handler()),
               std::invalid_argument);
  EXPECT_THROW(srv.add_resource({.uri = "x://a", .name = "a", .cache = {.ttl_ms = -5}},
                                context_text_reader()),
               std::invalid_argument);
  EXPECT_THROW(srv.add_prompt({.name = "p", .cache = {.scope = "Private"}},
                              [](const std::map<std::string, std::string>&, request_context&) {
                                return prompt_result{};
                              }),
               std::invalid_argument);
  try {
    srv.add_tool({.name = "t", .cache = {.ttl_ms = -1}}, noop_handler());
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tool 't'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(">= 0"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(srv.capabilities().is_object());
  EXPECT_FALSE(srv.capabilities().contains("tools")) << "nothing was registered";
  auto o = captured_log{}.options();
  o.cache_scope = "everyone";
  EXPECT_THROW(server{o}, std::invalid_argument);
  o.cache_scope = "public";
  o.list_ttl_ms = -1;
  EXPECT_THROW(server{o}, std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::testing

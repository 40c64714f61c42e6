// MCP Apps helpers (mcpcxx/apps.hpp): UI resources on the wire, every registration refusal, the
// tool link, and the client's support in both eras.
#include "mcpcxx/apps.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

const char* const k_page = "<!DOCTYPE html><html><body><p>board</p></body></html>";

apps::ui_resource board() { return {.uri = "ui://issues/board", .name = "board", .html = k_page}; }

// The message of the std::invalid_argument `f` throws; fails the test when it throws none.
template <typename F>
std::string refusal_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument thrown";
  return "";
}

std::string resource_refusal(apps::ui_resource r) {
  server srv(captured_log{}.options());
  return refusal_of([&] { apps::add_ui_resource(srv, std::move(r)); });
}

TEST(apps_test, ui_resource_is_listed_and_read_with_its_mime_type_and_meta) {
  server srv(captured_log{}.options());
  apps::ui_resource r = board();
  r.csp = apps::csp{.connect_domains = {"https://api.example.com", "wss://live.example.com:8443"},
                    .resource_domains = {"https://*.cdn.example.com"}};
  r.permissions = {"clipboardWrite"};
  r.domain = "abc123.claudemcpcontent.com";
  r.prefers_border = true;
  apps::add_ui_resource(srv, r);
  const json ui = {{"csp",
                    {{"connectDomains", {"https://api.example.com", "wss://live.example.com:8443"}},
                     {"resourceDomains", {"https://*.cdn.example.com"}}}},
                   {"permissions", {{"clipboardWrite", json::object()}}},
                   {"domain", "abc123.claudemcpcontent.com"},
                   {"prefersBorder", true}};
  harness h(srv);
  json listed = h.roundtrip(modern_request(1, "resources/list"))["result"]["resources"][0];
  EXPECT_EQ(listed["uri"], "ui://issues/board");
  EXPECT_EQ(listed["mimeType"], "text/html;profile=mcp-app");
  EXPECT_EQ(listed["_meta"]["ui"], ui);
  json read = h.roundtrip(modern_request(2, "resources/read", {{"uri", "ui://issues/board"}}));
  json item = read["result"]["contents"][0];
  EXPECT_EQ(item["text"], k_page);
  EXPECT_EQ(item["mimeType"], "text/html;profile=mcp-app");
  EXPECT_EQ(item["_meta"]["ui"], ui);
}

TEST(apps_test, the_extension_is_declared_once_in_both_eras) {
  server srv(captured_log{}.options());
  apps::add_ui_resource(srv, board());
  apps::ui_resource second = board();
  second.uri = "ui://issues/detail";
  apps::add_ui_resource(srv, second);  // already declared: no second declaration, no throw
  harness h(srv);
  json d = h.roundtrip(modern_request(1, "server/discover"))["result"];
  EXPECT_EQ(d["capabilities"]["extensions"],
            json({{"io.modelcontextprotocol/ui", json::object()}}));
  json init = harness(srv).initialize()["result"];
  EXPECT_EQ(init["capabilities"]["extensions"], d["capabilities"]["extensions"]);
}

TEST(apps_test, a_resource_without_meta_ui_carries_no_meta) {
  server srv(captured_log{}.options());
  apps::add_ui_resource(srv, board());
  harness h(srv);
  json listed = h.roundtrip(modern_request(1, "resources/list"))["result"]["resources"][0];
  EXPECT_FALSE(listed.contains("_meta")) << listed.dump();
}

TEST(apps_test, html_is_read_from_a_file_at_registration) {
  const auto path = std::filesystem::temp_directory_path() / "mcpcxx_apps_test_board.html";
  std::ofstream(path) << k_page;
  server srv(captured_log{}.options());
  apps::add_ui_resource(srv, {.uri = "ui://issues/board", .html_file = path.string()});
  std::filesystem::remove(path);  // read once at registration: the file is no longer needed
  harness h(srv);
  json read = h.roundtrip(modern_request(1, "resources/read", {{"uri", "ui://issues/board"}}));
  EXPECT_EQ(read["result"]["contents"][0]["text"], k_page);
}

TEST(apps_test, non_ui_uris_are_refused_naming_the_uri_and_the_scheme_to_use) {
  apps::ui_resource r = board();
  r.uri = "https://example.com/board";
  const std::string msg = resource_refusal(r);
  EXPECT_NE(msg.find("'https://example.com/board'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must use the ui:// scheme"), std::string::npos) << msg;
  r.uri = "ui://";
  EXPECT_NE(resource_refusal(r).find("must name a resource after ui://"), std::string::npos);
  r.uri = "ui://issues board";
  EXPECT_NE(resource_refusal(r).find("no whitespace"), std::string::npos);
}

TEST(apps_test, missing_blank_doubled_unreadable_and_non_utf8_html_are_refused) {
  apps::ui_resource r = board();
  r.html.clear();
  EXPECT_NE(resource_refusal(r).find("has no HTML: give the document as html or its path"),
            std::string::npos);
  r.html = "  \n";
  EXPECT_NE(resource_refusal(r).find("its html is blank"), std::string::npos);
  r.html = k_page;
  r.html_file = "/tmp/x.html";
  EXPECT_NE(resource_refusal(r).find("has both html and html_file"), std::string::npos);
  r.html.clear();
  r.html_file = "/nonexistent/mcpcxx/board.html";
  const std::string msg = resource_refusal(r);
  EXPECT_NE(msg.find("cannot read html_file '/nonexistent/mcpcxx/board.html': No such file"),
            std::string::npos)
      << msg;
  r.html_file.clear();
  r.html = "<html>\xff\xfe</html>";
  EXPECT_NE(resource_refusal(r).find("its html is not UTF-8 text"), std::string::npos);
}

TEST(apps_test, csp_entries_that_are_not_origins_are_refused_naming_the_field) {
  struct row {
    std::string value;
    std::string because;
  };
  const std::vector<row> rows = {
      {"api.example.com", "is not an origin: write scheme://host[:port]"},
      {"ftp://files.example.com", "has scheme 'ftp': use http, https, ws or wss"},
      {"https://cdn.example.com/lib/", "has a path, query or fragment"},
      {"https://user@example.com", "has user information"},
      {"https://example.com:0", "has a port outside 1-65535"},
      {"https://example.com:70000", "has a port outside 1-65535"},
      {"https://exa_mple.com", "has host 'exa_mple.com'"},
      {"https://a.*.example.com", "has host 'a.*.example.com'"},
      {"*", "is a CSP keyword, not an origin"},
      {"'self'", "is a CSP keyword, not an origin"},
  };
  for (const row& x : rows) {
    apps::ui_resource r = board();
    r.csp = apps::csp{.frame_domains = {"https://www.youtube.com", x.value}};
    const std::string msg = resource_refusal(r);
    EXPECT_NE(msg.find("_meta.ui.csp.frameDomains[1] '" + x.value + "' " + x.because),
              std::string::npos)
        << msg;
  }
  apps::ui_resource ok = board();
  ok.csp = apps::csp{
      .connect_domains = {"http://localhost:3000", "https://[::1]:8443", "http://127.0.0.1"},
      .base_uri_domains = {"https://cdn.example.com"}};
  EXPECT_NO_THROW(apps::resource_ui_meta(ok));
}

TEST(apps_test, unknown_or_repeated_permissions_and_bad_domains_are_refused) {
  apps::ui_resource r = board();
  r.permissions = {"camera", "usb"};
  EXPECT_NE(resource_refusal(r).find("_meta.ui.permissions has 'usb', which the extension does "
                                     "not define: use camera, microphone, geolocation or "
                                     "clipboardWrite"),
            std::string::npos);
  r.permissions = {"camera", "camera"};
  EXPECT_NE(resource_refusal(r).find("lists 'camera' twice"), std::string::npos);
  r.permissions = {"camera", "microphone", "geolocation", "clipboardWrite"};
  r.domain = "";
  EXPECT_NE(resource_refusal(r).find("_meta.ui.domain '' is empty"), std::string::npos);
  r.domain = "a b.example.com";
  EXPECT_NE(resource_refusal(r).find("contains whitespace or control characters"),
            std::string::npos);
}

TEST(apps_test, a_uri_registered_twice_is_refused) {
  server srv(captured_log{}.options());
  apps::add_ui_resource(srv, board());
  EXPECT_FALSE(refusal_of([&] { apps::add_ui_resource(srv, board()); }).empty());
}

tool_handler board_handler() {
  return [](const json&, request_context&) { return tool_result::text("4 issues"); };
}

TEST(apps_test, a_linked_tool_lists_the_link_the_legacy_key_and_its_visibility) {
  server srv(captured_log{}.options());
  apps::add_ui_resource(srv, board());
  apps::add_ui_tool(srv, {.name = "show_board", .meta = {{"com.example/x", 1}}},
                    {.resource_uri = "ui://issues/board", .visibility = {"model", "app"}},
                    board_handler());
  apps::add_ui_tool(srv, {.name = "refresh_board"}, {.resource_uri = "ui://issues/board"},
                    board_handler());
  harness h(srv);
  json tools = h.roundtrip(modern_request(1, "tools/list"))["result"]["tools"];
  json show = tools[0]["name"] == "show_board" ? tools[0] : tools[1];
  json refresh = tools[0]["name"] == "show_board" ? tools[1] : tools[0];
  EXPECT_EQ(show["_meta"],
            json({{"com.example/x", 1},
                  {"ui", {{"resourceUri", "ui://issues/board"}, {"visibility", {"model", "app"}}}},
                  {"ui/resourceUri", "ui://issues/board"}}));
  EXPECT_EQ(refresh["_meta"], json({{"ui", {{"resourceUri", "ui://issues/board"}}},
                                    {"ui/resourceUri", "ui://issues/board"}}));
}

TEST(apps_test, links_to_unregistered_or_non_ui_resources_and_bad_visibility_are_refused) {
  server srv(captured_log{}.options());
  auto link = [&](apps::tool_ui ui) {
    return refusal_of([&] { apps::add_ui_tool(srv, {.name = "show_board"}, ui, board_handler()); });
  };
  std::string msg = link({.resource_uri = "ui://issues/board"});
  EXPECT_NE(msg.find("tool 'show_board' links UI resource 'ui://issues/board', which is not "
                     "registered on this server: register it first"),
            std::string::npos)
      << msg;
  apps::add_ui_resource(srv, board());
  msg = link({.resource_uri = "issues://board"});
  EXPECT_NE(msg.find("tool 'show_board': the linked UI resource URI 'issues://board' must use the "
                     "ui:// scheme"),
            std::string::npos)
      << msg;
  msg = link({.resource_uri = "ui://issues/board", .visibility = {"model", "user"}});
  EXPECT_NE(msg.find("tool 'show_board': _meta.ui.visibility has 'user': use \"model\""),
            std::string::npos)
      << msg;
  msg = link({.resource_uri = "ui://issues/board", .visibility = {"app", "app"}});
  EXPECT_NE(msg.find("lists 'app' twice"), std::string::npos) << msg;
  msg = refusal_of([&] {
    apps::add_ui_tool(srv, {.name = "show_board", .meta = {{"ui", "board"}}},
                      {.resource_uri = "ui://issues/board"}, board_handler());
  });
  EXPECT_NE(msg.find("_meta.ui must be an object to carry the UI link, got string"),
            std::string::npos)
      << msg;
  harness h(srv);
  EXPECT_TRUE(h.roundtrip(modern_request(1, "tools/list"))["result"]["tools"].empty())
      << "a refused link registers nothing";
}

// A tool answering with what apps::client_mime_types and client_supports_apps say.
void add_support_probe(server& srv) {
  srv.add_tool({.name = "apps_probe"}, [](const json&, request_context& ctx) {
    return tool_result::structured(
        {{"types", apps::client_mime_types(ctx)}, {"supports", apps::client_supports_apps(ctx)}});
  });
}

json probe_modern(harness& h, json extensions) {
  json meta = modern_meta();
  meta["io.modelcontextprotocol/clientCapabilities"] = {{"extensions", std::move(extensions)}};
  json msg = {{"jsonrpc", "2.0"},
              {"id", 7},
              {"method", "tools/call"},
              {"params", {{"name", "apps_probe"}, {"_meta", meta}}}};
  return h.roundtrip(msg.dump())["result"]["structuredContent"];
}

TEST(apps_test, modern_support_comes_from_the_requests_client_capabilities) {
  server srv(captured_log{}.options());
  add_support_probe(srv);
  harness h(srv);
  json yes = probe_modern(
      h, {{"io.modelcontextprotocol/ui", {{"mimeTypes", {"text/html;profile=mcp-app"}}}}});
  EXPECT_EQ(yes, json({{"types", {"text/html;profile=mcp-app"}}, {"supports", true}}));
  json other = probe_modern(h, {{"io.modelcontextprotocol/ui", {{"mimeTypes", {"text/x-rml"}}}}});
  EXPECT_EQ(other, json({{"types", {"text/x-rml"}}, {"supports", false}}));
  json none = probe_modern(h, json::object());
  EXPECT_EQ(none, json({{"types", json::array()}, {"supports", false}}));
  json malformed = probe_modern(h, {{"io.modelcontextprotocol/ui", {{"mimeTypes", "text/html"}}}});
  EXPECT_EQ(malformed["supports"], false);
}

TEST(apps_test, legacy_support_comes_from_initialize) {
  server srv(captured_log{}.options());
  add_support_probe(srv);
  harness h(srv);
  json ui = {{"io.modelcontextprotocol/ui", {{"mimeTypes", {"text/html;profile=mcp-app"}}}}};
  h.roundtrip(request(0, "initialize",
                      {{"protocolVersion", "2025-11-25"},
                       {"capabilities", {{"extensions", ui}}},
                       {"clientInfo", {{"name", "host"}, {"version", "1"}}}}));
  json seen = h.roundtrip(request(1, "tools/call", {{"name", "apps_probe"}}));
  EXPECT_EQ(seen["result"]["structuredContent"]["supports"], true) << seen.dump();
  harness plain(srv);
  plain.initialize();
  json not_declared = plain.roundtrip(request(1, "tools/call", {{"name", "apps_probe"}}));
  EXPECT_EQ(not_declared["result"]["structuredContent"]["supports"], false);
}

}  // namespace
}  // namespace mcpcxx::testing

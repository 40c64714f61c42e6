// request_context::read_resource: a handler reads the server's own resources and templates
// through the engine (same readers, same context); an unknown URI is resource_not_found.
#include <string>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

class read_resource_test : public ::testing::Test {
 protected:
  server srv{captured_log{}.options()};
  void SetUp() override {
    srv.add_resource({.uri = "docs://readme", .name = "readme"},
                     [](const std::string& uri, request_context& ctx) {
                       // The reader runs with the calling request's context.
                       const std::string id = ctx.request_id().dump();
                       return std::vector<resource_contents>{
                           {.uri = uri, .mime_type = "text/plain", .text = "readme of " + id}};
                     });
    srv.add_resource_template(
        {.uri_template = "issues://{key}", .name = "issue"},
        [](const std::string& uri, const std::map<std::string, std::string>& vars,
           request_context&) {
          if (vars.at("key") == "gone") return std::vector<resource_contents>{};
          return std::vector<resource_contents>{{.uri = uri, .blob_base64 = "AAE="}};
        });
    srv.add_tool({.name = "read"}, [](const json& args, request_context& ctx) {
      return tool_result::structured(
          {{"contents", ctx.read_resource(args.at("uri").get<std::string>())}});
    });
    srv.add_tool({.name = "read_or_default"}, [](const json& args, request_context& ctx) {
      try {
        return tool_result::text(ctx.read_resource(args.at("uri").get<std::string>()).dump());
      } catch (const resource_not_found& e) {
        return tool_result::text("no " + e.uri());
      }
    });
  }
  json call(harness& h, const std::string& tool, const std::string& uri) {
    return h.roundtrip(
        modern_request(7, "tools/call", {{"name", tool}, {"arguments", {{"uri", uri}}}}));
  }
};

TEST_F(read_resource_test, reads_a_concrete_resource_with_the_callers_context) {
  harness h(srv);
  json r = call(h, "read", "docs://readme");
  ASSERT_FALSE(r["result"].contains("isError")) << r.dump();
  EXPECT_EQ(
      r["result"]["structuredContent"]["contents"],
      json::parse(R"([{"uri":"docs://readme","mimeType":"text/plain","text":"readme of 7"}])"));
}

TEST_F(read_resource_test, reads_through_a_template) {
  harness h(srv);
  json r = call(h, "read", "issues://ENG-1");
  EXPECT_EQ(r["result"]["structuredContent"]["contents"],
            json::parse(R"([{"uri":"issues://ENG-1","blob":"AAE="}])"));
}

TEST_F(read_resource_test, unknown_uri_is_resource_not_found) {
  harness h(srv);
  EXPECT_EQ(call(h, "read_or_default", "docs://nope")["result"]["content"][0]["text"],
            "no docs://nope");
  // A reader with no contents is not found too, never an empty read.
  EXPECT_EQ(call(h, "read_or_default", "issues://gone")["result"]["content"][0]["text"],
            "no issues://gone");
}

TEST_F(read_resource_test, uncaught_not_found_is_the_tools_not_found_result) {
  harness h(srv);
  h.initialize();
  json r = h.roundtrip(
      request(2, "tools/call", {{"name", "read"}, {"arguments", {{"uri", "docs://nope"}}}}));
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["_meta"]["mcpcxx/error"]["category"], "not_found");
}

TEST(read_resource_context, without_the_engine_hook_every_uri_is_not_found) {
  request_context ctx(1, "2026-07-28", nullptr, json::object(), std::nullopt, std::nullopt,
                      cancellation_token{}, context_hooks{});
  EXPECT_THROW(ctx.read_resource("docs://readme"), resource_not_found);
}

}  // namespace
}  // namespace mcpcxx::testing

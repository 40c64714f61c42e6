// Registries: validation at registration, order, pagination, cache invalidation, list_changed.
#include "engine/registry.hpp"

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

tool_handler noop() {
  return [](const json&, request_context&) { return tool_result::text("ok"); };
}

TEST(registry_test, tool_names_are_validated_at_registration) {
  server srv(captured_log{}.options());
  EXPECT_THROW(srv.add_tool({.name = ""}, noop()), std::invalid_argument);
  EXPECT_THROW(srv.add_tool({.name = "has space"}, noop()), std::invalid_argument);
  EXPECT_THROW(srv.add_tool({.name = std::string(65, 'a')}, noop()), std::invalid_argument);
  EXPECT_THROW(srv.add_tool({.name = "slash/name"}, noop()), std::invalid_argument);
  EXPECT_NO_THROW(srv.add_tool({.name = std::string(64, 'a')}, noop()));
  EXPECT_NO_THROW(srv.add_tool({.name = "a.b-c_D9"}, noop()));
  EXPECT_THROW(srv.add_tool({.name = "a.b-c_D9"}, noop()), std::invalid_argument);
}

TEST(registry_test, schemas_that_do_not_compile_fail_at_registration) {
  server srv(captured_log{}.options());
  EXPECT_THROW(
      srv.add_tool({.name = "t", .input_schema = {{"type", "object"}, {"minimum", "x"}}}, noop()),
      std::exception);
  EXPECT_THROW(
      srv.add_tool({.name = "t2", .input_schema = {{"$ref", "https://example.com/s.json"}}},
                   noop()),
      std::exception);
  EXPECT_THROW(srv.add_tool({.name = "t3", .input_schema = json::array()}, noop()),
               std::invalid_argument);
  EXPECT_THROW(
      srv.add_resource_template({.uri_template = "x://{a", .name = "n"},
                                [](const std::string&, const std::map<std::string, std::string>&,
                                   request_context&) { return std::vector<resource_contents>{}; }),
      std::invalid_argument);
}

TEST(registry_test, pages_follow_registration_order_with_opaque_cursors) {
  auto o = captured_log{}.options();
  o.page_size = 2;
  server srv(o);
  for (const char* n : {"e", "d", "c", "b", "a"}) srv.add_tool({.name = n}, noop());
  harness h(srv);
  std::vector<std::string> names;
  std::optional<std::string> cursor;
  int id = 1;
  do {
    json p = json::object();
    if (cursor) p["cursor"] = *cursor;
    json r = h.roundtrip(modern_request(id++, "tools/list", p))["result"];
    for (const auto& t : r["tools"]) names.push_back(t["name"]);
    cursor = r.contains("nextCursor") ? std::optional<std::string>(r["nextCursor"]) : std::nullopt;
    if (cursor) {
      EXPECT_EQ(cursor->find(':'), std::string::npos) << "cursor must be opaque";
    }
  } while (cursor && id < 10);
  EXPECT_EQ(names, (std::vector<std::string>{"e", "d", "c", "b", "a"}));
}

TEST(registry_test, invalid_cursors_are_invalid_params) {
  server srv(captured_log{}.options());
  srv.add_tool({.name = "a"}, noop());
  harness h(srv);
  for (const json& c :
       {json("garbage!"), json(""), json(42), json(detail::encode_cursor(0, "zzz"))}) {
    json r = h.roundtrip(modern_request(1, "tools/list", {{"cursor", c}}));
    EXPECT_EQ(r["error"]["code"], -32602) << c.dump();
  }
}

TEST(registry_test, cached_lists_are_invalidated_and_legacy_sessions_notified) {
  server srv(captured_log{}.options());
  srv.add_tool({.name = "a"}, noop());
  harness h(srv);
  h.initialize();
  EXPECT_EQ(h.roundtrip(request(1, "tools/list"))["result"]["tools"].size(), 1u);
  h.sink->clear();
  srv.add_tool({.name = "b"}, noop());
  auto frames = h.sink->wait_for(1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].frame["method"], "notifications/tools/list_changed");
  EXPECT_EQ(h.roundtrip(request(2, "tools/list"))["result"]["tools"].size(), 2u);
  EXPECT_TRUE(srv.remove_tool("a"));
  EXPECT_FALSE(srv.remove_tool("a"));
  EXPECT_EQ(h.roundtrip(request(3, "tools/list"))["result"]["tools"][0]["name"], "b");
}

// Template matching itself is tested in uri_template_test.cpp.

TEST(registry_test, resources_templates_prompts_and_not_found_per_era) {
  server srv(captured_log{}.options());
  srv.add_resource({.uri = "memo://a", .name = "a", .mime_type = "text/plain"},
                   [](const std::string& uri, request_context&) {
                     return std::vector<resource_contents>{{uri, "text/plain", "A", {}, nullptr}};
                   });
  srv.add_resource_template({.uri_template = "item://{id}", .name = "item"},
                            [](const std::string& uri, const std::map<std::string, std::string>& v,
                               request_context&) -> std::vector<resource_contents> {
                              if (v.at("id") == "gone") throw resource_not_found(uri);
                              return {{uri, std::nullopt, "item " + v.at("id"), {}, nullptr}};
                            });
  harness h(srv);
  json r = h.roundtrip(modern_request(1, "resources/read", {{"uri", "item://7"}}))["result"];
  EXPECT_EQ(r["contents"][0]["text"], "item 7");
  EXPECT_EQ(r["ttlMs"], 60000);
  EXPECT_EQ(
      h.roundtrip(modern_request(2, "resources/read", {{"uri", "nope://x"}}))["error"]["code"],
      -32602);
  EXPECT_EQ(
      h.roundtrip(modern_request(3, "resources/read", {{"uri", "item://gone"}}))["error"]["code"],
      -32602);
  harness l(srv);
  l.initialize();
  json nf = l.roundtrip(request(4, "resources/read", {{"uri", "nope://x"}}));
  EXPECT_EQ(nf["error"]["code"], -32002);
  EXPECT_EQ(nf["error"]["data"]["uri"], "nope://x");
  EXPECT_EQ(l.roundtrip(request(5, "resources/subscribe", {{"uri", "memo://a"}}))["result"],
            json::object());
  l.sink->clear();
  srv.notify_resource_updated("memo://a");
  auto frames = l.sink->wait_for(1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].frame["method"], "notifications/resources/updated");
}

TEST(registry_test, prompts_check_required_arguments_and_completion_caps_values) {
  server srv(captured_log{}.options());
  srv.add_prompt({.name = "p", .arguments = {{.name = "x", .required = true}}},
                 [](const std::map<std::string, std::string>& a, request_context&) {
                   prompt_result r;
                   r.messages = json::array(
                       {{{"role", "user"}, {"content", {{"type", "text"}, {"text", a.at("x")}}}}});
                   return r;
                 });
  srv.set_completion_handler([](const completion_request&, request_context&) {
    completion_result r;
    for (int i = 0; i < 150; ++i) r.values.push_back(std::to_string(i));
    return r;
  });
  harness h(srv);
  EXPECT_EQ(h.roundtrip(modern_request(
                1, "prompts/get",
                {{"name", "p"},
                 {"arguments", {{"x", "hi"}}}}))["result"]["messages"][0]["content"]["text"],
            "hi");
  json miss = h.roundtrip(modern_request(2, "prompts/get", {{"name", "p"}}));
  EXPECT_EQ(miss["error"]["code"], -32602);
  EXPECT_EQ(miss["error"]["data"]["missing"][0], "x");
  EXPECT_EQ(h.roundtrip(modern_request(3, "prompts/get", {{"name", "q"}}))["error"]["message"],
            "Unknown prompt: q");
  json bad =
      h.roundtrip(modern_request(4, "prompts/get", {{"name", "p"}, {"arguments", {{"x", 1}}}}));
  EXPECT_EQ(bad["error"]["code"], -32602);
  json c = h.roundtrip(modern_request(5, "completion/complete",
                                      {{"ref", {{"type", "ref/prompt"}, {"name", "p"}}},
                                       {"argument", {{"name", "x"}, {"value", ""}}}}));
  EXPECT_EQ(c["result"]["completion"]["values"].size(), 100u);
  EXPECT_EQ(c["result"]["completion"]["hasMore"], true);
  EXPECT_EQ(h.roundtrip(modern_request(6, "completion/complete", {{"ref", "p"}}))["error"]["code"],
            -32602);
}

}  // namespace
}  // namespace mcpcxx::testing

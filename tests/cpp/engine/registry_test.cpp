// Registries: validation at registration, order, pagination, cache invalidation, list_changed.
#include "registry/registry.hpp"

#include <random>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

tool_handler noop_tool() {
  return [](const json&, request_context&) { return tool_result::text("ok"); };
}

TEST(registry_test, tool_names_are_validated_at_registration) {
  server srv(captured_log{}.options());
  EXPECT_THROW(srv.add_tool({.name = ""}, noop_tool()), std::invalid_argument);
  EXPECT_THROW(srv.add_tool({.name = "has space"}, noop_tool()), std::invalid_argument);
  EXPECT_THROW(srv.add_tool({.name = std::string(65, 'a')}, noop_tool()), std::invalid_argument);
  EXPECT_THROW(srv.add_tool({.name = "slash/name"}, noop_tool()), std::invalid_argument);
  EXPECT_NO_THROW(srv.add_tool({.name = std::string(64, 'a')}, noop_tool()));
  EXPECT_NO_THROW(srv.add_tool({.name = "a.b-c_D9"}, noop_tool()));
  EXPECT_THROW(srv.add_tool({.name = "a.b-c_D9"}, noop_tool()), std::invalid_argument);
}

TEST(registry_test, schemas_that_do_not_compile_fail_at_registration) {
  server srv(captured_log{}.options());
  EXPECT_THROW(srv.add_tool({.name = "t", .input_schema = {{"type", "object"}, {"minimum", "x"}}},
                            noop_tool()),
               std::exception);
  EXPECT_THROW(
      srv.add_tool({.name = "t2", .input_schema = {{"$ref", "https://example.com/s.json"}}},
                   noop_tool()),
      std::exception);
  EXPECT_THROW(srv.add_tool({.name = "t3", .input_schema = json::array()}, noop_tool()),
               std::invalid_argument);
  EXPECT_THROW(
      srv.add_resource_template({.uri_template = "x://{a", .name = "n"},
                                [](const std::string&, const std::map<std::string, std::string>&,
                                   request_context&) { return std::vector<resource_contents>{}; }),
      std::invalid_argument);
}

// The message of the refusal registering `property` (the schema of property "p", or of the
// whole properties map when it is an object of properties) as tool "route"; "" when accepted.
std::string header_refusal(const json& properties) {
  server srv(captured_log{}.options());
  try {
    srv.add_tool(
        {.name = "route", .input_schema = {{"type", "object"}, {"properties", properties}}},
        noop_tool());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

json header(const json& type, const json& name) {
  json p = {{"x-mcp-header", name}};
  if (!type.is_null()) p["type"] = type;
  return p;
}

// SEP-2243: a 2026-07-28 client drops a tool with a bad x-mcp-header, so registration refuses
// it, naming the tool, the property and the rule.
TEST(registry_test, invalid_x_mcp_header_declarations_are_refused_at_registration) {
  EXPECT_EQ(
      header_refusal(
          {{"region", header("string", "Region")},
           {"count", header("integer", "Count")},
           {"dry", header("boolean", "Dry-Run")},
           {"filter", {{"type", "object"}, {"properties", {{"zone", header("string", "Zone")}}}}}}),
      "");
  const auto refused = [](const json& properties, std::string_view property,
                          std::string_view rule) {
    const std::string m = header_refusal(properties);
    EXPECT_NE(m.find("tool 'route' inputSchema"), std::string::npos) << m;
    EXPECT_NE(m.find(property), std::string::npos) << m;
    EXPECT_NE(m.find(rule), std::string::npos) << m;
  };
  refused({{"ratio", header("number", "Ratio")}}, "property 'ratio'",
          R"(needs "type": "string", "integer" or "boolean", got "number")");
  refused({{"region",
            {{"anyOf", {{{"type", "string"}}, {{"type", "null"}}}},
             {"default", nullptr},
             {"x-mcp-header", "Region"}}}},
          "property 'region'", "optional value (Optional[str], str | None)");
  refused({{"region", header(json::array({"string", "null"}), "Region")}}, "property 'region'",
          R"(got ["string","null"])");
  refused({{"region", header(nullptr, "Region")}}, "property 'region'", "got no type");
  refused({{"region", header("string", "Re gion")}}, "property 'region'",
          "is not an HTTP header token");
  refused({{"region", header("string", "Région")}}, "property 'region'",
          "is not an HTTP header token");
  refused({{"region", header("string", "")}}, "property 'region'", "x-mcp-header is empty");
  refused({{"region", header("string", 7)}}, "property 'region'", "must be a string");
  refused({{"a", header("string", "Region")}, {"b", header("string", "REGION")}}, "property 'b'",
          "repeats the one of property 'a'");
  refused({{"outer", {{"type", "object"}, {"properties", {{"inner", header("number", "X")}}}}}},
          "property 'outer/inner'", "got \"number\"");
  refused({{"list", {{"type", "array"}, {"items", header("string", "Item")}}}},
          "at '/properties/list/items'", "reached from the root through \"properties\" alone");
  refused({{"pick", {{"anyOf", {header("string", "Pick")}}}}}, "at '/properties/pick/anyOf/0'",
          "through \"properties\" alone");
  // Instance data is not schema: a default or an enum value may hold the key.
  EXPECT_EQ(header_refusal({{"cfg", {{"type", "object"}, {"default", {{"x-mcp-header", 1}}}}}}),
            "");
  server srv(captured_log{}.options());
  EXPECT_THROW(
      srv.add_tool({.name = "root", .input_schema = {{"type", "object"}, {"x-mcp-header", "Root"}}},
                   noop_tool()),
      std::invalid_argument);
  EXPECT_THROW(srv.add_tool({.name = "defs",
                             .input_schema = {{"type", "object"},
                                              {"$defs", {{"r", header("string", "R")}}}}},
                            noop_tool()),
               std::invalid_argument);
  EXPECT_FALSE(srv.tool_input_schema("root")) << "a refused tool is not registered";
}

TEST(registry_test, pages_follow_registration_order_with_opaque_cursors) {
  auto o = captured_log{}.options();
  o.page_size = 2;
  server srv(o);
  for (const char* n : {"e", "d", "c", "b", "a"}) srv.add_tool({.name = n}, noop_tool());
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
  srv.add_tool({.name = "a"}, noop_tool());
  harness h(srv);
  for (const json& c :
       {json("garbage!"), json(""), json(42), json(detail::encode_cursor(0, "zzz"))}) {
    json r = h.roundtrip(modern_request(1, "tools/list", {{"cursor", c}}));
    EXPECT_EQ(r["error"]["code"], -32602) << c.dump();
  }
}

TEST(registry_test, cached_lists_are_invalidated_and_legacy_sessions_notified) {
  server srv(captured_log{}.options());
  srv.add_tool({.name = "a"}, noop_tool());
  harness h(srv);
  h.initialize();
  EXPECT_EQ(h.roundtrip(request(1, "tools/list"))["result"]["tools"].size(), 1u);
  h.sink->clear();
  srv.add_tool({.name = "b"}, noop_tool());
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

namespace mcpcxx::detail {
namespace {

// The plain definition closest_keys must agree with: full Levenshtein distance, a substring
// relation counts as distance 1, kept when within max(2, key length / 2), stable by distance.
std::vector<std::string> closest_reference(std::string_view name,
                                           const std::vector<std::string>& keys, std::size_t max) {
  const std::string_view p = name.substr(0, 128);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& k : keys) {
    std::vector<std::size_t> prev(k.size() + 1), cur(k.size() + 1);
    for (std::size_t j = 0; j <= k.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= p.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= k.size(); ++j) {
        cur[j] =
            std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (p[i - 1] == k[j - 1] ? 0 : 1)});
      }
      std::swap(prev, cur);
    }
    std::size_t d = prev[k.size()];
    if (k.find(p) != std::string::npos || p.find(k) != std::string::npos)
      d = std::min<std::size_t>(d, 1);
    if (d <= std::max<std::size_t>(2, k.size() / 2)) scored.emplace_back(d, k);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

TEST(ClosestKeys, TheBoundedSearchAgreesWithThePlainDefinition) {
  const std::vector<std::string> keys = {"echo",
                                         "echo_fail",
                                         "echo_explode",
                                         "count",
                                         "counter",
                                         "get_issue",
                                         "list_issues",
                                         "test_simple_text",
                                         "test_image_content",
                                         "test_error_handling",
                                         "a",
                                         "ab",
                                         "xyz",
                                         "test_tool_with_progress",
                                         "test_tool_with_logging",
                                         "search_docs",
                                         "search"};
  const std::vector<std::string> probes = {"ecko",
                                           "echo_fial",
                                           "cont",
                                           "countr",
                                           "get_issues",
                                           "list_issue",
                                           "test_simple_txt",
                                           "test_image",
                                           "error",
                                           "b",
                                           "x",
                                           "search_doc",
                                           "sea",
                                           "totally_unrelated_name",
                                           "test_tool_with_progres",
                                           "",
                                           std::string(300, 'e'),
                                           "echoecho",
                                           "ECHO",
                                           "tool"};
  for (const auto& p : probes) {
    for (std::size_t max : {1u, 3u, 20u}) {
      EXPECT_EQ(closest_keys(p, keys, max), closest_reference(p, keys, max)) << p << " " << max;
    }
  }
}

// Random names over a small alphabet (so that distances are small and suggestions many), with
// keys and probes on both sides of the 64-character word the bit-parallel distance works in.
TEST(ClosestKeys, RandomNamesAgreeWithThePlainDefinition) {
  std::mt19937 rng(20261205);
  const std::string alphabet = "ab_c";
  auto random_name = [&](std::size_t max_len) {
    std::string s(std::uniform_int_distribution<std::size_t>(0, max_len)(rng), 'a');
    for (char& c : s) c = alphabet[std::uniform_int_distribution<std::size_t>(0, 3)(rng)];
    return s;
  };
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> keys;
    keys.reserve(12);
    for (int i = 0; i < 12; ++i) keys.push_back(random_name(round % 3 == 0 ? 90 : 20));
    const std::string probe = random_name(round % 5 == 0 ? 150 : 24);
    ASSERT_EQ(closest_keys(probe, keys, 5), closest_reference(probe, keys, 5))
        << "probe " << probe << " round " << round;
  }
}

}  // namespace
}  // namespace mcpcxx::detail
